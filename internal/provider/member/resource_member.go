package member

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// memberResource is a fleet member (fleets/members, api-version 2026-06-01):
// a managed cluster joined to the fleet, with its update group and labels.
type memberResource struct{ shared.ResourceBase }

// memberTimeouts are azurerm_kubernetes_fleet_member's defaults (kubernetes_fleet_member_resource.go),
// so a configuration moved from azurerm waits as long as it did.
var memberTimeouts = shared.OpTimeouts{Create: 30 * time.Minute, Read: 5 * time.Minute, Update: 30 * time.Minute, Delete: 30 * time.Minute}

// memberNameRe is fleets.json's fleetMemberName pattern.
var memberNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (r *memberResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := shared.RequiresReplace()
	resp.Schema = rschema.Schema{
		Description: "A member of an Azure Kubernetes Fleet Manager fleet (`fleets/members`): creating it joins an AKS managed cluster " +
			"to the fleet, destroying it makes the cluster leave (the cluster stays). `group` is the member's update group, which " +
			"update strategies and runs select members by; `labels` are the member's labels, which Fleet Manager propagates to " +
			"the hub's MemberCluster, where placements select on them. As azurerm's `azurerm_kubernetes_fleet_member` sets groups. " +
			"Previews read members when they are computed: a strategy or run planned after the member's apply shows its group.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The member's ARM resource ID (`<fleet ID>/members/<name>`); `terraform import` takes it."),
			"name": rschema.StringAttribute{
				Required: true, Description: "The member's name (1 to 50 lower-case letters, digits and '-'): the name of its MemberCluster on the hub. Changing it replaces the member.",
				PlanModifiers: replace,
				// fleets.json 2026-06-01 path parameter fleetMemberName: minLength 1, maxLength 50, pattern.
				Validators: []validator.String{stringvalidator.LengthBetween(1, 50),
					stringvalidator.RegexMatches(memberNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit")},
			},
			"fleet_id": func() rschema.StringAttribute {
				a := shared.FleetIDAttribute("member")
				a.PlanModifiers = shared.KeptOrReplaced()
				return a
			}(),
			"cluster_resource_id": rschema.StringAttribute{
				Required: true, Description: "The ARM ID of the AKS managed cluster that joins. Set at creation only: changing it replaces the member.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = !strings.EqualFold(req.StateValue.ValueString(), req.PlanValue.ValueString())
				}, "Changing the cluster replaces the member.", "Changing the cluster replaces the member.")},
				Validators: []validator.String{clusterIDValidator{}},
			},
			"group": rschema.StringAttribute{
				Optional: true, Description: "The member's update group (1 to 50 lower-case letters, digits and '-'). Unset: no group. " +
					"A change shows in the same plan's previews of update strategies and runs that depend on this member (a reference or `depends_on`); " +
					"other previews read the groups as they are and show it from the next plan.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 50),
					stringvalidator.RegexMatches(memberNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit")},
			},
			"labels": rschema.MapAttribute{
				Optional: true, Computed: true, ElementType: types.StringType,
				Description: "The member's labels; Fleet Manager propagates them to the hub's MemberCluster. Set, they are the member's " +
					"labels exactly (`{}` removes all). Unset, Terraform leaves the member's labels as they are — labels set outside " +
					"Terraform (`az fleet member update --labels`, or before a move from azurerm, which never manages them) stay and show " +
					"here — and writes back the labels it last read when the member changes. Removing `labels` from the configuration " +
					"therefore keeps the labels on the member (as removing any optional, computed attribute does); set `labels = {}` to remove them.",
				PlanModifiers: []planmodifier.Map{keptWhenUnset{}},
			},
		},
		Blocks: shared.TimeoutsBlocks(ctx, memberTimeouts),
	}
}

// keptWhenUnset plans an unconfigured attribute at its prior state (null included), so that a
// member's labels set outside Terraform are neither removed nor shown as changing; a new member
// keeps the framework's unknown.
type keptWhenUnset struct{}

func (keptWhenUnset) Description(context.Context) string {
	return "Unset, the value in state is kept."
}
func (m keptWhenUnset) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }
func (keptWhenUnset) PlanModifyMap(_ context.Context, req planmodifier.MapRequest, resp *planmodifier.MapResponse) {
	if req.ConfigValue.IsNull() && !req.State.Raw.IsNull() {
		resp.PlanValue = req.StateValue
	}
}

// clusterIDValidator checks a managed cluster's ARM ID at validate.
type clusterIDValidator struct{}

func (clusterIDValidator) Description(context.Context) string {
	return "must be a managed cluster's ARM ID"
}
func (v clusterIDValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (clusterIDValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := aks.ParseClusterID(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid cluster resource ID",
			"Expected /subscriptions/<subscription>/resourceGroups/<group>/providers/Microsoft.ContainerService/managedClusters/<name>: "+err.Error())
	}
}

// ModifyPlan records a change of the member's update group, so that update
// strategy and run previews planned after it (those that depend on it) show
// the member in its new group; it warns when the member joins, since
// previews of this plan cannot include a member that is not in the fleet yet.
func (r *memberResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan fleetMemberModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Group.IsUnknown() || plan.Name.IsUnknown() {
		return
	}
	if req.State.Raw.IsNull() {
		if !plan.Group.IsNull() {
			resp.Diagnostics.AddAttributeWarning(path.Root("group"), "Update previews include the member from the next plan",
				fmt.Sprintf("Member %q joins group %q at apply. Previews of update strategies and runs in this plan read the fleet's members as they are now; "+
					"the next plan shows it.", plan.Name.ValueString(), plan.Group.ValueString()))
		}
		return
	}
	var state fleetMemberModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.Group.Equal(plan.Group) {
		return
	}
	if fleet, err := r.Clients.ResolveFleet(state.FleetID.ValueString()); err == nil {
		r.Clients.PlanMemberGroup(fleet, plan.Name.ValueString(), plan.Group.ValueString())
	}
}

func (r *memberResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportFleetChild(ctx, req, resp, "members", "a fleet member's", nil)
}

type fleetMemberModel struct {
	ID                types.String   `tfsdk:"id"`
	Name              types.String   `tfsdk:"name"`
	FleetID           types.String   `tfsdk:"fleet_id"`
	ClusterResourceID types.String   `tfsdk:"cluster_resource_id"`
	Group             types.String   `tfsdk:"group"`
	Labels            types.Map      `tfsdk:"labels"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

// FleetAndTimeouts is what backend.FleetOp reads of the model.
func (m fleetMemberModel) FleetAndTimeouts() (types.String, timeouts.Value) {
	return m.FleetID, m.Timeouts
}

func (r *memberResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	// If-None-Match: a member of that name made elsewhere is not overwritten.
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Create, memberTimeouts.Create, &resp.Diagnostics, func(ctx context.Context, plan fleetMemberModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		r.put(ctx, fc, fleet, &plan, &fleetapi.Precondition{IfNoneMatch: "*"}, &resp.State, &resp.Diagnostics)
	})
}

func (r *memberResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Update, memberTimeouts.Update, &resp.Diagnostics, func(ctx context.Context, plan fleetMemberModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		r.put(ctx, fc, fleet, &plan, nil, &resp.State, &resp.Diagnostics)
	})
}

// put writes the member and waits, under ctx's deadline (the create or update timeout), until
// the Fleet API's operation ends: the join, for a new member.
func (r *memberResource) put(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *fleetMemberModel, pre *fleetapi.Precondition, state *tfsdk.State, diags *diag.Diagnostics) {
	// Known labels are written as planned (the configured ones, or unset, the ones in state);
	// unknown only for a new member without labels.
	labels := map[string]string{}
	if !plan.Labels.IsNull() && !plan.Labels.IsUnknown() {
		diags.Append(plan.Labels.ElementsAs(ctx, &labels, false)...)
	}
	name := plan.Name.ValueString()
	body := fleetapi.FleetMember{Properties: &fleetapi.FleetMemberProperties{
		ClusterResourceID: plan.ClusterResourceID.ValueString(), Group: plan.Group.ValueString(), Labels: labels,
	}}
	poller, err := fc.BeginCreateOrUpdateMember(ctx, fleet, name, body, pre)
	got, err := shared.PollDone(ctx, poller, err)
	if err != nil {
		if fleetapi.IsPreconditionFailed(err) {
			diags.AddAttributeError(path.Root("name"), "Fleet member already exists",
				fmt.Sprintf("The fleet already has a member named %q: import it (ID %s), or choose another name.", name, fleet.ChildID("members", name)))
			return
		}
		diags.AddError("Joining the fleet member", fmt.Sprintf("Member %q: %v", name, err))
		return
	}
	tflog.Info(ctx, "fleet member joined or changed", map[string]any{"member": name, "fleet": fleet.String()})
	plan.ID = types.StringValue(fleet.ChildID("members", name))
	plan.FleetID = types.StringValue(fleet.String())
	memberFromAPI(ctx, plan, got, diags)
	diags.Append(state.Set(ctx, plan)...)
}

// memberFromAPI reads what the API holds into m; a cluster ID that differs
// only in case is kept as configured (ARM IDs are case-insensitive).
func memberFromAPI(ctx context.Context, m *fleetMemberModel, got *fleetapi.FleetMember, diags *diag.Diagnostics) {
	p := got.Properties
	if p == nil {
		p = &fleetapi.FleetMemberProperties{}
	}
	if !strings.EqualFold(m.ClusterResourceID.ValueString(), p.ClusterResourceID) {
		m.ClusterResourceID = types.StringValue(p.ClusterResourceID)
	}
	m.Group = shared.StringOrNull(p.Group)
	// No labels: null, unless the model holds `{}` (configured so, or so in state).
	if len(p.Labels) == 0 && (m.Labels.IsNull() || m.Labels.IsUnknown() || len(m.Labels.Elements()) > 0) {
		m.Labels = types.MapNull(types.StringType)
	} else {
		labels := p.Labels
		if labels == nil {
			labels = map[string]string{} // the API may leave an empty map out; `{}` stays `{}`
		}
		v, d := types.MapValueFrom(ctx, types.StringType, labels)
		diags.Append(d...)
		m.Labels = v
	}
}

func (r *memberResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state fleetMemberModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := shared.WithTimeout(ctx, state.Timeouts.Read, memberTimeouts.Read, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	name := state.Name.ValueString()
	got, fleet, ok := backend.ReadFleetChild(ctx, r.Clients, resp, state.FleetID, name, (*fleetapi.Client).GetMember, "fleet member", map[string]any{"member": name})
	if !ok {
		return
	}
	state.ID = types.StringValue(fleet.ChildID("members", name))
	state.FleetID = types.StringValue(fleet.String())
	memberFromAPI(ctx, &state, got, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *memberResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.FleetOp(ctx, r.Clients, req.State, timeouts.Value.Delete, memberTimeouts.Delete, &resp.Diagnostics, func(ctx context.Context, state fleetMemberModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		name := state.Name.ValueString()
		poller, err := fc.BeginDeleteMember(ctx, fleet, name, nil)
		if _, err := shared.PollDone(ctx, poller, err); err != nil && !fleetapi.IsNotFound(err) {
			resp.Diagnostics.AddError("Removing the fleet member", fmt.Sprintf("Member %q: %v", name, err))
			return
		}
		tflog.Info(ctx, "fleet member left", map[string]any{"member": name, "fleet": fleet.String()})
	})
}
