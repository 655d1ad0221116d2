package rollout

import (
	"fmt"
	"time"
)

// SkipTargetType is fleets.json TargetType.
type SkipTargetType string

const (
	SkipMember         SkipTargetType = "Member"
	SkipGroup          SkipTargetType = "Group"
	SkipStage          SkipTargetType = "Stage"
	SkipAfterStageWait SkipTargetType = "AfterStageWait"
)

// SkipTarget is fleets.json SkipTarget: "To skip a member/group/stage, use the member/group/stage's
// name; To skip an after stage wait, use the parent stage's name.".
type SkipTarget struct {
	Type SkipTargetType
	Name string
}

// Skip applies a skip request (POST .../skip). All targets are checked before any is applied.
// TargetType: Member "Skip the update of a member."; Group "Skip the update of a group."; Stage
// "Skip the update of an entire stage including the after stage wait."; AfterStageWait.
// update-strategies-gates-approvals.md: "If a group or stage is skipped, then all gates within that
// group or stage automatically move to Skipped state."
// update-orchestration.md: skipping is offered in the Not Started, Failed and Running states; faq.md
// tells users to skip a Pending cluster to continue.
// Choice: skip is refused while the run is Stopping or finished, and for a member whose upgrade is
// under way (it cannot be undone); skipping what is already Skipped is a no-op.
func (r *Run) Skip(targets []SkipTarget, f Fleet, now time.Time) ([]Event, error) {
	evs := r.Advance(f, now)
	now = r.at(now)
	switch r.Status.State {
	case Stopping, Completed, Skipped:
		return evs, fmt.Errorf("cannot skip in an update run in state %s", r.Status.State)
	}
	if len(targets) == 0 {
		return evs, fmt.Errorf("skip: at least one target is required")
	}
	type apply func()
	var todo []apply
	for i, tg := range targets {
		switch tg.Type {
		case SkipMember:
			st, g, m := r.findMember(tg.Name)
			if m == nil {
				return evs, fmt.Errorf("skip targets[%d]: member %q is not in this update run", i, tg.Name)
			}
			if m.State.InFlight() || m.State == Completed {
				return evs, fmt.Errorf("skip targets[%d]: member %q is %s and can't be skipped", i, tg.Name, m.State)
			}
			todo = append(todo, func() { r.skipMember(st, g, m, now, &evs) })
		case SkipGroup:
			st, g := r.findGroup(tg.Name)
			if g == nil {
				return evs, fmt.Errorf("skip targets[%d]: group %q is not in this update run", i, tg.Name)
			}
			if err := skippableGroup(g); err != nil {
				return evs, fmt.Errorf("skip targets[%d]: %w", i, err)
			}
			todo = append(todo, func() { r.skipGroup(st, g, now, &evs) })
		case SkipStage:
			st := r.findStage(tg.Name)
			if st == nil {
				return evs, fmt.Errorf("skip targets[%d]: stage %q is not in this update run", i, tg.Name)
			}
			if st.State == Completed {
				return evs, fmt.Errorf("skip targets[%d]: stage %q is already Completed", i, tg.Name)
			}
			for j := range st.Groups {
				if err := skippableGroup(&st.Groups[j]); err != nil {
					return evs, fmt.Errorf("skip targets[%d]: %w", i, err)
				}
			}
			todo = append(todo, func() {
				st.UserSkipped = true
				for j := range st.Groups {
					r.skipGroup(st, &st.Groups[j], now, &evs)
				}
				skipGates(st.Name, "", st.BeforeGates, Before, now, &evs)
				skipGates(st.Name, "", st.AfterGates, After, now, &evs)
				skipWait(st, now, &evs)
			})
		case SkipAfterStageWait:
			st := r.findStage(tg.Name)
			if st == nil {
				return evs, fmt.Errorf("skip targets[%d]: stage %q is not in this update run", i, tg.Name)
			}
			if st.AfterStageWait == nil {
				return evs, fmt.Errorf("skip targets[%d]: stage %q has no after-stage wait", i, tg.Name)
			}
			todo = append(todo, func() { skipWait(st, now, &evs) })
		default:
			return evs, fmt.Errorf("skip targets[%d].type: %q is not Member, Group, Stage or AfterStageWait", i, tg.Type)
		}
	}
	for _, fn := range todo {
		fn()
	}
	r.recompute(now, &evs)
	return append(evs, r.Advance(f, now)...), nil
}

func skippableGroup(g *GroupStatus) error {
	if g.State == Completed {
		return fmt.Errorf("group %q is already Completed", g.Name)
	}
	for _, m := range g.Members {
		if m.State.InFlight() {
			return fmt.Errorf("group %q has member %q being updated and can't be skipped", g.Name, m.Name)
		}
	}
	return nil
}

func (r *Run) skipMember(st *StageStatus, g *GroupStatus, m *MemberStatus, t time.Time, evs *[]Event) {
	if m.State == Skipped || m.State == Completed {
		return
	}
	*evs = append(*evs, Event{At: t, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: Skipped, Message: "skipped by user"})
	m.State = Skipped
	m.UserSkipped = true
	m.Message = "skipped by user"
	m.CompletedTime = t
}

func (r *Run) skipGroup(st *StageStatus, g *GroupStatus, t time.Time, evs *[]Event) {
	g.UserSkipped = true
	for k := range g.Members {
		r.skipMember(st, g, &g.Members[k], t, evs)
	}
	skipGates(st.Name, g.Name, g.BeforeGates, Before, t, evs)
	skipGates(st.Name, g.Name, g.AfterGates, After, t, evs)
}

func skipGates(stage, group string, gs []GateStatus, timing Timing, t time.Time, evs *[]Event) {
	for i := range gs {
		if gs[i].State.Finished() {
			continue
		}
		*evs = append(*evs, Event{At: t, Kind: EventGateState, Stage: stage, Group: group, Gate: &GateRef{Stage: stage, Group: group, Timing: timing, Index: i}, From: gs[i].State, To: Skipped})
		gs[i].State = Skipped
		gs[i].CompletedTime = t
	}
}

func skipWait(st *StageStatus, t time.Time, evs *[]Event) {
	w := st.AfterStageWait
	if w == nil || w.State.Finished() {
		return
	}
	*evs = append(*evs, Event{At: t, Kind: EventWaitState, Stage: st.Name, From: w.State, To: Skipped})
	w.State = Skipped
	w.CompletedTime = t
}

func allGroupsUserSkipped(st *StageStatus) bool {
	for _, g := range st.Groups {
		if !g.UserSkipped {
			return false
		}
	}
	return len(st.Groups) > 0
}
