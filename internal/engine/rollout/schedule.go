package rollout

import (
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

// progress takes the next steps in the current stage: the first stage that is not finished.
func (r *Run) progress(f Fleet, idx map[string]*Member, t time.Time, evs *[]Event) bool {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		if stageFinished(st) {
			continue
		}
		changed := false
		if st.StartTime.IsZero() {
			st.StartTime = t
			changed = true
		}
		if allGroupsUserSkipped(st) {
			// "Update Stage: a user marked the stage, or all groups in the stage as Skipped", and
			// "If a group or stage is skipped, then all gates within that group or stage automatically
			// move to Skipped state."
			skipGates(st.Name, "", st.BeforeGates, Before, t, evs)
			skipGates(st.Name, "", st.AfterGates, After, t, evs)
			skipWait(st, t, evs)
			return true
		}
		// Gates before the stage block it until approved (update-strategies-gates-approvals.md:
		// "An approval before your production stage means that production stage updates don't start
		// until approval is granted.").
		if reach(st.Name, "", st.BeforeGates, Before, t, evs) {
			changed = true
		}
		if completeScheduled(st.Name, "", st.BeforeGates, Before, t, evs) {
			changed = true
		}
		if !gatesDone(st.BeforeGates) {
			return changed
		}
		// Groups in a stage run in parallel (UpdateRunStrategy).
		running := 0
		for j := range st.Groups {
			for _, m := range st.Groups[j].Members {
				if m.State.InFlight() {
					running++
				}
			}
		}
		allGroups := true
		for j := range st.Groups {
			g := &st.Groups[j]
			if groupFinished(g) {
				continue
			}
			allGroups = false
			if g.StartTime.IsZero() {
				g.StartTime = t
				changed = true
			}
			if reach(st.Name, g.Name, g.BeforeGates, Before, t, evs) {
				changed = true
			}
			if completeScheduled(st.Name, g.Name, g.BeforeGates, Before, t, evs) {
				changed = true
			}
			if !gatesDone(g.BeforeGates) {
				continue
			}
			if r.schedule(f, st, g, idx, &running, t, evs) {
				changed = true
			}
			if r.Status.Halt != HaltNone {
				return true
			}
			if !membersFinished(g) {
				continue
			}
			if membersAllSkipped(g) {
				// A group whose clusters are all Skipped is Skipped, and "If a group or stage is skipped,
				// then all gates within that group or stage automatically move to Skipped state."
				if !gatesDone(g.AfterGates) {
					skipGates(st.Name, g.Name, g.AfterGates, After, t, evs)
					changed = true
				}
				continue
			}
			if reach(st.Name, g.Name, g.AfterGates, After, t, evs) {
				changed = true
			}
		}
		if !allGroups {
			return changed
		}
		groupStates := make([]State, len(st.Groups))
		for j := range st.Groups {
			groupStates[j] = deriveGroup(&st.Groups[j], false)
		}
		if Aggregate(groupStates) == Skipped {
			// "Update Stage: a user marked the stage, or all groups in the stage as Skipped."
			if !gatesDone(st.AfterGates) || (st.AfterStageWait != nil && !st.AfterStageWait.State.Finished()) {
				skipGates(st.Name, "", st.AfterGates, After, t, evs)
				skipWait(st, t, evs)
				changed = true
			}
			return changed
		}
		// faq.md: "The after-stage wait begins at the same time as the approval. Both must be
		// completed before the update run continues."
		if w := st.AfterStageWait; w != nil {
			switch w.State {
			case NotStarted:
				w.State, w.StartTime = Running, t
				*evs = append(*evs, Event{At: t, Kind: EventWaitState, Stage: st.Name, From: NotStarted, To: Running})
				changed = true
				fallthrough
			case Running:
				if end := w.StartTime.Add(time.Duration(w.WaitDurationInSeconds) * time.Second); !end.After(t) {
					*evs = append(*evs, Event{At: end, Kind: EventWaitState, Stage: st.Name, From: Running, To: Completed})
					w.State, w.CompletedTime = Completed, end
					changed = true
				}
			}
		}
		if reach(st.Name, "", st.AfterGates, After, t, evs) {
			changed = true
		}
		return changed
	}
	return false
}

// schedule starts, skips or parks the members of a group at t, within the concurrency limits.
//
// Order: concepts-update-orchestration.md "Update run prioritizes upgrading clusters based on
// planned maintenance in the following order: 1. open ongoing maintenance window, 2. opening in
// the next four hours, 3. no maintenance window, 4. closed maintenance window."
// Choice: the order is taken at each scheduling instant among the members still to be tried
// (NotStarted, and Pending members whose poll is due), ties broken by member name.
//
// Members: UpdateRunStrategy "Member clusters within a group are updated sequentially one after
// another" — up to the group's maxConcurrency (default 1) and the stage's (default 50).
// Pending: concepts-update-orchestration.md "When a cluster moves to Pending, the update run
// attempts to upgrade the next cluster in the group.".
func (r *Run) schedule(f Fleet, st *StageStatus, g *GroupStatus, idx map[string]*Member, stageRunning *int, t time.Time, evs *[]Event) bool {
	groupRunning := 0
	for _, m := range g.Members {
		if m.State.InFlight() {
			groupRunning++
		}
	}
	slots := func() int {
		a, b := g.MaxConcurrency-groupRunning, st.MaxConcurrency-*stageRunning
		if b < a {
			return b
		}
		return a
	}
	if slots() <= 0 {
		return false
	}
	var cands []*MemberStatus
	for k := range g.Members {
		m := &g.Members[k]
		if m.State == NotStarted || (m.State == Pending && due(m, t)) {
			cands = append(cands, m)
		}
	}
	if len(cands) == 0 {
		return false
	}
	rank := make([]int, len(cands))
	for i, m := range cands {
		rank[i] = maintenance.None.Rank()
		if fm, ok := idx[m.Name]; ok {
			rank[i] = r.class(fm, t).Rank()
		}
	}
	// next picks the best remaining candidate: lowest class, then name. Candidates are taken one
	// at a time because most scheduling instants start one member and stop.
	used := make([]bool, len(cands))
	next := func() *MemberStatus {
		best := -1
		for i := range cands {
			if used[i] {
				continue
			}
			if best < 0 || rank[i] < rank[best] || (rank[i] == rank[best] && cands[i].Name < cands[best].Name) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		used[best] = true
		return cands[best]
	}
	sel := r.selected()
	changed := false
	for m := next(); m != nil; m = next() {
		if slots() <= 0 {
			break
		}
		fm, ok := idx[m.Name]
		if !ok {
			// Choice: a member that left the fleet after the run was created fails.
			r.setMember(st, g, m, Failed, "the fleet member no longer exists", t, evs)
			m.CompletedTime = t
			if r.memberFailed(st, g, m, t, evs); r.Status.Halt != HaltNone {
				return true
			}
			changed = true
			continue
		}
		d := Decide(*fm, r.Update, sel, f.Regions, t)
		if r.observe != nil {
			r.observe(st.Name, g.Name, m.Name, d, t)
		}
		switch d.Action {
		case ActionSkip:
			r.setMember(st, g, m, Skipped, d.Reason, t, evs)
			m.CompletedTime = t
			changed = true
		case ActionPending:
			if m.State != Pending {
				m.PendingSince = t
				r.setMember(st, g, m, Pending, d.Reason, t, evs)
				changed = true
			} else if m.Message != d.Reason {
				m.Message = d.Reason
				*evs = append(*evs, Event{At: t, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: Pending, To: Pending, Message: d.Reason})
			}
			m.LastChecked = t
			m.EligibleFrom, m.EligibleKnown = d.EligibleFrom, d.EligibleKnown
		case ActionFail:
			// The AKS call is rejected: the member fails at once.
			m.StartTime = t
			m.CompletedTime = t
			r.setMember(st, g, m, Failed, d.Reason, t, evs)
			// Fail-fast unless within maxAllowedFailures (failures.go).
			if r.memberFailed(st, g, m, t, evs); r.Status.Halt != HaltNone {
				return true
			}
			changed = true
		case ActionUpgrade:
			tg := d.Target
			m.Target = &tg
			m.StartTime = t
			m.FinishAt = t.Add(fm.Upgrade.Duration)
			m.FailOnFinish = fm.Upgrade.Fail
			m.FailMessage = fm.Upgrade.Message
			m.Message = ""
			*evs = append(*evs, Event{At: t, Kind: EventMemberStarted, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: Running, Target: m.Target, FinishAt: m.FinishAt, Message: d.Reason})
			m.State = Running
			groupRunning++
			*stageRunning++
			changed = true
		}
	}
	return changed
}

func (r *Run) selected() map[string]string {
	out := map[string]string{}
	for _, v := range r.Status.SelectedNodeImageVersions {
		f, ver := SplitNodeImage(v)
		out[f] = ver
	}
	return out
}

func (r *Run) setMember(st *StageStatus, g *GroupStatus, m *MemberStatus, to State, msg string, t time.Time, evs *[]Event) {
	*evs = append(*evs, Event{At: t, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: to, Message: msg})
	m.State = to
	m.Message = msg
}
