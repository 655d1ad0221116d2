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
}

// GatePreview is one gate of a stage or group.
type GatePreview struct {
	Timing      Timing
	DisplayName string
	Type        GateType
}

// GroupPreview is one group of a stage; Members are in the order the run reaches them.
type GroupPreview struct {
	Name    string
	Gates   []GatePreview
	Members []MemberPreview
	// MaxConcurrency is the group's resolved maxConcurrency: its members upgrade in batches of at most this many.
	MaxConcurrency int
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
//   - approval gates are approved as soon as they are reached;
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
		groups := map[string]bool{}
		for _, st := range in.Strategy.Stages {
			for _, g := range st.Groups {
				groups[g.Name] = true
			}
		}
		used := map[string]bool{}
		for _, m := range in.Members {
			if groups[m.Group] {
				used[m.Group] = true
				continue
			}
			p.UnselectedMembers = append(p.UnselectedMembers, m.Name)
		}
		sort.Strings(p.UnselectedMembers)
		for _, name := range p.UnselectedMembers {
			m := currentIdx[name]
			if m.Group == "" {
				p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: name, Kind: MemberNoGroup})
			} else {
				p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: name, Kind: MemberGroupNotInStrategy, Detail: m.Group})
			}
		}
		for _, st := range in.Strategy.Stages {
			for _, g := range st.Groups {
				if !used[g.Name] {
					// UpdateGroup.name: "It must match a group name of an existing fleet member."
					p.Warnings = append(p.Warnings, fmt.Sprintf("group %q of stage %q matches no fleet member; the Fleet API rejects a run whose group selects no member", g.Name, st.Name))
				}
			}
		}
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
	switch p.Outcome {
	case Completed, Skipped:
		p.EstimatedCompletion = run.Status.CompletedTime
	case Running:
		p.Outcome = Pending // stuck beyond the horizon
	}
	blocked := blockedReason(run)

	for _, st := range run.Status.Stages {
		spec := stageSpec(run, st.Name)
		sp := StagePreview{Name: st.Name, AfterStageWaitInSeconds: spec.AfterStageWaitInSeconds, EstimatedStart: st.StartTime, Gates: gatePreviews(spec.BeforeGates, spec.AfterGates),
			MaxConcurrency: st.MaxConcurrency}
		for gi, g := range st.Groups {
			gspec := spec.Groups[gi]
			gp := GroupPreview{Name: g.Name, Gates: gatePreviews(gspec.BeforeGates, gspec.AfterGates), MaxConcurrency: g.MaxConcurrency}
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
						p.MemberWarnings = append(p.MemberWarnings, MemberWarning{Member: ms.Name, Kind: MemberFails, Detail: msg})
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
	if g == nil || g.State != Pending {
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

func gatePreviews(before, after []Gate) []GatePreview {
	var out []GatePreview
	for _, g := range before {
		out = append(out, GatePreview{Timing: Before, DisplayName: g.DisplayName, Type: g.Type})
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
