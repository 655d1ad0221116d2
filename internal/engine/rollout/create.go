package rollout

import (
	"fmt"
	"time"
)

// NewRun creates a NotStarted run of update over the members in fleet, as a PUT of
// fleets/updateRuns does. strategy nil means members one by one. warnings name the
// concurrency values that were clamped.
func NewRun(strategy *Strategy, update Update, fleet Fleet, now time.Time) (*Run, []string, error) {
	return newRun(strategy, update, fleet, now, true)
}

func newRun(strategy *Strategy, update Update, fleet Fleet, now time.Time, strict bool) (*Run, []string, error) {
	if err := ValidateUpdate(update); err != nil {
		return nil, nil, err
	}
	if err := ValidateStrategy(strategy); err != nil {
		return nil, nil, err
	}
	r := &Run{Update: update}
	if strategy == nil {
		// fleets.json UpdateRunProperties.updateStrategyId: "3. Use the default strategy to update all
		// the members one by one: Leave both "updateStrategyId" and "strategy" unset."
		r.OneByOne = true
		r.Strategy = Strategy{Stages: []Stage{{Name: DefaultStageName, Groups: []Group{{Name: DefaultGroupName}}}}}
	} else {
		// updateStrategyId: "UpdateRuns created by "updateStrategyId" snapshot the referenced UpdateStrategy at the time of creation".
		r.Strategy = cloneStrategy(*strategy)
	}
	// Members are placed as Assign says (selectors.go): by update group, or by memberSelector.
	var assign Assignment
	if r.OneByOne {
		assign, _ = Assign(nil, fleet.Members)
	} else {
		var err error
		if assign, err = Assign(&r.Strategy, fleet.Members); err != nil {
			return nil, nil, err
		}
	}
	var warnings []string
	for i, st := range r.Strategy.Stages {
		ss := StageStatus{Name: st.Name, State: NotStarted, BeforeGates: gateStatuses(st.BeforeGates), AfterGates: gateStatuses(st.AfterGates)}
		if st.AfterStageWaitInSeconds > 0 {
			ss.AfterStageWait = &WaitStatus{State: NotStarted, WaitDurationInSeconds: st.AfterStageWaitInSeconds}
		}
		total := 0
		for j, ga := range assign.Stages[i].Groups {
			gs := GroupStatus{Name: ga.Name, State: NotStarted, Implicit: ga.Implicit}
			if !ga.Implicit {
				g := st.Groups[j]
				gs.BeforeGates, gs.AfterGates = gateStatuses(g.BeforeGates), gateStatuses(g.AfterGates)
			}
			// Choice: members are listed by name; the order they are updated in is decided as the run goes.
			for _, name := range ga.Members {
				gs.Members = append(gs.Members, MemberStatus{Name: name, State: NotStarted})
			}
			if ga.NamedMembers == 0 && strict && !ga.BySelector && !ga.Implicit {
				// UpdateGroup.name: "It must match a group name of an existing fleet member."
				// Choice: a memberSelector that selects nothing is not refused (UpdateGroup.memberSelector:
				// "Name is only used as an identifier"), nor is a name group whose members a stage's
				// memberSelector filtered out or an earlier group's took: the group has nothing to do.
				return nil, nil, fmt.Errorf("strategy: group %q of stage %q matches no fleet member's group", ga.Name, st.Name)
			}
			total += len(gs.Members)
			ss.Groups = append(ss.Groups, gs)
		}
		// concepts-update-orchestration.md "Maximum concurrency": stage default 50 and at most 50;
		// group default 1, at most the stage's value and the group's member count.
		// Choice: values beyond those limits are clamped (with a warning) rather than rejected.
		ss.MaxConcurrency = resolveConcurrency(st.MaxConcurrency, total, 50)
		if ss.MaxConcurrency > 50 {
			warnings = append(warnings, fmt.Sprintf("stage %q: maxConcurrency %s exceeds the limit of 50; 50 is used", st.Name, st.MaxConcurrency))
			ss.MaxConcurrency = 50
		}
		for j := range ss.Groups {
			gs := &ss.Groups[j]
			if gs.Implicit {
				// Choice: the implicit group (selectors.go) takes its stage's maxConcurrency, the only one
				// written for it (the upstream example's selector-only stage sets maxConcurrency "50%").
				gs.MaxConcurrency = min(ss.MaxConcurrency, max(len(gs.Members), 1))
				continue
			}
			g := st.Groups[j]
			gs.MaxConcurrency = resolveConcurrency(g.MaxConcurrency, len(gs.Members), 1)
			limit := ss.MaxConcurrency
			if n := len(gs.Members); n < limit {
				limit = n
			}
			if limit < 1 {
				limit = 1
			}
			if gs.MaxConcurrency > limit {
				warnings = append(warnings, fmt.Sprintf("group %q: maxConcurrency %s exceeds min(stage maxConcurrency, members in group) = %d; %d is used", g.Name, g.MaxConcurrency, limit, limit))
				gs.MaxConcurrency = limit
			}
		}
		resolveStageFailures(st, &ss)
		r.Status.Stages = append(r.Status.Stages, ss)
	}
	r.Status.State = NotStarted
	r.Status.Clock = now
	// faq.md: "The update run lists the selected node images used for the run. You can access this
	// information even if the update run hasn't started."
	if selectionOf(update) == Consistent && update.Upgrade != ControlPlaneOnly {
		sel, _ := ConsistentNodeImages(r.runMembers(fleet), fleet.Regions, now)
		r.Status.SelectedNodeImageVersions = selectedList(sel)
	}
	return r, warnings, nil
}

func gateStatuses(gs []Gate) []GateStatus {
	out := make([]GateStatus, len(gs))
	for i, g := range gs {
		out[i] = GateStatus{DisplayName: g.DisplayName, Type: g.Type, State: NotStarted, ScheduledStart: cloneScheduledStart(g.ScheduledStart)}
	}
	return out
}

// runMembers returns the Fleet members the run updates.
func (r *Run) runMembers(f Fleet) []Member {
	idx := f.memberIndex()
	var out []Member
	for _, st := range r.Status.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if fm, ok := idx[m.Name]; ok {
					out = append(out, *fm)
				}
			}
		}
	}
	return out
}
