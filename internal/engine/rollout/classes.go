package rollout

import (
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

// windowKey is a comparable copy of a maintenance window, so a cached class is reused only while
// the member's window is unchanged (whether the caller replaced or edited it).
type windowKey struct {
	set                  bool
	duration             int32
	startTime, utcOffset string
	startDate            int64
	hasStartDate         bool
	kind                 byte
	interval, dayOfMonth int32
	dayOfWeek, weekIndex string
	notAllowed           string
}

func keyOf(w *armcontainerservice.MaintenanceWindow) windowKey {
	if w == nil {
		return windowKey{}
	}
	k := windowKey{set: true, duration: deref(w.DurationHours), startTime: deref(w.StartTime), utcOffset: deref(w.UTCOffset)}
	if w.StartDate != nil {
		k.startDate, k.hasStartDate = w.StartDate.Unix(), true
	}
	if s := w.Schedule; s != nil {
		switch {
		case s.Daily != nil:
			k.kind, k.interval = 'd', deref(s.Daily.IntervalDays)
		case s.Weekly != nil:
			k.kind, k.interval, k.dayOfWeek = 'w', deref(s.Weekly.IntervalWeeks), string(deref(s.Weekly.DayOfWeek))
		case s.AbsoluteMonthly != nil:
			k.kind, k.interval, k.dayOfMonth = 'a', deref(s.AbsoluteMonthly.IntervalMonths), deref(s.AbsoluteMonthly.DayOfMonth)
		case s.RelativeMonthly != nil:
			k.kind, k.interval, k.dayOfWeek, k.weekIndex = 'r', deref(s.RelativeMonthly.IntervalMonths), string(deref(s.RelativeMonthly.DayOfWeek)), string(deref(s.RelativeMonthly.WeekIndex))
		}
	}
	if len(w.NotAllowedDates) > 0 {
		var b strings.Builder
		for _, d := range w.NotAllowedDates {
			if d != nil && d.Start != nil && d.End != nil {
				b.WriteString(d.Start.Format("2006-01-02"))
				b.WriteString(d.End.Format("2006-01-02"))
			}
			b.WriteByte(';')
		}
		k.notAllowed = b.String()
	}
	return k
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

type classEntry struct {
	key         windowKey
	state       maintenance.WindowState
	from, until time.Time
}

// class is the maintenance window class of member m at t, cached on the run for as long as it holds
// (maintenance.StateUntil).
func (r *Run) class(m *Member, t time.Time) maintenance.WindowState {
	w := WindowFor(*m, r.Update.Upgrade)
	k := keyOf(w)
	if e, ok := r.classes[m.Name]; ok && e.key == k && !t.Before(e.from) && (e.until.IsZero() || t.Before(e.until)) {
		return e.state
	}
	s, _, until := maintenance.StateUntil(w, t)
	if r.classes == nil {
		r.classes = map[string]classEntry{}
	}
	r.classes[m.Name] = classEntry{key: k, state: s, from: t, until: until}
	return s
}
