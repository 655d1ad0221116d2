package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ resource.ResourceWithValidateConfig = (*updateStrategyResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*updateStrategyResource)(nil)
)

// updateStrategyResource is fleet_update_strategy: fleets/updateStrategies.
type updateStrategyResource struct{ shared.ResourceBase }

const (
	updateStrategyTimeout = 10 * time.Minute
)

// updateStrategyConfigAttributes feed the preview.
var updateStrategyConfigAttributes = []string{"fleet_id", "stage"}

func (r *updateStrategyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "An update strategy of an Azure Kubernetes Fleet Manager fleet (`fleets/updateStrategies`): the stages, groups, " +
			"waits and approval gates update runs follow. The plan's `preview` shows which members each group selects now and " +
			"which members no group selects (a run with this strategy never updates them). Updates are guarded by the strategy's ETag: " +
			"a strategy changed by someone else since Terraform read it is not overwritten (refresh and apply again). Create adopts a " +
			"strategy of the same name with the planned stages (a killed or concurrent apply's) and refuses one with other stages.",
		Attributes: map[string]rschema.Attribute{
			"id":   shared.IDAttribute(idDescription("update strategy", "updateStrategies")),
			"name": shared.ReplacingAttribute("The strategy's name: lower-case letters, digits and '-', 1 to 50 characters. Changing it replaces the strategy.", childNameValidators()...),
			"fleet_id": rschema.StringAttribute{
				Optional: true, Computed: true,
				Description: shared.FleetIDAttribute("strategy").Description, Validators: shared.FleetIDAttribute("strategy").Validators,
				PlanModifiers: shared.KeptOrReplaced(),
			},
			"facts":   preview.FactsAttribute("the preview"),
			"preview": strategyPreviewAttribute(),
		},
		Blocks: updateStrategyBlocks(ctx),
		// Version 1: nested attributes became blocks (issue 35).
		Version: 1,
	}
}

func updateStrategyBlocks(ctx context.Context) map[string]rschema.Block {
	b := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: updateStrategyTimeout, Update: updateStrategyTimeout, Delete: updateStrategyTimeout})
	b["stage"] = stagesBlock(true, " At least one.")
	return b
}

// stageRenames are the renames of the stages' nested attributes that became blocks, under root
// ("stages" of a strategy or a run).
func stageRenames(root string) map[string]string {
	return map[string]string{
		root:                          "stage",
		root + ".groups":              "group",
		root + ".before_gates":        "before_gate",
		root + ".after_gates":         "after_gate",
		root + ".groups.before_gates": "before_gate",
		root + ".groups.after_gates":  "after_gate",
	}
}

// UpgradeState upgrades the state of the nested-attribute schema (version 0).
func (r *updateStrategyResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(shared.BlockRenames{Renames: stageRenames("stages")})}
}

func strategyPreviewAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "The members each group of the strategy selects now (fleet members whose update group is the group's name, or whose " +
			"labels its member_selector matches, within its stage's member_selector), and the " +
			"members no group selects. Computed at plan when the strategy is created or its stages change. Counts cover every member; " +
			"name lists hold at most " + fmt.Sprint(preview.SummaryListLimit) + " names in all, by name, shared among the groups (at least one " +
			"each), with the provider's `preview_detail = \"summary\"` (the default), and every name with `full`. Empty lists are null.",
		PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
		Attributes: map[string]rschema.Attribute{
			"stages": rschema.ListNestedAttribute{
				Computed: true, Description: "The stages in order.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"name": rschema.StringAttribute{Computed: true, Description: "The stage."},
					"groups": rschema.ListNestedAttribute{
						Computed: true, Description: "The stage's groups.",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{Computed: true, Description: "The group (a stage's member_selector without groups makes one named after the stage)."},
							"selected_by": rschema.StringAttribute{Computed: true, Description: "How the group selects its members: `update_group` (members whose " +
								"update group is its name), `member_selector` (its own) or `stage_member_selector` (the one group of a stage without groups). " +
								"A stage's member_selector narrows its groups' members in every case."},
							"member_count": rschema.Int64Attribute{Computed: true, Description: "How many members the group selects."},
							"members": rschema.ListAttribute{Computed: true, ElementType: types.StringType,
								Description: "Members in the group, sorted by name: the group's share of " + fmt.Sprint(preview.SummaryListLimit) + " names with summary detail; null when none."},
							"members_omitted": rschema.Int64Attribute{Computed: true, Description: "How many of the group's members `members` leaves out (0 with full detail)."},
						}},
					},
				}},
			},
			"unselected_members": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "Members whose update group no stage contains (or that have none), sorted by name: runs with this strategy never " +
					"update them. The first " + fmt.Sprint(preview.SummaryListLimit) + " with summary detail; null when none.",
			},
			"unselected_member_count": rschema.Int64Attribute{Computed: true, Description: "How many members no group of the strategy selects."},
			"overlapping_members": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "Members more than one group's member_selector selects, sorted by name: a run updates each once, in the first group " +
					"(stages in order, then groups in order). The first " + fmt.Sprint(preview.SummaryListLimit) + " with summary detail; null when none.",
			},
			"overlapping_member_count": rschema.Int64Attribute{Computed: true, Description: "How many members more than one group selects."},
		},
	}
}

var strategyPreviewType = objectType(strategyPreviewAttribute().GetType(), "the update strategy's preview")

// ValidateConfig checks stage and group names are unique.
func (r *updateStrategyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg updateStrategyModel
	unknown, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateStages(cfg.Stages, path.Root("stage"), unknown, &resp.Diagnostics)
}

// updateStrategyPreviewSpec is the strategy's preview: which members each group selects now.
var updateStrategyPreviewSpec = preview.Spec[updateStrategyModel]{
	What:      "the update strategy preview",
	AttrTypes: strategyPreviewType.AttrTypes,
	Follows:   updateStrategyConfigAttributes,
	Reads:     []facts.Input{facts.InputFleetMembers, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, plan *updateStrategyModel, d *diag.Diagnostics) (attr.Value, error) {
		fleet, ok := previewFleet(plan.FleetID, d)
		if !ok {
			return nil, nil
		}
		members, err := v.MemberClusters(ctx, fleet)
		if err != nil {
			return nil, err
		}
		p, warnings := strategyPreview(plan.Stages, selectionMembers(members), v.ListLimit())
		for _, w := range warnings {
			d.AddAttributeWarning(path.Root("stage"), "Update strategy selection", w)
		}
		obj, diags := types.ObjectValueFrom(ctx, strategyPreviewType.AttrTypes, p)
		d.Append(diags...)
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *updateStrategyResource) PreviewInputs() []facts.Input {
	return updateStrategyPreviewSpec.Inputs()
}

// ModifyPlan refuses the preview API's arguments under the stable version, replaces the strategy
// when a create-only stage setting changes, resolves the default fleet and computes the preview
// when the strategy is created or its stages change.
func (r *updateStrategyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	defer addInventoryWarnings(r.Clients, &resp.Diagnostics)
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan updateStrategyModel
	unknown, diags := shared.DecodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, preview.Path, path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Before anything is read or sent: the preview API's arguments need its version.
	if refusePreviewArguments(req.Config.Raw, r.Clients.FleetAPIVersion(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state updateStrategyModel
		if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
			return
		}
		planCreateOnly(state.Stages, plan.Stages, "strategy", &resp.RequiresReplace, &resp.Diagnostics)
	}
	var cfgFleet types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfgFleet)...)
	if cfgFleet.IsNull() && req.State.Raw.IsNull() {
		f, ok := backend.ResolveFleet(r.Clients, types.StringNull(), &resp.Diagnostics)
		if !ok {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), types.StringValue(f.String()))...)
		plan.FleetID = types.StringValue(f.String())
		unknown = shared.RemovePath(unknown, path.Root("fleet_id"))
	}
	updateStrategyPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
}

// strategyPreview places the members into the stages' groups as a run of the strategy would
// (rollout.Assign: update group names and member selectors), listing at most listLimit names per
// list (0: all), and says what a reviewer must not miss: groups that select no member, members
// several groups select.
func strategyPreview(stages []stageModel, members []rollout.Member, listLimit int) (strategyPreviewModel, []string) {
	out := strategyPreviewModel{Stages: []strategyStagePreviewModel{}}
	api := stagesToAPI(stages)
	assign, err := rollout.Assign(strategyToRollout(&api), members)
	if err != nil {
		// A selector that does not parse: validate refused it already.
		return out, []string{err.Error()}
	}
	var warnings []string
	groups := 0
	for _, st := range assign.Stages {
		groups += len(st.Groups)
	}
	perGroup := groupListLimit(groups, listLimit)
	for _, st := range assign.Stages {
		sp := strategyStagePreviewModel{Name: st.Name, Groups: []strategyGroupPreviewModel{}}
		for _, g := range st.Groups {
			by := "update_group"
			switch {
			case g.Implicit:
				by = "stage_member_selector"
			case g.BySelector:
				by = "member_selector"
			}
			if len(g.Members) == 0 {
				switch {
				case g.Implicit:
					warnings = append(warnings, fmt.Sprintf("Stage %q: its member_selector selects no fleet member; the stage has nothing to update.", st.Name))
				case g.BySelector:
					warnings = append(warnings, fmt.Sprintf("Group %q of stage %q: its member_selector selects no fleet member; the group has nothing to update.", g.Name, st.Name))
				case g.NamedMembers > 0:
					warnings = append(warnings, fmt.Sprintf("Group %q of stage %q: the members of update group %q are all left out by the stage's member_selector "+
						"or taken by an earlier group; the group has nothing to update.", g.Name, st.Name, g.Name))
				default:
					// UpdateGroup.name: "It must match a group name of an existing fleet member."
					warnings = append(warnings, fmt.Sprintf("Group %q of stage %q matches no fleet member's update group; the Fleet API rejects a run whose group selects no member.", g.Name, st.Name))
				}
			}
			listed, omitted := preview.CapList(preview.NullIfEmpty(append([]string{}, g.Members...)), perGroup)
			sp.Groups = append(sp.Groups, strategyGroupPreviewModel{Name: g.Name, SelectedBy: by, MemberCount: int64(len(g.Members)), Members: listed, MembersOmitted: omitted})
		}
		out.Stages = append(out.Stages, sp)
	}
	out.UnselectedMemberCount = int64(len(assign.Unselected))
	out.UnselectedMembers, _ = preview.CapList(append([]string(nil), assign.Unselected...), listLimit)
	var overlapping []string
	for _, o := range assign.Overlaps {
		overlapping = append(overlapping, o.Member)
	}
	out.OverlappingMemberCount = int64(len(overlapping))
	out.OverlappingMembers, _ = preview.CapList(overlapping, listLimit)
	if len(overlapping) > 0 {
		// Choice of engine/rollout selectors.go: the first group in strategy order keeps the member.
		o := assign.Overlaps[0]
		refs := make([]string, len(o.Groups))
		for i, g := range o.Groups {
			refs[i] = g.Stage + "/" + g.Group
		}
		warnings = append(warnings, fmt.Sprintf("%d member(s) are selected by more than one group (%s; %s by %s): a run updates each once, in the first "+
			"of them, so the later groups do not update them.", len(overlapping), preview.NameSample(overlapping), o.Member, strings.Join(refs, ", ")))
	}
	return out, warnings
}

// groupListLimit shares a list limit among the strategy's groups, so that a strategy of many
// groups lists as many names as one of a single group (at least one name per group; 0: all).
func groupListLimit(groups, listLimit int) int {
	if listLimit <= 0 {
		return 0
	}
	return max(1, listLimit/max(1, groups))
}

func (r *updateStrategyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportFleetChild(ctx, req, resp, "updateStrategies", "an update strategy's", map[string]any{
		"preview": types.ObjectNull(strategyPreviewType.AttrTypes),
	})
}

func (r *updateStrategyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Create, updateStrategyTimeout, &resp.Diagnostics, func(ctx context.Context, plan updateStrategyModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		// If-None-Match: a strategy of that name made elsewhere is not overwritten.
		r.put(ctx, fc, fleet, &plan, &fleetapi.Precondition{IfNoneMatch: "*"}, resp.Private, &resp.State, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			updateStrategyPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics)
		}
	})
}

func (r *updateStrategyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Update, updateStrategyTimeout, &resp.Diagnostics, func(ctx context.Context, plan updateStrategyModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		pre, d := backend.ETagPrecondition(ctx, req.Private)
		resp.Diagnostics.Append(d...)
		r.put(ctx, fc, fleet, &plan, pre, resp.Private, &resp.State, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			updateStrategyPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics)
		}
	})
}

func (r *updateStrategyResource) put(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateStrategyModel, pre *fleetapi.Precondition, private shared.PrivateSetter, state *tfsdk.State, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	body := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: stagesToAPI(plan.Stages)}}
	poller, err := fc.BeginCreateOrUpdateUpdateStrategy(ctx, fleet, name, body, pre)
	got, err := shared.PollDone(ctx, poller, err)
	if err != nil && fleetapi.IsPreconditionFailed(err) && pre != nil && pre.IfNoneMatch != "" {
		got, err = r.adopt(ctx, fc, fleet, name, body, diags)
		if got == nil && err == nil {
			return
		}
	}
	if err != nil {
		if fleetapi.IsPreconditionFailed(err) {
			addChangedElsewhereError(diags, "update strategy", name, err)
		} else {
			diags.AddError("Writing the update strategy", fmt.Sprintf("Update strategy %q: %v", name, err))
		}
		return
	}
	tflog.Info(ctx, "update strategy written", map[string]any{"strategy": name, "fleet": fleet.String()})
	plan.ID = types.StringValue(fleet.ChildID("updateStrategies", name))
	plan.FleetID = types.StringValue(fleet.String())
	diags.Append(backend.SaveETag(ctx, private, got.ETag)...)
	if plan.Preview.IsUnknown() {
		plan.Preview = r.previewNow(ctx, fleet, plan.Stages, diags)
	}
	diags.Append(state.Set(ctx, plan)...)
}

// adopt takes over the strategy a Create found under its name when its
// stages are the planned ones (adopt.go); otherwise it reports the
// difference and returns nil, nil.
func (r *updateStrategyResource) adopt(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, name string, body fleetapi.FleetUpdateStrategy, diags *diag.Diagnostics) (*fleetapi.FleetUpdateStrategy, error) {
	existing, err := fc.GetUpdateStrategy(ctx, fleet, name)
	if err != nil {
		return nil, fmt.Errorf("it exists already, and reading it failed: %w", err)
	}
	var have *fleetapi.UpdateRunStrategy
	if existing.Properties != nil {
		have = &existing.Properties.Strategy
	}
	if d := specDiff(strategySpec(&body.Properties.Strategy), strategySpec(have)); d != "" {
		addExistsError(diags, "update strategy", name, fleet.ChildID("updateStrategies", name), d)
		return nil, nil
	}
	tflog.Info(ctx, "update strategy existed with the planned stages; adopted", map[string]any{"strategy": name})
	diags.AddWarning("Existing update strategy adopted", fmt.Sprintf("The fleet already had an update strategy named %q with the planned stages, "+
		"made by an apply that did not save it to state or by one running at the same time. Terraform now manages it.", name))
	return existing, nil
}

// previewNow computes a preview that was unknown at plan.
func (r *updateStrategyResource) previewNow(ctx context.Context, fleet fleetapi.FleetID, stages []stageModel, diags *diag.Diagnostics) types.Object {
	members, err := r.Clients.View().MemberClusters(ctx, fleet)
	if err != nil {
		diags.AddWarning("Update strategy preview", fmt.Sprintf("The preview could not be computed: %v", err))
		return types.ObjectNull(strategyPreviewType.AttrTypes)
	}
	return strategyPreviewObject(ctx, stages, members, r.Clients.ListLimit(), diags)
}

// strategyPreviewObject is strategyPreview over the members' update groups and labels.
func strategyPreviewObject(ctx context.Context, stages []stageModel, members []facts.Member, listLimit int, diags *diag.Diagnostics) types.Object {
	p, _ := strategyPreview(stages, selectionMembers(members), listLimit)
	obj, d := types.ObjectValueFrom(ctx, strategyPreviewType.AttrTypes, p)
	diags.Append(d...)
	return obj
}

// selectionMembers are the members as a strategy selects them: by update group and labels (their
// clusters do not matter, so an unreadable cluster's member is placed too).
func selectionMembers(members []facts.Member) []rollout.Member {
	out := make([]rollout.Member, 0, len(members))
	for _, m := range members {
		out = append(out, rollout.Member{Name: m.Name, Group: m.Group, Labels: m.Labels})
	}
	return out
}

func (r *updateStrategyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state updateStrategyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	got, fleet, ok := backend.ReadFleetChild(ctx, r.Clients, resp, state.FleetID, state.Name.ValueString(), (*fleetapi.Client).GetUpdateStrategy,
		"update strategy", map[string]any{"strategy": state.Name.ValueString()})
	if !ok {
		return
	}
	state.ID = types.StringValue(fleet.ChildID("updateStrategies", state.Name.ValueString()))
	state.FleetID = types.StringValue(fleet.String())
	if got.Properties != nil {
		state.Stages = stagesFromAPI(got.Properties.Strategy, state.Stages)
	}
	// The preview is refreshed from the members' groups as they are now (a
	// group set by fleet_member or elsewhere); unreadable members keep the old one.
	if members, err := r.Clients.View().MemberClusters(ctx, fleet); err == nil {
		state.Preview = strategyPreviewObject(ctx, state.Stages, members, r.Clients.ListLimit(), &resp.Diagnostics)
	} else {
		tflog.Debug(ctx, "update strategy preview not refreshed", map[string]any{"error": err.Error()})
	}
	if state.Timeouts.IsNull() {
		state.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	resp.Diagnostics.Append(backend.SaveETag(ctx, resp.Private, got.ETag)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *updateStrategyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.FleetOp(ctx, r.Clients, req.State, timeouts.Value.Delete, updateStrategyTimeout, &resp.Diagnostics, func(ctx context.Context, state updateStrategyModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		poller, err := fc.BeginDeleteUpdateStrategy(ctx, fleet, state.Name.ValueString(), nil)
		if _, err := shared.PollDone(ctx, poller, err); err != nil && !fleetapi.IsNotFound(err) {
			resp.Diagnostics.AddError("Deleting the update strategy", err.Error())
			return
		}
		tflog.Info(ctx, "update strategy deleted", map[string]any{"strategy": state.Name.ValueString()})
	})
}

// ---- models ----

type updateStrategyModel struct {
	ID       types.String   `tfsdk:"id"`
	Name     types.String   `tfsdk:"name"`
	FleetID  types.String   `tfsdk:"fleet_id"`
	Stages   []stageModel   `tfsdk:"stage"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
	Facts    types.String   `tfsdk:"facts"`
	Preview  types.Object   `tfsdk:"preview"`
}

// FleetAndTimeouts is what backend.FleetOp reads of the model.
func (m updateStrategyModel) FleetAndTimeouts() (types.String, timeouts.Value) {
	return m.FleetID, m.Timeouts
}

type strategyPreviewModel struct {
	Stages                 []strategyStagePreviewModel `tfsdk:"stages"`
	UnselectedMembers      []string                    `tfsdk:"unselected_members"`
	UnselectedMemberCount  int64                       `tfsdk:"unselected_member_count"`
	OverlappingMembers     []string                    `tfsdk:"overlapping_members"`
	OverlappingMemberCount int64                       `tfsdk:"overlapping_member_count"`
}

type strategyStagePreviewModel struct {
	Name   string                      `tfsdk:"name"`
	Groups []strategyGroupPreviewModel `tfsdk:"groups"`
}

type strategyGroupPreviewModel struct {
	Name           string   `tfsdk:"name"`
	SelectedBy     string   `tfsdk:"selected_by"`
	MemberCount    int64    `tfsdk:"member_count"`
	Members        []string `tfsdk:"members"`
	MembersOmitted int64    `tfsdk:"members_omitted"`
}
