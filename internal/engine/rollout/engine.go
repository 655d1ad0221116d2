package rollout

import (
	"fmt"
	"sort"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

// EventKind classifies what Advance and the actions report.
type EventKind string

const (
	EventRunState   EventKind = "RunStateChanged"
	EventStageState EventKind = "StageStateChanged"
	EventGroupState EventKind = "GroupStateChanged"
	// EventMemberStarted: the member's upgrade starts now and ends at FinishAt (Target says to what).
	EventMemberStarted EventKind = "MemberStarted"
	// EventMemberFinished: a started upgrade ended (To is Completed or Failed). On Completed the
	// caller applies Target to the cluster.
	EventMemberFinished EventKind = "MemberFinished"
	// EventMemberState: any other member transition (Pending, Skipped, Stopping, Stopped, Failed
	// because AKS rejected the upgrade, NotStarted on restart).
	EventMemberState EventKind = "MemberStateChanged"
	// EventGateState: a gate changed state; To == Pending means the run reached it and the caller
	// creates the fleets/gates resource.
	EventGateState EventKind = "GateStateChanged"
	// EventWaitState: an after-stage wait started, elapsed, was skipped or stopped.
	EventWaitState EventKind = "WaitStateChanged"
)

// Event is one thing that happened to a run, at At. Stage/Group/Member locate it.
type Event struct {
	At       time.Time
	Kind     EventKind
	Stage    string
	Group    string
	Member   string
	Gate     *GateRef
	From, To State
	Message  string
	Target   *Target
	FinishAt time.Time
}

// NewRun creates a NotStarted run of update over the members in facts, as a PUT of
// fleets/updateRuns does. strategy nil means members one by one. warnings name the
// concurrency values that were clamped.
func NewRun(strategy *Strategy, update Update, facts Facts, now time.Time) (*Run, []string, error) {
	return newRun(strategy, update, facts, now, true)
}

func newRun(strategy *Strategy, update Update, facts Facts, now time.Time, strict bool) (*Run, []string, error) {
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
	var warnings []string
	for _, st := range r.Strategy.Stages {
		ss := StageStatus{Name: st.Name, State: NotStarted, BeforeGates: gateStatuses(st.BeforeGates), AfterGates: gateStatuses(st.AfterGates)}
		if st.AfterStageWaitInSeconds > 0 {
			ss.AfterStageWait = &WaitStatus{State: NotStarted, WaitDurationInSeconds: st.AfterStageWaitInSeconds}
		}
		total := 0
		for _, g := range st.Groups {
			gs := GroupStatus{Name: g.Name, State: NotStarted, BeforeGates: gateStatuses(g.BeforeGates), AfterGates: gateStatuses(g.AfterGates)}
			for _, m := range facts.Members {
				if r.OneByOne || m.Group == g.Name {
					gs.Members = append(gs.Members, MemberStatus{Name: m.Name, State: NotStarted})
				}
			}
			// Choice: members are listed by name; the order they are updated in is decided as the run goes.
			sort.Slice(gs.Members, func(a, b int) bool { return gs.Members[a].Name < gs.Members[b].Name })
			if len(gs.Members) == 0 && strict {
				// UpdateGroup.name: "It must match a group name of an existing fleet member."
				return nil, nil, fmt.Errorf("strategy: group %q of stage %q matches no fleet member's group", g.Name, st.Name)
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
		for j, g := range st.Groups {
			gs := &ss.Groups[j]
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
		r.Status.Stages = append(r.Status.Stages, ss)
	}
	r.Status.State = NotStarted
	r.Status.Clock = now
	// faq.md: "The update run lists the selected node images used for the run. You can access this
	// information even if the update run hasn't started."
	if selectionOf(update) == Consistent && update.Upgrade != ControlPlaneOnly {
		sel, _ := ConsistentNodeImages(r.runMembers(facts), facts.Regions, now)
		r.Status.SelectedNodeImageVersions = selectedList(sel)
	}
	return r, warnings, nil
}

func gateStatuses(gs []Gate) []GateStatus {
	out := make([]GateStatus, len(gs))
	for i, g := range gs {
		out[i] = GateStatus{DisplayName: g.DisplayName, Type: g.Type, State: NotStarted}
	}
	return out
}

// runMembers returns the facts of the members the run updates.
func (r *Run) runMembers(f Facts) []Member {
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

func (r *Run) selected() map[string]string {
	out := map[string]string{}
	for _, v := range r.Status.SelectedNodeImageVersions {
		f, ver := SplitNodeImage(v)
		out[f] = ver
	}
	return out
}

// Start starts the run, or restarts it from Stopped or Failed.
// update-orchestration.md: "you can Start an update run that's either in Not started or Failed
// state"; fleet reference: start also works from Stopped. concepts-update-orchestration.md: "You can
// restart a failed or stopped update run at any time. The restarted update run begins with the
// last unprocessed cluster."
// Choice: on restart every member that is not Completed or Skipped (Failed, Stopped, Pending) is
// NotStarted again and is tried anew in its turn; stopped after-stage waits start over.
func (r *Run) Start(f Facts, now time.Time) ([]Event, error) {
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
					if m.State == Failed || m.State == Stopped || m.State == Pending {
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
func (r *Run) Stop(f Facts, now time.Time) ([]Event, error) {
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
func (r *Run) Skip(targets []SkipTarget, f Facts, now time.Time) ([]Event, error) {
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

func (r *Run) findStage(name string) *StageStatus {
	for i := range r.Status.Stages {
		if r.Status.Stages[i].Name == name {
			return &r.Status.Stages[i]
		}
	}
	return nil
}

func (r *Run) findGroup(name string) (*StageStatus, *GroupStatus) {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			if st.Groups[j].Name == name {
				return st, &st.Groups[j]
			}
		}
	}
	return nil, nil
}

func (r *Run) findMember(name string) (*StageStatus, *GroupStatus, *MemberStatus) {
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			g := &st.Groups[j]
			for k := range g.Members {
				if g.Members[k].Name == name {
					return st, g, &g.Members[k]
				}
			}
		}
	}
	return nil, nil, nil
}

// Gate returns the gate ref points at, or nil.
func (r *Run) Gate(ref GateRef) *GateStatus {
	var gs []GateStatus
	if ref.Group == "" {
		st := r.findStage(ref.Stage)
		if st == nil {
			return nil
		}
		gs = st.BeforeGates
		if ref.Timing == After {
			gs = st.AfterGates
		}
	} else {
		st, g := r.findGroup(ref.Group)
		if g == nil || (ref.Stage != "" && st.Name != ref.Stage) {
			return nil
		}
		gs = g.BeforeGates
		if ref.Timing == After {
			gs = g.AfterGates
		}
	}
	if ref.Index < 0 || ref.Index >= len(gs) {
		return nil
	}
	return &gs[ref.Index]
}

// CompleteGate approves a Pending gate (PATCH fleets/gates {state: Completed}).
// GateType Approval: "An approval gate is completed by setting its state to be Completed."
// faq.md: "Can I preapprove an approval? No." — a gate the run has not reached cannot be completed.
// Completing a gate that is already Completed is a no-op.
func (r *Run) CompleteGate(ref GateRef, f Facts, now time.Time) ([]Event, error) {
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

// at is now, but never earlier than the run's clock.
func (r *Run) at(now time.Time) time.Time {
	if now.Before(r.Status.Clock) {
		return r.Status.Clock
	}
	return now
}

func (r *Run) active() bool {
	switch r.Status.State {
	case Running, Pending, Stopping:
		return true
	}
	return false
}

// maxSteps bounds one Advance; a run of 1,000 members needs a few thousand.
const maxSteps = 1_000_000

// Advance moves the run forward to now, processing everything that happens in between in
// time order (upgrades ending, waits elapsing, pending members re-checked), and returns what
// happened. The emulator calls it whenever its simulated clock moves (NextWake says when
// something is due); calling it more often changes nothing. facts are read as they are now.
func (r *Run) Advance(f Facts, now time.Time) []Event {
	if !r.active() {
		return nil
	}
	return r.advance(f, f.memberIndex(), now)
}

// advance is Advance with the members already indexed by name (Plan keeps one index).
func (r *Run) advance(f Facts, idx map[string]*Member, now time.Time) []Event {
	var evs []Event
	if !r.active() {
		return evs
	}
	now = r.at(now)
	for i := 0; i < maxSteps; i++ {
		t, ok := r.nextInternal()
		if !ok || t.After(now) {
			break
		}
		r.processAt(f, idx, t, &evs)
		if !r.active() {
			return evs
		}
	}
	r.processAt(f, idx, now, &evs)
	return evs
}

// FactsChanged tells the run that the region offerings changed outside the facts it was given
// (a release nobody announced): members Pending for a version or image their region did not
// offer are polled again at their next poll. faq.md: "Fleet Manager polls for open maintenance
// windows every 60 minutes"; concepts-update-orchestration.md "Pending status": "Target
// Kubernetes or node image version isn't yet available in the cluster's Azure region" — so a
// member proceeds after the release, at its next poll. The polls before now found nothing.
// (Found by the hand-written oracle traces, internal/localfleet/emulator/testdata/oracle/pending.yaml.)
func (r *Run) FactsChanged(now time.Time) {
	for i := range r.Status.Stages {
		for j := range r.Status.Stages[i].Groups {
			for k := range r.Status.Stages[i].Groups[j].Members {
				m := &r.Status.Stages[i].Groups[j].Members[k]
				if m.State != Pending || m.EligibleKnown {
					continue
				}
				m.EligibleKnown, m.EligibleFrom = true, now
				if n := int64((now.Sub(m.PendingSince) - 1) / PollInterval); n >= 1 {
					if last := m.PendingSince.Add(time.Duration(n * int64(PollInterval))); last.After(m.LastChecked) {
						m.LastChecked = last
					}
				}
			}
		}
	}
}

// NextWake returns the next instant after the run's clock at which something happens on its
// own (an upgrade ends, a wait elapses, a pending member's re-check can succeed). ok is false
// when nothing will happen without an action (approval, start, skip) or a change of facts.
func (r *Run) NextWake() (time.Time, bool) {
	if !r.active() {
		return time.Time{}, false
	}
	return r.nextInternal()
}

func (r *Run) nextInternal() (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !t.After(r.Status.Clock) {
			return
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	halted := r.Status.Halt != HaltNone
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		if w := st.AfterStageWait; w != nil && w.State == Running && !halted {
			consider(w.StartTime.Add(time.Duration(w.WaitDurationInSeconds) * time.Second))
		}
		for j := range st.Groups {
			for k := range st.Groups[j].Members {
				m := &st.Groups[j].Members[k]
				switch {
				case m.State.InFlight():
					consider(m.FinishAt)
				case m.State == Pending && !halted && m.EligibleKnown:
					consider(nextTick(m, maxTime(m.EligibleFrom, r.Status.Clock.Add(time.Nanosecond))))
				}
			}
		}
	}
	return best, found
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nextTick is the first poll of a Pending member at or after t.
func nextTick(m *MemberStatus, t time.Time) time.Time {
	if !t.After(m.PendingSince) {
		return m.PendingSince.Add(PollInterval)
	}
	n := int64((t.Sub(m.PendingSince) + PollInterval - 1) / PollInterval)
	if n < 1 {
		n = 1
	}
	return m.PendingSince.Add(time.Duration(n * int64(PollInterval)))
}

// due reports whether a Pending member has a poll at or before t that it has not had yet.
func due(m *MemberStatus, t time.Time) bool {
	if t.Before(m.PendingSince.Add(PollInterval)) {
		return false
	}
	n := int64(t.Sub(m.PendingSince) / PollInterval)
	return m.PendingSince.Add(time.Duration(n * int64(PollInterval))).After(m.LastChecked)
}

// processAt brings the run to a fixed point at instant t.
func (r *Run) processAt(f Facts, idx map[string]*Member, t time.Time, evs *[]Event) {
	r.Status.Clock = t
	for i := 0; i < maxSteps; i++ {
		changed := r.finishMembers(t, evs)
		r.recompute(t, evs)
		if !r.active() || r.Status.Halt != HaltNone {
			return
		}
		if r.progress(f, idx, t, evs) {
			changed = true
		}
		if !changed {
			r.recompute(t, evs)
			return
		}
	}
}

// finishMembers ends the upgrades whose time has come, earliest first.
func (r *Run) finishMembers(t time.Time, evs *[]Event) bool {
	type ref struct {
		st *StageStatus
		g  *GroupStatus
		m  *MemberStatus
	}
	var done []ref
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			g := &st.Groups[j]
			for k := range g.Members {
				m := &g.Members[k]
				if m.State.InFlight() && !m.FinishAt.After(t) {
					done = append(done, ref{st, g, m})
				}
			}
		}
	}
	sort.SliceStable(done, func(a, b int) bool { return done[a].m.FinishAt.Before(done[b].m.FinishAt) })
	for _, d := range done {
		m := d.m
		to := Completed
		msg := ""
		if m.FailOnFinish {
			to = Failed
			msg = m.FailMessage
			if msg == "" {
				msg = "the managed cluster upgrade failed"
			}
		}
		*evs = append(*evs, Event{At: m.FinishAt, Kind: EventMemberFinished, Stage: d.st.Name, Group: d.g.Name, Member: m.Name, From: m.State, To: to, Message: msg, Target: m.Target})
		m.State = to
		m.Message = msg
		m.CompletedTime = m.FinishAt
		if to == Failed {
			r.fail(t, evs)
		}
	}
	return len(done) > 0
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

// progress takes the next steps in the current stage: the first stage that is not finished.
func (r *Run) progress(f Facts, idx map[string]*Member, t time.Time, evs *[]Event) bool {
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
	return changed
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
func (r *Run) schedule(f Facts, st *StageStatus, g *GroupStatus, idx map[string]*Member, stageRunning *int, t time.Time, evs *[]Event) bool {
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
			r.fail(t, evs)
			return true
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
			r.fail(t, evs)
			return true
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

func (r *Run) setMember(st *StageStatus, g *GroupStatus, m *MemberStatus, to State, msg string, t time.Time, evs *[]Event) {
	*evs = append(*evs, Event{At: t, Kind: EventMemberState, Stage: st.Name, Group: g.Name, Member: m.Name, From: m.State, To: to, Message: msg})
	m.State = to
	m.Message = msg
}

func allGroupsUserSkipped(st *StageStatus) bool {
	for _, g := range st.Groups {
		if !g.UserSkipped {
			return false
		}
	}
	return len(st.Groups) > 0
}

// Reaches reports whether a run of strategy reaches a member of group, as newRun places members:
// without a strategy every member (fleets.json UpdateRunProperties.updateStrategyId "update all the
// members one by one"), otherwise those whose group is one of a stage's groups (UpdateGroup.name).
// Only these members' maintenance windows enter the run's preview.
func Reaches(strategy *Strategy) func(group string) bool {
	if strategy == nil {
		return func(string) bool { return true }
	}
	groups := map[string]bool{}
	for _, st := range strategy.Stages {
		for _, g := range st.Groups {
			groups[g.Name] = true
		}
	}
	return func(group string) bool { return groups[group] }
}
