package maintenance

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// FuzzWindow decodes maintenance windows as AKS serves them
// (maintenanceConfigurations' maintenanceWindow) and asks for their state:
// no panic; an occurrence Next returns is a non-empty interval that has not
// closed yet; State agrees with it; an invalid window is an error that says why.
func FuzzWindow(f *testing.F) {
	for _, s := range []string{
		`{"schedule":{"weekly":{"intervalWeeks":1,"dayOfWeek":"Saturday"}},"durationHours":4,"startTime":"00:00","utcOffset":"+05:30"}`,
		`{"schedule":{"daily":{"intervalDays":1}},"durationHours":24,"startTime":"22:00","startDate":"2026-11-01","notAllowedDates":[{"start":"2026-11-20","end":"2026-12-31"}]}`,
		`{"schedule":{"absoluteMonthly":{"intervalMonths":1,"dayOfMonth":31}},"durationHours":6,"startTime":"23:59"}`,
		`{"schedule":{"relativeMonthly":{"intervalMonths":3,"weekIndex":"Last","dayOfWeek":"Friday"}},"durationHours":8,"startTime":"09:00","utcOffset":"-12:00"}`,
		`{"schedule":{"daily":{"intervalDays":0}},"durationHours":3,"startTime":"25:00"}`,
		`{"schedule":{},"durationHours":-1}`,
	} {
		f.Add([]byte(s), int64(0))
	}
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte, offsetMinutes int64) {
		var w armcontainerservice.MaintenanceWindow
		if json.Unmarshal(data, &w) != nil {
			return
		}
		now := base.Add(time.Duration(offsetMinutes%(60*24*3660)) * time.Minute)
		if err := Validate(&w); err != nil {
			if err.Error() == "" {
				t.Fatal("an invalid window without a reason")
			}
			return
		}
		opens, closes, ok := Next(&w, now)
		state, _ := State(&w, now)
		if !ok {
			if state != Closed {
				t.Fatalf("a window that never opens is %s", state)
			}
			return
		}
		if !closes.After(opens) || !closes.After(now) {
			t.Fatalf("occurrence [%s, %s) at %s: empty or closed", opens, closes, now)
		}
		if open := !opens.After(now); open != (state == Open) {
			t.Fatalf("occurrence [%s, %s) at %s but State says %s", opens, closes, now, state)
		}
	})
}
