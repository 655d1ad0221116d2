package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Run is an update run as the rules see it: its strategy (as snapshotted at creation),
// its update, and its status tree, shaped like fleets.json UpdateRunStatus so the emulator
// can render it directly. Methods that change a Run mutate it in place; use Clone to keep
// a copy.
type Run struct {
	Strategy Strategy
	// OneByOne: created without a strategy; Strategy then holds the single default stage and group.
	OneByOne bool
	Update   Update
	Status   RunStatus

	// observe, when set, sees every decision the run takes (Plan uses it to record the order).
	observe func(stage, group, member string, d Decision, t time.Time)
	// classes caches members' maintenance window classes (see class).
	classes map[string]classEntry
}

// Halt says why a run stopped making progress.
type Halt string

const (
	HaltNone Halt = ""
	// HaltStop: a user stopped the run.
	HaltStop Halt = "Stop"
	// HaltFailure: a member upgrade failed. concepts-update-orchestration.md: "If no
	// maxAllowedFailures is configured (or it's set to 0), a single failure stops the entire run.".
	HaltFailure Halt = "Failure"
)

// RunStatus is fleets.json UpdateRunStatus plus the bookkeeping the rules need.
type RunStatus struct {
	State         State
	StartTime     time.Time
	CompletedTime time.Time
	// Error summarizes the failed members' messages when the run is Failed.
	Error string
	Halt  Halt
	// SelectedNodeImageVersions is NodeImageSelectionStatus.selectedNodeImageVersions: "It is only
	// set in update run when NodeImageSelection.type is Consistent."
	SelectedNodeImageVersions []string
	// FailureCount is UpdateRunStatus.failureCount (preview): "Total member upgrade failures across
	// the entire UpdateRun."
	FailureCount int
	Stages       []StageStatus
	// Clock is the last instant Advance processed; time never runs backwards for a run.
	Clock time.Time
}

// StageStatus is fleets.json UpdateStageStatus.
type StageStatus struct {
	Name           string
	State          State
	StartTime      time.Time
	CompletedTime  time.Time
	UserSkipped    bool
	MaxConcurrency int
	// MaxAllowedFailures is the resolved threshold and FailureCount "The total member upgrade
	// failures within the stage." (UpdateStageStatus, preview; failures.go).
	MaxAllowedFailures int
	FailureCount       int
	BeforeGates        []GateStatus
	AfterGates         []GateStatus
	// AfterStageWait is nil when the stage has no wait.
	AfterStageWait *WaitStatus
	Groups         []GroupStatus
}

// GroupStatus is fleets.json UpdateGroupStatus.
type GroupStatus struct {
	Name           string
	State          State
	StartTime      time.Time
	CompletedTime  time.Time
	UserSkipped    bool
	MaxConcurrency int
	// MaxAllowedFailures is the resolved threshold and FailureCount "The total member upgrade
	// failures within the group." (UpdateGroupStatus, preview; failures.go).
	MaxAllowedFailures int
	FailureCount       int
	// Implicit: the one group a stage with a memberSelector and no groups has (selectors.go).
	Implicit    bool
	BeforeGates []GateStatus
	AfterGates  []GateStatus
	Members     []MemberStatus
}

// GateStatus is fleets.json UpdateRunGateStatus. State is NotStarted until the run reaches
// the gate, then Pending until it is approved (Completed) or its stage/group is skipped.
// update-strategies-gates-approvals.md "Understanding approval states".
type GateStatus struct {
	DisplayName string
	Type        GateType
	State       State
	// GateID is the fleets/gates resource id; the emulator sets it when the gate is reached.
	GateID        string
	StartTime     time.Time
	CompletedTime time.Time
	// ScheduledStart is the gate's configuration (ScheduledStart gates only) and AbsoluteStartTime
	// scheduledStartProperties.absoluteStartTime: "The absolute UTC time when the gate will complete.
	// Set when the gate is created." (scheduled_start.go)
	ScheduledStart    *ScheduledStartConfig
	AbsoluteStartTime time.Time
}

// WaitStatus is fleets.json WaitStatus.
type WaitStatus struct {
	State                 State
	WaitDurationInSeconds int32
	StartTime             time.Time
	CompletedTime         time.Time
}

// MemberStatus is fleets.json MemberUpdateStatus plus the run's bookkeeping for the member.
type MemberStatus struct {
	Name          string
	State         State
	StartTime     time.Time
	CompletedTime time.Time
	Message       string
	// OperationID is set by the caller (the emulator) when the upgrade starts.
	OperationID string
	UserSkipped bool
	// Target is what the member is being (or was) upgraded to.
	Target *Target
	// FinishAt is when a started upgrade ends; FailOnFinish and FailMessage say how.
	FinishAt     time.Time
	FailOnFinish bool
	FailMessage  string
	// FailureTolerated: the member failed within its group's and stage's maxAllowedFailures, so the
	// run went on (failures.go).
	FailureTolerated bool
	// Pending bookkeeping: re-checked every PollInterval from PendingSince.
	PendingSince  time.Time
	LastChecked   time.Time
	EligibleFrom  time.Time
	EligibleKnown bool
}

// GateRef names a gate by position, as the provider's approvals do (stage, group, timing), not by GUID.
type GateRef struct {
	Stage string
	// Group is empty for a stage gate.
	Group  string
	Timing Timing
	// Index is the gate's position among the stage's or group's gates of that timing.
	Index int
}

// Clone returns a deep copy of r.
func (r *Run) Clone() *Run {
	c := *r
	c.classes = nil
	c.Strategy = cloneStrategy(r.Strategy)
	c.Update.CustomNodeImageVersions = append([]string(nil), r.Update.CustomNodeImageVersions...)
	c.Status.SelectedNodeImageVersions = append([]string(nil), r.Status.SelectedNodeImageVersions...)
	c.Status.Stages = make([]StageStatus, len(r.Status.Stages))
	for i, st := range r.Status.Stages {
		st.BeforeGates = append([]GateStatus(nil), st.BeforeGates...)
		st.AfterGates = append([]GateStatus(nil), st.AfterGates...)
		if st.AfterStageWait != nil {
			w := *st.AfterStageWait
			st.AfterStageWait = &w
		}
		groups := make([]GroupStatus, len(st.Groups))
		for j, g := range st.Groups {
			g.BeforeGates = append([]GateStatus(nil), g.BeforeGates...)
			g.AfterGates = append([]GateStatus(nil), g.AfterGates...)
			members := make([]MemberStatus, len(g.Members))
			for k, m := range g.Members {
				if m.Target != nil {
					t := Target{KubernetesVersion: m.Target.KubernetesVersion, NodeImages: map[string]string{}}
					for p, v := range m.Target.NodeImages {
						t.NodeImages[p] = v
					}
					m.Target = &t
				}
				members[k] = m
			}
			g.Members = members
			groups[j] = g
		}
		st.Groups = groups
		c.Status.Stages[i] = st
	}
	return &c
}

func cloneStrategy(s Strategy) Strategy {
	out := Strategy{Stages: make([]Stage, len(s.Stages)), API: s.API}
	for i, st := range s.Stages {
		st.BeforeGates = cloneGates(st.BeforeGates)
		st.AfterGates = cloneGates(st.AfterGates)
		st.MemberSelector = cloneSelector(st.MemberSelector)
		groups := make([]Group, len(st.Groups))
		for j, g := range st.Groups {
			g.BeforeGates = cloneGates(g.BeforeGates)
			g.AfterGates = cloneGates(g.AfterGates)
			g.MemberSelector = cloneSelector(g.MemberSelector)
			groups[j] = g
		}
		st.Groups = groups
		out.Stages[i] = st
	}
	return out
}

// Aggregate derives the state of a group, stage or run from its children's states while the
// run is progressing (concepts-update-orchestration.md "Update Run states"):
//   - any child Stopping, or a child Failed/Stopped while another still runs → Stopping
//     ("The update run status shows as Stopping until all in-progress cluster updates finish.");
//   - any child Failed → Failed ("at least one cluster in the group failed");
//   - any child Stopped → Stopped;
//   - all children Skipped → Skipped ("a user marked the group, or all clusters in the group as Skipped");
//   - all children Completed or Skipped → Completed;
//   - any child Running → Running ("in progress for at least one cluster");
//   - every unfinished child Pending or NotStarted, at least one Pending → Pending ("if all clusters in
//     the group are Pending or not started"). Choice: children already Completed/Skipped do not count
//     against Pending — a group whose remaining members all wait is Pending;
//   - all children NotStarted → NotStarted; otherwise (some finished, the rest not started) → Running.
//
// An empty list is Completed. Choice: nothing to update is done.
func Aggregate(children []State) State {
	var c stateCounts
	for _, s := range children {
		c.add(s)
	}
	return c.aggregate()
}

// stateCounts counts children by state, for Aggregate without allocation.
type stateCounts struct {
	total, notStarted, running, pending, stopping, stopped, skipped, failed, completed int
}

func (c *stateCounts) add(s State) {
	c.total++
	switch s {
	case NotStarted:
		c.notStarted++
	case Running:
		c.running++
	case Pending:
		c.pending++
	case Stopping:
		c.stopping++
	case Stopped:
		c.stopped++
	case Skipped:
		c.skipped++
	case Failed:
		c.failed++
	case Completed:
		c.completed++
	}
}

func (c stateCounts) aggregate() State {
	switch {
	case c.total == 0:
		return Completed
	case c.stopping > 0:
		return Stopping
	case c.failed > 0 || c.stopped > 0:
		if c.running > 0 {
			return Stopping
		}
		if c.failed > 0 {
			return Failed
		}
		return Stopped
	case c.skipped == c.total:
		return Skipped
	case c.completed+c.skipped == c.total:
		return Completed
	case c.running > 0:
		return Running
	case c.pending > 0:
		return Pending
	case c.notStarted == c.total:
		return NotStarted
	}
	return Running
}

func gatesDone(gs []GateStatus) bool {
	for _, g := range gs {
		if !g.State.Finished() {
			return false
		}
	}
	return true
}

func gatesPending(gs []GateStatus) bool {
	for _, g := range gs {
		if g.State == Pending {
			return true
		}
	}
	return false
}

// membersFinished: every member is Completed or Skipped, or Failed within the group's
// maxAllowedFailures (failures.go).
func membersFinished(g *GroupStatus) bool {
	failed := false
	for i := range g.Members {
		switch s := g.Members[i].State; {
		case s.Finished():
		case s == Failed:
			failed = true
		default:
			return false
		}
	}
	return !failed || !groupOverLimit(g)
}

func membersAllSkipped(g *GroupStatus) bool {
	for _, m := range g.Members {
		if m.State != Skipped {
			return false
		}
	}
	return len(g.Members) > 0
}

func groupInFlight(g *GroupStatus) bool {
	for _, m := range g.Members {
		if m.State.InFlight() {
			return true
		}
	}
	return false
}

// groupFinished: members done and gates done (or the group was skipped).
func groupFinished(g *GroupStatus) bool {
	if g.UserSkipped {
		return true
	}
	return !g.StartTime.IsZero() && gatesDone(g.BeforeGates) && membersFinished(g) && gatesDone(g.AfterGates)
}

func stageFinished(st *StageStatus) bool {
	if st.UserSkipped {
		return true
	}
	if st.StartTime.IsZero() || !gatesDone(st.BeforeGates) {
		return false
	}
	for i := range st.Groups {
		if !groupFinished(&st.Groups[i]) {
			return false
		}
	}
	// A stage over its maxAllowedFailures ceiling failed, even when each group is within its own (failures.go).
	return gatesDone(st.AfterGates) && (st.AfterStageWait == nil || st.AfterStageWait.State.Finished()) && !stageOverLimit(st)
}

// deriveGroup derives g's state; it also sets g.FailureCount (a skipped or unstarted group has no
// failed member).
func deriveGroup(g *GroupStatus, halted bool) State {
	g.FailureCount = 0
	if g.UserSkipped {
		return Skipped
	}
	if g.StartTime.IsZero() {
		return NotStarted
	}
	var c stateCounts
	for i := range g.Members {
		c.add(g.Members[i].State)
	}
	g.FailureCount = c.failed
	over := c.failed > g.MaxAllowedFailures
	if !over {
		// A failure within maxAllowedFailures is a finished member: the group goes on and ends
		// Completed (failures.go).
		c.completed, c.failed = c.completed+c.failed, 0
	}
	agg := c.aggregate()
	if groupFinished(g) {
		if agg == Skipped {
			return Skipped
		}
		return Completed
	}
	if halted {
		// concepts-update-orchestration.md: Stopping — "Updating clusters are finishing."; a group with a
		// failed member is Failed ("Update Group: at least one cluster in the group failed"); every other
		// group the run was working on is Stopped.
		switch {
		case groupInFlight(g):
			return Stopping
		case over:
			// With maxAllowedFailures (failures.go) the group failed when its failures exceed it; at the
			// default 0 that is any failure, as before.
			return Failed
		default:
			return Stopped
		}
	}
	// "Update Group: if all clusters in the group are Pending or not started, or if it has a Pending gate."
	if gatesPending(g.BeforeGates) || (membersFinished(g) && gatesPending(g.AfterGates)) {
		return Pending
	}
	if agg == NotStarted || agg.Finished() {
		return Running // started, between steps
	}
	return agg
}

func deriveStage(st *StageStatus, halted bool) State {
	if st.UserSkipped {
		return Skipped
	}
	if st.StartTime.IsZero() {
		return NotStarted
	}
	var c stateCounts
	for i := range st.Groups {
		c.add(st.Groups[i].State)
	}
	agg := c.aggregate()
	if stageFinished(st) {
		// "Update Stage: a user marked the stage, or all groups in the stage as Skipped."
		if agg == Skipped {
			return Skipped
		}
		return Completed
	}
	if halted {
		switch {
		case c.stopping > 0:
			return Stopping
		case c.failed > 0 || stageOverLimit(st):
			// A failed group fails its stage, and so does the stage's own ceiling (failures.go).
			return Failed
		}
		return Stopped
	}
	// "Update Stage: if all Update Groups in the stage are Pending or not started, or if it has a Pending gate."
	if gatesPending(st.BeforeGates) {
		return Pending
	}
	if agg.Finished() {
		if gatesPending(st.AfterGates) {
			return Pending
		}
		return Running // after-stage wait, or between steps
	}
	if agg == NotStarted {
		return Running
	}
	return agg
}

func (r *Run) deriveRun() State {
	s := &r.Status
	if s.StartTime.IsZero() {
		return NotStarted
	}
	ss := make([]State, len(s.Stages))
	allFinished := true
	for i := range s.Stages {
		ss[i] = s.Stages[i].State
		if !stageFinished(&s.Stages[i]) {
			allFinished = false
		}
	}
	agg := Aggregate(ss)
	if allFinished {
		// "Update Run: the system detected that all stages were Skipped."
		if agg == Skipped {
			return Skipped
		}
		return Completed
	}
	if s.Halt != HaltNone {
		if r.anyInFlight() {
			return Stopping
		}
		// concepts-update-orchestration.md Failed: "A cluster upgrade has failed, so the Update Run is
		// stopped with a Failed status." Stopped: "A user stopped the Update Run."
		if s.Halt == HaltFailure {
			return Failed
		}
		return Stopped
	}
	// "Update Run: if the current stage is in Pending state."
	if agg == NotStarted {
		return Running
	}
	return agg
}

func (r *Run) anyInFlight() bool {
	for i := range r.Status.Stages {
		for j := range r.Status.Stages[i].Groups {
			if groupInFlight(&r.Status.Stages[i].Groups[j]) {
				return true
			}
		}
	}
	return false
}

// recompute derives every group, stage and run state from the members, gates and waits,
// stamping completion times and recording changes as events.
func (r *Run) recompute(t time.Time, evs *[]Event) {
	halted := r.Status.Halt != HaltNone
	r.Status.FailureCount = 0
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		st.FailureCount = 0
		for j := range st.Groups {
			g := &st.Groups[j]
			ns := deriveGroup(g, halted)
			if ns != g.State {
				*evs = append(*evs, Event{At: t, Kind: EventGroupState, Stage: st.Name, Group: g.Name, From: g.State, To: ns})
				g.State = ns
			}
			stamp(&g.CompletedTime, ns, t)
			st.FailureCount += g.FailureCount
		}
		r.Status.FailureCount += st.FailureCount
		ns := deriveStage(st, halted)
		if ns != st.State {
			*evs = append(*evs, Event{At: t, Kind: EventStageState, Stage: st.Name, From: st.State, To: ns})
			st.State = ns
		}
		stamp(&st.CompletedTime, ns, t)
	}
	ns := r.deriveRun()
	if ns != r.Status.State {
		*evs = append(*evs, Event{At: t, Kind: EventRunState, From: r.Status.State, To: ns})
		r.Status.State = ns
	}
	stamp(&r.Status.CompletedTime, ns, t)
	if ns == Failed {
		r.Status.Error = r.failureSummary()
	}
}

// stamp sets a completion time when a state becomes terminal and clears it when it is not.
func stamp(ct *time.Time, s State, t time.Time) {
	switch s {
	case Completed, Skipped, Failed, Stopped:
		if ct.IsZero() {
			*ct = t
		}
	default:
		*ct = time.Time{}
	}
}

func (r *Run) failureSummary() string {
	var msgs []string
	for _, st := range r.Status.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.State == Failed {
					msgs = append(msgs, fmt.Sprintf("member %s (stage %s, group %s): %s", m.Name, st.Name, g.Name, m.Message))
				}
			}
		}
	}
	sort.Strings(msgs)
	return strings.Join(msgs, "; ")
}
