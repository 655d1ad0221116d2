package rollout

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// ScheduledStart gates (2026-11-01-preview fleets.json):
//   - GateType ScheduledStart: "A scheduled start gate is automatically completed when the
//     scheduled time is reached."
//   - ScheduledStartConfiguration: startDay (DayOfWeek), startTime "The local time of day when the
//     scheduled start occurs in 24-hour (HH:mm) format.", utcOffset "The UTC offset for the
//     scheduled time in HH:mm format, -14:00 to +14:00".
//   - scheduledStartProperties.absoluteStartTime: "The absolute UTC time when the gate will
//     complete. Set when the gate is created."
//   - project notes on the preview API (2026-05-01-preview on): "ScheduledStart works only as a
//     before-gate." (ValidateStrategy refuses it elsewhere.)
//
// A gate is created when the run reaches it (gates.go reach). absoluteStartTime is then the first
// startDay at startTime, in utcOffset, at or after that moment; the gate completes itself then
// (NextWake wakes the run for it). An exact match is now: the gate completes as it is created.
// Choice: a ScheduledStart gate completes only while the run makes progress; a run stopped past
// the time completes it when started again. Completing it early by PATCH (CompleteGate) is allowed,
// as for an approval (project notes: PATCH state Completed "to approve or complete early").
// Choice: the upstream example Gates_Get_ScheduledStart.json shows startDay Friday, 18:00, -05:00
// with absoluteStartTime 2026-04-04T23:00:00Z, which is a Saturday 18:00 at -05:00; the rule above
// follows the fields' definitions, not that example.

// ScheduledStartConfig is GateConfiguration.scheduledStartConfiguration.
type ScheduledStartConfig struct {
	// StartDay is a DayOfWeek: "Monday" … "Sunday".
	StartDay string
	// StartTime is "HH:mm", 24-hour, local to UTCOffset.
	StartTime string
	// UTCOffset is "±HH:mm", from -14:00 to +14:00.
	UTCOffset string
}

// startTimePattern and utcOffsetPattern are ScheduledStartConfiguration's patterns.
var (
	startTimePattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
	utcOffsetPattern = regexp.MustCompile(`^[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00)$`)
)

// daysOfWeek is fleets.json DayOfWeek.
var daysOfWeek = map[string]time.Weekday{
	"Monday": time.Monday, "Tuesday": time.Tuesday, "Wednesday": time.Wednesday, "Thursday": time.Thursday,
	"Friday": time.Friday, "Saturday": time.Saturday, "Sunday": time.Sunday,
}

// validScheduledStart reports the first field of c that breaks its spec rule; p is c's path.
func validScheduledStart(c ScheduledStartConfig, p string) error {
	if _, ok := daysOfWeek[c.StartDay]; !ok {
		return fmt.Errorf("%s.startDay: %q is not a day of the week (Monday … Sunday)", p, c.StartDay)
	}
	if !startTimePattern.MatchString(c.StartTime) {
		return fmt.Errorf("%s.startTime: %q is not a 24-hour HH:mm time", p, c.StartTime)
	}
	if !utcOffsetPattern.MatchString(c.UTCOffset) {
		return fmt.Errorf("%s.utcOffset: %q is not ±HH:mm from -14:00 to +14:00", p, c.UTCOffset)
	}
	return nil
}

// NextScheduledStart is the absoluteStartTime of a ScheduledStart gate created at created: the
// first c.StartDay at c.StartTime in c.UTCOffset at or after created, in UTC.
func NextScheduledStart(c ScheduledStartConfig, created time.Time) (time.Time, error) {
	if err := validScheduledStart(c, "scheduledStartConfiguration"); err != nil {
		return time.Time{}, err
	}
	hh, _ := strconv.Atoi(c.StartTime[:2])
	mm, _ := strconv.Atoi(c.StartTime[3:])
	oh, _ := strconv.Atoi(c.UTCOffset[1:3])
	om, _ := strconv.Atoi(c.UTCOffset[4:])
	offset := oh*3600 + om*60
	if c.UTCOffset[0] == '-' {
		offset = -offset
	}
	loc := time.FixedZone(c.UTCOffset, offset)
	local := created.In(loc)
	days := (int(daysOfWeek[c.StartDay]) - int(local.Weekday()) + 7) % 7
	at := time.Date(local.Year(), local.Month(), local.Day()+days, hh, mm, 0, 0, loc)
	if at.Before(created) {
		at = at.AddDate(0, 0, 7)
	}
	return at.UTC(), nil
}

// scheduleGates sets the absoluteStartTime of the ScheduledStart gates of gs just reached at t.
func scheduleGates(gs []GateStatus, t time.Time) {
	for i := range gs {
		g := &gs[i]
		if g.Type != ScheduledStart || g.ScheduledStart == nil || g.State != Pending || !g.AbsoluteStartTime.IsZero() {
			continue
		}
		// ValidateStrategy checked the configuration, so the error cannot occur.
		g.AbsoluteStartTime, _ = NextScheduledStart(*g.ScheduledStart, t)
	}
}

// completeScheduled completes the Pending ScheduledStart gates of gs whose time has come by t.
func completeScheduled(stage, group string, gs []GateStatus, timing Timing, t time.Time, evs *[]Event) bool {
	changed := false
	for i := range gs {
		g := &gs[i]
		if g.Type != ScheduledStart || g.State != Pending || g.AbsoluteStartTime.IsZero() || g.AbsoluteStartTime.After(t) {
			continue
		}
		*evs = append(*evs, Event{At: t, Kind: EventGateState, Stage: stage, Group: group, Gate: &GateRef{Stage: stage, Group: group, Timing: timing, Index: i}, From: Pending, To: Completed, Message: g.DisplayName})
		g.State = Completed
		g.CompletedTime = t
		changed = true
	}
	return changed
}

// scheduledWake is the earliest absoluteStartTime of a Pending ScheduledStart gate of gs.
func scheduledWake(gs []GateStatus, consider func(time.Time)) {
	for i := range gs {
		if g := &gs[i]; g.Type == ScheduledStart && g.State == Pending && !g.AbsoluteStartTime.IsZero() {
			consider(g.AbsoluteStartTime)
		}
	}
}

func cloneScheduledStart(c *ScheduledStartConfig) *ScheduledStartConfig {
	if c == nil {
		return nil
	}
	v := *c
	return &v
}

func cloneGates(gs []Gate) []Gate {
	out := append([]Gate(nil), gs...)
	for i := range out {
		out[i].ScheduledStart = cloneScheduledStart(out[i].ScheduledStart)
	}
	return out
}
