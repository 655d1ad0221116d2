package rollout

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// previewStages are stages using every preview argument: thresholds, selectors, a ScheduledStart gate.
func previewStages() []stageModel {
	canary := stage("canary")
	canary.MemberSelector = &memberSelectorModel{ByLabel: types.StringValue("ring=canary")}
	canary.MaxAllowedFailures = types.StringValue("1")
	canary.BeforeGates = []gateModel{{Type: types.StringValue("ScheduledStart"), DisplayName: types.StringNull(),
		ScheduledStart: &scheduledStartModel{StartDay: types.StringValue("Friday"), StartTime: types.StringValue("18:00"), UTCOffset: types.StringValue("-05:00")}}}
	prod := stage("prod", "east", "west")
	prod.Groups[0].MemberSelector = &memberSelectorModel{ByLabel: types.StringValue("region=east")}
	prod.Groups[0].MaxAllowedFailures = types.StringValue("50%")
	return []stageModel{canary, prod}
}

// modifyPlan runs r's ModifyPlan creating m (its configuration is m too).
func modifyPlan[M any](t *testing.T, r fwresource.ResourceWithModifyPlan, m M) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	if d := plan.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	req := fwresource.ModifyPlanRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: plan.Raw}, Plan: plan,
		State: tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}}
	resp := fwresource.ModifyPlanResponse{Plan: plan}
	r.ModifyPlan(ctx, req, &resp)
	return resp.Diagnostics
}

// Under the stable Fleet API every preview argument fails the plan at its own path, naming the
// setting that allows it, before anything is read or sent; under the preview version none does.
func TestPreviewArgumentsRefusedUnderStable(t *testing.T) {
	strategy := &updateStrategyResource{}
	strategy.Clients = session.New(session.Options{})
	sm := updateStrategyModel{ID: types.StringNull(), Name: types.StringValue("s"), FleetID: types.StringValue("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f"),
		Stages: previewStages(), Timeouts: nullTimeouts("create", "update", "delete"), Facts: types.StringNull(), Preview: types.ObjectUnknown(strategyPreviewType.AttrTypes)}
	want := []string{
		"stage[0].before_gate[0].scheduled_start", "stage[0].before_gate[0].type", "stage[0].max_allowed_failures", "stage[0].member_selector",
		"stage[1].group[0].max_allowed_failures", "stage[1].group[0].member_selector",
	}
	checkRefused(t, modifyPlan(t, strategy, sm), want)

	run := &updateRunResource{}
	run.Clients = session.New(session.Options{})
	rm := runModel("NodeImageOnly")
	rm.FleetID, rm.Stages, rm.AcceptedFailures = sm.FleetID, previewStages(), types.Int64Value(1)
	rm.Preview, rm.Status = types.ObjectUnknown(runPreviewType.AttrTypes), types.ObjectUnknown(runStatusType.AttrTypes)
	checkRefused(t, modifyPlan(t, run, rm), append([]string{"accepted_failures"}, want...))

	profile := &autoUpgradeProfileResource{}
	profile.Clients = session.New(session.Options{})
	pm := aupModel("SecurityPatch", "", false)
	pm.FleetID = sm.FleetID
	checkRefused(t, modifyPlan(t, profile, pm), []string{"channel"})

	// The preview version lets them through (the plan goes on, to what needs the backend).
	strategy.Clients = session.New(session.Options{FleetAPIVersion: fleetapi.PreviewAPIVersion})
	for _, d := range modifyPlan(t, strategy, sm) {
		if d.Summary() == "Fleet API preview argument" {
			t.Errorf("refused under the preview version: %s", d.Detail())
		}
	}
}

func checkRefused(t *testing.T, d diag.Diagnostics, want []string) {
	t.Helper()
	var got []string
	for _, e := range d.Errors() {
		p := e.(diag.DiagnosticWithPath).Path()
		if e.Summary() != "Fleet API preview argument" || !strings.Contains(e.Detail(), `fleet_api_version = "2026-11-01-preview"`) ||
			!strings.Contains(e.Detail(), p.String()) || !strings.Contains(e.Detail(), "nothing was sent") {
			t.Errorf("at %s: %s: %s", p, e.Summary(), e.Detail())
		}
		got = append(got, p.String())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("refused at %q, want %q", got, want)
	}
}

// ValidateConfig's checks at their paths: a stage needs groups or a member selector; a ScheduledStart
// gate is a before-gate with its scheduled_start, which only it has.
func TestPreviewStagesValidateConfig(t *testing.T) {
	validateModel := ConfigValidatorFor(t)
	scheduled := func() gateModel {
		return gateModel{Type: types.StringValue("ScheduledStart"), DisplayName: types.StringNull(),
			ScheduledStart: &scheduledStartModel{StartDay: types.StringValue("Monday"), StartTime: types.StringValue("08:00"), UTCOffset: types.StringValue("+01:00")}}
	}
	cases := map[string]struct {
		change   func(st []stageModel)
		at, says string
	}{
		"valid":                        {func([]stageModel) {}, "", ""},
		"stage without groups":         {func(st []stageModel) { st[1].Groups = nil }, "stage[1].group", "needs at least one group block, or a member_selector"},
		"ScheduledStart after a stage": {func(st []stageModel) { st[1].AfterGates = []gateModel{scheduled()} }, "stage[1].after_gate[0].type", "works only as a before-gate"},
		"ScheduledStart after a group": {func(st []stageModel) { st[1].Groups[1].AfterGates = []gateModel{scheduled()} }, "stage[1].group[1].after_gate[0].type", "works only as a before-gate"},
		"ScheduledStart without its time": {func(st []stageModel) { st[0].BeforeGates[0].ScheduledStart = nil }, "stage[0].before_gate[0].scheduled_start",
			"needs its scheduled_start block"},
		"scheduled_start on an Approval gate": {func(st []stageModel) { st[0].BeforeGates[0].Type = types.StringValue("Approval") }, "stage[0].before_gate[0].scheduled_start",
			"only for gates of type ScheduledStart"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := previewStages()
			tc.change(st)
			checkOneError(t, validateModel(t, st), tc.at, tc.says)
		})
	}
}

// ConfigValidatorFor validates stages as fleet_update_strategy's configuration.
func ConfigValidatorFor(t *testing.T) func(*testing.T, []stageModel) diag.Diagnostics {
	return func(t *testing.T, stages []stageModel) diag.Diagnostics {
		t.Helper()
		var resp fwresource.ValidateConfigResponse
		ctx := context.Background()
		r := &updateStrategyResource{}
		var sresp fwresource.SchemaResponse
		r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
		m := updateStrategyModel{ID: types.StringNull(), Name: types.StringValue("s"), FleetID: types.StringNull(), Stages: stages,
			Timeouts: nullTimeouts("create", "update", "delete"), Facts: types.StringNull(), Preview: types.ObjectNull(strategyPreviewType.AttrTypes)}
		plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
		if d := plan.Set(ctx, &m); d.HasError() {
			t.Fatal(d)
		}
		r.ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: plan.Raw}}, &resp)
		return resp.Diagnostics
	}
}

// Changing, adding or removing a member selector or a ScheduledStart time replaces the strategy
// (x-ms-mutability read, create); other changes do not.
func TestPlanCreateOnly(t *testing.T) {
	for name, tc := range map[string]struct {
		change  func(st []stageModel)
		replace bool
	}{
		"max_allowed_failures": {func(st []stageModel) { st[0].MaxAllowedFailures = types.StringValue("2") }, false},
		"group selector":       {func(st []stageModel) { st[1].Groups[0].MemberSelector.ByLabel = types.StringValue("region=west") }, true},
		"stage selector removed": {func(st []stageModel) {
			st[0].MemberSelector = nil
			st[0].Groups = []groupModel{{Name: types.StringValue("c")}}
		}, true},
		"gate time": {func(st []stageModel) { st[0].BeforeGates[0].ScheduledStart.StartTime = types.StringValue("19:00") }, true},
	} {
		st := previewStages()
		tc.change(st)
		var replace path.Paths
		var d diag.Diagnostics
		planCreateOnly(previewStages(), st, "strategy", &replace, &d)
		if got := len(replace) == 1 && replace[0].Equal(path.Root("stage")) && len(d.Warnings()) == 1; got != tc.replace {
			t.Errorf("%s: replace %v (%v), want %t", name, replace, d, tc.replace)
		}
	}
}

// selectorFleet is a fleet whose members carry labels: two canaries, east and west, one in both.
func selectorFleet() []rollout.Member {
	m := func(name string, labels map[string]string) rollout.Member {
		return rollout.Member{Name: name, Group: "", Labels: labels, Location: "eastus", KubernetesVersion: "1.32.5"}
	}
	return []rollout.Member{
		m("c1", map[string]string{"ring": "canary", "region": "east"}), m("c2", map[string]string{"ring": "canary"}),
		m("e1", map[string]string{"region": "east"}), m("e2", map[string]string{"region": "east"}),
		m("w1", map[string]string{"region": "west"}), m("stray", map[string]string{"region": "north"}),
	}
}

// The strategy preview selects by labels: exact counts per group (the implicit one named after its
// stage), the members a second group also selects and those no group selects, each warned once.
func TestStrategyPreviewSelectors(t *testing.T) {
	stages := previewStages()
	stages[1].Groups[1].MemberSelector = &memberSelectorModel{ByLabel: types.StringValue("region in (east,west)")}
	p, warnings := strategyPreview(stages, selectorFleet(), 2)
	type row struct {
		name, by string
		count    int64
		listed   []string
		omitted  int64
	}
	var got []row
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			got = append(got, row{g.Name, g.SelectedBy, g.MemberCount, g.Members, g.MembersOmitted})
		}
	}
	// canary takes c1 and c2; east keeps e1, e2 (c1 is taken); west gets only w1, as the rest of east is taken.
	want := []row{{"canary", "stage_member_selector", 2, []string{"c1"}, 1}, {"east", "member_selector", 2, []string{"e1"}, 1}, {"west", "member_selector", 1, []string{"w1"}, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	if p.UnselectedMemberCount != 1 || fmt.Sprint(p.UnselectedMembers) != "[stray]" || p.OverlappingMemberCount != 3 || fmt.Sprint(p.OverlappingMembers) != "[c1 e1]" {
		t.Errorf("unselected %d %v, overlapping %d %v", p.UnselectedMemberCount, p.UnselectedMembers, p.OverlappingMemberCount, p.OverlappingMembers)
	}
	// c1 is east as well: the canary stage keeps it.
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "3 member(s) are selected by more than one group (c1, e1, e2; c1 by canary/canary, prod/east, prod/west)") {
		t.Errorf("warnings %q", warnings)
	}
	// A selector matching nobody is said once, for its group.
	stages[1].Groups[1].MemberSelector.ByLabel = types.StringValue("region=mars")
	if _, warnings := strategyPreview(stages, selectorFleet(), 0); len(warnings) != 2 || !strings.Contains(warnings[0], `Group "west" of stage "prod": its member_selector selects no fleet member`) ||
		!strings.HasPrefix(warnings[1], "1 member(s) are selected by more than one group (c1; c1 by canary/canary, prod/east)") {
		t.Errorf("warnings %q", warnings)
	}
}

// A member failure within max_allowed_failures: the predicted outcome is Completed with its failure
// count, each stage and group shows its resolved threshold and failures, and the plan warns that
// Completed will hide the failed member — and that apply fails when accepted_failures is lower.
func TestRunPreviewToleratedFailure(t *testing.T) {
	members := selectorFleet()
	members[1].KubernetesVersion = "1.30.4" // c2 skips a minor: AKS rejects it
	regions := map[string]rollout.Region{"eastus": {KubernetesVersions: []string{"1.30.4", "1.32.5", "1.33.1"}}}
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC) // a Monday
	s := stagesToAPI(previewStages())
	p, err := rollout.Plan(rollout.PlanInput{Strategy: strategyToRollout(&s), Update: rollout.Update{Upgrade: rollout.ControlPlaneOnly, KubernetesVersion: "1.33.1"},
		Members: members, Regions: regions}, now)
	if err != nil {
		t.Fatal(err)
	}
	m := runPreviewFrom(p, 0, nil)
	if m.Outcome != "Completed" || m.FailureCount != 1 {
		t.Fatalf("outcome %s with %d failures, want Completed with 1", m.Outcome, m.FailureCount)
	}
	canary, east := m.Stages[0], m.Stages[1].Groups[0]
	if canary.MaxAllowedFailures != 1 || canary.FailureCount != 1 || canary.Groups[0].Name != "canary" || canary.Groups[0].FailureCount != 1 {
		t.Errorf("canary stage: threshold %d, failures %d, group %+v", canary.MaxAllowedFailures, canary.FailureCount, canary.Groups[0])
	}
	if east.MaxAllowedFailures != 1 || east.FailureCount != 0 || east.MemberCount != 2 { // 50% of 2, rounded up
		t.Errorf("prod/east: threshold %d, failures %d, %d members", east.MaxAllowedFailures, east.FailureCount, east.MemberCount)
	}
	// The canary stage waits for Friday 18:00 at -05:00: 2026-11-06T23:00:00Z.
	if g := canary.Gates[0]; g.Type != "ScheduledStart" || g.ScheduledStartAt.ValueString() != "2026-11-06T23:00:00Z" {
		t.Errorf("gate %+v, want ScheduledStart at 2026-11-06T23:00:00Z", g)
	}
	w := toleratedFailureWarning(p, true, 0)
	if !strings.HasPrefix(w, "the run is predicted to end Completed with 1 failed member(s) (c2) within max_allowed_failures: Completed will hide 1 failed member(s)") ||
		!strings.Contains(w, "apply then fails: accepted_failures is 0") {
		t.Errorf("warning %q", w)
	}
	if w := toleratedFailureWarning(p, true, 1); strings.Contains(w, "apply then fails") || w == "" {
		t.Errorf("accepted: %q", w)
	}
	pw := planWarnings(p, nil)
	if len(pw) != 1 || !strings.HasPrefix(pw[0], "1 ScheduledStart gate(s) hold the run until their time (Before of stage canary); first: Before of stage canary at 2026-11-06T23:00:00Z") {
		t.Errorf("plan warnings %q: the tolerated failure does not stop the run, and the ScheduledStart gate needs no approval", pw)
	}
}

// wait_for = "completed": a run that ends Completed with more failed members than accepted_failures
// is an error naming them (the first five) and their messages.
func TestCompletedFailures(t *testing.T) {
	n := int32(7)
	var members []fleetapi.MemberUpdateStatus
	for i := 0; i < 8; i++ {
		st := fleetapi.UpdateStateCompleted
		if i < 7 {
			st = fleetapi.UpdateStateFailed
		}
		members = append(members, fleetapi.MemberUpdateStatus{Name: fmt.Sprintf("m%d", i), Status: &fleetapi.UpdateStatus{State: st}, Message: fmt.Sprintf("quota %d", i)})
	}
	run := &fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{Status: &fleetapi.UpdateRunStatus{FailureCount: &n,
		Status: &fleetapi.UpdateStatus{State: fleetapi.UpdateStateCompleted},
		Stages: []fleetapi.UpdateStageStatus{{Name: "prod", Groups: []fleetapi.UpdateGroupStatus{{Name: "east", Members: members}}}}}}}
	summary, detail := completedFailures(run, 6)
	if summary != "Update run Completed with 7 failed members" ||
		!strings.HasPrefix(detail, "Completed with 7 failed members: m0 (stage prod, group east): quota 0; m1 (stage prod, group east): quota 1;") ||
		!strings.Contains(detail, "m4 (stage prod, group east): quota 4; and 2 more") || strings.Contains(detail, "m5 (") ||
		!strings.Contains(detail, "accepted_failures is 6; set it to 7 or more") {
		t.Errorf("%s: %s", summary, detail)
	}
	if s, _ := completedFailures(run, 7); s != "" {
		t.Errorf("7 accepted: %s", s)
	}
	run.Properties.Status.FailureCount = nil // the stable API reports none
	if s, _ := completedFailures(run, 0); s != "" {
		t.Errorf("stable: %s", s)
	}
}

// The run's status shows the preview API's failure counts and thresholds, and each gate's type
// from the run's strategy (the status does not say it); the stable API's absent counts are null.
func TestRunStatusFailuresAndGateTypes(t *testing.T) {
	two, one := int32(2), int32(1)
	run := &fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{
		Strategy: &fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{{Name: "prod", BeforeGates: []fleetapi.GateConfiguration{{Type: fleetapi.GateTypeScheduledStart}},
			Groups: []fleetapi.UpdateGroup{{Name: "east", AfterGates: []fleetapi.GateConfiguration{{Type: fleetapi.GateTypeApproval}}}}}}},
		Status: &fleetapi.UpdateRunStatus{FailureCount: &one, Stages: []fleetapi.UpdateStageStatus{{Name: "prod", FailureCount: &one, MaxAllowedFailures: &two,
			BeforeGates: []fleetapi.UpdateRunGateStatus{{GateID: "g1", Status: &fleetapi.UpdateStatus{State: fleetapi.UpdateStatePending}}},
			Groups:      []fleetapi.UpdateGroupStatus{{Name: "east", AfterGates: []fleetapi.UpdateRunGateStatus{{GateID: "g2"}}}}}}}}}
	st := runStatusFrom(run)
	s := st.Stages[0]
	if st.FailureCount.ValueInt64() != 1 || s.FailureCount.ValueInt64() != 1 || s.MaxAllowedFailures.ValueInt64() != 2 || !s.Groups[0].FailureCount.IsNull() {
		t.Errorf("counts: run %v, stage %v/%v, group %v", st.FailureCount, s.FailureCount, s.MaxAllowedFailures, s.Groups[0].FailureCount)
	}
	if s.Gates[0].Type.ValueString() != "ScheduledStart" || s.Groups[0].Gates[0].Type.ValueString() != "Approval" {
		t.Errorf("gate types %v %v", s.Gates[0].Type, s.Groups[0].Gates[0].Type)
	}
	// An approval block at a pending ScheduledStart gate's position plans nothing: the gate completes itself.
	r := &updateRunResource{}
	obj := runStatusObject(context.Background(), run, &diag.Diagnostics{})
	state := updateRunModel{Status: obj}
	plan := updateRunModel{Approvals: []approvalModel{{Stage: types.StringValue("prod"), Group: types.StringNull(), Timing: types.StringValue("Before")}}}
	if r.approvalWaiting(context.Background(), state, plan) {
		t.Error("an approval block waits on a ScheduledStart gate")
	}
	run.Properties.Strategy.Stages[0].BeforeGates[0].Type = fleetapi.GateTypeApproval
	if !r.approvalWaiting(context.Background(), updateRunModel{Status: runStatusObject(context.Background(), run, &diag.Diagnostics{})}, plan) {
		t.Error("an approval block does not wait on a pending Approval gate")
	}
}

// The approval action refuses a ScheduledStart gate, saying when it completes itself.
func TestScheduledStartRefusal(t *testing.T) {
	at := time.Date(2026, 11, 6, 23, 0, 0, 0, time.UTC)
	g := &fleetapi.Gate{Properties: &fleetapi.GateProperties{GateType: fleetapi.GateTypeScheduledStart,
		ScheduledStartProperties: &fleetapi.ScheduledStartProperties{AbsoluteStartTime: &at}}}
	if err := scheduledStartRefusal(g); err == nil || err.Error() != "it is a ScheduledStart gate, which completes itself at 2026-11-06T23:00:00Z; only Approval gates are approved" {
		t.Errorf("refusal %v", err)
	}
	g.Properties.GateType = fleetapi.GateTypeApproval
	if err := scheduledStartRefusal(g); err != nil {
		t.Errorf("approval gate refused: %v", err)
	}
}
