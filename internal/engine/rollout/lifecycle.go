package rollout

import (
	"fmt"
	"time"
)

// Start starts the run, or restarts it from Stopped or Failed.
// update-orchestration.md: "you can Start an update run that's either in Not started or Failed
// state"; fleet reference: start also works from Stopped. concepts-update-orchestration.md: "You can
// restart a failed or stopped update run at any time. The restarted update run begins with the
// last unprocessed cluster."
// Choice: on restart every member that is not Completed or Skipped (Failed, Stopped, Pending) is
// NotStarted again and is tried anew in its turn, except a failure within maxAllowedFailures that
// the run went past (failures.go); stopped after-stage waits start over.
func (r *Run) Start(f Fleet, now time.Time) ([]Event, error) {
	evs := r.Advance(f, now)
	now = r.at(now)
	switch r.Status.State {
	case NotStarted:
		r.Status.StartTime = now
		// concepts-update-orchestration.md: "Consistent: When the update run starts, pick image versions
		// that are currently available in all Azure regions where the clusters in this run are located."
		if selectionOf(r.Update) == Consistent && r.Update.Upgrade != ControlPlaneOnly {
			sel, _ := ConsistentNodeImages(r.runMembers(f), f.Regions, now)
			r.Status.SelectedNodeImageVersions = selectedList(sel)
		}
	case Stopped, Failed:
		for i := range r.Status.Stages {
			st := &r.Status.Stages[i]
			if st.AfterStageWait != nil && st.AfterStageWait.State == Stopped {
				st.AfterStageWait.State = NotStarted
				st.AfterStageWait.StartTime = time.Time{}
				evs = append(evs, Event{At: now, Kind: EventWaitState, Stage: st.Name, From: Stopped, To: NotStarted})
			}
			for j := range st.Groups {
				g := &st.Groups[j]
				for k := range g.Members {
					m := &g.Members[k]
					// A failure the run tolerated (failures.go) stays: the run went past it.
					if (m.State == Failed && !m.FailureTolerated) || m.State == Stopped || m.State == Pending {
						evs = append(evs, Event{At: now, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: NotStarted})
						*m = MemberStatus{Name: m.Name, State: NotStarted, OperationID: m.OperationID}
					}
				}
			}
		}
	default:
		return evs, fmt.Errorf("cannot start an update run in state %s; start works from NotStarted, Stopped or Failed", r.Status.State)
	}
	r.Status.Halt = HaltNone
	r.Status.Error = ""
	// Nothing happened while the run was not running: it goes on from now (a ScheduledStart gate whose
	// time passed meanwhile completes now, not then).
	r.Status.Clock = now
	r.recompute(now, &evs)
	return append(evs, r.Advance(f, now)...), nil
}

// Stop stops a Running or Pending run. Member upgrades already under way are not canceled: they
// show Stopping and end as Completed or Failed; the run is Stopping until they end, then Stopped.
// update-orchestration.md: "You can Stop a currently Running or Pending update run";
// concepts-update-orchestration.md Stopping: "Updating clusters are finishing." The in-flight
// member shows Stopping as in the official UpdateRuns_Stop example.
// Choice: Pending members become Stopped; NotStarted ones stay NotStarted; a running after-stage
// wait becomes Stopped.
func (r *Run) Stop(f Fleet, now time.Time) ([]Event, error) {
	evs := r.Advance(f, now)
	now = r.at(now)
	if r.Status.State != Running && r.Status.State != Pending {
		return evs, fmt.Errorf("cannot stop an update run in state %s; stop works from Running or Pending", r.Status.State)
	}
	r.Status.Halt = HaltStop
	r.haltMembers(now, &evs)
	r.recompute(now, &evs)
	return evs, nil
}

// haltMembers moves in-flight members to Stopping and Pending ones to Stopped.
func (r *Run) haltMembers(t time.Time, evs *[]Event) {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		if st.AfterStageWait != nil && st.AfterStageWait.State == Running {
			st.AfterStageWait.State = Stopped
			*evs = append(*evs, Event{At: t, Kind: EventWaitState, Stage: st.Name, From: Running, To: Stopped})
		}
		for j := range st.Groups {
			g := &st.Groups[j]
			for k := range g.Members {
				m := &g.Members[k]
				var to State
				switch m.State {
				case Running:
					to = Stopping
				case Pending:
					to = Stopped
				default:
					continue
				}
				*evs = append(*evs, Event{At: t, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: to, Message: m.Message})
				m.State = to
			}
		}
	}
}

// fail halts the run after a member failure (fail-fast).
// concepts-update-orchestration.md: "Even when a cluster update fails, other in-progress cluster
// updates continue. The update run status shows as Stopping until all in-progress cluster updates finish.".
func (r *Run) fail(t time.Time, evs *[]Event) {
	if r.Status.Halt == HaltFailure {
		return
	}
	r.Status.Halt = HaltFailure
	r.haltMembers(t, evs)
}
