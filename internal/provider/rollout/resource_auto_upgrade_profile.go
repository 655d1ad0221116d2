package rollout

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/channel"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*autoUpgradeProfileResource)(nil)

// autoUpgradeProfileResource is fleet_auto_upgrade_profile: fleets/autoUpgradeProfiles, with a
// plan-time preview of what the channel resolves to and what it would do with each member.
type autoUpgradeProfileResource struct{ shared.ResourceBase }

// aupDefaultTimeout bounds each operation: the profile's operations are short LROs.
const aupDefaultTimeout = 10 * time.Minute

var (
	aupNameRe  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	aupMinorRe = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
)

// aupPreviewInputs are the attributes the preview depends on: only a change to one of them (or a
// create) recomputes it.
var aupPreviewInputs = []string{"fleet_id", "channel", "target_kubernetes_version", "long_term_support", "update_strategy_id"}

// aupConfigAttributes are every configurable attribute: a change to one of them generates a run
// again when generate_update_run is set.
var aupConfigAttributes = []string{"name", "fleet_id", "channel", "target_kubernetes_version", "long_term_support",
	"update_strategy_id", "node_image_selection_type", "disabled", "generate_update_run"}

func (r *autoUpgradeProfileResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := shared.RequiresReplace()
	resp.Schema = schema.Schema{
		Description: "An auto-upgrade profile of a fleet (`fleets/autoUpgradeProfiles`): when AKS releases a new version in the " +
			"profile's channel, Fleet generates and starts an update run that follows the profile's update strategy. The " +
			"`preview` says at plan what the channel resolves to now and, for each member, whether a run would upgrade it, " +
			"leave it (already there) or skip it, and why.",
		Attributes: map[string]schema.Attribute{
			"id": shared.IDAttribute("The profile's ARM resource ID."),
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "The profile's name: lower-case letters, digits and '-', 1 to 50 characters. Changing it replaces the profile.",
				PlanModifiers: replace,
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 50),
					stringvalidator.RegexMatches(aupNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit"),
				},
			},
			"fleet_id": schema.StringAttribute{
				Optional: true, Computed: true,
				Description:   "The fleet's ARM resource ID. Default: the provider's fleet. Changing it replaces the profile.",
				PlanModifiers: shared.KeptOrReplaced(),
			},
			"channel": schema.StringAttribute{
				Required: true,
				Description: "`Stable` (the latest GA patch of minor N-1, N being the newest GA minor), `Rapid` (the latest GA " +
					"patch of N), `NodeImage` (the latest node image of each pool's OS), `TargetKubernetesVersion` (the latest " +
					"patch of `target_kubernetes_version`) or `SecurityPatch` (security patches to the members' nodes; Fleet API `" +
					fleetapi.PreviewAPIVersion + "` only, refused at plan under the stable version: `terraform validate` runs without the " +
					"provider's configuration, so it cannot tell).",
				Validators: []validator.String{stringvalidator.OneOf(string(channel.Stable), string(channel.Rapid), string(channel.NodeImage), string(channel.TargetKubernetesVersion),
					string(fleetapi.UpgradeChannelSecurityPatch))},
			},
			"target_kubernetes_version": schema.StringAttribute{
				Optional:    true,
				Description: "`major.minor` (e.g. `1.33`): required with the `TargetKubernetesVersion` channel, and only with it.",
				Validators:  []validator.String{stringvalidator.RegexMatches(aupMinorRe, `must be a Kubernetes minor version "major.minor", e.g. "1.33"`)},
			},
			"long_term_support": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Allow minors AKS offers only under long-term support: only with the `TargetKubernetesVersion` channel. " +
					"Runs of such a profile fail at the first member not on the LTS plan.",
			},
			"update_strategy_id": schema.StringAttribute{
				Optional: true,
				Description: "The ARM ID of the fleet's update strategy the generated runs copy. Unset: every member, one by one. " +
					"Set at creation only: changing it replaces the profile.",
				PlanModifiers: replace,
			},
			"node_image_selection_type": schema.StringAttribute{
				Optional: true,
				Description: "`Latest` (each pool takes its region's newest image) or `Consistent` (the newest image every region " +
					"has). Unset: the service's default, Latest. Set at creation only: changing it replaces the profile.",
				PlanModifiers: replace,
				Validators:    []validator.String{stringvalidator.OneOf(string(fleetapi.AutoUpgradeNodeImageLatest), string(fleetapi.AutoUpgradeNodeImageConsistent))},
			},
			"disabled": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "A disabled profile triggers nothing.",
			},
			"generate_update_run": schema.BoolAttribute{
				Optional: true,
				Description: "When true, each apply that creates or changes the profile asks it for the update run its channel " +
					"implies now (generateUpdateRun): the run is created but not started, and the same target always gives the " +
					"same run. Its ID is `generated_update_run_id`.",
			},
			"generated_update_run_id": shared.ComputedString("The ARM ID of the run the last apply generated (with `generate_update_run`); null otherwise."),
			"facts":                   preview.FactsAttribute("the preview"),
			"preview": schema.SingleNestedAttribute{
				Computed: true,
				Description: "What the channel resolves to over the AKS version lists of the members' regions at plan, and what " +
					"a run of that target would do with each member. Computed when the profile is created or its channel settings " +
					"change, kept as-is otherwise; unknown (with a warning) while an input is unknown.",
				Attributes: map[string]schema.Attribute{
					"target_kubernetes_version": shared.ComputedString("The channel's target patch version; null for NodeImage, or when the channel resolves to nothing (a warning says why)."),
					"target_node_image_versions": schema.ListAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "NodeImage channel: what runs move node pools to (`<type>-<version>`): with `Latest` (or unset) the newest image of " +
							"each type in any member's region (each member takes its own region's newest: see its `reason`); with `Consistent` the one " +
							"version of each type every region of the updated members offers.",
					},
					"member_count": schema.Int64Attribute{Computed: true, Description: "How many members the preview covers (those with a readable managed cluster)."},
					"actions": schema.MapAttribute{
						Computed: true, ElementType: types.Int64Type,
						Description: "Action (`upgrade`, `none`, `skip`, `unselected`) → how many members get it: every member, listed or not " +
							"(`unselected`: members no group of `update_strategy_id`'s strategy selects, which its runs do not update).",
					},
					"members": schema.MapNestedAttribute{
						Computed: true,
						Description: "Members by name (`preview.members[\"name\"]`): with the provider's `preview_detail = \"summary\"` (the default) at most " +
							fmt.Sprint(preview.SummaryListLimit) + ", exceptions first — `skip`, then `upgrade`, then `none`, each by name; with `full` every member.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"current_kubernetes_version": shared.ComputedString("Its cluster's current Kubernetes version."),
							"target_kubernetes_version":  shared.ComputedString("What the channel moves it to (its current version for NodeImage)."),
							"action":                     shared.ComputedString("`upgrade`, `none` (already at the target), `skip` (the channel leaves it alone) or `unselected` (no group of the profile's update strategy selects it)."),
							"reason":                     shared.ComputedString("Why: the move, or why the member is left alone (more than one minor behind, outside the support window, a downgrade, …)."),
							"target_node_image_versions": schema.MapAttribute{Computed: true, ElementType: types.StringType,
								Description: "NodeImage channel: node pool → the image a run moves it to (its current image when it stays), by `node_image_selection_type`; null for the other channels."},
						}},
					},
					"members_omitted": schema.Int64Attribute{Computed: true, Description: "How many members `members` leaves out (0 with full detail)."},
				},
			},
			"status": schema.SingleNestedAttribute{
				Computed:    true,
				Description: "The profile's last trigger, as the Fleet API reports it at refresh.",
				Attributes: map[string]schema.Attribute{
					"last_triggered_at":   shared.ComputedString("When the profile last created and started a run (RFC 3339, UTC)."),
					"last_trigger_status": shared.ComputedString("`Succeeded` or `Failed`."),
					"last_trigger_error":  shared.ComputedString("The last trigger's error, when it failed."),
					"last_trigger_upgrade_versions": schema.ListAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "The Kubernetes version or node image versions of the last trigger.",
					},
					"last_trigger_message": shared.ComputedString("More about the last trigger attempt (Fleet API `" + fleetapi.PreviewAPIVersion +
						"`; null under the stable version)."),
				},
			},
		},
		Blocks: shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: aupDefaultTimeout, Read: aupDefaultTimeout, Update: aupDefaultTimeout, Delete: aupDefaultTimeout}),
	}
}

// ValidateConfig: the channel's options as fleets.json states them.
func (r *autoUpgradeProfileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m autoUpgradeProfileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	aupValidate(m, &resp.Diagnostics)
}

func aupValidate(m autoUpgradeProfileModel, d *diag.Diagnostics) {
	if m.Channel.IsUnknown() || m.Channel.IsNull() {
		return
	}
	ch := m.Channel.ValueString()
	tkv := ch == string(channel.TargetKubernetesVersion)
	switch {
	case tkv && m.TargetKubernetesVersion.IsNull():
		d.AddAttributeError(path.Root("target_kubernetes_version"), "Missing target Kubernetes version",
			`The TargetKubernetesVersion channel needs target_kubernetes_version ("major.minor", e.g. "1.33").`)
	case !tkv && !m.TargetKubernetesVersion.IsNull():
		d.AddAttributeError(path.Root("target_kubernetes_version"), "Target Kubernetes version not allowed",
			fmt.Sprintf("target_kubernetes_version is only for the TargetKubernetesVersion channel, not %s: remove it or change the channel.", ch))
	}
	if !tkv && !m.LongTermSupport.IsUnknown() && m.LongTermSupport.ValueBool() {
		d.AddAttributeError(path.Root("long_term_support"), "Long-term support not allowed",
			fmt.Sprintf("long_term_support is only for the TargetKubernetesVersion channel, not %s.", ch))
	}
	if v := m.UpdateStrategyID; !v.IsNull() && !v.IsUnknown() {
		if _, _, err := fleetapi.ParseChildID(v.ValueString(), "updateStrategies"); err != nil {
			d.AddAttributeError(path.Root("update_strategy_id"), "Invalid update strategy ID", err.Error())
		}
	}
	if v := m.FleetID; !v.IsNull() && !v.IsUnknown() {
		if _, err := fleetapi.ParseFleetID(v.ValueString()); err != nil {
			d.AddAttributeError(path.Root("fleet_id"), "Invalid fleet ID", err.Error())
		}
	}
}

// ModifyPlan resolves fleet_id, checks what needs the backend (the strategy belongs to the fleet),
// and computes the preview when the profile is created or its channel settings change.
func (r *autoUpgradeProfileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	defer addInventoryWarnings(r.Clients, &resp.Diagnostics)
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan autoUpgradeProfileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Before anything is read or sent: the SecurityPatch channel needs the preview API.
	if refusePreviewArguments(req.Config.Raw, r.Clients.FleetAPIVersion(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	var state autoUpgradeProfileModel
	if !creating {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if plan.FleetID.IsUnknown() {
		var cfg types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfg)...)
		if cfg.IsNull() {
			f, ok := backend.ResolveFleet(r.Clients, cfg, &resp.Diagnostics)
			if !ok {
				return
			}
			plan.FleetID = types.StringValue(f.String())
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), plan.FleetID)...)
		}
	}
	if !plan.FleetID.IsUnknown() && !plan.UpdateStrategyID.IsNull() && !plan.UpdateStrategyID.IsUnknown() {
		sf, _, err := fleetapi.ParseChildID(plan.UpdateStrategyID.ValueString(), "updateStrategies")
		if err == nil && !strings.EqualFold(sf.String(), plan.FleetID.ValueString()) {
			resp.Diagnostics.AddAttributeError(path.Root("update_strategy_id"), "Update strategy of another fleet",
				fmt.Sprintf("Update strategy %s is not a strategy of fleet %s.", plan.UpdateStrategyID.ValueString(), plan.FleetID.ValueString()))
			return
		}
	}
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, aupConfigAttributes...)
	if err != nil {
		resp.Diagnostics.AddError("Comparing the plan with the state", err.Error())
		return
	}
	// generated_update_run_id: a new run is asked for on every apply that creates or changes the profile.
	switch {
	case plan.GenerateUpdateRun.IsUnknown() || (plan.GenerateUpdateRun.ValueBool() && changed):
		plan.GeneratedUpdateRunID = types.StringUnknown()
	case !plan.GenerateUpdateRun.ValueBool():
		plan.GeneratedUpdateRunID = types.StringNull()
	default:
		plan.GeneratedUpdateRunID = state.GeneratedUpdateRunID
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("generated_update_run_id"), plan.GeneratedUpdateRunID)...)
	if !creating && !changed {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), state.Status)...)
	}

	previewChanged, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, aupPreviewInputs...)
	if err != nil {
		resp.Diagnostics.AddError("Comparing the plan with the state", err.Error())
		return
	}
	if !creating && !previewChanged && !state.Preview.IsNull() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), state.Preview)...)
		return
	}
	var unknown []path.Path
	for _, name := range aupPreviewInputs {
		var v attr.Value
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(name), &v)...)
		if v != nil && v.IsUnknown() {
			unknown = append(unknown, path.Root(name))
		}
	}
	previewReq := req
	if !creating && !previewChanged {
		// A profile without a preview (imported when it could not be computed) gets one now,
		// though nothing the preview follows changed: planned as at creation.
		previewReq.State.Raw = tftypes.NewValue(req.State.Raw.Type(), nil)
	}
	autoUpgradeProfilePreviewSpec.Plan(ctx, r.Clients, previewReq, resp, &plan, unknown)
}

// PreviewInputs are what the preview reads of the fleet.
func (r *autoUpgradeProfileResource) PreviewInputs() []facts.Input {
	return autoUpgradeProfilePreviewSpec.Inputs()
}

// ImportState takes the profile's ARM ID; Read fills the rest, and the preview.
func (r *autoUpgradeProfileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	fleet, name, err := fleetapi.ParseChildID(req.ID, "autoUpgradeProfiles")
	if err != nil {
		resp.Diagnostics.AddError("Unexpected import ID",
			"Expected an auto-upgrade profile's ARM ID, /subscriptions/<subscription>/resourceGroups/<group>/providers/Microsoft.ContainerService/fleets/<fleet>/autoUpgradeProfiles/<name>: "+err.Error())
		return
	}
	m := aupNullModel()
	m.ID, m.Name, m.FleetID = types.StringValue(fleet.ChildID("autoUpgradeProfiles", name)), types.StringValue(name), types.StringValue(fleet.String())
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *autoUpgradeProfileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Create, aupDefaultTimeout, &resp.Diagnostics, func(ctx context.Context, plan autoUpgradeProfileModel, c *fleetapi.Client, fleet fleetapi.FleetID) {
		plan.FleetID = types.StringValue(fleet.String())
		if plan.Preview.IsUnknown() {
			plan.Preview = aupLivePreview(ctx, r.Clients, plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}
		}
		name := plan.Name.ValueString()
		tflog.Info(ctx, "creating auto-upgrade profile", map[string]any{"fleet": fleet.String(), "name": name})
		poller, err := c.BeginCreateOrUpdateAutoUpgradeProfile(ctx, fleet, name, aupToAPI(plan), &fleetapi.Precondition{IfNoneMatch: "*"})
		got, err := aupWait(ctx, poller, err)
		if err != nil {
			if fleetapi.IsPreconditionFailed(err) {
				resp.Diagnostics.AddAttributeError(path.Root("name"), "Auto-upgrade profile already exists",
					fmt.Sprintf("Fleet %s already has an auto-upgrade profile %q: import it (terraform import <address> %s) or choose another name.", fleet, name, fleet.ChildID("autoUpgradeProfiles", name)))
				return
			}
			resp.Diagnostics.AddError("Creating the auto-upgrade profile", err.Error())
			return
		}
		plan.ID = types.StringValue(fleet.ChildID("autoUpgradeProfiles", name))
		plan.Status = aupStatus(got)
		defer autoUpgradeProfilePreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics) // once the profile is in state
		// The profile exists from here on: save it before generating a run, so a failure there
		// leaves no orphan.
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		r.generate(ctx, c, fleet, &plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

func (r *autoUpgradeProfileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state autoUpgradeProfileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := shared.WithTimeout(ctx, state.Timeouts.Read, aupDefaultTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	got, _, ok := backend.ReadFleetChild(ctx, r.Clients, resp, state.FleetID, state.Name.ValueString(), (*fleetapi.Client).GetAutoUpgradeProfile,
		"auto-upgrade profile", map[string]any{"id": state.ID.ValueString()})
	if !ok {
		return
	}
	aupFromAPI(&state, got)
	if state.Preview.IsNull() {
		// Imported: the preview of the profile as it is now.
		state.Preview = aupLivePreview(ctx, r.Clients, state, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *autoUpgradeProfileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var state autoUpgradeProfileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Update, aupDefaultTimeout, &resp.Diagnostics, func(ctx context.Context, plan autoUpgradeProfileModel, c *fleetapi.Client, fleet fleetapi.FleetID) {
		if plan.Preview.IsUnknown() {
			plan.Preview = aupLivePreview(ctx, r.Clients, plan, &resp.Diagnostics)
			if resp.Diagnostics.HasError() {
				return
			}
		}
		name := plan.Name.ValueString()
		cur, err := c.GetAutoUpgradeProfile(ctx, fleet, name)
		if err != nil {
			resp.Diagnostics.AddError("Reading the auto-upgrade profile", err.Error())
			return
		}
		poller, err := c.BeginCreateOrUpdateAutoUpgradeProfile(ctx, fleet, name, aupToAPI(plan), &fleetapi.Precondition{IfMatch: cur.ETag})
		got, err := aupWait(ctx, poller, err)
		if err != nil {
			resp.Diagnostics.AddError("Updating the auto-upgrade profile", err.Error())
			return
		}
		if plan.Status.IsUnknown() {
			plan.Status = aupStatus(got)
		}
		if !plan.Preview.Equal(state.Preview) {
			autoUpgradeProfilePreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics)
		}
		r.generate(ctx, c, fleet, &plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

func (r *autoUpgradeProfileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.FleetOp(ctx, r.Clients, req.State, timeouts.Value.Delete, aupDefaultTimeout, &resp.Diagnostics, func(ctx context.Context, state autoUpgradeProfileModel, c *fleetapi.Client, fleet fleetapi.FleetID) {
		poller, err := c.BeginDeleteAutoUpgradeProfile(ctx, fleet, state.Name.ValueString(), nil)
		if _, err := aupWait(ctx, poller, err); err != nil && !fleetapi.IsNotFound(err) {
			resp.Diagnostics.AddError("Deleting the auto-upgrade profile", err.Error())
		}
	})
}

// generate asks the profile for its run when generate_update_run is set and the plan left the ID
// to apply.
func (r *autoUpgradeProfileResource) generate(ctx context.Context, c *fleetapi.Client, fleet fleetapi.FleetID, m *autoUpgradeProfileModel, d *diag.Diagnostics) {
	if !m.GenerateUpdateRun.ValueBool() {
		m.GeneratedUpdateRunID = types.StringNull()
		return
	}
	if !m.GeneratedUpdateRunID.IsUnknown() {
		return
	}
	m.GeneratedUpdateRunID = types.StringNull()
	poller, err := c.BeginGenerateUpdateRun(ctx, fleet, m.Name.ValueString())
	got, err := aupWait(ctx, poller, err)
	if err != nil {
		d.AddAttributeError(path.Root("generate_update_run"), "Generating an update run",
			fmt.Sprintf("The profile was saved, but generateUpdateRun failed: %v", err))
		return
	}
	tflog.Info(ctx, "generated an update run from the auto-upgrade profile", map[string]any{"profile": m.Name.ValueString(), "update_run": got.ID})
	m.GeneratedUpdateRunID = types.StringValue(got.ID)
}

// aupWait waits for a long-running operation, polling every second at most.
func aupWait[T any](ctx context.Context, p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: time.Second})
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// ---- model ----

// aupSettings is the profile as the Fleet API holds it (aupFromAPI): the attributes the resource
// and the data source share.
type aupSettings struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	FleetID                 types.String `tfsdk:"fleet_id"`
	Channel                 types.String `tfsdk:"channel"`
	TargetKubernetesVersion types.String `tfsdk:"target_kubernetes_version"`
	LongTermSupport         types.Bool   `tfsdk:"long_term_support"`
	UpdateStrategyID        types.String `tfsdk:"update_strategy_id"`
	NodeImageSelectionType  types.String `tfsdk:"node_image_selection_type"`
	Disabled                types.Bool   `tfsdk:"disabled"`
}

type autoUpgradeProfileModel struct {
	aupSettings
	GenerateUpdateRun    types.Bool     `tfsdk:"generate_update_run"`
	GeneratedUpdateRunID types.String   `tfsdk:"generated_update_run_id"`
	Facts                types.String   `tfsdk:"facts"`
	Preview              types.Object   `tfsdk:"preview"`
	Status               types.Object   `tfsdk:"status"`
	Timeouts             timeouts.Value `tfsdk:"timeouts"`
}

// FleetAndTimeouts is what backend.FleetOp reads of the model.
func (m autoUpgradeProfileModel) FleetAndTimeouts() (types.String, timeouts.Value) {
	return m.FleetID, m.Timeouts
}

var (
	aupMemberAttrTypes = map[string]attr.Type{
		"current_kubernetes_version": types.StringType, "target_kubernetes_version": types.StringType,
		"action": types.StringType, "reason": types.StringType, "target_node_image_versions": types.MapType{ElemType: types.StringType},
	}
	aupPreviewAttrTypes = map[string]attr.Type{
		"target_kubernetes_version":  types.StringType,
		"target_node_image_versions": types.ListType{ElemType: types.StringType},
		"member_count":               types.Int64Type,
		"actions":                    types.MapType{ElemType: types.Int64Type},
		"members":                    types.MapType{ElemType: types.ObjectType{AttrTypes: aupMemberAttrTypes}},
		"members_omitted":            types.Int64Type,
	}
	aupStatusAttrTypes = map[string]attr.Type{
		"last_triggered_at": types.StringType, "last_trigger_status": types.StringType, "last_trigger_error": types.StringType,
		"last_trigger_upgrade_versions": types.ListType{ElemType: types.StringType},
		"last_trigger_message":          types.StringType,
	}
)

// aupNullModel is a model with every attribute null (import fills the identity, Read the rest).
func aupNullModel() autoUpgradeProfileModel {
	return autoUpgradeProfileModel{
		aupSettings: aupSettings{
			ID: types.StringNull(), Name: types.StringNull(), FleetID: types.StringNull(), Channel: types.StringNull(),
			TargetKubernetesVersion: types.StringNull(), LongTermSupport: types.BoolNull(), UpdateStrategyID: types.StringNull(),
			NodeImageSelectionType: types.StringNull(), Disabled: types.BoolNull(),
		},
		GenerateUpdateRun:    types.BoolNull(),
		GeneratedUpdateRunID: types.StringNull(), Facts: types.StringNull(), Preview: types.ObjectNull(aupPreviewAttrTypes), Status: types.ObjectNull(aupStatusAttrTypes),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType,
		})},
	}
}

func aupToAPI(m autoUpgradeProfileModel) fleetapi.AutoUpgradeProfile {
	p := &fleetapi.AutoUpgradeProfileProperties{
		Channel:                 fleetapi.UpgradeChannel(m.Channel.ValueString()),
		TargetKubernetesVersion: m.TargetKubernetesVersion.ValueString(),
		UpdateStrategyID:        m.UpdateStrategyID.ValueString(),
	}
	disabled := m.Disabled.ValueBool()
	p.Disabled = &disabled
	if m.LongTermSupport.ValueBool() || p.Channel == fleetapi.UpgradeChannelTargetKubernetesVersion {
		lts := m.LongTermSupport.ValueBool()
		p.LongTermSupport = &lts
	}
	if v := m.NodeImageSelectionType.ValueString(); v != "" {
		p.NodeImageSelection = &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageSelectionType(v)}
	}
	return fleetapi.AutoUpgradeProfile{Properties: p}
}

// aupFromAPI sets the configurable attributes and the status from the API's profile (drift).
func aupFromAPI(m *autoUpgradeProfileModel, p *fleetapi.AutoUpgradeProfile) {
	m.ID = types.StringValue(p.ID)
	m.Name = types.StringValue(p.Name)
	props := p.Properties
	if props == nil {
		props = &fleetapi.AutoUpgradeProfileProperties{}
	}
	opt := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	m.Channel = types.StringValue(string(props.Channel))
	m.TargetKubernetesVersion = opt(props.TargetKubernetesVersion)
	m.LongTermSupport = types.BoolValue(shared.Deref(props.LongTermSupport))
	m.Disabled = types.BoolValue(shared.Deref(props.Disabled))
	if props.UpdateStrategyID == "" {
		m.UpdateStrategyID = types.StringNull()
	} else if !strings.EqualFold(m.UpdateStrategyID.ValueString(), props.UpdateStrategyID) {
		m.UpdateStrategyID = types.StringValue(props.UpdateStrategyID)
	}
	m.NodeImageSelectionType = types.StringNull()
	if props.NodeImageSelection != nil {
		m.NodeImageSelectionType = opt(string(props.NodeImageSelection.Type))
	}
	m.Status = aupStatus(p)
}

// aupStatus is the status attribute of a profile read from the API.
func aupStatus(p *fleetapi.AutoUpgradeProfile) types.Object {
	var st fleetapi.AutoUpgradeProfileStatus
	if p != nil && p.Properties != nil && p.Properties.AutoUpgradeProfileStatus != nil {
		st = *p.Properties.AutoUpgradeProfileStatus
	}
	errText := types.StringNull()
	if e := st.LastTriggerError; e != nil {
		errText = types.StringValue(strings.TrimPrefix(e.Code+": "+e.Message, ": "))
	}
	status := types.StringNull()
	if st.LastTriggerStatus != "" {
		status = types.StringValue(string(st.LastTriggerStatus))
	}
	versions := make([]attr.Value, 0, len(st.LastTriggerUpgradeVersions))
	for _, v := range st.LastTriggerUpgradeVersions {
		versions = append(versions, types.StringValue(v))
	}
	return types.ObjectValueMust(aupStatusAttrTypes, map[string]attr.Value{
		"last_triggered_at": shared.TimeString(shared.Deref(st.LastTriggeredAt)), "last_trigger_status": status, "last_trigger_error": errText,
		"last_trigger_upgrade_versions": types.ListValueMust(types.StringType, versions),
		"last_trigger_message":          shared.StringOrNull(st.LastTriggerMessage),
	})
}
