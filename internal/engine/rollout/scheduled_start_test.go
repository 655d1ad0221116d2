package rollout

import (
	"testing"
	"time"
)

func scheduled(day, hhmm, offset string) Gate {
	return Gate{DisplayName: "window", Type: ScheduledStart, ScheduledStart: &ScheduledStartConfig{StartDay: day, StartTime: hhmm, UTCOffset: offset}}
}

// scheduledStartProperties.absoluteStartTime: "The absolute UTC time when the gate will complete. Set
// when the gate is created." — the first startDay at startTime in utcOffset at or after creation.
// t0 = 2026-11-23T00:00Z is a Monday.
func TestNextScheduledStart(t *testing.T) {
	for _, tc := range []struct {
		name, created, day, hhmm, offset, want string
	}{
		{"later this week", "2026-11-23T00:00:00Z", "Friday", "18:00", "-05:00", "2026-11-27T23:00:00Z"},
		// In +14:00 it is already Monday 14:00: 13:00 has passed, so next Monday.
		{"+14:00 passed", "2026-11-23T00:00:00Z", "Monday", "13:00", "+14:00", "2026-11-29T23:00:00Z"},
		{"+14:00 exact match is now", "2026-11-23T00:00:00Z", "Monday", "14:00", "+14:00", "2026-11-23T00:00:00Z"},
		// In -12:00 it is still Sunday 12:00.
		{"-12:00 exact match is now", "2026-11-23T00:00:00Z", "Sunday", "12:00", "-12:00", "2026-11-23T00:00:00Z"},
		{"-12:00 a minute ago", "2026-11-23T00:00:00Z", "Sunday", "11:59", "-12:00", "2026-11-29T23:59:00Z"},
		{"-12:00 Monday is tomorrow there", "2026-11-23T00:00:00Z", "Monday", "00:00", "-12:00", "2026-11-23T12:00:00Z"},
		// The weekday is the offset's: Friday 22:00 in -05:00 is Saturday in UTC; Friday 18:00 has passed.
		{"weekday in the offset", "2026-11-28T03:00:00Z", "Friday", "18:00", "-05:00", "2026-12-04T23:00:00Z"},
		{"week wrap", "2026-11-28T10:00:00Z", "Tuesday", "09:00", "+00:00", "2026-12-01T09:00:00Z"},
		{"same day later", "2026-11-28T10:00:00Z", "Saturday", "11:00", "+00:00", "2026-11-28T11:00:00Z"},
		{"same day earlier", "2026-11-28T10:00:00Z", "Saturday", "09:00", "+00:00", "2026-12-05T09:00:00Z"},
		{"seconds past the minute", "2026-11-27T23:00:30Z", "Friday", "18:00", "-05:00", "2026-12-04T23:00:00Z"},
		{"half-hour offset", "2026-11-23T00:00:00Z", "Monday", "09:00", "+05:30", "2026-11-23T03:30:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NextScheduledStart(ScheduledStartConfig{StartDay: tc.day, StartTime: tc.hhmm, UTCOffset: tc.offset}, at(tc.created))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(at(tc.want)) || got.Location() != time.UTC {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := NextScheduledStart(ScheduledStartConfig{StartDay: "Friday", StartTime: "24:00", UTCOffset: "+00:00"}, t0); err == nil {
		t.Fatal("startTime 24:00 must be refused")
	}
}

// GateType ScheduledStart: "A scheduled start gate is automatically completed when the scheduled time
// is reached." The run waits for it (Pending: "if it has a Pending gate") and NextWake wakes it then.
func TestScheduledStartGateCompletesOnTheClock(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("a", "g1", eastus, "1.32.5", takes(10*time.Minute)), member("b", "g2", eastus, "1.32.5", takes(10*time.Minute))}}
	s := preview(
		Stage{Name: "canary", Groups: []Group{{Name: "g1"}}},
		Stage{Name: "prod", BeforeGates: []Gate{scheduled("Friday", "18:00", "-05:00")}, Groups: []Group{{Name: "g2"}}},
	)
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, at("2026-11-25T00:00:00Z"), false)...)
	g := r.Status.Stages[1].BeforeGates[0]
	if r.Status.State != Pending || g.State != Pending || !g.AbsoluteStartTime.Equal(at("2026-11-27T23:00:00Z")) || !g.StartTime.Equal(at("2026-11-23T00:10:00Z")) {
		t.Fatalf("run %s gate %s at %s (created %s)", r.Status.State, g.State, g.AbsoluteStartTime, g.StartTime)
	}
	if next, ok := r.NextWake(); !ok || !next.Equal(at("2026-11-27T23:00:00Z")) {
		t.Fatalf("NextWake %s %v", next, ok)
	}
	evs = append(evs, drive(t, r, &f, at("2026-11-30T00:00:00Z"), false)...)
	wantLines(t, trace(evs, EventGateState, EventMemberStarted, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:00 a NotStarted>Running",
		"11-23T00:10 gate:prod//Before0 NotStarted>Pending",
		"11-23T00:10 run Running>Pending",
		"11-27T23:00 gate:prod//Before0 Pending>Completed",
		"11-27T23:00 b NotStarted>Running",
		"11-27T23:00 run Pending>Running",
		"11-27T23:10 run Running>Completed",
	})
}

// A group's before-gate works the same; an exact match is now: the gate completes as it is created.
func TestScheduledStartExactMatchAndGroupGate(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("a", "g", eastus, "1.32.5", takes(10*time.Minute))}}
	s := preview(Stage{Name: "s", Groups: []Group{{Name: "g", BeforeGates: []Gate{scheduled("Monday", "00:00", "+00:00")}}}})
	_, evs := start(t, s, full("1.33.1"), f, t0)
	wantLines(t, trace(evs, EventGateState, EventMemberStarted), []string{
		"11-23T00:00 gate:s/g/Before0 NotStarted>Pending",
		"11-23T00:00 gate:s/g/Before0 Pending>Completed",
		"11-23T00:00 a NotStarted>Running",
	})
}

// Choice (scheduled_start.go): a stopped run completes its gate when started again past the time; a
// Pending ScheduledStart gate can also be completed early (project notes: PATCH "to approve or complete early").
func TestScheduledStartWhileStoppedAndEarly(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("a", "g", eastus, "1.32.5", takes(10*time.Minute)), member("b", "h", eastus, "1.32.5", takes(10*time.Minute))}}
	s := preview(Stage{Name: "s", BeforeGates: []Gate{scheduled("Wednesday", "12:00", "+00:00")}, Groups: []Group{{Name: "g"}}},
		Stage{Name: "t", Groups: []Group{{Name: "h", BeforeGates: []Gate{scheduled("Sunday", "12:00", "+00:00")}}}})
	r, _ := start(t, s, full("1.33.1"), f, t0)
	if _, err := r.Stop(f, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.NextWake(); ok {
		t.Fatal("a stopped run has nothing to wake for")
	}
	evs, err := r.Start(f, at("2026-11-26T00:00:00Z")) // Thursday: Wednesday 12:00 has passed
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, drive(t, r, &f, at("2026-11-26T01:00:00Z"), false)...)
	e, err := r.CompleteGate(GateRef{Stage: "t", Group: "h", Timing: Before}, f, at("2026-11-26T02:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, e...)
	evs = append(evs, drive(t, r, &f, at("2026-11-26T03:00:00Z"), false)...)
	wantLines(t, trace(evs, EventGateState, EventMemberStarted), []string{
		"11-26T00:00 gate:s//Before0 Pending>Completed",
		"11-26T00:00 a NotStarted>Running",
		"11-26T00:10 gate:t/h/Before0 NotStarted>Pending",
		"11-26T02:00 gate:t/h/Before0 Pending>Completed",
		"11-26T02:00 b NotStarted>Running",
	})
	if r.Status.State != Completed {
		t.Fatalf("run %s", r.Status.State)
	}
}

// Plan waits for a ScheduledStart gate instead of approving it, and shows when it completes.
func TestPlanScheduledStart(t *testing.T) {
	s := preview(Stage{Name: "s", BeforeGates: []Gate{scheduled("Friday", "18:00", "-05:00")}, Groups: []Group{{Name: "g"}}})
	p, err := Plan(PlanInput{Strategy: s, Update: full("1.33.1"), Members: []Member{member("a", "g", eastus, "1.32.5")}, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	gate := p.Stages[0].Gates[0]
	if p.Outcome != Completed || !p.EstimatedCompletion.Equal(at("2026-11-27T23:00:00Z")) || !gate.AbsoluteStartTime.Equal(at("2026-11-27T23:00:00Z")) ||
		gate.ScheduledStart == nil || gate.ScheduledStart.StartDay != "Friday" {
		t.Fatalf("outcome %s at %s, gate %+v", p.Outcome, p.EstimatedCompletion, gate)
	}
	if m := p.Stages[0].Groups[0].Members[0]; !m.ReachedAt.Equal(at("2026-11-27T23:00:00Z")) {
		t.Fatalf("member reached at %s", m.ReachedAt)
	}
}
