package rollout

import (
	"testing"
	"time"
)

// runIn drives a real run (NewRun, Start, Stop and the simulated clock, as the emulator does)
// into state want: m1 upgrades for 30 minutes, m2 waits its turn in the same group.
func runIn(t *testing.T, want State) (*Run, Fleet, time.Time) {
	t.Helper()
	d := takes(30 * time.Minute)
	f := Fleet{Regions: regions(), Members: []Member{member("m1", "g", eastus, "1.32.5", d), member("m2", "g", eastus, "1.32.5", d)}}
	switch want {
	case Failed:
		f.Members[0].Upgrade.Fail, f.Members[0].Upgrade.Message = true, "drain blocked"
	case Pending:
		for i := range f.Members {
			f.Members[i].AutoUpgradeWindow = saturdays()
		}
	}
	s := &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "g"}}}}}
	r, _, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	step := func(fn func(Fleet, time.Time) ([]Event, error), after time.Duration) {
		now = now.Add(after)
		if _, err := fn(f, now); err != nil {
			t.Fatalf("reaching %s: %v", want, err)
		}
	}
	switch want {
	case Running, Pending:
		step(r.Start, 0)
	case Stopping:
		step(r.Start, 0)
		step(r.Stop, 10*time.Minute)
	case Stopped:
		step(r.Start, 0)
		step(r.Stop, 10*time.Minute)
		drive(t, r, &f, now.Add(time.Hour), false)
		now = now.Add(time.Hour)
	case Failed, Completed:
		step(r.Start, 0)
		drive(t, r, &f, now.Add(3*time.Hour), false)
		now = now.Add(3 * time.Hour)
	}
	if r.Status.State != want {
		t.Fatalf("run reached %s, want %s", r.Status.State, want)
	}
	return r, f, now
}

// TestActionChecksAgreeWithRun holds the actions' pre-request checks to the run's own methods, which
// the emulator runs, on real runs in every state a run reaches: StartCheck allows exactly what
// Run.Start accepts, except that a Running or Pending run is "done" (Run.Start refuses it; the
// action then sends nothing); StopCheck likewise for Run.Stop (Stopping and Stopped are "done");
// SkipRunCheck with SkipMemberCheck for Run.Skip of a member.
func TestActionChecksAgreeWithRun(t *testing.T) {
	states := []State{NotStarted, Running, Pending, Stopping, Stopped, Failed, Completed}
	compared := 0
	for _, s := range states {
		r, f, now := runIn(t, s)
		done, err := StartCheck(s)
		_, runErr := r.Start(f, now)
		if want := err == nil && !done; (runErr == nil) != want || (done && s != Running && s != Pending) {
			t.Errorf("start in %s: check (done %v, %v), Run.Start %v", s, done, err, runErr)
		}
		r, f, now = runIn(t, s)
		done, err = StopCheck(s)
		_, runErr = r.Stop(f, now)
		if want := err == nil && !done; (runErr == nil) != want || (done && s != Stopping && s != Stopped) {
			t.Errorf("stop in %s: check (done %v, %v), Run.Stop %v", s, done, err, runErr)
		}
		for _, m := range []string{"m1", "m2"} {
			r, f, now = runIn(t, s)
			ms := memberState(r, m).State
			err = SkipRunCheck(s)
			mdone, merr := SkipMemberCheck(m, ms)
			_, runErr = r.Skip([]SkipTarget{{Type: SkipMember, Name: m}}, f, now)
			if (runErr == nil) != (err == nil && merr == nil) {
				t.Errorf("skip %s (%s) in a %s run: checks (%v; done %v, %v), Run.Skip %v", m, ms, s, err, mdone, merr, runErr)
			}
			compared++
		}
		compared += 2
	}
	if compared != 4*len(states) {
		t.Fatalf("compared %d", compared)
	}
	t.Logf("%d decisions compared with Run.Start, Run.Stop and Run.Skip: 0 differ", compared)
}

func TestSkipChecksNameWhatIsAllowed(t *testing.T) {
	if _, err := StartCheck(Completed); err == nil || err.Error() != "the update run is Completed; start works from NotStarted, Stopped or Failed" {
		t.Errorf("start Completed: %v", err)
	}
	if done, err := SkipMemberCheck("m", Skipped); !done || err != nil {
		t.Errorf("skip Skipped member: %v %v", done, err)
	}
	if _, err := SkipMemberCheck("m", Completed); err == nil {
		t.Error("skip Completed member: no error")
	}
	if _, err := SkipStageCheck("s", Running, map[string]State{"g": Running}, map[string]map[string]State{"g": {"m": Running}}); err == nil {
		t.Error("skip a stage with a member being updated: no error")
	}
	if done, err := GateApproveCheck(Completed); !done || err != nil {
		t.Errorf("approve Completed gate: %v %v", done, err)
	}
	if _, err := GateApproveCheck(Skipped); err == nil {
		t.Error("approve Skipped gate: no error")
	}
}
