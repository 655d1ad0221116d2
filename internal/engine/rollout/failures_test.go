package rollout

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// preview marks a strategy as written in 2026-11-01-preview, which has maxAllowedFailures,
// memberSelector and ScheduledStart gates.
func preview(stages ...Stage) *Strategy { return &Strategy{API: PreviewAPI, Stages: stages} }

// groupOf makes n members of group g, named g-1 … g-n, each upgrade taking 10 minutes.
func groupOf(g string, n int, opts ...func(*Member)) []Member {
	var out []Member
	for i := 1; i <= n; i++ {
		out = append(out, member(fmt.Sprintf("%s-%d", g, i), g, eastus, "1.32.5", append([]func(*Member){takes(10 * time.Minute)}, opts...)...))
	}
	return out
}

// failing makes the named members' upgrades fail.
func failing(ms []Member, names ...string) []Member {
	for i := range ms {
		for _, n := range names {
			if ms[i].Name == n {
				fails("node drain timed out")(&ms[i])
			}
		}
	}
	return ms
}

// fleets.json (preview) maxAllowedFailures: "A fixed count n" or "A percentage p% ...
// resolvedThreshold = ceil(p * N)"; issue 36: "default 0 means fail-fast", "rounded up".
func TestMaxAllowedFailuresResolved(t *testing.T) {
	seven := Fleet{Regions: regions(), Members: groupOf("g", 7)}
	for _, tc := range []struct {
		stage, group         string
		wantStage, wantGroup int
	}{
		{"", "", 0, 0},         // default: fail-fast at both levels
		{"0", "0", 0, 0},       // explicit 0
		{"2", "2", 2, 2},       // a count
		{"25%", "25%", 2, 2},   // ceil(0.25 × 7) = ceil(1.75) = 2
		{"1%", "0%", 1, 0},     // ceil(0.07) = 1; 0% is 0
		{"100%", "100%", 7, 7}, // every member may fail
		// Choice (failures.go): an unset level defers to the set one (its member count: no own limit).
		{"3", "", 3, 7},
		{"", "1", 7, 1},
	} {
		r, _, err := NewRun(preview(Stage{Name: "s", MaxAllowedFailures: tc.stage, Groups: []Group{{Name: "g", MaxAllowedFailures: tc.group}}}), full("1.33.1"), seven, t0)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Status.Stages[0]
		if st.MaxAllowedFailures != tc.wantStage || st.Groups[0].MaxAllowedFailures != tc.wantGroup {
			t.Errorf("stage %q group %q of 7: resolved %d/%d, want %d/%d", tc.stage, tc.group, st.MaxAllowedFailures, st.Groups[0].MaxAllowedFailures, tc.wantStage, tc.wantGroup)
		}
	}
}

// Issue 36: "a run whose failures stay within the thresholds ends Completed — Completed no longer
// means every member upgraded"; UpdateRunStatus.failureCount "Total member upgrade failures across
// the entire UpdateRun.".
func TestFailuresWithinThresholdsComplete(t *testing.T) {
	f := Fleet{Regions: regions(), Members: failing(groupOf("g", 4), "g-1", "g-3")}
	r, evs := start(t, preview(Stage{Name: "s", MaxAllowedFailures: "2", Groups: []Group{{Name: "g", MaxAllowedFailures: "2"}}}), full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(2*time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberFinished, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:10 g-1 Running>Failed",
		"11-23T00:20 g-2 Running>Completed",
		"11-23T00:30 g-3 Running>Failed",
		"11-23T00:40 g-4 Running>Completed",
		"11-23T00:40 run Running>Completed",
	})
	st := r.Status.Stages[0]
	if r.Status.FailureCount != 2 || st.FailureCount != 2 || st.Groups[0].FailureCount != 2 || st.State != Completed || st.Groups[0].State != Completed || r.Status.Error != "" {
		t.Fatalf("failure counts run %d stage %d group %d; states stage %s group %s; error %q", r.Status.FailureCount, st.FailureCount, st.Groups[0].FailureCount, st.State, st.Groups[0].State, r.Status.Error)
	}
	if m := memberState(r, "g-3"); m.State != Failed || !m.FailureTolerated {
		t.Fatalf("g-3 %s tolerated %v", m.State, m.FailureTolerated)
	}
}

// fleets.json (preview) UpdateGroup.maxAllowedFailures: "\"3\" --> up to 3 member upgrade failures are
// tolerated within this group. The 4th failure would cause the entire stage to fail."; a failed stage
// fails the run, which stops (fail-fast) and is not continued with the next stage.
func TestGroupThresholdExceededFailsStageAndRun(t *testing.T) {
	f := Fleet{Regions: regions(), Members: append(failing(groupOf("g", 4), "g-1", "g-2"), groupOf("later", 1)...)}
	s := preview(
		Stage{Name: "s", MaxAllowedFailures: "5", Groups: []Group{{Name: "g", MaxAllowedFailures: "1"}}},
		Stage{Name: "next", Groups: []Group{{Name: "later"}}},
	)
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(2*time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberFinished, EventGroupState, EventStageState, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:00 group:g NotStarted>Running",
		"11-23T00:00 stage:s NotStarted>Running",
		"11-23T00:10 g-1 Running>Failed", // 1 of 1 allowed: the run goes on
		"11-23T00:20 g-2 Running>Failed", // the 2nd exceeds the group's 1
		"11-23T00:20 group:g Running>Failed",
		"11-23T00:20 stage:s Running>Failed",
		"11-23T00:20 run Running>Failed",
	})
	if st := r.Status.Stages; st[0].Groups[0].FailureCount != 2 || st[1].State != NotStarted || memberState(r, "g-3").State != NotStarted {
		t.Fatalf("group failures %d, next stage %s, g-3 %s", st[0].Groups[0].FailureCount, st[1].State, memberState(r, "g-3").State)
	}
	// Restart: the failure that stopped the run is tried again; the one the run went past stays
	// (Choice, lifecycle.go Start) and still counts.
	f.Members[1].Upgrade.Fail = false // g-2
	e, err := r.Start(f, t0.Add(3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	evs = append(e, drive(t, r, &f, t0.Add(5*time.Hour), false)...)
	wantLines(t, trace(evs, memberKinds...), []string{
		"11-23T03:00 g-2 Failed>NotStarted",
		"11-23T03:00 g-2 NotStarted>Running",
		"11-23T03:10 g-2 Running>Completed",
		"11-23T03:10 g-3 NotStarted>Running",
		"11-23T03:20 g-3 Running>Completed",
		"11-23T03:20 g-4 NotStarted>Running",
		"11-23T03:30 g-4 Running>Completed",
		"11-23T03:30 later-1 NotStarted>Running",
		"11-23T03:40 later-1 Running>Completed",
	})
	if r.Status.State != Completed || r.Status.FailureCount != 1 || memberState(r, "g-1").State != Failed {
		t.Fatalf("after restart: run %s failures %d g-1 %s", r.Status.State, r.Status.FailureCount, memberState(r, "g-1").State)
	}
}

// Issue 36: "stage and group thresholds are evaluated independently and the stage's is the ceiling";
// UpdateStage.maxAllowedFailures: "Failures are evaluated over all members within all groups within
// this stage." Two groups each allow 2; the stage allows 2 in all: the 3rd failure fails the stage
// although each group is within its own.
func TestStageCeilingBelowSumOfGroups(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{
		member("a1", "a", eastus, "1.32.5", takes(10*time.Minute), fails("x")),
		member("a2", "a", eastus, "1.32.5", takes(10*time.Minute)),
		member("b1", "b", eastus, "1.32.5", takes(15*time.Minute), fails("y")),
		member("b2", "b", eastus, "1.32.5", takes(15*time.Minute), fails("z")),
	}}
	s := preview(Stage{Name: "s", MaxAllowedFailures: "2", Groups: []Group{{Name: "a", MaxAllowedFailures: "2"}, {Name: "b", MaxAllowedFailures: "2"}}})
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(2*time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberFinished, EventStageState, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:00 stage:s NotStarted>Running",
		"11-23T00:10 a1 Running>Failed",
		"11-23T00:15 b1 Running>Failed",
		"11-23T00:20 a2 Running>Completed",
		"11-23T00:30 b2 Running>Failed",
		"11-23T00:30 stage:s Running>Failed",
		"11-23T00:30 run Running>Failed",
	})
	// Choice (status.go deriveGroup): a group within its own threshold whose members are done is Completed.
	st := r.Status.Stages[0]
	if st.FailureCount != 3 || st.Groups[0].State != Completed || st.Groups[1].State != Completed || st.Groups[1].FailureCount != 2 {
		t.Fatalf("stage failures %d, groups %s/%s, b failures %d", st.FailureCount, st.Groups[0].State, st.Groups[1].State, st.Groups[1].FailureCount)
	}
}

// Issue 36: "with maxConcurrency > 1 the failure count can exceed the threshold (members already in
// flight finish)"; concepts-update-orchestration.md: "The update run status shows as Stopping until
// all in-progress cluster updates finish."
func TestConcurrentFailuresOvershootThreshold(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{
		member("a", "g", eastus, "1.32.5", takes(10*time.Minute), fails("x")),
		member("b", "g", eastus, "1.32.5", takes(20*time.Minute), fails("x")),
		member("c", "g", eastus, "1.32.5", takes(30*time.Minute), fails("x")),
	}}
	s := preview(Stage{Name: "s", MaxAllowedFailures: "1", Groups: []Group{{Name: "g", MaxConcurrency: "3", MaxAllowedFailures: "1"}}})
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberStarted, EventMemberFinished, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:00 a NotStarted>Running",
		"11-23T00:00 b NotStarted>Running",
		"11-23T00:00 c NotStarted>Running",
		"11-23T00:10 a Running>Failed",
		"11-23T00:20 b Running>Failed",
		"11-23T00:20 run Running>Stopping",
		"11-23T00:30 c Stopping>Failed",
		"11-23T00:30 run Stopping>Failed",
	})
	if g := r.Status.Stages[0].Groups[0]; r.Status.FailureCount != 3 || g.FailureCount != 3 || g.MaxAllowedFailures != 1 {
		t.Fatalf("failures run %d group %d of %d allowed", r.Status.FailureCount, g.FailureCount, g.MaxAllowedFailures)
	}
}

// With no threshold set, a preview strategy is fail-fast exactly as 2026-06-01 ("maxAllowedFailures of 0
// (the default) means fail-fast"): same events, same status.
func TestPreviewWithoutThresholdsIsFailFast(t *testing.T) {
	mk := func() Fleet {
		return Fleet{Regions: regions(), Members: append(failing(groupOf("g", 3), "g-2"), groupOf("h", 2)...)}
	}
	stages := func() []Stage {
		return []Stage{{Name: "s", Groups: []Group{{Name: "g"}, {Name: "h", MaxConcurrency: "2"}}, AfterStageWaitInSeconds: 60}}
	}
	fa, fb := mk(), mk()
	a, evA := start(t, &Strategy{Stages: stages()}, full("1.33.1"), fa, t0)
	b, evB := start(t, &Strategy{API: PreviewAPI, Stages: stages()}, full("1.33.1"), fb, t0)
	evA = append(evA, drive(t, a, &fa, t0.Add(time.Hour), false)...)
	evB = append(evB, drive(t, b, &fb, t0.Add(time.Hour), false)...)
	if !reflect.DeepEqual(trace(evA), trace(evB)) || !reflect.DeepEqual(a.Status, b.Status) {
		t.Fatalf("stable and preview runs differ:\n%v\n%v", trace(evA), trace(evB))
	}
	if a.Status.State != Failed || a.Status.FailureCount != 1 {
		t.Fatalf("run %s failures %d, want Failed with 1", a.Status.State, a.Status.FailureCount)
	}
}

// Plan words a tolerated failure as such and reports the simulated counts.
func TestPlanToleratedFailure(t *testing.T) {
	ms := failing(groupOf("g", 2), "g-1")
	p, err := Plan(PlanInput{Strategy: preview(Stage{Name: "s", MaxAllowedFailures: "1", Groups: []Group{{Name: "g", MaxAllowedFailures: "1"}}}), Update: full("1.33.1"), Members: ms, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	w := p.MemberWarnings
	if p.Outcome != Completed || p.FailureCount != 1 || p.Stages[0].FailureCount != 1 || p.Stages[0].Groups[0].MaxAllowedFailures != 1 ||
		len(w) != 1 || w[0].Kind != MemberFailsTolerated || w[0].Member != "g-1" {
		t.Fatalf("outcome %s failures %d warnings %+v", p.Outcome, p.FailureCount, w)
	}
}
