// Package maintenance computes when an AKS planned-maintenance window
// (managedClusters/maintenanceConfigurations, the aksManagedAutoUpgradeSchedule
// and aksManagedNodeOSUpgradeSchedule configurations) is open, and classifies a
// window the way Fleet Manager orders clusters in an update run.
//
// Sources:
//   - AKS planned maintenance: MicrosoftDocs/azure-aks-docs articles/aks/planned-maintenance.md
//     (https://learn.microsoft.com/azure/aks/planned-maintenance)
//   - The MaintenanceWindow model of armcontainerservice/v6 (API 2025-02-01), whose field
//     comments carry the service's rules for startTime, utcOffset, startDate and notAllowedDates.
//   - Fleet ordering: MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-update-orchestration.md
//     ("Planned maintenance windows").
//
// Where the documents are silent this package makes a choice and says so in a
// comment starting with "Choice:". The package is pure: no I/O, no globals
// beyond constants, and the clock is always passed in.
package maintenance

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// WindowState is the update-run ordering class of a cluster's maintenance window.
// The string values are the ones the provider shows (SPEC §6b maintenance_window).
type WindowState string

const (
	// Open: the window is open now.
	Open WindowState = "open"
	// OpensSoon: the window is closed now and opens within SoonWithin.
	OpensSoon WindowState = "opens_soon"
	// None: the cluster has no maintenance window of the relevant kind.
	None WindowState = "none"
	// Closed: the window is closed and opens later than SoonWithin from now (or never).
	Closed WindowState = "closed"
)

// SoonWithin is Fleet's "opening in the next four hours" threshold.
// concepts-update-orchestration.md: "2. Cluster with maintenance window opening in the next four hours."
// Choice: inclusive — a window opening exactly 4h from now is OpensSoon; 4h and 1ns is Closed.
const SoonWithin = 4 * time.Hour

// Rank orders window states the way an update run prioritizes clusters:
// open (0), opening within four hours (1), no window (2), closed (3).
// concepts-update-orchestration.md "Update run prioritizes upgrading clusters based on planned maintenance in the following order".
func (s WindowState) Rank() int {
	switch s {
	case Open:
		return 0
	case OpensSoon:
		return 1
	case None:
		return 2
	default:
		return 3
	}
}

// searchDays bounds how far ahead Next looks for an occurrence (ten years).
// Choice: a window that does not open within ten years (e.g. blocked by notAllowedDates) never opens.
const searchDays = 3660

// Next returns the occurrence of w that is open at now (opensAt <= now < closesAt), or
// else the next one to open. ok is false when w is nil, invalid, or never opens.
// Occurrences are half-open intervals: open at opensAt, closed at closesAt.
func Next(w *armcontainerservice.MaintenanceWindow, now time.Time) (opensAt, closesAt time.Time, ok bool) {
	if w == nil {
		return time.Time{}, time.Time{}, false
	}
	p, err := parse(w, false)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	return p.next(now)
}

// State classifies w at now and returns when it opened (Open) or opens next
// (OpensSoon, Closed). A nil window is None with a zero time; a window that is
// invalid or never opens again is Closed with a zero time.
func State(w *armcontainerservice.MaintenanceWindow, now time.Time) (WindowState, time.Time) {
	s, opens, _ := StateUntil(w, now)
	return s, opens
}

// StateUntil is State plus until, the instant the state can next change (the window
// closes, opens, or comes within SoonWithin of opening); until is zero when the state
// never changes. Callers that classify many clusters over time cache on it.
func StateUntil(w *armcontainerservice.MaintenanceWindow, now time.Time) (s WindowState, opensAt, until time.Time) {
	if w == nil {
		// concepts-update-orchestration.md: "3. Cluster with no maintenance window."
		return None, time.Time{}, time.Time{}
	}
	opens, closes, ok := Next(w, now)
	switch {
	case !ok:
		return Closed, time.Time{}, time.Time{}
	case !opens.After(now):
		return Open, openedAt(w, opens), closes
	case opens.Sub(now) <= SoonWithin:
		return OpensSoon, opens, opens
	default:
		return Closed, opens, opens.Add(-SoonWithin)
	}
}

// mergeBackDays bounds how far back openedAt follows back-to-back occurrences.
const mergeBackDays = 366

// openedAt is when the window that is open at opens began: back-to-back
// occurrences (a daily 24-hour window) are one opening, so its start does not
// move every day while the window stays open.
func openedAt(w *armcontainerservice.MaintenanceWindow, opens time.Time) time.Time {
	limit := opens.AddDate(0, 0, -mergeBackDays)
	for opens.After(limit) {
		prev, prevCloses, ok := Next(w, opens.Add(-time.Nanosecond))
		if !ok || !prev.Before(opens) || prevCloses.Before(opens) {
			return opens
		}
		opens = prev
	}
	return opens
}

// Validate reports why the service would reject w, with the field name in the error.
func Validate(w *armcontainerservice.MaintenanceWindow) error {
	if w == nil {
		return errors.New("maintenanceWindow: required")
	}
	_, err := parse(w, true)
	return err
}

// date is a calendar date in the window's UTC offset.
type date struct {
	y int
	m time.Month
	d int
}

func dateOf(t time.Time) date {
	y, m, d := t.Date()
	return date{y, m, d}
}

// days since 0001-01-01 (proleptic Gregorian), for interval arithmetic.
func (d date) ordinal() int {
	return int(time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC).Unix()/86400) + 719162
}

func (d date) addDays(n int) date {
	return dateOf(time.Date(d.y, d.m, d.d+n, 0, 0, 0, 0, time.UTC))
}

func (d date) weekday() time.Weekday {
	return time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC).Weekday()
}

func (d date) before(o date) bool { return d.ordinal() < o.ordinal() }

func (d date) monthIndex() int { return d.y*12 + int(d.m) - 1 }

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

type kind int

const (
	kindDaily kind = iota
	kindWeekly
	kindAbsoluteMonthly
	kindRelativeMonthly
)

type span struct{ from, to time.Time }

type parsed struct {
	loc        *time.Location
	hour, min  int
	dur        time.Duration
	kind       kind
	interval   int
	weekday    time.Weekday
	dayOfMonth int
	weekIndex  int // 1..4, or -1 for Last
	anchor     date
	firstWeek  date // weekly: first matching weekday on or after anchor
	blocked    []span
}

// epoch anchors intervals when startDate is absent.
// Choice: AKS fills startDate with the creation date ("The current date at creation time",
// planned-maintenance.md) and returns it on GET, so it is normally present; without it
// intervals are counted from 1970-01-01 so that the result is still deterministic.
var epoch = date{1970, time.January, 1}

func parse(w *armcontainerservice.MaintenanceWindow, strict bool) (*parsed, error) {
	p := &parsed{}

	// armcontainerservice MaintenanceWindow.UTCOffset: "The UTC offset in format +/-HH:mm ...
	// If not specified, the default is '+00:00'."
	off := "+00:00"
	if w.UTCOffset != nil && *w.UTCOffset != "" {
		off = *w.UTCOffset
	}
	secs, err := parseOffset(off)
	if err != nil {
		return nil, fmt.Errorf("maintenanceWindow.utcOffset: %w", err)
	}
	p.loc = time.FixedZone(off, secs)

	// MaintenanceWindow.StartTime: "Accepted values are from '00:00' to '23:59'. 'utcOffset' applies to this field."
	if w.StartTime == nil {
		return nil, errors.New("maintenanceWindow.startTime: required")
	}
	p.hour, p.min, err = parseHHMM(*w.StartTime)
	if err != nil {
		return nil, fmt.Errorf("maintenanceWindow.startTime: %w", err)
	}

	// MaintenanceWindow.DurationHours: "Length of maintenance window range from 4 to 24 hours."
	if w.DurationHours == nil {
		return nil, errors.New("maintenanceWindow.durationHours: required")
	}
	h := int(*w.DurationHours)
	if h < 1 || h > 24 || (strict && h < 4) {
		return nil, fmt.Errorf("maintenanceWindow.durationHours: %d is outside 4..24", h)
	}
	p.dur = time.Duration(h) * time.Hour

	// MaintenanceWindow.StartDate: "If the current date is before this date, the maintenance
	// window is inactive and will not be used for upgrades."
	p.anchor = epoch
	if w.StartDate != nil {
		p.anchor = dateOf(*w.StartDate)
	}

	// Schedule: "One and only one of the schedule types should be specified."
	s := w.Schedule
	if s == nil {
		return nil, errors.New("maintenanceWindow.schedule: required")
	}
	n := 0
	for _, set := range []bool{s.Daily != nil, s.Weekly != nil, s.AbsoluteMonthly != nil, s.RelativeMonthly != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("maintenanceWindow.schedule: exactly one of daily, weekly, absoluteMonthly, relativeMonthly must be set")
	}
	switch {
	case s.Daily != nil:
		p.kind = kindDaily
		if p.interval, err = interval(s.Daily.IntervalDays, "schedule.daily.intervalDays"); err != nil {
			return nil, err
		}
	case s.Weekly != nil:
		p.kind = kindWeekly
		if p.interval, err = interval(s.Weekly.IntervalWeeks, "schedule.weekly.intervalWeeks"); err != nil {
			return nil, err
		}
		if p.weekday, err = weekday(s.Weekly.DayOfWeek, "schedule.weekly.dayOfWeek"); err != nil {
			return nil, err
		}
		// Choice: weekly intervals count from the first dayOfWeek on or after startDate
		// (the portal shows "Start on <date> / Repeats every N weeks on <day>"; docs are silent
		// on how the week of startDate is chosen).
		p.firstWeek = p.anchor
		for p.firstWeek.weekday() != p.weekday {
			p.firstWeek = p.firstWeek.addDays(1)
		}
	case s.AbsoluteMonthly != nil:
		p.kind = kindAbsoluteMonthly
		if p.interval, err = interval(s.AbsoluteMonthly.IntervalMonths, "schedule.absoluteMonthly.intervalMonths"); err != nil {
			return nil, err
		}
		if s.AbsoluteMonthly.DayOfMonth == nil || *s.AbsoluteMonthly.DayOfMonth < 1 || *s.AbsoluteMonthly.DayOfMonth > 31 {
			return nil, errors.New("maintenanceWindow.schedule.absoluteMonthly.dayOfMonth: must be 1..31")
		}
		p.dayOfMonth = int(*s.AbsoluteMonthly.DayOfMonth)
	case s.RelativeMonthly != nil:
		p.kind = kindRelativeMonthly
		if p.interval, err = interval(s.RelativeMonthly.IntervalMonths, "schedule.relativeMonthly.intervalMonths"); err != nil {
			return nil, err
		}
		if p.weekday, err = weekday(s.RelativeMonthly.DayOfWeek, "schedule.relativeMonthly.dayOfWeek"); err != nil {
			return nil, err
		}
		if s.RelativeMonthly.WeekIndex == nil {
			return nil, errors.New("maintenanceWindow.schedule.relativeMonthly.weekIndex: required")
		}
		// planned-maintenance.md: "Valid values for weekIndex include First, Second, Third, Fourth, and Last."
		switch *s.RelativeMonthly.WeekIndex {
		case armcontainerservice.TypeFirst:
			p.weekIndex = 1
		case armcontainerservice.TypeSecond:
			p.weekIndex = 2
		case armcontainerservice.TypeThird:
			p.weekIndex = 3
		case armcontainerservice.TypeFourth:
			p.weekIndex = 4
		case armcontainerservice.TypeLast:
			p.weekIndex = -1
		default:
			return nil, fmt.Errorf("maintenanceWindow.schedule.relativeMonthly.weekIndex: %q is not First, Second, Third, Fourth or Last", *s.RelativeMonthly.WeekIndex)
		}
	}

	// MaintenanceWindow.NotAllowedDates: "'utcOffset' applies to this field. For example, with
	// 'utcOffset: +02:00' and 'dateSpan' being '2022-12-23' to '2023-01-03', maintenance will be
	// blocked from '2022-12-22 22:00' to '2023-01-03 22:00' in UTC time." — i.e. from the start
	// date's local midnight to the local midnight that ends the end date (both dates inclusive).
	for i, ds := range w.NotAllowedDates {
		if ds == nil || ds.Start == nil || ds.End == nil {
			return nil, fmt.Errorf("maintenanceWindow.notAllowedDates[%d]: start and end are required", i)
		}
		a, b := dateOf(*ds.Start), dateOf(*ds.End)
		if b.before(a) {
			return nil, fmt.Errorf("maintenanceWindow.notAllowedDates[%d]: end is before start", i)
		}
		p.blocked = append(p.blocked, span{
			from: time.Date(a.y, a.m, a.d, 0, 0, 0, 0, p.loc),
			to:   time.Date(b.y, b.m, b.d+1, 0, 0, 0, 0, p.loc),
		})
	}
	return p, nil
}

func interval(v *int32, field string) (int, error) {
	if v == nil || *v < 1 {
		return 0, fmt.Errorf("maintenanceWindow.%s: must be at least 1", field)
	}
	return int(*v), nil
}

func weekday(v *armcontainerservice.WeekDay, field string) (time.Weekday, error) {
	if v == nil {
		return 0, fmt.Errorf("maintenanceWindow.%s: required", field)
	}
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), string(*v)) {
			return d, nil
		}
	}
	return 0, fmt.Errorf("maintenanceWindow.%s: %q is not a day of the week", field, *v)
}

func parseHHMM(s string) (int, int, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, 0, fmt.Errorf("%q is not HH:mm", s)
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, fmt.Errorf("%q is not between 00:00 and 23:59", s)
	}
	return h, m, nil
}

func parseOffset(s string) (int, error) {
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, fmt.Errorf("%q is not ±HH:mm", s)
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[4:])
	if err1 != nil || err2 != nil || h > 14 || m > 59 {
		return 0, fmt.Errorf("%q is not a valid UTC offset", s)
	}
	secs := h*3600 + m*60
	if s[0] == '-' {
		secs = -secs
	}
	return secs, nil
}

// matches reports whether an occurrence starts on local date d.
func (p *parsed) matches(d date) bool {
	if d.before(p.anchor) {
		// startDate is the first day an occurrence may start on.
		return false
	}
	switch p.kind {
	case kindDaily:
		// "intervalDays: Specifies the number of days between each set of occurrences." Counted from startDate.
		return (d.ordinal()-p.anchor.ordinal())%p.interval == 0
	case kindWeekly:
		// "intervalWeeks: Specifies the number of weeks between each set of occurrences."
		if d.weekday() != p.weekday || d.before(p.firstWeek) {
			return false
		}
		return (d.ordinal()-p.firstWeek.ordinal())%(7*p.interval) == 0
	case kindAbsoluteMonthly:
		// Choice: monthly intervals count from the month of startDate. A month without
		// dayOfMonth (31 in April, 30 in February) has no occurrence: the docs are silent,
		// nothing says AKS moves it to the last day, and RFC 5545 BYMONTHDAY skips invalid dates.
		if d.d != p.dayOfMonth {
			return false
		}
		return (d.monthIndex()-p.anchor.monthIndex())%p.interval == 0
	case kindRelativeMonthly:
		// weekIndex is the n-th occurrence of dayOfWeek in the month, not a calendar week
		// (hashicorp/terraform-provider-azurerm#23979: "week_index does not link against the
		// specified week but the occurrence of the day in the month"). Last = last occurrence.
		if d.weekday() != p.weekday {
			return false
		}
		if (d.monthIndex()-p.anchor.monthIndex())%p.interval != 0 {
			return false
		}
		if p.weekIndex == -1 {
			return d.d+7 > daysIn(d.y, d.m)
		}
		return (d.d-1)/7+1 == p.weekIndex
	}
	return false
}

// fragments returns the allowed parts of the occurrence starting on d: the occurrence
// minus the notAllowedDates spans, in time order.
func (p *parsed) fragments(d date) []span {
	start := time.Date(d.y, d.m, d.d, p.hour, p.min, 0, 0, p.loc)
	parts := []span{{start, start.Add(p.dur)}}
	for _, b := range p.blocked {
		var out []span
		for _, s := range parts {
			if !b.from.Before(s.to) || !s.from.Before(b.to) {
				out = append(out, s) // no overlap
				continue
			}
			if s.from.Before(b.from) {
				out = append(out, span{s.from, b.from})
			}
			if b.to.Before(s.to) {
				out = append(out, span{b.to, s.to})
			}
		}
		parts = out
	}
	return parts
}

func (p *parsed) next(now time.Time) (time.Time, time.Time, bool) {
	// An occurrence lasts at most 24h, so one that is open now started at most a day
	// (plus offset slack) before now's local date.
	d := dateOf(now.In(p.loc)).addDays(-2)
	var cur *span
	for i := 0; i < searchDays; i++ {
		day := d.addDays(i)
		if !p.matches(day) {
			if cur != nil && time.Date(day.y, day.m, day.d, 0, 0, 0, 0, p.loc).After(cur.to) {
				break
			}
			continue
		}
		for _, f := range p.fragments(day) {
			if cur == nil {
				if f.to.After(now) {
					c := f
					cur = &c
				}
				continue
			}
			// Choice: back-to-back occurrences (e.g. daily, 24h) form one continuous window.
			if !f.from.After(cur.to) {
				if f.to.After(cur.to) {
					cur.to = f.to
				}
				continue
			}
			return cur.from.UTC(), cur.to.UTC(), true
		}
		if cur != nil && time.Date(day.y, day.m, day.d, 0, 0, 0, 0, p.loc).After(cur.to) {
			break
		}
	}
	if cur == nil {
		return time.Time{}, time.Time{}, false
	}
	return cur.from.UTC(), cur.to.UTC(), true
}
