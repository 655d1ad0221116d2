package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

var memberKinds = []EventKind{EventMemberStarted, EventMemberFinished, EventMemberState}

func oneGroup(name string) *Strategy {
	return &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: name}}}}}
}

func start(t *testing.T, s *Strategy, u Update, f Fleet, now time.Time) (*Run, []Event) {
	t.Helper()
	r, _, err := NewRun(s, u, f, now)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := r.Start(f, now)
	if err != nil {
		t.Fatal(err)
	}
	return r, evs
}

func windowFleet() Fleet {
	d := takes(30 * time.Minute)
	return Fleet{Regions: regions(), Members: []Member{
		member("a-closed", "g", eastus, "1.32.5", autoWindow(saturdays()), d),
		member("b-none", "g", eastus, "1.32.5", d),
		member("c-soon", "g", eastus, "1.32.5", autoWindow(opensSoon), d),
		member("d-open", "g", eastus, "1.32.5", autoWindow(openNow), d),
	}}
}

// concepts-update-orchestration.md: "Update run prioritizes upgrading clusters based on planned
// maintenance in the following order: 1. open ongoing maintenance window. 2. opening in the next four
// hours. 3. no maintenance window. 4. closed maintenance window." — and "When a cluster moves to
// Pending, the update run attempts to upgrade the next cluster in the group."; faq.md: Fleet "polls
// for open maintenance windows every 60 minutes".
func TestMaintenanceWindowOrder(t *testing.T) {
	f := windowFleet()
	r, evs := start(t, oneGroup("g"), full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, at("2026-11-23T01:10:00Z"), false)...)
	// With two members Pending and none running, group, stage and run are Pending.
	if r.Status.State != Pending || r.Status.Stages[0].State != Pending || r.Status.Stages[0].Groups[0].State != Pending {
		t.Fatalf("states run %s stage %s group %s, want Pending", r.Status.State, r.Status.Stages[0].State, r.Status.Stages[0].Groups[0].State)
	}
	if m := memberState(r, "a-closed"); m.Message != "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z" {
		t.Fatalf("pending message %q", m.Message)
	}
	evs = append(evs, drive(t, r, &f, at("2026-12-01T00:00:00Z"), false)...)
	wantLines(t, trace(evs, memberKinds...), []string{
		"11-23T00:00 d-open NotStarted>Running",
		"11-23T00:30 d-open Running>Completed",
		"11-23T00:30 c-soon NotStarted>Pending",
		"11-23T00:30 b-none NotStarted>Running",
		"11-23T01:00 b-none Running>Completed",
		"11-23T01:00 a-closed NotStarted>Pending",
		// opens 02:00; polled hourly from 00:30 → started at 02:30.
		"11-23T02:30 c-soon Pending>Running",
		"11-23T03:00 c-soon Running>Completed",
		"11-28T02:00 a-closed Pending>Running",
		"11-28T02:30 a-closed Running>Completed",
	})
	if r.Status.State != Completed || !r.Status.CompletedTime.Equal(at("2026-11-28T02:30:00Z")) {
		t.Fatalf("run %s at %s", r.Status.State, r.Status.CompletedTime)
	}
	// The emulator applied the targets.
	for _, m := range f.Members {
		if m.KubernetesVersion != "1.33.1" || m.NodePools[0].NodeImageVersion != newImg || m.NodePools[0].KubernetesVersion != "1.33.1" {
			t.Fatalf("member %s not upgraded: %+v", m.Name, m)
		}
	}
}

// "The Pending status ... Target Kubernetes or node image version isn't yet available in the cluster's
// Azure region." A Pending member starts at the first 60-minute poll after the release.
func TestPendingUntilVersionReleased(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("w", "g", westeu, "1.32.5", takes(time.Hour))}}
	r, evs := start(t, oneGroup("g"), full("1.33.1"), f, at("2026-11-23T00:15:00Z"))
	evs = append(evs, drive(t, r, &f, at("2026-11-30T00:00:00Z"), false)...)
	wantLines(t, trace(evs, memberKinds...), []string{
		"11-23T00:15 w NotStarted>Pending",
		"11-24T12:15 w Pending>Running",
		"11-24T13:15 w Running>Completed",
	})
}

// fleets.json UpdateRunProperties.strategy: "If not set, all members will be updated sequentially.
// The UpdateRun status will show a single UpdateStage and a single UpdateGroup targeting all members.".
func TestOneByOne(t *testing.T) {
	d := takes(10 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{
		member("z", "", eastus, "1.32.5", d), member("x", "prod", eastus, "1.32.5", d), member("y", "canary", eastus, "1.32.5", d),
	}}
	r, evs := start(t, nil, full("1.33.1"), f, t0)
	if len(r.Status.Stages) != 1 || r.Status.Stages[0].Name != DefaultStageName || len(r.Status.Stages[0].Groups) != 1 || r.Status.Stages[0].Groups[0].Name != DefaultGroupName {
		t.Fatalf("status shape %+v", r.Status.Stages)
	}
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberStarted), []string{
		"11-23T00:00 x NotStarted>Running",
		"11-23T00:10 y NotStarted>Running",
		"11-23T00:20 z NotStarted>Running",
	})
}

// UpdateRunStrategy: "Stages within a run are executed sequentially one after another. Groups within
// a stage are executed in parallel. Member clusters within a group are updated sequentially one after another.".
func TestStagesSequentialGroupsParallel(t *testing.T) {
	d := takes(10 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{
		member("m1", "g1", eastus, "1.32.5", d), member("m2", "g1", eastus, "1.32.5", d),
		member("m3", "g2", eastus, "1.32.5", d), member("m4", "g3", eastus, "1.32.5", d),
	}}
	s := &Strategy{Stages: []Stage{
		{Name: "one", Groups: []Group{{Name: "g1"}, {Name: "g2"}}},
		{Name: "two", Groups: []Group{{Name: "g3"}}},
	}}
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberStarted), []string{
		"11-23T00:00 m1 NotStarted>Running",
		"11-23T00:00 m3 NotStarted>Running",
		"11-23T00:10 m2 NotStarted>Running",
		"11-23T00:20 m4 NotStarted>Running",
	})
	wantLines(t, trace(evs, EventStageState, EventRunState), []string{
		"11-23T00:00 run NotStarted>Running",
		"11-23T00:00 stage:one NotStarted>Running",
		"11-23T00:20 stage:one Running>Completed",
		"11-23T00:20 stage:two NotStarted>Running",
		"11-23T00:30 stage:two Running>Completed",
		"11-23T00:30 run Running>Completed",
	})
}

// concepts-update-orchestration.md "Maximum concurrency": "The stage-level Maximum concurrency always
// acts as the overall ceiling"; group default 1.
func TestMaxConcurrency(t *testing.T) {
	d := takes(10 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{
		member("a1", "a", eastus, "1.32.5", d), member("a2", "a", eastus, "1.32.5", d), member("a3", "a", eastus, "1.32.5", d),
		member("b1", "b", eastus, "1.32.5", d), member("b2", "b", eastus, "1.32.5", d),
	}}
	s := &Strategy{Stages: []Stage{{Name: "s", MaxConcurrency: "3", Groups: []Group{{Name: "a", MaxConcurrency: "2"}, {Name: "b"}}}}}
	r, _, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Status.Stages[0]; st.MaxConcurrency != 3 || st.Groups[0].MaxConcurrency != 2 || st.Groups[1].MaxConcurrency != 1 {
		t.Fatalf("resolved concurrency %d %d %d", st.MaxConcurrency, st.Groups[0].MaxConcurrency, st.Groups[1].MaxConcurrency)
	}
	evs, _ := r.Start(f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberStarted), []string{
		"11-23T00:00 a1 NotStarted>Running",
		"11-23T00:00 a2 NotStarted>Running",
		"11-23T00:00 b1 NotStarted>Running",
		"11-23T00:10 a3 NotStarted>Running",
		"11-23T00:10 b2 NotStarted>Running",
	})

	// "Group level: Can't exceed the stage-level Maximum Concurrency value, and can't exceed the number of clusters in the group."
	s.Stages[0].Groups[0].MaxConcurrency = "5"
	_, warnings, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `group "a": maxConcurrency 5 exceeds`) {
		t.Fatalf("warnings %v err %v", warnings, err)
	}
}

// update-strategies-gates-approvals.md: an approval before a stage means "updates don't start until
// approval is granted"; faq.md: "The after-stage wait begins at the same time as the approval. Both
// must be completed before the update run continues." concepts: stage/run Pending "if it has a Pending gate".
func TestGatesAndAfterStageWait(t *testing.T) {
	d := takes(10 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{member("m1", "c", eastus, "1.32.5", d), member("m2", "p", eastus, "1.32.5", d)}}
	s := &Strategy{Stages: []Stage{
		{Name: "canary", Groups: []Group{{Name: "c"}}, AfterStageWaitInSeconds: 3600,
			BeforeGates: []Gate{{DisplayName: "start", Type: Approval}}, AfterGates: []Gate{{DisplayName: "healthy?", Type: Approval}}},
		{Name: "prod", Groups: []Group{{Name: "p", BeforeGates: []Gate{{DisplayName: "prod ok", Type: Approval}}}}},
	}}
	r, evs := start(t, s, full("1.33.1"), f, t0)
	if r.Status.State != Pending || r.Status.Stages[0].State != Pending || r.Status.Stages[0].BeforeGates[0].State != Pending {
		t.Fatalf("before gate: run %s stage %s gate %s", r.Status.State, r.Status.Stages[0].State, r.Status.Stages[0].BeforeGates[0].State)
	}
	// faq.md "Can I preapprove an approval? No."
	if _, err := r.CompleteGate(GateRef{Stage: "canary", Timing: After}, f, t0); err == nil {
		t.Fatal("approving an unreached gate must fail")
	}
	if _, err := r.CompleteGate(GateRef{Stage: "canary", Timing: After, Index: 3}, f, t0); err == nil {
		t.Fatal("approving a missing gate must fail")
	}
	e, err := r.CompleteGate(GateRef{Stage: "canary", Timing: Before}, f, at("2026-11-23T00:05:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, e...)
	evs = append(evs, drive(t, r, &f, at("2026-11-23T00:20:00Z"), false)...)
	// Members done at 00:15: the wait (until 01:15) and the after gate run together.
	if st := r.Status.Stages[0]; st.State != Pending || st.AfterStageWait.State != Running || st.AfterGates[0].State != Pending {
		t.Fatalf("after phase: stage %s wait %s gate %s", st.State, st.AfterStageWait.State, st.AfterGates[0].State)
	}
	// The wait elapses before the approval: still blocked by the gate.
	evs = append(evs, drive(t, r, &f, at("2026-11-23T02:00:00Z"), false)...)
	if st := r.Status.Stages[0]; st.State != Pending || st.AfterStageWait.State != Completed || r.Status.Stages[1].State != NotStarted {
		t.Fatalf("after wait: stage %s wait %s next %s", st.State, st.AfterStageWait.State, r.Status.Stages[1].State)
	}
	e, _ = r.CompleteGate(GateRef{Stage: "canary", Timing: After}, f, at("2026-11-23T02:00:00Z"))
	evs = append(evs, e...)
	// Next stage: its group's before gate holds the group, so group, stage and run are Pending.
	if g := r.Status.Stages[1].Groups[0]; g.State != Pending || r.Status.State != Pending {
		t.Fatalf("group gate: group %s run %s", g.State, r.Status.State)
	}
	e, _ = r.CompleteGate(GateRef{Stage: "prod", Group: "p", Timing: Before}, f, at("2026-11-23T02:30:00Z"))
	evs = append(evs, e...)
	evs = append(evs, drive(t, r, &f, at("2026-11-23T03:00:00Z"), false)...)
	wantLines(t, trace(evs, EventGateState, EventWaitState, EventMemberStarted), []string{
		"11-23T00:00 gate:canary//Before0 NotStarted>Pending",
		"11-23T00:05 gate:canary//Before0 Pending>Completed",
		"11-23T00:05 m1 NotStarted>Running",
		"11-23T00:15 wait:canary NotStarted>Running",
		"11-23T00:15 gate:canary//After0 NotStarted>Pending",
		"11-23T01:15 wait:canary Running>Completed",
		"11-23T02:00 gate:canary//After0 Pending>Completed",
		"11-23T02:00 gate:prod/p/Before0 NotStarted>Pending",
		"11-23T02:30 gate:prod/p/Before0 Pending>Completed",
		"11-23T02:30 m2 NotStarted>Running",
	})
	if r.Status.State != Completed {
		t.Fatalf("run %s", r.Status.State)
	}
}

// concepts-update-orchestration.md Failed: "A cluster upgrade has failed, so the Update Run is stopped
// with a Failed status"; "Even when a cluster update fails, other in-progress cluster updates continue.
// The update run status shows as Stopping until all in-progress cluster updates finish."; "You can
// restart a failed or stopped update run at any time. The restarted update run begins with the last
// unprocessed cluster.".
func TestFailureStopsRunAndRestart(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{
		member("m1", "g1", eastus, "1.32.5", takes(10*time.Minute), fails("PDB blocked drain")),
		member("m2", "g1", eastus, "1.32.5", takes(10*time.Minute)),
		member("m3", "g2", eastus, "1.32.5", takes(30*time.Minute)),
	}}
	s := &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "g1"}, {Name: "g2"}}}}}
	r, _ := start(t, s, full("1.33.1"), f, t0)
	drive(t, r, &f, at("2026-11-23T00:15:00Z"), false)
	st := r.Status.Stages[0]
	if r.Status.State != Stopping || st.State != Stopping || st.Groups[0].State != Failed || st.Groups[1].State != Stopping {
		t.Fatalf("after failure: run %s stage %s g1 %s g2 %s", r.Status.State, st.State, st.Groups[0].State, st.Groups[1].State)
	}
	if m3 := memberState(r, "m3"); m3.State != Stopping {
		t.Fatalf("in-flight member %s, want Stopping", m3.State)
	}
	if m2 := memberState(r, "m2"); m2.State != NotStarted {
		t.Fatalf("m2 %s, want NotStarted", m2.State)
	}
	if _, err := r.Start(f, at("2026-11-23T00:20:00Z")); err == nil {
		t.Fatal("start while Stopping must fail")
	}
	drive(t, r, &f, at("2026-11-23T00:45:00Z"), false)
	st = r.Status.Stages[0]
	if r.Status.State != Failed || st.State != Failed || st.Groups[0].State != Failed || st.Groups[1].State != Completed || memberState(r, "m3").State != Completed {
		t.Fatalf("after in-flight finished: run %s stage %s g1 %s g2 %s", r.Status.State, st.State, st.Groups[0].State, st.Groups[1].State)
	}
	if want := "member m1 (stage s, group g1): PDB blocked drain"; r.Status.Error != want {
		t.Fatalf("error %q, want %q", r.Status.Error, want)
	}
	// Fix the cluster and restart: the failed member is tried again, then the rest.
	f.Members[0].Upgrade.Fail = false
	evs, err := r.Start(f, at("2026-11-23T01:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, drive(t, r, &f, at("2026-11-23T02:00:00Z"), false)...)
	wantLines(t, trace(evs, memberKinds...), []string{
		"11-23T01:00 m1 Failed>NotStarted",
		"11-23T01:00 m1 NotStarted>Running",
		"11-23T01:10 m1 Running>Completed",
		"11-23T01:10 m2 NotStarted>Running",
		"11-23T01:20 m2 Running>Completed",
	})
	if r.Status.State != Completed || r.Status.Error != "" {
		t.Fatalf("run %s %q", r.Status.State, r.Status.Error)
	}
}

// update-orchestration.md: "You can Stop a currently Running or Pending update run". The in-flight
// member shows Stopping (official example UpdateRuns_Stop.json) and its upgrade is not canceled.
func TestStopLeavesInFlightUpgrade(t *testing.T) {
	d := takes(30 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{
		member("m1", "g", eastus, "1.32.5", d), member("m2", "g", eastus, "1.32.5", d),
		member("m3", "g", eastus, "1.32.5", d, autoWindow(saturdays())),
	}}
	s := &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "g", MaxConcurrency: "3"}}}}}
	r, _, _ := NewRun(s, full("1.33.1"), f, t0)
	if _, err := r.Stop(f, t0); err == nil {
		t.Fatal("stop of a NotStarted run must fail")
	}
	if _, err := r.Start(f, t0); err != nil { // m1 and m2 run, m3 goes Pending (closed window)
		t.Fatal(err)
	}
	if memberState(r, "m3").State != Pending {
		t.Fatalf("m3 %s", memberState(r, "m3").State)
	}
	evs, err := r.Stop(f, at("2026-11-23T00:10:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	g := r.Status.Stages[0].Groups[0]
	if r.Status.State != Stopping || g.State != Stopping || memberState(r, "m1").State != Stopping || memberState(r, "m3").State != Stopped {
		t.Fatalf("after stop: run %s group %s m1 %s m3 %s", r.Status.State, g.State, memberState(r, "m1").State, memberState(r, "m3").State)
	}
	evs = append(evs, drive(t, r, &f, at("2026-11-23T01:00:00Z"), false)...)
	if r.Status.State != Stopped || r.Status.Stages[0].State != Stopped || memberState(r, "m1").State != Completed {
		t.Fatalf("after in-flight finished: run %s stage %s m1 %s", r.Status.State, r.Status.Stages[0].State, memberState(r, "m1").State)
	}
	if _, err := r.Stop(f, at("2026-11-23T01:00:00Z")); err == nil {
		t.Fatal("stop of a Stopped run must fail")
	}
	e, err := r.Start(f, at("2026-11-28T03:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, e...)
	wantLines(t, trace(evs, memberKinds...), []string{
		"11-23T00:10 m1 Running>Stopping",
		"11-23T00:10 m2 Running>Stopping",
		"11-23T00:10 m3 Pending>Stopped",
		"11-23T00:30 m1 Stopping>Completed",
		"11-23T00:30 m2 Stopping>Completed",
		"11-28T03:00 m3 Stopped>NotStarted",
		"11-28T03:00 m3 NotStarted>Running",
	})
}

// update-orchestration.md skip; fleets.json TargetType; faq.md "To continue the update run, manually
// skip the cluster."; update-strategies-gates-approvals.md: skipped stage/group → gates Skipped.
func TestSkip(t *testing.T) {
	d := takes(10 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{
		member("m1", "g1", eastus, "1.32.5", d, autoWindow(saturdays())),
		member("m2", "g1", eastus, "1.32.5", d),
		member("m3", "g2", eastus, "1.32.5", d),
	}}
	s := &Strategy{Stages: []Stage{
		{Name: "s1", Groups: []Group{{Name: "g1"}}, AfterStageWaitInSeconds: 3600},
		{Name: "s2", Groups: []Group{{Name: "g2"}}, BeforeGates: []Gate{{Type: Approval}}},
	}}
	r, _ := start(t, s, full("1.33.1"), f, t0)
	if _, err := r.Skip([]SkipTarget{{Type: SkipMember, Name: "m2"}}, f, t0); err == nil || !strings.Contains(err.Error(), `member "m2" is Running and can't be skipped`) {
		t.Fatalf("skip running member: %v", err)
	}
	// All targets are checked before any is applied.
	if _, err := r.Skip([]SkipTarget{{Type: SkipMember, Name: "m1"}, {Type: SkipGroup, Name: "nope"}}, f, t0); err == nil || !strings.Contains(err.Error(), `group "nope" is not in this update run`) {
		t.Fatalf("skip unknown group: %v", err)
	}
	if m := memberState(r, "m1"); m.State != NotStarted {
		t.Fatalf("m1 %s after a rejected skip", m.State)
	}
	if _, err := r.Skip([]SkipTarget{{Type: SkipAfterStageWait, Name: "s2"}}, f, t0); err == nil || !strings.Contains(err.Error(), `stage "s2" has no after-stage wait`) {
		t.Fatalf("skip missing wait: %v", err)
	}
	drive(t, r, &f, at("2026-11-23T00:20:00Z"), false)
	if g := r.Status.Stages[0].Groups[0]; g.State != Pending {
		t.Fatalf("group %s, want Pending on m1", g.State)
	}
	var evs []Event
	for _, step := range []struct {
		at      string
		targets []SkipTarget
	}{
		{"2026-11-23T00:20:00Z", []SkipTarget{{Type: SkipMember, Name: "m1"}}},
		{"2026-11-23T00:30:00Z", []SkipTarget{{Type: SkipAfterStageWait, Name: "s1"}}},
		{"2026-11-23T00:40:00Z", []SkipTarget{{Type: SkipStage, Name: "s2"}}},
	} {
		e, err := r.Skip(step.targets, f, at(step.at))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e...)
	}
	wantLines(t, trace(evs, EventMemberState, EventWaitState, EventGateState, EventStageState, EventRunState), []string{
		"11-23T00:20 m1 Pending>Skipped",
		"11-23T00:20 stage:s1 Pending>Running",
		"11-23T00:20 run Pending>Running",
		"11-23T00:20 wait:s1 NotStarted>Running",
		"11-23T00:30 wait:s1 Running>Skipped",
		"11-23T00:30 stage:s1 Running>Completed",
		"11-23T00:30 gate:s2//Before0 NotStarted>Pending",
		"11-23T00:30 stage:s2 NotStarted>Pending",
		"11-23T00:30 run Running>Pending",
		"11-23T00:40 m3 NotStarted>Skipped",
		"11-23T00:40 gate:s2//Before0 Pending>Skipped",
		"11-23T00:40 stage:s2 Pending>Skipped",
		"11-23T00:40 run Pending>Completed",
	})
	if _, err := r.Skip([]SkipTarget{{Type: SkipMember, Name: "m3"}}, f, at("2026-11-23T00:50:00Z")); err == nil {
		t.Fatal("skip in a Completed run must fail")
	}
}

// concepts-update-orchestration.md Skipped: "Update Group: ... all clusters in the group as Skipped";
// "Update Stage: ... all groups in the stage as Skipped"; "Update Run: the system detected that all
// stages were Skipped." Gates of a skipped group move to Skipped.
func TestEverythingAlreadyAtTargetIsSkipped(t *testing.T) {
	done := pools(NodePool{Name: "system", NodeImageVersion: newImg})
	f := Fleet{Regions: regions(), Members: []Member{member("m1", "g", eastus, "1.33.1", done), member("m2", "g", eastus, "1.33.1", done)}}
	s := &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "g", AfterGates: []Gate{{Type: Approval}}}}}}}
	r, evs := start(t, s, full("1.33.1"), f, t0)
	if r.Status.State != Skipped || r.Status.Stages[0].State != Skipped || r.Status.Stages[0].Groups[0].AfterGates[0].State != Skipped {
		t.Fatalf("run %s stage %s gate %s", r.Status.State, r.Status.Stages[0].State, r.Status.Stages[0].Groups[0].AfterGates[0].State)
	}
	if m := memberState(r, "m1"); m.Message != "already at target Kubernetes version 1.33.1" {
		t.Fatalf("message %q", m.Message)
	}
	wantLines(t, trace(evs, EventRunState), []string{"11-23T00:00 run NotStarted>Running", "11-23T00:00 run Running>Skipped"})
}

// upgrade-aks-control-plane.md: "you can't skip Kubernetes minor versions"; AKS refuses the upgrade,
// so the member fails when reached and, fail-fast, so does the run.
func TestRejectedUpgradeFailsRun(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("old", "g", eastus, "1.31.9"), member("ok", "g", eastus, "1.32.5")}}
	r, evs := start(t, oneGroup("g"), full("1.33.1"), f, t0)
	wantLines(t, trace(evs, memberKinds...), []string{"11-23T00:00 ok NotStarted>Running", "11-23T00:00 ok Running>Completed", "11-23T00:00 old NotStarted>Failed"})
	if r.Status.State != Failed || !strings.Contains(r.Status.Error, "AKS does not skip Kubernetes minor versions") {
		t.Fatalf("run %s %q", r.Status.State, r.Status.Error)
	}
}

// The emulator may call Advance at any time: one call far in the future must give exactly what
// stepping through every NextWake gives.
func TestAdvanceCatchUpEqualsStepping(t *testing.T) {
	build := func() (*Run, Fleet) {
		f := windowFleet()
		f.Members = append(f.Members, member("e-west", "h", westeu, "1.32.5", takes(45*time.Minute)), member("f-fail", "h2", eastus, "1.32.5", takes(5*time.Minute)))
		s := &Strategy{Stages: []Stage{
			{Name: "one", Groups: []Group{{Name: "g"}, {Name: "h"}}, AfterStageWaitInSeconds: 1800},
			{Name: "two", Groups: []Group{{Name: "h2"}}},
		}}
		r, _, err := NewRun(s, full("1.33.1"), f, t0)
		if err != nil {
			t.Fatal(err)
		}
		return r, f
	}
	end := at("2026-12-05T00:00:00Z")
	a, fa := build()
	evA, _ := a.Start(fa, t0)
	evA = append(evA, drive(t, a, &fa, end, false)...)
	b, fb := build()
	evB, _ := b.Start(fb, t0)
	evB = append(evB, b.Advance(fb, end)...)
	if !reflect.DeepEqual(trace(evA), trace(evB)) {
		t.Fatalf("stepped:\n%s\ncatch-up:\n%s", strings.Join(trace(evA), "\n"), strings.Join(trace(evB), "\n"))
	}
	if !reflect.DeepEqual(a.Status, b.Status) {
		t.Fatalf("statuses differ:\n%+v\n%+v", a.Status, b.Status)
	}
	if a.Status.State != Completed {
		t.Fatalf("run %s", a.Status.State)
	}
}

func TestNewRun(t *testing.T) {
	f := Fleet{Regions: regions(), Members: []Member{member("b", "g", westeu, "1.32.5"), member("a", "g", eastus, "1.32.5")}}
	// UpdateGroup.name: "It must match a group name of an existing fleet member."
	if _, _, err := NewRun(oneGroup("missing"), full("1.33.1"), f, t0); err == nil || err.Error() != `strategy: group "missing" of stage "s" matches no fleet member's group` {
		t.Fatalf("err %v", err)
	}
	if _, _, err := NewRun(oneGroup("g"), Update{Upgrade: Full}, f, t0); err == nil {
		t.Fatal("invalid update must fail")
	}
	// faq.md: the selected node images are visible "even if the update run hasn't started".
	r, _, err := NewRun(oneGroup("g"), Update{Upgrade: NodeImageOnly, NodeImageSelection: Consistent}, f, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Status.SelectedNodeImageVersions, []string{midImg}) {
		t.Fatalf("selected %v", r.Status.SelectedNodeImageVersions)
	}
	g := r.Status.Stages[0].Groups[0]
	if r.Status.State != NotStarted || g.Members[0].Name != "a" || g.Members[1].Name != "b" || r.Status.Stages[0].AfterStageWait != nil {
		t.Fatalf("status %+v", r.Status)
	}
	// A NotStarted run does nothing on its own.
	if evs := r.Advance(f, t0.Add(time.Hour)); len(evs) != 0 {
		t.Fatalf("events %v", evs)
	}
	c := r.Clone()
	c.Status.Stages[0].Groups[0].Members[0].State = Running
	if r.Status.Stages[0].Groups[0].Members[0].State != NotStarted {
		t.Fatal("Clone must deep-copy")
	}
}
