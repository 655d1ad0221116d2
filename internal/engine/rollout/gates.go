package rollout

import (
	"fmt"
	"time"
)

// CompleteGate approves a Pending gate (PATCH fleets/gates {state: Completed}).
// GateType Approval: "An approval gate is completed by setting its state to be Completed."
// faq.md: "Can I preapprove an approval? No." — a gate the run has not reached cannot be completed.
// Completing a gate that is already Completed is a no-op. A Pending ScheduledStart gate may be
// completed early the same way (scheduled_start.go).
func (r *Run) CompleteGate(ref GateRef, f Fleet, now time.Time) ([]Event, error) {
	evs := r.Advance(f, now)
	now = r.at(now)
	g := r.Gate(ref)
	if g == nil {
		return evs, fmt.Errorf("no %s gate %d on stage %q group %q", ref.Timing, ref.Index, ref.Stage, ref.Group)
	}
	switch g.State {
	case Completed:
		return evs, nil
	case Pending:
	default:
		return evs, fmt.Errorf("gate %q is %s; only a Pending gate can be approved", g.DisplayName, g.State)
	}
	evs = append(evs, Event{At: now, Kind: EventGateState, Stage: ref.Stage, Group: ref.Group, Gate: &ref, From: Pending, To: Completed})
	g.State = Completed
	g.CompletedTime = now
	r.recompute(now, &evs)
	return append(evs, r.Advance(f, now)...), nil
}

// reach moves NotStarted gates to Pending: the run has reached them.
// update-strategies-gates-approvals.md: "Not Started: Until the update run reaches a gate ...
// Pending: While a gate is waiting to be approved".
func reach(stage, group string, gs []GateStatus, timing Timing, t time.Time, evs *[]Event) bool {
	changed := false
	for i := range gs {
		if gs[i].State != NotStarted {
			continue
		}
		gs[i].State = Pending
		gs[i].StartTime = t
		*evs = append(*evs, Event{At: t, Kind: EventGateState, Stage: stage, Group: group, Gate: &GateRef{Stage: stage, Group: group, Timing: timing, Index: i}, From: NotStarted, To: Pending, Message: gs[i].DisplayName})
		changed = true
	}
	scheduleGates(gs, t)
	return changed
}
