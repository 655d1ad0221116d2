package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// Bounded preview shapes of fleet_update_run, fleet_update_strategy and fleet_auto_upgrade_profile
// on fleets of thousands of members: counts never lose a member, lists are capped.

var shapesNow = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) // a Monday

const shapesImage = "AKSUbuntu-2204gen2containerd-"

func shapesPtr[T any](v T) *T { return &v }

// saturdayWindow is Saturday 02:00–06:00 UTC: closed at shapesNow, opens 2026-11-28T02:00Z.
func saturdayWindow() *armcontainerservice.MaintenanceWindow {
	d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &armcontainerservice.MaintenanceWindow{
		Schedule:  &armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{IntervalWeeks: shapesPtr[int32](1), DayOfWeek: shapesPtr(armcontainerservice.WeekDaySaturday)}},
		StartTime: shapesPtr("02:00"), DurationHours: shapesPtr[int32](4), StartDate: &d,
	}
}

// bigFleet is n members over 6 update groups (g1…g6, round robin) plus unselected members
// without a group: every 10th member waits for a closed window, every 25th is already at the
// target (skipped), every 97th is two minors behind (AKS rejects it: fail).
func bigFleet(n, unselected int) ([]rollout.Member, map[string]rollout.Region) {
	var ms []rollout.Member
	for i := 0; i < n; i++ {
		m := rollout.Member{Name: fmt.Sprintf("m%04d", i), Group: fmt.Sprintf("g%d", i%6+1), Location: "eastus", KubernetesVersion: "1.32.5",
			NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: shapesImage + "202510.01.0"}}}
		switch {
		case i%97 == 96:
			m.KubernetesVersion = "1.31.9"
		case i%25 == 24:
			m.KubernetesVersion = "1.33.1"
			m.NodePools[0].NodeImageVersion = shapesImage + "202511.04.0"
		case i%10 == 9:
			m.AutoUpgradeWindow = saturdayWindow()
		}
		ms = append(ms, m)
	}
	for i := 0; i < unselected; i++ {
		ms = append(ms, rollout.Member{Name: fmt.Sprintf("stray%03d", i), Location: "eastus", KubernetesVersion: "1.32.5"})
	}
	return ms, map[string]rollout.Region{"eastus": {
		KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
		NodeImages:         map[string][]string{"AKSUbuntu-2204gen2containerd": {"202510.01.0", "202511.04.0"}},
	}}
}

// threeStages is a strategy of 3 stages and 6 groups.
func threeStages() []stageModel {
	return []stageModel{stage("canary", "g1", "g2"), stage("early", "g3", "g4"), stage("broad", "g5", "g6")}
}

func planOf(t *testing.T, stages []stageModel, members []rollout.Member, regions map[string]rollout.Region, now time.Time) rollout.Preview {
	t.Helper()
	s := stagesToAPI(stages)
	p, err := rollout.Plan(rollout.PlanInput{Strategy: strategyToRollout(&s), Update: rollout.Update{Upgrade: rollout.Full, KubernetesVersion: "1.33.1"},
		Members: members, Regions: regions}, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runPlanLines is the number of lines `terraform plan` prints for creating a run with these
// inline stages and this preview: the "# … will be created" line, the resource block and its
// attributes (id and status known after apply).
func runPlanLines(t *testing.T, stages []stageModel, strategyID string, preview runPreviewModel) int {
	t.Helper()
	ctx := context.Background()
	r := &updateRunResource{}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	m := runModel("Full")
	m.ManagedClusterUpdate.Upgrade.KubernetesVersion = types.StringValue("1.33.1")
	m.FleetID = types.StringValue("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f")
	m.ID, m.Status, m.Stages = types.StringUnknown(), types.ObjectUnknown(runStatusType.AttrTypes), stages
	if strategyID != "" {
		m.UpdateStrategyID = types.StringValue(strategyID)
	}
	obj, d := types.ObjectValueFrom(ctx, runPreviewType.AttrTypes, preview)
	if d.HasError() {
		t.Fatal(d)
	}
	m.Preview = obj
	plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	if d := plan.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	return 1 + sharedtest.PlanTextLines(plan.Raw)
}

// gatedStages is a strategy of n stages of k groups each (g1…g<n·k>), each stage with an hour's
// wait; with gates, every stage and every group has an approval gate before and after it.
func gatedStages(n, k int, gates bool) []stageModel {
	approval := []gateModel{{Type: types.StringValue("Approval"), DisplayName: types.StringValue("sign-off")}}
	var out []stageModel
	for s := range n {
		var groups []string
		for g := range k {
			groups = append(groups, fmt.Sprintf("g%d", s*k+g+1))
		}
		st := stage(fmt.Sprintf("stage%d", s+1), groups...)
		st.AfterStageWaitInSeconds = types.Int64Value(3600)
		if gates {
			st.BeforeGates, st.AfterGates = approval, approval
			for i := range st.Groups {
				st.Groups[i].BeforeGates, st.Groups[i].AfterGates = approval, approval
			}
		}
		out = append(out, st)
	}
	return out
}

// The bar: at 1,000 members the run's text in `terraform plan` stays under 200 lines by default
// (summary detail), whether the run names an update strategy or spells the stages inline (whose
// own lines the plan repeats); with 40 more members no group selects too; and with a strategy
// shaped to stress it: 10 stages of 5 groups, every stage and group gated before and after, and one
// stage of 50 groups. (With the real CLI on a 1,000-member local fleet, a strategy of 12 gated
// stages planned 480 lines before stages and groups were capped, 143 after.) Full detail lists
// every member.
func TestUpdateRunPreviewPlanLines(t *testing.T) {
	const strategyID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateStrategies/three"
	for _, tc := range []struct {
		name       string
		stages     []stageModel
		groups     int
		unselected int
		inline     bool
	}{
		{"update strategy", threeStages(), 6, 0, false},
		{"inline stages", threeStages(), 6, 0, true},
		{"update strategy, 40 members unselected", threeStages(), 6, 40, false},
		{"inline stages, 3 stages of 2 groups with waits and approvals", gatedStages(3, 2, false), 6, 0, true},
		{"update strategy, 10 stages of 5 groups, every stage and group gated", gatedStages(10, 5, true), 50, 0, false},
		{"update strategy, one stage of 50 groups", gatedStages(1, 50, false), 50, 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members, regions := bigFleet(1000, tc.unselected)
			for i := range members[:1000] {
				members[i].Group = fmt.Sprintf("g%d", i%tc.groups+1)
			}
			p := planOf(t, tc.stages, members, regions, shapesNow)
			stages, id := []stageModel(nil), strategyID
			if tc.inline {
				stages, id = tc.stages, ""
			}
			lines := runPlanLines(t, stages, id, runPreviewFrom(p, preview.SummaryListLimit, nil))
			t.Logf("plan of a 1,000-member run: %d lines (summary)", lines)
			if lines >= 200 {
				t.Errorf("the plan takes %d lines, want under 200", lines)
			}
			full := runPlanLines(t, stages, id, runPreviewFrom(p, 0, nil))
			t.Logf("with preview_detail = full: %d lines", full)
			if full < 10000 {
				t.Errorf("full detail: %d lines, want every member listed", full)
			}
		})
	}
}

func actionCounts(ms []runMemberPreviewModel) map[string]int64 {
	out := map[string]int64{}
	for _, m := range ms {
		out[m.Action]++
	}
	return out
}

func sameCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Counts (member_count, actions per run, stage and group) are what the full detail lists, with
// either detail; the summary lists at most the caps (members, stages, groups), each listed member
// as the full detail has it at its position, and members_omitted, groups_omitted and
// stages_omitted account for the rest.
func TestUpdateRunPreviewCountsMatchFullDetail(t *testing.T) {
	members, regions := bigFleet(1000, 40)
	p := planOf(t, threeStages(), members, regions, shapesNow)
	full := runPreviewFrom(p, 0, nil)
	summary := runPreviewFrom(p, preview.SummaryListLimit, nil)
	summaryStages := map[string]runStagePreviewModel{}
	var listedGroups int
	for _, st := range summary.Stages {
		summaryStages[st.Name] = st
		listedGroups += len(st.Groups)
	}
	if full.StagesOmitted != 0 || int64(len(summary.Stages))+summary.StagesOmitted != int64(len(full.Stages)) || len(summary.Stages) > RunPreviewStageLimit || listedGroups > RunPreviewGroupLimit {
		t.Errorf("stages: full %d (%d omitted), summary %d listed + %d omitted, %d groups listed; caps %d stages, %d groups",
			len(full.Stages), full.StagesOmitted, len(summary.Stages), summary.StagesOmitted, listedGroups, RunPreviewStageLimit, RunPreviewGroupLimit)
	}
	runActions := map[string]int64{}
	var listed, total int64
	for _, st := range full.Stages {
		stageActions := map[string]int64{}
		var stageCount int64
		ss, stageListed := summaryStages[st.Name]
		summaryGroups := map[string]runGroupPreviewModel{}
		for _, g := range ss.Groups {
			summaryGroups[g.Name] = g
		}
		if stageListed && (st.GroupsOmitted != 0 || int64(len(ss.Groups))+ss.GroupsOmitted != int64(len(st.Groups))) {
			t.Errorf("stage %s: full %d groups (%d omitted), summary %d + %d omitted", st.Name, len(st.Groups), st.GroupsOmitted, len(ss.Groups), ss.GroupsOmitted)
		}
		for _, g := range st.Groups {
			if g.MembersOmitted != 0 || int64(len(g.Members)) != g.MemberCount || !sameCounts(actionCounts(g.Members), g.Actions) {
				t.Fatalf("full %s/%s: %d listed, %d omitted, count %d, actions %v", st.Name, g.Name, len(g.Members), g.MembersOmitted, g.MemberCount, g.Actions)
			}
			for k, v := range g.Actions {
				stageActions[k] += v
				runActions[k] += v
			}
			stageCount += g.MemberCount
			sg, ok := summaryGroups[g.Name]
			if !ok {
				continue
			}
			if sg.MemberCount != g.MemberCount || !sameCounts(sg.Actions, g.Actions) || int64(len(sg.Members))+sg.MembersOmitted != g.MemberCount {
				t.Errorf("summary %s/%s: count %d actions %v, %d listed + %d omitted; full: %d %v", st.Name, g.Name, sg.MemberCount, sg.Actions, len(sg.Members), sg.MembersOmitted, g.MemberCount, g.Actions)
			}
			last := int64(0)
			for _, m := range sg.Members {
				if m.Position <= last {
					t.Errorf("%s: position %d after %d: not in update order", m.Name, m.Position, last)
				}
				last = m.Position
				if f := g.Members[m.Position-1]; f.Name != m.Name || f.Action != m.Action || f.Reason != m.Reason {
					t.Errorf("listed %+v, full detail has %+v at position %d", m, f, m.Position)
				}
			}
			listed += int64(len(sg.Members))
		}
		if st.MemberCount != stageCount || !sameCounts(st.Actions, stageActions) || (stageListed && (ss.MemberCount != stageCount || !sameCounts(ss.Actions, stageActions))) {
			t.Errorf("stage %s: count %d/%d, actions %v/%v, want %d %v", st.Name, st.MemberCount, ss.MemberCount, st.Actions, ss.Actions, stageCount, stageActions)
		}
		total += stageCount
	}
	if total != 1000 || full.MemberCount != total || summary.MemberCount != total || !sameCounts(full.Actions, runActions) || !sameCounts(summary.Actions, runActions) {
		t.Errorf("run: count %d/%d, actions %v/%v, want %d %v", full.MemberCount, summary.MemberCount, full.Actions, summary.Actions, total, runActions)
	}
	for _, a := range []string{"upgrade", "pending", "skip"} {
		if runActions[a] == 0 {
			t.Errorf("the fleet should exercise %s: %v", a, runActions)
		}
	}
	if listed != RunPreviewMemberLimit {
		t.Errorf("summary lists %d members, want the cap %d", listed, RunPreviewMemberLimit)
	}
	if len(full.UnselectedMembers) != 40 || full.UnselectedMemberCount != 40 || len(summary.UnselectedMembers) != RunPreviewUnselectedLimit || summary.UnselectedMemberCount != 40 {
		t.Errorf("unselected: full %d (%d), summary %d (%d)", len(full.UnselectedMembers), full.UnselectedMemberCount, len(summary.UnselectedMembers), summary.UnselectedMemberCount)
	}
}

// The cap takes what a reader needs first: the members that change — upgrades, then predicted
// failures, then what waits, then what is skipped — each in update order; a member already at
// target never hides one the run upgrades.
func TestUpdateRunPreviewListsWhatAReaderNeedsFirst(t *testing.T) {
	mk := func(name, group string) rollout.Member {
		return rollout.Member{Name: name, Group: group, Location: "eastus", KubernetesVersion: "1.32.5",
			NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: shapesImage + "202510.01.0"}}}
	}
	var members []rollout.Member
	for i := 0; i < 5; i++ {
		members = append(members, mk(fmt.Sprintf("a%d", i), "g1"), mk(fmt.Sprintf("b%d", i), "g2"), mk(fmt.Sprintf("c%d", i), "g3"))
	}
	closed := mk("c9-waits", "g3")
	closed.AutoUpgradeWindow = saturdayWindow()
	done := mk("b9-done", "g2")
	done.KubernetesVersion, done.NodePools[0].NodeImageVersion = "1.33.1", shapesImage+"202511.04.0"
	members = append(members, closed, done)
	_, regions := bigFleet(0, 0)
	p := planOf(t, []stageModel{stage("one", "g1", "g2"), stage("two", "g3")}, members, regions, shapesNow)
	got := runPreviewFrom(p, preview.SummaryListLimit, nil)
	var listed []string
	for _, st := range got.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				listed = append(listed, fmt.Sprintf("%s#%d:%s", m.Name, m.Position, m.Action))
			}
		}
	}
	// a0 and b0 are the first upgrades in update order; c9-waits (pending) and b9-done (skip) come after.
	want := "a0#1:upgrade b0#1:upgrade"
	if strings.Join(listed, " ") != want {
		t.Errorf("listed %s, want %s", strings.Join(listed, " "), want)
	}
	// g3 holds no listed member and the two listed groups are g1 and g2: stage two is listed with its
	// counts, g3 counted in groups_omitted.
	if st := got.Stages[1]; st.Name != "two" || len(st.Groups) != 0 || st.GroupsOmitted != 1 || st.MemberCount != 6 || got.StagesOmitted != 0 {
		t.Errorf("stage two: %d groups listed, %d omitted, %d members; %d stages omitted", len(st.Groups), st.GroupsOmitted, st.MemberCount, got.StagesOmitted)
	}

	// The first member in update order is already at target: the upgrades after it are listed.
	members[0].KubernetesVersion, members[0].NodePools[0].NodeImageVersion = "1.33.1", shapesImage+"202511.04.0"
	p = planOf(t, []stageModel{stage("one", "g1", "g2"), stage("two", "g3")}, members, regions, shapesNow)
	got = runPreviewFrom(p, preview.SummaryListLimit, nil)
	listed = nil
	for _, st := range got.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				listed = append(listed, fmt.Sprintf("%s#%d:%s", m.Name, m.Position, m.Action))
			}
		}
	}
	if want := "a1#2:upgrade b0#1:upgrade"; strings.Join(listed, " ") != want {
		t.Errorf("with a0 at target: listed %s, want %s", strings.Join(listed, " "), want)
	}
}

// A warning that concerns many members is told once, with the count and the first names.
func TestUpdateRunPreviewGroupsMemberWarnings(t *testing.T) {
	members, regions := bigFleet(60, 30)
	p := planOf(t, threeStages(), members, regions, shapesNow)
	var unreadable []view.UnreadableMember
	for i := 0; i < 12; i++ {
		unreadable = append(unreadable, view.UnreadableMember{Name: fmt.Sprintf("gone%02d", i), Err: errors.New("403 Forbidden")})
	}
	got := runPreviewFrom(p, preview.SummaryListLimit, unreadable)
	var noGroup, gone int
	for _, w := range got.Warnings {
		if strings.Contains(w, "without an update group") {
			noGroup++
			if !strings.Contains(w, "30 members (stray000, stray001, stray002, stray003, stray004 and 25 more)") {
				t.Errorf("grouped warning %q", w)
			}
		}
		if strings.Contains(w, "could not be read") {
			gone++
			if !strings.Contains(w, "12 members (gone00, gone01, gone02, gone03, gone04 and 7 more)") || !strings.Contains(w, "403 Forbidden") {
				t.Errorf("grouped warning %q", w)
			}
		}
	}
	if noGroup != 1 || gone != 1 || len(got.Warnings) > 4 {
		t.Errorf("warnings %q: want one per kind", got.Warnings)
	}
}

// Reasons do not move with the clock: planned now and ten minutes later (an apply after the
// plan), an unchanged fleet gets the same preview.
func TestUpdateRunPreviewStableReasons(t *testing.T) {
	members, regions := bigFleet(200, 3)
	a := runPreviewFrom(planOf(t, threeStages(), members, regions, shapesNow), 0, nil)
	b := runPreviewFrom(planOf(t, threeStages(), members, regions, shapesNow.Add(10*time.Minute)), 0, nil)
	pending := 0
	for si := range a.Stages {
		for gi := range a.Stages[si].Groups {
			for mi, m := range a.Stages[si].Groups[gi].Members {
				o := b.Stages[si].Groups[gi].Members[mi]
				if m.Name != o.Name || m.Action != o.Action || !m.Reason.Equal(o.Reason) {
					t.Fatalf("%s: %s %q, ten minutes later %s %s %q", m.Name, m.Action, m.Reason.ValueString(), o.Name, o.Action, o.Reason.ValueString())
				}
				if m.Action == "pending" {
					pending++
				}
			}
		}
	}
	if pending == 0 {
		t.Error("no pending member: the test exercises nothing")
	}
}

// A reviewer sees, as plan warnings, each gate no approval covers and each predicted failure.
func TestUpdateRunPlanWarnings(t *testing.T) {
	p := rollout.Preview{Stages: []rollout.StagePreview{{
		Name:  "canary",
		Gates: []rollout.GatePreview{{Timing: rollout.Before}, {Timing: rollout.After}},
		Groups: []rollout.GroupPreview{{
			Name: "g1", Gates: []rollout.GatePreview{{Timing: rollout.After}},
			Members: []rollout.MemberPreview{{Name: "ok", Action: rollout.ActionUpgrade}, {Name: "bad", Action: rollout.ActionFail, Reason: "AKS does not skip Kubernetes minor versions"}},
		}},
	}}}
	covered := []approvalModel{{Stage: types.StringValue("canary"), Group: types.StringNull(), Timing: types.StringValue("Before")}}
	got := planWarnings(p, covered)
	if len(got) != 2 {
		t.Fatalf("warnings %q, want 2", got)
	}
	if !strings.HasPrefix(got[0], "2 approval gate(s) no `approval` block covers (After of stage canary, After of group canary/g1)") {
		t.Errorf("gates: %q", got[0])
	}
	if !strings.HasPrefix(got[1], "1 member(s) are predicted to fail (bad), which stops the run there; first: bad: AKS does not skip") {
		t.Errorf("failures: %q", got[1])
	}
	all := append(covered, approvalModel{Stage: types.StringValue("canary"), Group: types.StringNull(), Timing: types.StringValue("After")},
		approvalModel{Stage: types.StringValue("canary"), Group: types.StringValue("g1"), Timing: types.StringValue("After")})
	p.Stages[0].Groups[0].Members = p.Stages[0].Groups[0].Members[:1]
	if got := planWarnings(p, all); len(got) != 0 {
		t.Errorf("all covered, no failure: %q", got)
	}
}

// A wait names what the run waits on: pending gates, upgrading members, an after-stage wait.
func TestWaitingOn(t *testing.T) {
	st := func(s fleetapi.UpdateState) *fleetapi.UpdateStatus { return &fleetapi.UpdateStatus{State: s} }
	run := &fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{Status: &fleetapi.UpdateRunStatus{
		Status: st(fleetapi.UpdateStateRunning),
		Stages: []fleetapi.UpdateStageStatus{{
			Name: "canary", Status: st(fleetapi.UpdateStateRunning),
			AfterGates: []fleetapi.UpdateRunGateStatus{{Status: st(fleetapi.UpdateStatePending)}},
			Groups: []fleetapi.UpdateGroupStatus{{Name: "g1", Members: []fleetapi.MemberUpdateStatus{
				{Name: "a", Status: st(fleetapi.UpdateStateCompleted)}, {Name: "b", Status: st(fleetapi.UpdateStateRunning)}}}},
		}},
	}}}
	if got, want := waitingOn(run), "1 gate(s) pending approval (After gate of stage canary); 1 member(s) upgrading (b)"; got != want {
		t.Errorf("waitingOn = %q, want %q", got, want)
	}
	run.Properties.Status.Stages[0].AfterGates = nil
	run.Properties.Status.Stages[0].Groups[0].Members[1].Status = st(fleetapi.UpdateStateCompleted)
	run.Properties.Status.Stages[0].AfterStageWaitStatus = &fleetapi.WaitStatus{Status: st(fleetapi.UpdateStateRunning), WaitDurationInSeconds: 3600}
	if got, want := waitingOn(run), "the 3600 s wait after stage canary"; got != want {
		t.Errorf("waitingOn = %q, want %q", got, want)
	}
}
