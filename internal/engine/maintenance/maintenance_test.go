package maintenance

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

func ptr[T any](v T) *T { return &v }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func day(s string) *time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return &t
}

type opt func(*armcontainerservice.MaintenanceWindow)

func win(s armcontainerservice.Schedule, start string, hours int32, offset string, opts ...opt) *armcontainerservice.MaintenanceWindow {
	w := &armcontainerservice.MaintenanceWindow{
		Schedule:      &s,
		StartTime:     ptr(start),
		DurationHours: ptr(hours),
	}
	if offset != "" {
		w.UTCOffset = ptr(offset)
	}
	for _, o := range opts {
		o(w)
	}
	return w
}

func startDate(s string) opt {
	return func(w *armcontainerservice.MaintenanceWindow) { w.StartDate = day(s) }
}

func notAllowed(from, to string) opt {
	return func(w *armcontainerservice.MaintenanceWindow) {
		w.NotAllowedDates = append(w.NotAllowedDates, &armcontainerservice.DateSpan{Start: day(from), End: day(to)})
	}
}

func weekly(n int32, d armcontainerservice.WeekDay) armcontainerservice.Schedule {
	return armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{IntervalWeeks: ptr(n), DayOfWeek: ptr(d)}}
}

func daily(n int32) armcontainerservice.Schedule {
	return armcontainerservice.Schedule{Daily: &armcontainerservice.DailySchedule{IntervalDays: ptr(n)}}
}

func absMonthly(n, dom int32) armcontainerservice.Schedule {
	return armcontainerservice.Schedule{AbsoluteMonthly: &armcontainerservice.AbsoluteMonthlySchedule{IntervalMonths: ptr(n), DayOfMonth: ptr(dom)}}
}

func relMonthly(n int32, idx armcontainerservice.Type, d armcontainerservice.WeekDay) armcontainerservice.Schedule {
	return armcontainerservice.Schedule{RelativeMonthly: &armcontainerservice.RelativeMonthlySchedule{IntervalMonths: ptr(n), WeekIndex: ptr(idx), DayOfWeek: ptr(d)}}
}

func TestNext(t *testing.T) {
	sat := armcontainerservice.WeekDaySaturday
	tests := []struct {
		name          string
		w             *armcontainerservice.MaintenanceWindow
		now           string
		opens, closes string
		ok            bool
	}{
		{
			// planned-maintenance.md: weekly schedule, startTime in utcOffset, durationHours.
			name: "weekly saturday, next week",
			w:    win(weekly(1, sat), "02:00", 4, "+00:00", startDate("2026-01-01")),
			now:  "2026-11-23T00:00:00Z", opens: "2026-11-28T02:00:00Z", closes: "2026-11-28T06:00:00Z", ok: true,
		},
		{
			// MaintenanceWindow.StartTime: "'02:00' with 'utcOffset: +02:00' means UTC time '00:00'".
			name: "positive offset moves a Monday 01:00 window to Sunday evening UTC",
			w:    win(weekly(1, armcontainerservice.WeekDayMonday), "01:00", 4, "+05:30", startDate("2026-01-01")),
			now:  "2026-11-22T20:00:00Z", opens: "2026-11-22T19:30:00Z", closes: "2026-11-22T23:30:00Z", ok: true,
		},
		{
			name: "negative offset moves a Friday 22:00 window to Saturday UTC",
			w:    win(weekly(1, armcontainerservice.WeekDayFriday), "22:00", 4, "-08:00", startDate("2026-01-01")),
			now:  "2026-11-23T00:00:00Z", opens: "2026-11-28T06:00:00Z", closes: "2026-11-28T10:00:00Z", ok: true,
		},
		{
			// Azure/AKS#5597: "Start on: Sat Feb 07 2026 ... Repeats: Every 2 week(s) on Saturday".
			name: "intervalWeeks=2 anchored on startDate skips the odd week",
			w:    win(weekly(2, sat), "17:00", 4, "+00:00", startDate("2026-02-07")),
			now:  "2026-02-10T00:00:00Z", opens: "2026-02-21T17:00:00Z", closes: "2026-02-21T21:00:00Z", ok: true,
		},
		{
			// Choice: the first occurrence is the first dayOfWeek on or after startDate (Wed 01-07 → Mon 01-12).
			name: "intervalWeeks=2 counts from the first matching day on or after startDate",
			w:    win(weekly(2, armcontainerservice.WeekDayMonday), "00:00", 4, "", startDate("2026-01-07")),
			now:  "2026-01-13T00:00:00Z", opens: "2026-01-26T00:00:00Z", closes: "2026-01-26T04:00:00Z", ok: true,
		},
		{
			// MaintenanceWindow.StartDate: "If the current date is before this date, the maintenance window is inactive".
			name: "startDate in the future is the first allowed day",
			w:    win(weekly(1, sat), "02:00", 4, "+00:00", startDate("2026-12-10")),
			now:  "2026-11-23T00:00:00Z", opens: "2026-12-12T02:00:00Z", closes: "2026-12-12T06:00:00Z", ok: true,
		},
		{
			// planned-maintenance.md notAllowedDates: "maintenance isn't allowed, even if it overlaps with a maintenance window".
			name: "notAllowedDates blocks this week's occurrence",
			w:    win(weekly(1, armcontainerservice.WeekDayTuesday), "01:00", 4, "+00:00", startDate("2026-01-01"), notAllowed("2026-11-24", "2026-11-30")),
			now:  "2026-11-23T00:00:00Z", opens: "2026-12-01T01:00:00Z", closes: "2026-12-01T05:00:00Z", ok: true,
		},
		{
			// MaintenanceWindow.NotAllowedDates: with +02:00, '2022-12-23' to '2023-01-03' blocks
			// 2022-12-22 22:00Z to 2023-01-03 22:00Z. A 21:00Z–01:00Z window keeps the hour before the block.
			name: "notAllowedDates in utcOffset truncate the window before the block",
			w:    win(daily(1), "23:00", 4, "+02:00", startDate("2022-12-01"), notAllowed("2022-12-23", "2023-01-03")),
			now:  "2022-12-22T20:00:00Z", opens: "2022-12-22T21:00:00Z", closes: "2022-12-22T22:00:00Z", ok: true,
		},
		{
			name: "notAllowedDates in utcOffset truncate the window after the block",
			w:    win(daily(1), "23:00", 4, "+02:00", startDate("2022-12-01"), notAllowed("2022-12-23", "2023-01-03")),
			now:  "2022-12-22T22:30:00Z", opens: "2023-01-03T22:00:00Z", closes: "2023-01-04T01:00:00Z", ok: true,
		},
		{
			name: "window open right now returns the current occurrence",
			w:    win(daily(1), "09:00", 4, "", startDate("2026-01-01")),
			now:  "2026-11-23T10:30:00Z", opens: "2026-11-23T09:00:00Z", closes: "2026-11-23T13:00:00Z", ok: true,
		},
		{
			name: "window opened yesterday across midnight is still open",
			w:    win(daily(1), "22:00", 6, "", startDate("2026-01-01")),
			now:  "2026-11-24T03:00:00Z", opens: "2026-11-23T22:00:00Z", closes: "2026-11-24T04:00:00Z", ok: true,
		},
		{
			name: "close time is exclusive",
			w:    win(daily(1), "09:00", 4, "", startDate("2026-01-01")),
			now:  "2026-11-23T13:00:00Z", opens: "2026-11-24T09:00:00Z", closes: "2026-11-24T13:00:00Z", ok: true,
		},
		{
			// "intervalDays: Specifies the number of days between each set of occurrences."
			name: "intervalDays=3 anchored on startDate",
			w:    win(daily(3), "00:00", 4, "", startDate("2026-03-01")),
			now:  "2026-03-02T00:00:00Z", opens: "2026-03-04T00:00:00Z", closes: "2026-03-04T04:00:00Z", ok: true,
		},
		{
			// Choice: a month without dayOfMonth has no occurrence (February has no 31st).
			name: "dayOfMonth 31 skips February",
			w:    win(absMonthly(1, 31), "01:00", 4, "", startDate("2026-01-01")),
			now:  "2026-02-01T00:00:00Z", opens: "2026-03-31T01:00:00Z", closes: "2026-03-31T05:00:00Z", ok: true,
		},
		{
			name: "dayOfMonth 31 skips April",
			w:    win(absMonthly(1, 31), "01:00", 4, "", startDate("2026-01-01")),
			now:  "2026-04-01T00:00:00Z", opens: "2026-05-31T01:00:00Z", closes: "2026-05-31T05:00:00Z", ok: true,
		},
		{
			// Choice: intervalMonths counts from startDate's month: Jan, Apr (no 31st), Jul.
			name: "every 3 months on the 31st from January",
			w:    win(absMonthly(3, 31), "01:00", 4, "", startDate("2026-01-01")),
			now:  "2026-02-01T00:00:00Z", opens: "2026-07-31T01:00:00Z", closes: "2026-07-31T05:00:00Z", ok: true,
		},
		{
			// planned-maintenance.md: "every two months on the last Monday".
			name: "relativeMonthly last Monday every 2 months",
			w:    win(relMonthly(2, armcontainerservice.TypeLast, armcontainerservice.WeekDayMonday), "03:00", 4, "", startDate("2026-01-01")),
			now:  "2026-01-27T00:00:00Z", opens: "2026-03-30T03:00:00Z", closes: "2026-03-30T07:00:00Z", ok: true,
		},
		{
			// terraform-provider-azurerm#23979: weekIndex is the occurrence of the day in the month.
			name: "relativeMonthly first Sunday is the first Sunday, not the Sunday of week 1",
			w:    win(relMonthly(1, armcontainerservice.TypeFirst, armcontainerservice.WeekDaySunday), "03:00", 4, "", startDate("2026-01-01")),
			now:  "2026-10-05T00:00:00Z", opens: "2026-11-01T03:00:00Z", closes: "2026-11-01T07:00:00Z", ok: true,
		},
		{
			name: "relativeMonthly fourth Friday",
			w:    win(relMonthly(1, armcontainerservice.TypeFourth, armcontainerservice.WeekDayFriday), "03:00", 4, "", startDate("2026-01-01")),
			now:  "2026-11-01T00:00:00Z", opens: "2026-11-27T03:00:00Z", closes: "2026-11-27T07:00:00Z", ok: true,
		},
		{
			name: "nil window never opens",
			w:    nil,
			now:  "2026-11-23T00:00:00Z", ok: false,
		},
		{
			name: "invalid window never opens",
			w:    win(weekly(1, sat), "25:00", 4, ""),
			now:  "2026-11-23T00:00:00Z", ok: false,
		},
		{
			name: "window blocked for more than ten years never opens",
			w:    win(weekly(1, sat), "02:00", 4, "", startDate("2026-01-01"), notAllowed("2026-01-01", "2099-12-31")),
			now:  "2026-11-23T00:00:00Z", ok: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opens, closes, ok := Next(tc.w, ts(tc.now))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (opens %v)", ok, tc.ok, opens)
			}
			if !ok {
				return
			}
			if !opens.Equal(ts(tc.opens)) || !closes.Equal(ts(tc.closes)) {
				t.Fatalf("Next = [%s, %s), want [%s, %s)", opens.Format(time.RFC3339), closes.Format(time.RFC3339), tc.opens, tc.closes)
			}
		})
	}
}

func TestState(t *testing.T) {
	// Weekly Saturday 02:00–06:00 UTC; 2026-11-28 is a Saturday.
	w := win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 4, "+00:00", startDate("2026-01-01"))
	tests := []struct {
		name  string
		w     *armcontainerservice.MaintenanceWindow
		now   string
		want  WindowState
		opens string
	}{
		// concepts-update-orchestration.md: "3. Cluster with no maintenance window."
		{"no window", nil, "2026-11-23T00:00:00Z", None, ""},
		// "1. Cluster with an open ongoing maintenance window." Start is inclusive.
		{"open at the first instant", w, "2026-11-28T02:00:00Z", Open, "2026-11-28T02:00:00Z"},
		{"open mid-window", w, "2026-11-28T05:59:59Z", Open, "2026-11-28T02:00:00Z"},
		// "2. Cluster with maintenance window opening in the next four hours." Choice: inclusive at 4h.
		{"opens in exactly four hours", w, "2026-11-27T22:00:00Z", OpensSoon, "2026-11-28T02:00:00Z"},
		{"opens in one minute", w, "2026-11-28T01:59:00Z", OpensSoon, "2026-11-28T02:00:00Z"},
		// "4. Cluster with a closed maintenance window."
		{"opens in four hours and one second", w, "2026-11-27T21:59:59Z", Closed, "2026-11-28T02:00:00Z"},
		{"closed at the end instant", w, "2026-11-28T06:00:00Z", Closed, "2026-12-05T02:00:00Z"},
		{"invalid window is closed", win(weekly(1, armcontainerservice.WeekDaySaturday), "2:00", 4, ""), "2026-11-23T00:00:00Z", Closed, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, opens := State(tc.w, ts(tc.now))
			if got != tc.want {
				t.Fatalf("State = %s, want %s", got, tc.want)
			}
			if tc.opens == "" {
				if !opens.IsZero() {
					t.Fatalf("opensAt = %s, want zero", opens)
				}
				return
			}
			if !opens.Equal(ts(tc.opens)) {
				t.Fatalf("opensAt = %s, want %s", opens.Format(time.RFC3339), tc.opens)
			}
		})
	}
}

func TestRank(t *testing.T) {
	// concepts-update-orchestration.md: open, opening within four hours, no window, closed.
	order := []WindowState{Open, OpensSoon, None, Closed}
	for i := 1; i < len(order); i++ {
		if order[i-1].Rank() >= order[i].Rank() {
			t.Fatalf("%s must rank before %s", order[i-1], order[i])
		}
	}
}

func TestBackToBackOccurrencesMerge(t *testing.T) {
	// Daily 12:00 for 24h: each occurrence ends where the next begins.
	w := win(daily(1), "12:00", 24, "", startDate("2026-11-01"))
	opens, closes, ok := Next(w, ts("2026-11-23T00:00:00Z"))
	if !ok || !opens.Before(ts("2026-11-23T00:00:00Z")) || !closes.After(ts("2026-11-30T00:00:00Z")) {
		t.Fatalf("Next = [%s, %s) %v, want one continuous open window", opens, closes, ok)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		w       *armcontainerservice.MaintenanceWindow
		wantErr string
	}{
		{"valid", win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 4, "+05:30"), ""},
		{"nil", nil, "maintenanceWindow: required"},
		// MaintenanceWindow.DurationHours: "Length of maintenance window range from 4 to 24 hours."
		{"too short", win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 3, ""), "maintenanceWindow.durationHours: 3 is outside 4..24"},
		{"too long", win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 25, ""), "maintenanceWindow.durationHours: 25 is outside 4..24"},
		{"bad start", win(weekly(1, armcontainerservice.WeekDaySaturday), "24:00", 4, ""), `maintenanceWindow.startTime: "24:00" is not between 00:00 and 23:59`},
		{"bad offset", win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 4, "+5:30"), `maintenanceWindow.utcOffset: "+5:30" is not ±HH:mm`},
		{"zero interval", win(weekly(0, armcontainerservice.WeekDaySaturday), "02:00", 4, ""), "maintenanceWindow.schedule.weekly.intervalWeeks: must be at least 1"},
		{"day 32", win(absMonthly(1, 32), "02:00", 4, ""), "maintenanceWindow.schedule.absoluteMonthly.dayOfMonth: must be 1..31"},
		{"two schedules", win(armcontainerservice.Schedule{Daily: &armcontainerservice.DailySchedule{IntervalDays: ptr[int32](1)}, Weekly: weekly(1, armcontainerservice.WeekDaySaturday).Weekly}, "02:00", 4, ""),
			"maintenanceWindow.schedule: exactly one of daily, weekly, absoluteMonthly, relativeMonthly must be set"},
		{"end before start", win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 4, "", notAllowed("2026-02-01", "2026-01-01")), "maintenanceWindow.notAllowedDates[0]: end is before start"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.w)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("Validate = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestStateUntil(t *testing.T) {
	w := win(weekly(1, armcontainerservice.WeekDaySaturday), "02:00", 4, "+00:00", startDate("2026-01-01"))
	tests := []struct {
		now, until string
		want       WindowState
	}{
		{"2026-11-23T00:00:00Z", "2026-11-27T22:00:00Z", Closed},    // becomes OpensSoon 4h before opening
		{"2026-11-27T22:00:00Z", "2026-11-28T02:00:00Z", OpensSoon}, // becomes Open when it opens
		{"2026-11-28T03:00:00Z", "2026-11-28T06:00:00Z", Open},      // becomes Closed when it closes
	}
	for _, tc := range tests {
		s, _, until := StateUntil(w, ts(tc.now))
		if s != tc.want || !until.Equal(ts(tc.until)) {
			t.Errorf("StateUntil(%s) = %s until %s, want %s until %s", tc.now, s, until, tc.want, tc.until)
		}
		// The state holds on [now, until).
		if s2, _ := State(w, ts(tc.until).Add(-time.Second)); s2 != s {
			t.Errorf("state changed before until: %s", s2)
		}
		if s2, _ := State(w, ts(tc.until)); s2 == s {
			t.Errorf("state did not change at until %s", tc.until)
		}
	}
	if s, _, until := StateUntil(nil, ts("2026-11-23T00:00:00Z")); s != None || !until.IsZero() {
		t.Errorf("nil window: %s until %s", s, until)
	}
}

// A daily 24-hour window is one continuous opening: it reports when that
// opening began, not the start of today's occurrence, so the value does not
// move while the window stays open.
func TestStateOpenSinceBackToBackStart(t *testing.T) {
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	w := &armcontainerservice.MaintenanceWindow{
		Schedule:      &armcontainerservice.Schedule{Daily: &armcontainerservice.DailySchedule{IntervalDays: to.Ptr[int32](1)}},
		DurationHours: to.Ptr[int32](24), StartTime: to.Ptr("00:00"), UTCOffset: to.Ptr("+00:00"), StartDate: to.Ptr(start),
	}
	for _, h := range []int{1, 30, 60} {
		s, opened := State(w, start.Add(time.Duration(h)*time.Hour))
		if s != Open || !opened.Equal(start) {
			t.Errorf("%dh after the start date: %s since %s, want open since %s", h, s, opened, start)
		}
	}
	// A window with gaps reports its own occurrence.
	w.DurationHours = to.Ptr[int32](8)
	if s, opened := State(w, start.Add(25*time.Hour)); s != Open || !opened.Equal(start.Add(24*time.Hour)) {
		t.Errorf("8h daily window at day 2 01:00: %s since %s, want open since %s", s, opened, start.Add(24*time.Hour))
	}
}
