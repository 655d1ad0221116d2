package rollout

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_run's preview: the rollout rules (engine/rollout) over the
// facts the provider reads, bounded for the plan.

// RunPreviewMemberLimit is how many members a run's preview lists in all (summary detail).
// Choice: a listed member takes about 15 lines of plan text (two node-image maps), and the rest of
// a run of 1,000 members over 3 stages and 6 groups (stages, groups, their counts and actions)
// takes about 120 lines with update_strategy_id and 170 with the stages inline and four actions;
// make bench measured 201 lines with 3 members there (the real terraform CLI), so 2 keep the plan
// under 200 lines either way: the first member the run updates and the first exception.
const RunPreviewMemberLimit = 2

// RunPreviewStageLimit and RunPreviewGroupLimit are how many stages, and groups of those stages,
// a run's preview lists in all (summary detail): those holding the listed members first, then the
// first the run reaches. Choice: a stage takes about 10 lines of plan text (its counts, actions
// and groups_omitted; 5 more per gate) and a group about 9, so with every one listed a 1,000-member
// run planned 222 lines over 3 stages of 6 groups with waits, 296 over 3 stages of 12 groups with
// waits, approvals and the stages inline, and 480 over 12 gated stages (the real CLI on a local
// fleet); with 2 and 2 (and 5 unselected names) these planned 164, 197 and 143. Counts cover the
// rest: stages_omitted, groups_omitted, every member_count and actions.
const (
	RunPreviewStageLimit = 2
	RunPreviewGroupLimit = 2
)

// RunPreviewUnselectedLimit is how many members no group selects a run's preview names (summary
// detail): a line each, and the warnings name the first of each update group no stage contains.
const RunPreviewUnselectedLimit = 5

// runMemberLimit is the run preview's member cap for the provider's list limit (0: all).
func runMemberLimit(listLimit int) int {
	return runLimit(listLimit, RunPreviewMemberLimit)
}

// runLimit is a run preview cap for the provider's list limit (0: all).
func runLimit(listLimit, limit int) int {
	if listLimit <= 0 {
		return 0
	}
	return min(listLimit, limit)
}

// planInput is what the preview knows of a run before it exists: its strategy
// (runStrategy), update and skips, and the fleet's rollout facts, read through v.
func planInput(ctx context.Context, v view.Fleet, plan *updateRunModel) (rollout.PlanInput, view.RolloutFleet, error) {
	fleet, err := fleetapi.ParseFleetID(plan.FleetID.ValueString())
	if err != nil {
		return rollout.PlanInput{}, view.RolloutFleet{}, err
	}
	strategy, err := runStrategy(ctx, v, plan)
	if err != nil {
		return rollout.PlanInput{}, view.RolloutFleet{}, err
	}
	// Only the members the run reaches need their maintenance windows read.
	facts, err := view.ReadRolloutFleetFor(ctx, v, fleet, rollout.Reaches(strategyToRollout(strategy)))
	if err != nil {
		return rollout.PlanInput{}, view.RolloutFleet{}, err
	}
	return rollout.PlanInput{
		Strategy: strategyToRollout(strategy), Update: plan.ManagedClusterUpdate.toRollout(),
		Members: facts.Members, Regions: facts.Regions, Skip: skipTargetsToRollout(plan.Skip),
	}, facts, nil
}

// runPreview computes the rollout plan over v at the Fleet API's current time, and
// the plan warnings a reviewer must not miss (planWarnings).
func runPreview(ctx context.Context, v view.Fleet, plan *updateRunModel) (types.Object, []string, error) {
	in, facts, err := planInput(ctx, v, plan)
	if err != nil {
		return types.Object{}, nil, err
	}
	p, err := rollout.Plan(in, v.FleetNow())
	if err != nil {
		return types.Object{}, nil, &invalidRunError{err}
	}
	m := runPreviewFrom(p, v.ListLimit(), facts.Unreadable)
	if facts.NodeImageWarning != "" {
		m.Warnings = append(m.Warnings, facts.NodeImageWarning)
	}
	if w := releaseWarnings(p, plan.ManagedClusterUpdate.toRollout()); len(w) > 0 {
		m.Warnings = append(m.Warnings, w...)
	}
	if w := assumedImageWarning(p, facts); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	obj, d := types.ObjectValueFrom(ctx, runPreviewType.AttrTypes, m)
	if d.HasError() {
		return types.Object{}, nil, fmt.Errorf("preview: %v", d)
	}
	warnings := planWarnings(p, plan.Approvals)
	if w := toleratedFailureWarning(p, plan.WaitFor.ValueString() == shared.WaitCompleted, plan.AcceptedFailures.ValueInt64()); w != "" {
		warnings = append(warnings, w)
	}
	return obj, warnings, nil
}

// planWarnings are what a reviewer must see as plan warnings, not only in
// preview.warnings: each Approval gate the run reaches that no `approval` block
// covers (the run waits there for someone to approve it), the ScheduledStart gates
// it waits at until their time, and each predicted member failure that stops the
// run. One warning each, with counts and the first names.
func planWarnings(p rollout.Preview, approvals []approvalModel) []string {
	var gates, scheduled, failing []string
	var firstFailure, firstScheduled string
	tolerated := map[string]bool{}
	for _, w := range p.MemberWarnings {
		if w.Kind == rollout.MemberFailsTolerated {
			tolerated[w.Member] = true
		}
	}
	gate := func(g rollout.GatePreview, ref gateRef, where string) {
		if g.Type == rollout.ScheduledStart {
			// It completes itself at its time (fleets.json GateType ScheduledStart); no approval needed.
			if !g.AbsoluteStartTime.IsZero() {
				scheduled = append(scheduled, where)
				if firstScheduled == "" {
					firstScheduled = fmt.Sprintf("%s at %s", where, g.AbsoluteStartTime.UTC().Format(time.RFC3339))
				}
			}
			return
		}
		if !approved(approvals, ref) {
			gates = append(gates, where)
		}
	}
	for _, st := range p.Stages {
		for _, g := range st.Gates {
			gate(g, gateRef{stage: st.Name, timing: string(g.Timing)}, fmt.Sprintf("%s of stage %s", g.Timing, st.Name))
		}
		for _, gr := range st.Groups {
			for _, g := range gr.Gates {
				gate(g, gateRef{stage: st.Name, group: gr.Name, timing: string(g.Timing)}, fmt.Sprintf("%s of group %s/%s", g.Timing, st.Name, gr.Name))
			}
			for _, m := range gr.Members {
				if m.Action == rollout.ActionFail && !tolerated[m.Name] {
					failing = append(failing, m.Name)
					if firstFailure == "" {
						firstFailure = m.Name + ": " + m.Reason
					}
				}
			}
		}
	}
	var out []string
	if len(gates) > 0 {
		out = append(out, fmt.Sprintf("%d approval gate(s) no `approval` block covers (%s): the run waits at each until it is approved "+
			"outside this configuration, and an apply with wait_for = \"completed\" waits there until its timeout", len(gates), preview.NameSample(gates)))
	}
	if len(scheduled) > 0 {
		out = append(out, fmt.Sprintf("%d ScheduledStart gate(s) hold the run until their time (%s); first: %s. An apply with "+
			"wait_for = \"completed\" waits for them within its timeout", len(scheduled), preview.NameSample(scheduled), firstScheduled))
	}
	if len(failing) > 0 {
		out = append(out, fmt.Sprintf("%d member(s) are predicted to fail (%s), which stops the run there; first: %s",
			len(failing), preview.NameSample(failing), firstFailure))
	}
	return out
}

// toleratedFailureWarning says that a run predicted to end Completed goes past failed members
// within its max_allowed_failures: Completed will hide them; and whether an apply waiting for it
// (wait_for = "completed") accepts that many (accepted_failures). "" when none is predicted.
func toleratedFailureWarning(p rollout.Preview, waitsCompleted bool, accepted int64) string {
	if p.FailureCount == 0 || p.Outcome != rollout.Completed {
		return ""
	}
	var names []string
	var first string
	for _, w := range p.MemberWarnings {
		if w.Kind == rollout.MemberFailsTolerated {
			names = append(names, w.Member)
			if first == "" {
				first = w.Member + ": " + w.Detail
			}
		}
	}
	msg := fmt.Sprintf("the run is predicted to end Completed with %d failed member(s) (%s) within max_allowed_failures: Completed will hide "+
		"%d failed member(s), which stay at their versions; first: %s", p.FailureCount, preview.NameSample(names), p.FailureCount, first)
	if waitsCompleted && int64(p.FailureCount) > accepted {
		msg += fmt.Sprintf(". With wait_for = \"completed\" apply then fails: accepted_failures is %d", accepted)
	}
	return msg
}

// releaseWarnings say where the preview cannot know: AKS offers new
// Kubernetes versions and node images without announcing them, so a release
// in a member's region while the run goes on changes what happens
// (TestRolloutFidelityRealPath counts these as "unknowable at plan").
func releaseWarnings(p rollout.Preview, u rollout.Update) []string {
	waiting, images := 0, 0
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.Action == rollout.ActionPending && strings.Contains(m.Reason, "is not yet available in region") {
					waiting++
				}
				if m.Action == rollout.ActionUpgrade || m.Action == rollout.ActionPending {
					images++
				}
			}
		}
	}
	var out []string
	if waiting > 0 {
		out = append(out, fmt.Sprintf("%d member(s) wait for a Kubernetes version or node image their region does not offer now: "+
			"AKS does not announce releases, so when they proceed is unknown at plan; the preview shows them pending and the outcome assumes no release", waiting))
	}
	sel := u.NodeImageSelection
	if images > 0 && u.Upgrade != rollout.ControlPlaneOnly && (sel == "" || sel == rollout.Latest) {
		out = append(out, "target node images are the newest the members' regions offer now as far as the provider can read them "+
			"(the images fleet members run): Latest takes the newest image in a member's region when its upgrade starts, "+
			"so an image released before then, or one no member runs yet, replaces the one shown")
	}
	return out
}

// assumedImageWarning is the one warning for members whose target node image
// their region offers only by the provider's assumption (AKS lists just the
// latest image of each type: view.RolloutFleet), or "".
func assumedImageWarning(p rollout.Preview, facts view.RolloutFleet) string {
	location := map[string]string{}
	for _, m := range facts.Members {
		location[m.Name] = m.Location
	}
	var names []string
	images := map[string]bool{}
	runRegions := map[string]bool{}
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				runRegions[location[m.Name]] = true
				if m.Action != rollout.ActionUpgrade && m.Action != rollout.ActionPending {
					continue
				}
				found := false
				for pool, img := range m.TargetNodeImageVersions {
					if img == m.CurrentNodeImageVersions[pool] {
						continue
					}
					// Assumed offered; or, for a member held Pending, not listed though older than what the
					// region lists (the region may keep it: AKS's list does not say).
					if facts.Assumed(location[m.Name], img) || (m.Action == rollout.ActionPending && hiddenOlder(facts.Regions[location[m.Name]], img)) {
						images[img+" in "+location[m.Name]], found = true, true
					}
				}
				if found {
					names = append(names, m.Name)
				}
			}
		}
	}
	// Consistent's one version per type rests on every region of the run: an image one region offers only
	// by assumption changes what every member gets, or whether a common version exists at all.
	var common []string
	for _, img := range p.ConsistentNodeImageVersions {
		for _, loc := range slices.Sorted(maps.Keys(runRegions)) {
			if facts.Assumed(loc, img) {
				common = append(common, img+" in "+loc)
			}
		}
	}
	if len(names) == 0 && len(common) == 0 {
		return ""
	}
	const why = "AKS lists only the latest image of each type, and the preview assumes a region still offers an older image " +
		"another region lists or a member runs (and holds Pending one it sees nowhere). If AKS no longer offers it there, Consistent " +
		"picks an older common image or skips the member; if it does, a Pending member upgrades"
	if len(names) == 0 {
		return fmt.Sprintf("the Consistent node image set rests on images a region's AKS list does not show (%s): %s", strings.Join(common, ", "), why)
	}
	return fmt.Sprintf("%d member(s) (%s) get a node image their region's AKS list does not show (%s): %s",
		len(names), preview.NameSample(names), strings.Join(slices.Sorted(maps.Keys(images)), ", "), why)
}

// hiddenOlder reports whether a node image is not among those reg offers as far as the provider reads
// them, though older than the newest of its type there: a region may still offer it.
func hiddenOlder(reg rollout.Region, img string) bool {
	family, v := rollout.SplitNodeImage(img)
	newer := false
	for _, have := range reg.NodeImages[family] {
		if have == v {
			return false
		}
		newer = newer || rollout.CompareImageVersions(have, v) > 0
	}
	return newer
}

// skipTargetsToRollout are the configured skip targets, which apply skips
// before it starts the run.
func skipTargetsToRollout(skips []skipModel) []rollout.SkipTarget {
	var out []rollout.SkipTarget
	for _, s := range skips {
		out = append(out, rollout.SkipTarget{Type: rollout.SkipTargetType(s.Type.ValueString()), Name: s.Name.ValueString()})
	}
	return out
}

// runStrategy is the run's strategy: the update strategy's (through v: as the facts hold it under
// facts), the inline stages, or nil (members one by one).
func runStrategy(ctx context.Context, v view.Fleet, plan *updateRunModel) (*fleetapi.UpdateRunStrategy, error) {
	if len(plan.Stages) > 0 {
		s := stagesToAPI(plan.Stages)
		return &s, nil
	}
	if plan.UpdateStrategyID.IsNull() || plan.UpdateStrategyID.ValueString() == "" {
		return nil, nil
	}
	fleet, name, err := fleetapi.ParseChildID(plan.UpdateStrategyID.ValueString(), "updateStrategies")
	if err != nil {
		return nil, &invalidRunError{err}
	}
	s, err := v.UpdateStrategy(ctx, fleet, name)
	if err != nil {
		return nil, fmt.Errorf("read update strategy %s: %w", plan.UpdateStrategyID.ValueString(), err)
	}
	return s, nil
}

type runPreviewModel struct {
	MemberCount                 int64                  `tfsdk:"member_count"`
	FailureCount                int64                  `tfsdk:"failure_count"`
	Actions                     map[string]int64       `tfsdk:"actions"`
	Stages                      []runStagePreviewModel `tfsdk:"stages"`
	StagesOmitted               int64                  `tfsdk:"stages_omitted"`
	UnselectedMembers           []string               `tfsdk:"unselected_members"`
	UnselectedMemberCount       int64                  `tfsdk:"unselected_member_count"`
	ConsistentNodeImageVersions []string               `tfsdk:"consistent_node_image_versions"`
	Outcome                     string                 `tfsdk:"outcome"`
	Warnings                    []string               `tfsdk:"warnings"`
}

type runStagePreviewModel struct {
	Name                    string                 `tfsdk:"name"`
	AfterStageWaitInSeconds types.Int64            `tfsdk:"after_stage_wait_in_seconds"`
	Gates                   []previewGateModel     `tfsdk:"gates"`
	MemberCount             int64                  `tfsdk:"member_count"`
	MaxConcurrency          int64                  `tfsdk:"max_concurrency"`
	MaxAllowedFailures      int64                  `tfsdk:"max_allowed_failures"`
	FailureCount            int64                  `tfsdk:"failure_count"`
	Actions                 map[string]int64       `tfsdk:"actions"`
	Groups                  []runGroupPreviewModel `tfsdk:"groups"`
	GroupsOmitted           int64                  `tfsdk:"groups_omitted"`
}

type previewGateModel struct {
	Timing           string       `tfsdk:"timing"`
	DisplayName      types.String `tfsdk:"display_name"`
	Type             string       `tfsdk:"type"`
	ScheduledStartAt types.String `tfsdk:"scheduled_start_at"`
}

type runGroupPreviewModel struct {
	Name               string                  `tfsdk:"name"`
	Gates              []previewGateModel      `tfsdk:"gates"`
	MemberCount        int64                   `tfsdk:"member_count"`
	MaxConcurrency     int64                   `tfsdk:"max_concurrency"`
	MaxAllowedFailures int64                   `tfsdk:"max_allowed_failures"`
	FailureCount       int64                   `tfsdk:"failure_count"`
	Actions            map[string]int64        `tfsdk:"actions"`
	Members            []runMemberPreviewModel `tfsdk:"members"`
	MembersOmitted     int64                   `tfsdk:"members_omitted"`
}

type runMemberPreviewModel struct {
	Position                 int64             `tfsdk:"position"`
	Name                     string            `tfsdk:"name"`
	Action                   string            `tfsdk:"action"`
	Reason                   types.String      `tfsdk:"reason"`
	CurrentKubernetesVersion string            `tfsdk:"current_kubernetes_version"`
	TargetKubernetesVersion  string            `tfsdk:"target_kubernetes_version"`
	CurrentNodeImageVersions map[string]string `tfsdk:"current_node_image_versions"`
	TargetNodeImageVersions  map[string]string `tfsdk:"target_node_image_versions"`
	MaintenanceWindow        string            `tfsdk:"maintenance_window"`
	WindowOpensAt            types.String      `tfsdk:"window_opens_at"`
}

func previewGates(gs []rollout.GatePreview) []previewGateModel {
	var out []previewGateModel
	for _, g := range gs {
		out = append(out, previewGateModel{Timing: string(g.Timing), DisplayName: shared.StringOrNull(g.DisplayName), Type: string(g.Type),
			ScheduledStartAt: shared.TimeString(g.AbsoluteStartTime)})
	}
	return out
}

// listRank orders a rollout preview's actions for a reader: what changes (an upgrade), then a
// predicted failure (it stops the run), then what waits, then what is skipped.
func listRank(a rollout.Action) int {
	switch a {
	case rollout.ActionUpgrade:
		return 0
	case rollout.ActionFail:
		return 1
	case rollout.ActionPending:
		return 2
	case rollout.ActionSkip:
		return 3
	}
	return 4
}

// runMemberRef locates one member of a rollout preview.
type runMemberRef struct{ stage, group, position int }

// runPreviewFrom maps rollout.Plan's preview for the provider's list limit (0: everything):
// at most runMemberLimit(listLimit) members of the whole run are listed, and every one counted. Actions are the rules' own: upgrade, skip, pending, and fail
// (a predicted failure, also in warnings). unreadable are the members the facts left out.
func runPreviewFrom(p rollout.Preview, listLimit int, unreadable []view.UnreadableMember) runPreviewModel {
	limit := runMemberLimit(listLimit)
	out := runPreviewModel{
		Actions:                     map[string]int64{},
		UnselectedMemberCount:       int64(len(p.UnselectedMembers)),
		ConsistentNodeImageVersions: preview.NullIfEmpty(append([]string{}, p.ConsistentNodeImageVersions...)),
		Outcome:                     string(p.Outcome),
		FailureCount:                int64(p.FailureCount),
	}
	out.UnselectedMembers, _ = preview.CapList(preview.NullIfEmpty(append([]string{}, p.UnselectedMembers...)), runLimit(listLimit, RunPreviewUnselectedLimit))

	// Which members to list: those that change first — upgrades, then predicted failures, then
	// pending members, then skips — each in update order, so that members already at target never
	// hide one the run upgrades (issue #22: the quickstart's plan hid the member it upgrades).
	var refs []runMemberRef
	var actions []rollout.Action
	for si, st := range p.Stages {
		for gi, g := range st.Groups {
			for mi, m := range g.Members {
				refs = append(refs, runMemberRef{si, gi, mi})
				actions = append(actions, m.Action)
			}
		}
	}
	tier := func(i int) int { return listRank(actions[i]) }
	taken := preview.FirstToRead(len(refs), limit, func(a, b int) bool {
		ra, rb := refs[a], refs[b]
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta < tb
		}
		if ra.stage != rb.stage {
			return ra.stage < rb.stage
		}
		if ra.position != rb.position {
			return ra.position < rb.position
		}
		return ra.group < rb.group
	})

	groupTaken, stageTaken := runListedGroups(p, refs, taken, listLimit)
	i, gi := 0, 0
	for si, st := range p.Stages {
		sp := runStagePreviewModel{Name: st.Name, AfterStageWaitInSeconds: types.Int64Null(), Gates: previewGates(st.Gates), Actions: map[string]int64{},
			MaxConcurrency: int64(st.MaxConcurrency), MaxAllowedFailures: int64(st.MaxAllowedFailures), FailureCount: int64(st.FailureCount)}
		if st.AfterStageWaitInSeconds > 0 {
			sp.AfterStageWaitInSeconds = types.Int64Value(int64(st.AfterStageWaitInSeconds))
		}
		for _, g := range st.Groups {
			gp := runGroupPreviewModel{Name: g.Name, Gates: previewGates(g.Gates), Actions: map[string]int64{}, MemberCount: int64(len(g.Members)),
				MaxConcurrency: int64(g.MaxConcurrency), MaxAllowedFailures: int64(g.MaxAllowedFailures), FailureCount: int64(g.FailureCount)}
			for mi, m := range g.Members {
				a := string(m.Action)
				gp.Actions[a]++
				sp.Actions[a]++
				out.Actions[a]++
				if !taken[i] {
					gp.MembersOmitted++
					i++
					continue
				}
				i++
				gp.Members = append(gp.Members, runMemberPreviewModel{
					Position: int64(mi + 1), Name: m.Name, Action: a, Reason: shared.StringOrNull(stableReason(m.Reason)),
					CurrentKubernetesVersion: m.CurrentKubernetesVersion, TargetKubernetesVersion: m.TargetKubernetesVersion,
					CurrentNodeImageVersions: nilIfEmptyMap(m.CurrentNodeImageVersions), TargetNodeImageVersions: nilIfEmptyMap(m.TargetNodeImageVersions),
					MaintenanceWindow: string(m.MaintenanceWindow), WindowOpensAt: shared.TimeString(m.WindowOpensAt),
				})
			}
			sp.MemberCount += gp.MemberCount
			if groupTaken[gi] {
				sp.Groups = append(sp.Groups, gp)
			} else {
				sp.GroupsOmitted++
			}
			gi++
		}
		out.MemberCount += sp.MemberCount
		if stageTaken[si] {
			out.Stages = append(out.Stages, sp)
		} else {
			out.StagesOmitted++
		}
	}

	// Warnings: the run's own, then one per kind of member warning.
	warnings := append([]string{}, p.Warnings...)
	var grouped preview.MemberWarnings
	for _, w := range p.MemberWarnings {
		grouped.Add(w.Summary(), w.Member)
	}
	warnings = append(warnings, grouped.Messages()...)
	if len(unreadable) > 0 {
		var u preview.UnreadableMembers
		for _, m := range unreadable {
			u.Add(m.Name, m.Err)
		}
		warnings = append(warnings, u.Message(": they are left out of the preview"))
	}
	out.Warnings = preview.NullIfEmpty(warnings)
	return out
}

// runListedGroups marks the groups (numbered across the run) and stages the summary lists: those
// holding a listed member first, then the first the run reaches, at most RunPreviewGroupLimit
// groups and RunPreviewStageLimit stages (all with full detail). A group is listed only with its
// stage; the stage limit is at least the group limit, so a listed group's stage always is.
func runListedGroups(p rollout.Preview, refs []runMemberRef, memberTaken []bool, listLimit int) (groups, stages []bool) {
	type groupRef struct{ stage, group int }
	var gs []groupRef
	first := map[groupRef]int{} // a group's index in gs
	for si, st := range p.Stages {
		for gi := range st.Groups {
			first[groupRef{si, gi}] = len(gs)
			gs = append(gs, groupRef{si, gi})
		}
	}
	holds := make([]bool, len(gs))
	for i, r := range refs {
		if memberTaken[i] {
			holds[first[groupRef{r.stage, r.group}]] = true
		}
	}
	groups = preview.FirstToRead(len(gs), runLimit(listLimit, RunPreviewGroupLimit), func(a, b int) bool {
		if holds[a] != holds[b] {
			return holds[a]
		}
		return a < b // run order: gs is in stage, then group order
	})
	stageHolds := make([]bool, len(p.Stages))
	for i, g := range gs {
		stageHolds[g.stage] = stageHolds[g.stage] || groups[i]
	}
	stages = preview.FirstToRead(len(p.Stages), runLimit(listLimit, max(RunPreviewStageLimit, RunPreviewGroupLimit)), func(a, b int) bool {
		if stageHolds[a] != stageHolds[b] {
			return stageHolds[a]
		}
		return a < b
	})
	return groups, stages
}

func nilIfEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
