package rollout

import (
	"context"
	"fmt"
	"sort"
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
		Description: "The members each group of the strategy selects now (fleet members whose update group is the group's name), and the " +
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
							"name":         rschema.StringAttribute{Computed: true, Description: "The group."},
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
		},
	}
}

var strategyPreviewType = objectType(strategyPreviewAttribute().GetType(), "the update strategy's preview")

// ValidateConfig checks stage and group names are unique.
func (r *updateStrategyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg updateStrategyModel
	_, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateStages(cfg.Stages, path.Root("stage"), &resp.Diagnostics)
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
		p, warnings := strategyPreview(plan.Stages, memberGroups(members), v.ListLimit())
		for _, w := range warnings {
			d.AddAttributeWarning(path.Root("stage"), "Update strategy selects no member", w)
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

// ModifyPlan resolves the default fleet and computes the preview when the
// strategy is created or its stages change.
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
	var cfgFleet types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfgFleet)...)
	if cfgFleet.IsNull() && req.State.Raw.IsNull() {
		f, ok := backend.ResolveFleet(r.Clients, types.StringNull(), &resp.Diagnostics)
		if !ok {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), types.StringValue(f.String()))...)
		plan.FleetID = types.StringValue(f.String())
		unknown = removePath(unknown, path.Root("fleet_id"))
	}
	updateStrategyPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
}

// strategyPreview resolves the stages' groups against the members' update
// groups (group name → member names), listing at most listLimit names per list (0: all).
func strategyPreview(stages []stageModel, groups map[string][]string, listLimit int) (strategyPreviewModel, []string) {
	out := strategyPreviewModel{Stages: []strategyStagePreviewModel{}}
	var warnings []string
	selected := map[string]bool{}
	perGroup := groupListLimit(stages, listLimit)
	for _, st := range stages {
		sp := strategyStagePreviewModel{Name: st.Name.ValueString(), Groups: []strategyGroupPreviewModel{}}
		for _, g := range st.Groups {
			names := append([]string{}, groups[g.Name.ValueString()]...)
			sort.Strings(names)
			if len(names) == 0 {
				warnings = append(warnings, fmt.Sprintf("Group %q of stage %q matches no fleet member's update group; the Fleet API rejects a run whose group selects no member.", g.Name.ValueString(), sp.Name))
			}
			selected[g.Name.ValueString()] = true
			listed, omitted := preview.CapList(preview.NullIfEmpty(names), perGroup)
			sp.Groups = append(sp.Groups, strategyGroupPreviewModel{Name: g.Name.ValueString(), MemberCount: int64(len(names)), Members: listed, MembersOmitted: omitted})
		}
		out.Stages = append(out.Stages, sp)
	}
	var unselected []string
	for g, names := range groups {
		if !selected[g] || g == "" {
			unselected = append(unselected, names...)
		}
	}
	sort.Strings(unselected)
	out.UnselectedMemberCount = int64(len(unselected))
	out.UnselectedMembers, _ = preview.CapList(unselected, listLimit)
	return out, warnings
}

// groupListLimit shares a list limit among every group of the stages, so that a strategy of many
// groups lists as many names as one of a single group (at least one name per group; 0: all).
func groupListLimit(stages []stageModel, listLimit int) int {
	if listLimit <= 0 {
		return 0
	}
	n := 0
	for _, st := range stages {
		n += len(st.Groups)
	}
	return max(1, listLimit/max(1, n))
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
		pre, d := etagPrecondition(ctx, req.Private)
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
	diags.Append(saveETag(ctx, private, got.ETag)...)
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

// strategyPreviewObject is strategyPreview over the members' update groups.
func strategyPreviewObject(ctx context.Context, stages []stageModel, members []facts.Member, listLimit int, diags *diag.Diagnostics) types.Object {
	p, _ := strategyPreview(stages, memberGroups(members), listLimit)
	obj, d := types.ObjectValueFrom(ctx, strategyPreviewType.AttrTypes, p)
	diags.Append(d...)
	return obj
}

// memberGroups maps update group → member names.
func memberGroups(members []facts.Member) map[string][]string {
	groups := map[string][]string{}
	for _, m := range members {
		groups[m.Group] = append(groups[m.Group], m.Name)
	}
	return groups
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
	resp.Diagnostics.Append(saveETag(ctx, resp.Private, got.ETag)...)
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
	Stages                []strategyStagePreviewModel `tfsdk:"stages"`
	UnselectedMembers     []string                    `tfsdk:"unselected_members"`
	UnselectedMemberCount int64                       `tfsdk:"unselected_member_count"`
}

type strategyStagePreviewModel struct {
	Name   string                      `tfsdk:"name"`
	Groups []strategyGroupPreviewModel `tfsdk:"groups"`
}

type strategyGroupPreviewModel struct {
	Name           string   `tfsdk:"name"`
	MemberCount    int64    `tfsdk:"member_count"`
	Members        []string `tfsdk:"members"`
	MembersOmitted int64    `tfsdk:"members_omitted"`
}
