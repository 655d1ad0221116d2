package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

// PlanInput is what Plan needs: the run's strategy (nil: members one by one) and update, the
// fleet's members and the regions' offerings.
type PlanInput struct {
	Strategy *Strategy
	Update   Update
	Members  []Member
	Regions  map[string]Region
	// Skip are the targets skipped before the run starts (the provider's skip, applied on
	// create before start).
	Skip []SkipTarget
}

// Preview is the rollout plan of an update run (SPEC §6b fleet_update_run.preview).
type Preview struct {
	Stages []StagePreview
	// UnselectedMembers are fleet members no group of the strategy selects; they are never updated.
	UnselectedMembers []string
	// Warnings are about the run as a whole (groups, stages, node images); what concerns single
	// members is in MemberWarnings, so that a reader can group it.
	Warnings []string
	// MemberWarnings say what goes wrong for single members, in the order they were found.
	MemberWarnings []MemberWarning
	// ConsistentNodeImageVersions is the Consistent image set ("<type>-<version>"), empty otherwise.
	ConsistentNodeImageVersions []string
	// Outcome is the state the simulated run reaches: Completed, Skipped, Failed, or Pending
	// when it waits for something that does not happen within PlanHorizon.
	Outcome State
	// EstimatedCompletion is when the simulated run completes (zero unless Outcome is Completed or Skipped).
	EstimatedCompletion time.Time
	// FailureCount is the simulated run's failureCount: with maxAllowedFailures a Completed run may
	// have failed members.
	FailureCount int
	// Overlaps are members more than one group's memberSelector selects (selectors.go: the first wins).
	Overlaps []Overlap
}

// MemberWarningKind is what a MemberWarning is about.
type MemberWarningKind string

const (
	// MemberNoGroup: the member has no update group, so no group of the strategy selects it.
	MemberNoGroup MemberWarningKind = "no_group"
	// MemberGroupNotInStrategy: the member's update group (Detail) is in no stage of the strategy.
	MemberGroupNotInStrategy MemberWarningKind = "group_not_in_strategy"
	// MemberFails: the member's upgrade fails (Detail: the message), which stops the run.
	MemberFails MemberWarningKind = "fails"
	// MemberFailsTolerated: the member's upgrade fails (Detail: the message) within maxAllowedFailures;
	// the run goes on.
	MemberFailsTolerated MemberWarningKind = "fails_tolerated"
	// MemberNotSelected: a strategy with memberSelectors selects the member in no group.
	MemberNotSelected MemberWarningKind = "not_selected"
	// MemberSelectedTwice: several groups select the member (Detail: "stage/group, …", the first kept).
	MemberSelectedTwice MemberWarningKind = "selected_twice"
)

// MemberWarning is a warning about one member: Kind and Detail are the same for every member
// the same thing happens to, so warnings about many members can be told once.
type MemberWarning struct {
	Member string
	Kind   MemberWarningKind
	// Detail is the update group (MemberGroupNotInStrategy) or the failure message (MemberFails).
	Detail string
}

// Summary words the warning for every member it concerns, without naming them.
func (w MemberWarning) Summary() string {
	switch w.Kind {
	case MemberNoGroup:
		return "members without an update group: no group of the strategy selects them and the run will not update them"
	case MemberGroupNotInStrategy:
		return fmt.Sprintf("members in update group %q, which no stage of the strategy contains: the run will not update them", w.Detail)
	case MemberFails:
		return fmt.Sprintf("members whose upgrade fails (%s): a failed member stops the run (fail-fast)", w.Detail)
	case MemberFailsTolerated:
		return fmt.Sprintf("members whose upgrade fails (%s) within max_allowed_failures: the run goes on and they stay at their versions", w.Detail)
	case MemberNotSelected:
		return "members that neither an update group name nor a member_selector of the strategy selects: the run will not update them"
	case MemberSelectedTwice:
		return "members that more than one group selects: each is updated once, in the first of them"
	}
	return string(w.Kind) + " " + w.Detail
}

// String is the warning about its one member.
func (w MemberWarning) String() string {
	switch w.Kind {
	case MemberNoGroup:
		return fmt.Sprintf("member %q has no update group; no group of the strategy selects it and the run will not update it", w.Member)
	case MemberGroupNotInStrategy:
		return fmt.Sprintf("member %q is in update group %q, which no stage of the strategy contains; the run will not update it", w.Member, w.Detail)
	case MemberFails:
		return fmt.Sprintf("member %q: %s; a failed member stops the run (fail-fast)", w.Member, w.Detail)
	case MemberFailsTolerated:
		return fmt.Sprintf("member %q: %s; within max_allowed_failures, the run goes on", w.Member, w.Detail)
	case MemberNotSelected:
		return fmt.Sprintf("member %q: neither its update group nor a member_selector of the strategy selects it; the run will not update it", w.Member)
	case MemberSelectedTwice:
		return fmt.Sprintf("member %q is selected by %s; it is updated once, in the first", w.Member, w.Detail)
	}
	return fmt.Sprintf("member %q: %s %s", w.Member, w.Kind, w.Detail)
}

// StagePreview is one stage of the plan.
type StagePreview struct {
	Name                    string
	AfterStageWaitInSeconds int32
	Gates                   []GatePreview
	Groups                  []GroupPreview
	// EstimatedStart is when the simulation reached the stage (zero if never).
	EstimatedStart time.Time
	// MaxConcurrency is the stage's resolved maxConcurrency (NewRun's rules): how many of its
	// members upgrade at once across its groups.
	MaxConcurrency int
	// MaxAllowedFailures is the stage's resolved threshold and FailureCount the simulated failures (failures.go).
	MaxAllowedFailures int
	FailureCount       int
}

// GatePreview is one gate of a stage or group.
type GatePreview struct {
	Timing      Timing
	DisplayName string
	Type        GateType
	// ScheduledStart is a ScheduledStart gate's configuration and AbsoluteStartTime when the
	// simulated run would create it and so complete it (zero if never reached).
	ScheduledStart    *ScheduledStartConfig
	AbsoluteStartTime time.Time
}

// GroupPreview is one group of a stage; Members are in the order the run reaches them.
type GroupPreview struct {
	Name    string
	Gates   []GatePreview
	Members []MemberPreview
	// MaxConcurrency is the group's resolved maxConcurrency: its members upgrade in batches of at most this many.
	MaxConcurrency int
	// MaxAllowedFailures is the group's resolved threshold and FailureCount the simulated failures (failures.go).
	MaxAllowedFailures int
	FailureCount       int
	// Implicit: the group a stage's memberSelector made (the stage has no groups).
	Implicit bool
}

// MemberPreview is what the run does with one member.
type MemberPreview struct {
	Name string
	// Action is what happens when the run reaches the member: upgrade, skip, pending, or fail
	// (AKS rejects the upgrade). Members the run never reaches are pending with the reason.
	Action                   Action
	Reason                   string
	CurrentKubernetesVersion string
	TargetKubernetesVersion  string
	// CurrentNodeImageVersions and TargetNodeImageVersions map node pool → full image version.
	CurrentNodeImageVersions map[string]string
	TargetNodeImageVersions  map[string]string
	// MaintenanceWindow and WindowOpensAt are the honored window's state when the run reaches the member.
	MaintenanceWindow maintenance.WindowState
	WindowOpensAt     time.Time
	// ReachedAt is when the simulated run reaches the member (zero if never).
	ReachedAt time.Time
}

// PlanHorizon bounds the simulation: what has not happened a year after now is reported as pending.
const PlanHorizon = 366 * 24 * time.Hour

// Plan previews an update run created and started at now. It is not a separate model: it
// creates the run with NewRun's rules, starts it, and drives Advance on a simulated clock
// exactly as the emulator does, recording the order in which members are reached and what
// happens to each. Assumptions, because the future is unknown at plan time:
//   - approval gates are approved as soon as they are reached; ScheduledStart gates complete at
//     their time;
//   - member upgrades take Member.Upgrade.Duration (zero when unknown) and succeed unless
//     Member.Upgrade.Fail says otherwise;
//   - members, maintenance windows and region offerings stay as given (Region.Releases included).
func Plan(in PlanInput, now time.Time) (Preview, error) {
	if err := ValidateUpdate(in.Update); err != nil {
		return Preview{}, err
	}
	if err := ValidateStrategy(in.Strategy); err != nil {
		return Preview{}, err
	}
	p := Preview{}
	fleet := Fleet{Members: cloneMembers(in.Members), Regions: in.Regions}
	current := cloneMembers(in.Members)
	currentIdx := Fleet{Members: current}.memberIndex()

	// Members no group selects (SPEC §5 fleet_update_strategy.preview / fleet_update_run.preview).
	if in.Strategy != nil {
		planSelection(&p, in.Strategy, in.Members, currentIdx)
	}

	run, warnings, err := newRun(in.Strategy, in.Update, fleet, now, false)
	if err != nil {
		return Preview{}, err
	}
	p.Warnings = append(p.Warnings, warnings...)
	if len(in.Skip) > 0 {
		// The provider skips its configured targets before it starts the run.
		if _, err := run.Skip(in.Skip, fleet, now); err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("skip: %v; the Fleet API rejects it", err))
		}
	}

	type reached struct {
		seq   int
		at    time.Time
		first Decision
	}
	seen := map[string]*reached{}
	started := map[string]time.Time{}
	failed := map[string]string{}
	seq := 0
	run.observe = func(_, _, member string, d Decision, t time.Time) {
		if _, ok := seen[member]; !ok {
			seen[member] = &reached{seq: seq, at: t, first: d}
			seq++
		}
	}
	idx := fleet.memberIndex() // fleet.Members is never reallocated below
	apply := func(evs []Event) {
		for _, e := range evs {
			switch {
			case e.Kind == EventMemberStarted:
				started[e.Member] = e.At
			case e.Kind == EventMemberFinished && e.To == Completed && e.Target != nil:
				if m, ok := idx[e.Member]; ok {
					ApplyTarget(m, run.Update.Upgrade, *e.Target)
				}
			case e.To == Failed && e.Member != "":
				failed[e.Member] = e.Message
			}
		}
	}

	evs, err := run.Start(fleet, now)
	if err != nil {
		return Preview{}, err
	}
	apply(evs)
	horizon := now.Add(PlanHorizon)
	t := now
	for i := 0; i < maxSteps; i++ {
		approved := false
		for si := range run.Status.Stages {
			st := &run.Status.Stages[si]
			for k := range st.BeforeGates {
				approved = approve(run, fleet, GateRef{Stage: st.Name, Timing: Before, Index: k}, t, apply) || approved
			}
			for gi := range st.Groups {
				g := &st.Groups[gi]
				for k := range g.BeforeGates {
					approved = approve(run, fleet, GateRef{Stage: st.Name, Group: g.Name, Timing: Before, Index: k}, t, apply) || approved
				}
				for k := range g.AfterGates {
					approved = approve(run, fleet, GateRef{Stage: st.Name, Group: g.Name, Timing: After, Index: k}, t, apply) || approved
				}
			}
			for k := range st.AfterGates {
				approved = approve(run, fleet, GateRef{Stage: st.Name, Timing: After, Index: k}, t, apply) || approved
			}
		}
		if approved {
			continue
		}
		next, ok := run.NextWake()
		if !ok || next.After(horizon) {
			break
		}
		t = next
		apply(run.advance(fleet, idx, t))
	}

	p.ConsistentNodeImageVersions = append([]string(nil), run.Status.SelectedNodeImageVersions...)
	if selectionOf(in.Update) == Consistent && in.Update.Upgrade != ControlPlaneOnly {
		if _, missing := ConsistentNodeImages(run.runMembers(Fleet{Members: current}), in.Regions, now); len(missing) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("no node image version is common to every region for image type(s) %s; members with such node pools are skipped", strings.Join(missing, ", ")))
		}
	}
	p.Outcome = run.Status.State
	p.FailureCount = run.Status.FailureCount
	switch p.Outcome {
	case Completed, Skipped:
		p.EstimatedCompletion = run.Status.CompletedTime
	case Running:
		p.Outcome = Pending // stuck beyond the horizon
	}
	blocked := blockedReason(run)

	for _, st := range run.Status.Stages {
		spec := stageSpec(run, st.Name)
		sp := StagePreview{Name: st.Name, AfterStageWaitInSeconds: spec.AfterStageWaitInSeconds, EstimatedStart: st.StartTime, Gates: gatePreviews(spec.BeforeGates, spec.AfterGates, st.BeforeGates),
			MaxConcurrency: st.MaxConcurrency, MaxAllowedFailures: st.MaxAllowedFailures, FailureCount: st.FailureCount}
		for gi, g := range st.Groups {
			var gspec Group // an implicit group has no spec of its own
			if !g.Implicit {
				gspec = spec.Groups[gi]
			}
			gp := GroupPreview{Name: g.Name, Gates: gatePreviews(gspec.BeforeGates, gspec.AfterGates, g.BeforeGates), MaxConcurrency: g.MaxConcurrency,
				MaxAllowedFailures: g.MaxAllowedFailures, FailureCount: g.FailureCount, Implicit: g.Implicit}
			var reachedMembers, unreached []MemberPreview
			order := map[string]int{}
			for _, ms := range g.Members {
				cm := currentIdx[ms.Name]
				if cm == nil {
					continue
				}
				mp := MemberPreview{Name: ms.Name, CurrentKubernetesVersion: cm.KubernetesVersion, CurrentNodeImageVersions: poolImages(*cm)}
				if ms.UserSkipped {
					// Skipped before the run reached it: never decided, nothing changes.
					d := Decide(*cm, in.Update, run.selected(), in.Regions, now)
					mp.Action, mp.Reason = ActionSkip, ms.Message
					mp.MaintenanceWindow, mp.WindowOpensAt = d.Window, d.WindowOpensAt
					fillTarget(&mp, *cm, in.Update, Target{})
					reachedMembers = append(reachedMembers, mp)
					order[ms.Name] = 1 << 30
					continue
				}
				if rc, ok := seen[ms.Name]; ok {
					d := rc.first
					mp.Action, mp.Reason = d.Action, d.Reason
					mp.MaintenanceWindow, mp.WindowOpensAt, mp.ReachedAt = d.Window, d.WindowOpensAt, rc.at
					fillTarget(&mp, *cm, in.Update, d.Target)
					if d.Action == ActionPending {
						if at, ok := started[ms.Name]; ok {
							mp.Reason += fmt.Sprintf("; expected to start at %s", at.UTC().Format(time.RFC3339))
							if tgt := memberTarget(run, ms.Name); tgt != nil {
								fillTarget(&mp, *cm, in.Update, *tgt)
							}
						} else if msg, ok := failed[ms.Name]; ok {
							mp.Reason += "; then fails: " + msg
						}
					}
					if msg, ok := failed[ms.Name]; ok {
						kind := MemberFails
						if ms.FailureTolerated {
							kind = MemberFailsTolerated
						}
						p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: ms.Name, Kind: kind, Detail: msg})
					}
					order[ms.Name] = rc.seq
					reachedMembers = append(reachedMembers, mp)
					continue
				}
				// Never reached: say why, and show what it would get if reached now.
				d := Decide(*cm, in.Update, run.selected(), in.Regions, now)
				mp.Action = ActionPending
				mp.Reason = "not reached: " + blocked
				mp.MaintenanceWindow, mp.WindowOpensAt = d.Window, d.WindowOpensAt
				fillTarget(&mp, *cm, in.Update, d.Target)
				unreached = append(unreached, mp)
			}
			sort.SliceStable(reachedMembers, func(a, b int) bool { return order[reachedMembers[a].Name] < order[reachedMembers[b].Name] })
			sort.SliceStable(unreached, func(a, b int) bool {
				ra, rb := unreached[a].MaintenanceWindow.Rank(), unreached[b].MaintenanceWindow.Rank()
				if ra != rb {
					return ra < rb
				}
				return unreached[a].Name < unreached[b].Name
			})
			gp.Members = append(reachedMembers, unreached...)
			sp.Groups = append(sp.Groups, gp)
		}
		p.Stages = append(p.Stages, sp)
	}
	return p, nil
}

func approve(run *Run, f Fleet, ref GateRef, t time.Time, apply func([]Event)) bool {
	g := run.Gate(ref)
	if g == nil || g.State != Pending || g.Type == ScheduledStart {
		// A ScheduledStart gate is not approved: it completes at its time (NextWake).
		return false
	}
	evs, err := run.CompleteGate(ref, f, t)
	apply(evs)
	return err == nil
}

// ApplyTarget updates a member's facts after its upgrade to tg completed: what the emulator
// does to its simulated cluster and Plan to its copy of the fleet.
func ApplyTarget(m *Member, t UpgradeType, tg Target) {
	if t != NodeImageOnly && tg.KubernetesVersion != "" {
		m.KubernetesVersion = tg.KubernetesVersion
	}
	for i := range m.NodePools {
		p := &m.NodePools[i]
		if t == Full && tg.KubernetesVersion != "" {
			p.KubernetesVersion = tg.KubernetesVersion
		}
		if v, ok := tg.NodeImages[p.Name]; ok && t != ControlPlaneOnly {
			p.NodeImageVersion = v
		}
	}
}

func cloneMembers(ms []Member) []Member {
	out := make([]Member, len(ms))
	for i, m := range ms {
		m.NodePools = append([]NodePool(nil), m.NodePools...)
		out[i] = m
	}
	return out
}

func poolImages(m Member) map[string]string {
	out := map[string]string{}
	for _, p := range m.NodePools {
		out[p.Name] = p.NodeImageVersion
	}
	return out
}

func fillTarget(mp *MemberPreview, m Member, u Update, tg Target) {
	mp.TargetKubernetesVersion = m.KubernetesVersion
	if u.Upgrade != NodeImageOnly && tg.KubernetesVersion != "" {
		mp.TargetKubernetesVersion = tg.KubernetesVersion
	}
	mp.TargetNodeImageVersions = poolImages(m)
	if u.Upgrade != ControlPlaneOnly {
		for pool, v := range tg.NodeImages {
			mp.TargetNodeImageVersions[pool] = v
		}
	}
}

func memberTarget(run *Run, name string) *Target {
	_, _, m := run.findMember(name)
	if m == nil {
		return nil
	}
	return m.Target
}

func stageSpec(run *Run, name string) Stage {
	for _, st := range run.Strategy.Stages {
		if st.Name == name {
			return st
		}
	}
	return Stage{}
}

// gatePreviews lists a stage's or group's gates; status is its before-gates' status in the simulated run.
func gatePreviews(before, after []Gate, status []GateStatus) []GatePreview {
	var out []GatePreview
	for i, g := range before {
		gp := GatePreview{Timing: Before, DisplayName: g.DisplayName, Type: g.Type, ScheduledStart: cloneScheduledStart(g.ScheduledStart)}
		if i < len(status) {
			gp.AbsoluteStartTime = status[i].AbsoluteStartTime
		}
		out = append(out, gp)
	}
	for _, g := range after {
		out = append(out, GatePreview{Timing: After, DisplayName: g.DisplayName, Type: g.Type})
	}
	return out
}

// blockedReasonSample is how many Pending members blockedReason names.
const blockedReasonSample = 3

// blockedReason explains why the simulated run stopped short of some members.
func blockedReason(run *Run) string {
	if run.Status.State == Failed {
		return "the run fails before it reaches this member (" + run.Status.Error + ")"
	}
	var pending []string
	for _, st := range run.Status.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.State == Pending {
					pending = append(pending, fmt.Sprintf("%s: %s", m.Name, m.Message))
				}
			}
		}
	}
	// Choice: at most blockedReasonSample members are spelled out, so that the reason stays short
	// on a fleet of thousands (it is repeated on every member the run does not reach).
	if n := len(pending); n > blockedReasonSample {
		pending = append(pending[:blockedReasonSample], fmt.Sprintf("and %d more", n-blockedReasonSample))
	}
	if len(pending) > 0 {
		return "an earlier stage does not complete within a year while members stay Pending (" + strings.Join(pending, "; ") + ")"
	}
	return "an earlier stage does not complete within a year"
}

// planSelection reports the members s selects in no group, the groups that select none, and the
// members several groups select (Assign, selectors.go).
func planSelection(p *Preview, s *Strategy, members []Member, idx map[string]*Member) {
	assign, err := Assign(s, members)
	if err != nil {
		return // ValidateStrategy reported it
	}
	p.UnselectedMembers = assign.Unselected
	p.Overlaps = assign.Overlaps
	selectors := s.hasSelectors()
	for _, name := range p.UnselectedMembers {
		switch m := idx[name]; {
		case selectors:
			p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: name, Kind: MemberNotSelected})
		case m.Group == "":
			p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: name, Kind: MemberNoGroup})
		default:
			p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: name, Kind: MemberGroupNotInStrategy, Detail: m.Group})
		}
	}
	for _, o := range assign.Overlaps {
		refs := make([]string, len(o.Groups))
		for i, g := range o.Groups {
			refs[i] = g.Stage + "/" + g.Group
		}
		p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: o.Member, Kind: MemberSelectedTwice, Detail: strings.Join(refs, ", ")})
	}
	for _, st := range assign.Stages {
		for _, g := range st.Groups {
			switch {
			case len(g.Members) > 0:
			case g.Implicit:
				p.Warnings = append(p.Warnings, fmt.Sprintf("stage %q: its memberSelector selects no fleet member; the stage has nothing to update", st.Name))
			case g.BySelector:
				p.Warnings = append(p.Warnings, fmt.Sprintf("group %q of stage %q: its memberSelector selects no fleet member; the group has nothing to update", g.Name, st.Name))
			case g.NamedMembers > 0:
				p.Warnings = append(p.Warnings, fmt.Sprintf("group %q of stage %q: the members of update group %q are all filtered out by the stage's memberSelector or taken by an earlier group; the group has nothing to update", g.Name, st.Name, g.Name))
			default:
				// UpdateGroup.name: "It must match a group name of an existing fleet member."
				p.Warnings = append(p.Warnings, fmt.Sprintf("group %q of stage %q matches no fleet member; the Fleet API rejects a run whose group selects no member", g.Name, st.Name))
			}
		}
	}
}
