package rollout

import "fmt"

// The checks the provider's actions make before sending start, stop or skip: which states allow
// each, and which are already what was asked (then the action does nothing). They are the
// guards of Run.Start, Run.Stop and Run.Skip above (update-orchestration.md: "you can Start an
// update run that's either in Not started or Failed state", start also from Stopped per the fleet
// reference; "You can Stop a currently Running or Pending update run"; skip is offered in the Not
// Started, Failed and Running states), stated over states alone; TestActionChecksAgreeWithRun
// holds them to those methods for every state.

// StartCheck: starting a run in state s is done already (Running, Pending), allowed (NotStarted,
// Stopped, Failed) or refused with the state and what is allowed.
func StartCheck(s State) (done bool, err error) {
	switch s {
	case Running, Pending:
		return true, nil
	case NotStarted, Stopped, Failed:
		return false, nil
	}
	return false, fmt.Errorf("the update run is %s; start works from NotStarted, Stopped or Failed", s)
}

// StopCheck: stopping a run in state s is done already (Stopping, Stopped), allowed (Running,
// Pending) or refused.
func StopCheck(s State) (done bool, err error) {
	switch s {
	case Stopping, Stopped:
		return true, nil
	case Running, Pending:
		return false, nil
	}
	return false, fmt.Errorf("the update run is %s; stop works from Running or Pending", s)
}

// SkipRunCheck: a skip is refused while the run is Stopping or finished.
func SkipRunCheck(s State) error {
	switch s {
	case Stopping, Completed, Skipped:
		return fmt.Errorf("the update run is %s; skip works in NotStarted, Running, Pending, Stopped or Failed runs", s)
	}
	return nil
}

// SkipMemberCheck: a Skipped member is done already; one being updated or Completed cannot be skipped.
func SkipMemberCheck(name string, s State) (done bool, err error) {
	switch {
	case s == Skipped:
		return true, nil
	case s.InFlight() || s == Completed:
		return false, fmt.Errorf("member %q is %s and can't be skipped; a member can be skipped while NotStarted, Pending, Stopped or Failed", name, s)
	}
	return false, nil
}

// SkipGroupCheck: a Skipped group is done already; a Completed group, or one with a member being
// updated, cannot be skipped. members maps the group's members to their states.
func SkipGroupCheck(name string, s State, members map[string]State) (done bool, err error) {
	if s == Skipped {
		return true, nil
	}
	if s == Completed {
		return false, fmt.Errorf("group %q is already Completed", name)
	}
	for m, ms := range members {
		if ms.InFlight() {
			return false, fmt.Errorf("group %q has member %q being updated (%s) and can't be skipped", name, m, ms)
		}
	}
	return false, nil
}

// SkipStageCheck: a Skipped stage is done already; a Completed stage cannot be skipped, nor one
// whose group cannot (groups maps each group to its state and its members' states).
func SkipStageCheck(name string, s State, groups map[string]State, members map[string]map[string]State) (done bool, err error) {
	if s == Skipped {
		return true, nil
	}
	if s == Completed {
		return false, fmt.Errorf("stage %q is already Completed", name)
	}
	for g, gs := range groups {
		if gs == Skipped {
			continue
		}
		if _, err := SkipGroupCheck(g, gs, members[g]); err != nil {
			return false, fmt.Errorf("stage %q: %w", name, err)
		}
	}
	return false, nil
}

// GateApproveCheck: approving a gate in state s (fleets.json GateState) is done already
// (Completed), allowed (Pending) or refused (Skipped).
func GateApproveCheck(s State) (done bool, err error) {
	switch s {
	case Completed:
		return true, nil
	case Pending:
		return false, nil
	}
	return false, fmt.Errorf("the gate is %s; only a Pending gate can be approved", s)
}
