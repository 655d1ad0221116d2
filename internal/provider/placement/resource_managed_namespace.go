package placement

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*managedNamespaceResource)(nil)

// managedNamespaceResource is fleet_managed_namespace: fleets/managedNamespaces (Fleet API
// 2026-06-01), a Fleet API resource whose effect is on the hub: the namespace and the generated
// ClusterResourcePlacement named as it (managednamespace.Placement), which this domain's
// scheduler preview and placement status read.
type managedNamespaceResource struct{ shared.ResourceBase }

const (
	managedNamespaceCreateTimeout = 20 * time.Minute
	managedNamespaceUpdateTimeout = 20 * time.Minute
	managedNamespaceDeleteTimeout = 10 * time.Minute
)

// managedNamespaceComputedPaths are the attributes unknown by nature at plan.
var managedNamespaceComputedPaths = []path.Path{path.Root("id"), path.Root("preview"), path.Root("objects"), path.Root("placed_members"),
	path.Root("provisioning_state"), path.Root("portal_fqdn"), path.Root("status_message")}

func (r *managedNamespaceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = managedNamespaceSchema(ctx)
}

// ValidateConfig checks what needs no backend, with attribute paths (managed_namespace_validate.go).
func (r *managedNamespaceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, unknown, ok := decodeConfig[managedNamespaceModel](ctx, req.Config, &resp.Diagnostics, managedNamespaceComputedPaths...)
	if ok {
		validateManagedNamespace(&resp.Diagnostics, &m, unknown)
	}
}

// ModifyPlan refuses what KubeFleet would reject on update, plans the objects as they will be
// written, and computes the preview when the managed namespace is created or its configuration
// changes; otherwise the prior preview stays, so an unchanged configuration plans empty.
func (r *managedNamespaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan managedNamespaceModel
	unknown, diags := shared.DecodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, managedNamespaceComputedPaths...)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	if creating && r.Clients != nil {
		// fleet_id omitted: the provider's fleet, known at plan (as every Fleet API resource).
		var cfgFleet types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfgFleet)...)
		if cfgFleet.IsNull() {
			f, ok := backend.ResolveFleet(r.Clients, types.StringNull(), &resp.Diagnostics)
			if !ok {
				return
			}
			plan.FleetID = types.StringValue(f.String())
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), plan.FleetID)...)
			unknown = shared.RemovePath(unknown, path.Root("fleet_id"))
		}
	}
	var state managedNamespaceModel
	if !creating {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if replacesNamespace(&state, &plan, unknown) {
			creating = true // destroyed first, its generated placement with it
		} else {
			checkNamespacePlacementImmutable(&resp.Diagnostics, &state, &plan, unknown)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("objects"), plannedObjects(&plan, unknown))...)
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, managedNamespaceConfigAttributes...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the managed namespace", err.Error())
		return
	}
	if !changed || r.Clients == nil || resp.Diagnostics.HasError() {
		return
	}
	in, why := r.previewInput(ctx, req, &plan, creating, unknown, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if why != "" {
		shared.PlanPreviewUnknown(ctx, &resp.Plan, &resp.Diagnostics, preview.Path, managedNamespacePreviewAttrTypes, why)
		return
	}
	managedNamespacePreviewSpec.Plan(ctx, r.Clients, req, resp, in, unknown)
}

// replacesNamespace says the plan replaces the namespace: an attribute that requires replacement
// (fleet_id, name, location) changes or is unknown.
func replacesNamespace(state, plan *managedNamespaceModel, unknown []path.Path) bool {
	for _, c := range []struct {
		attr    string
		was, is types.String
	}{{"fleet_id", state.FleetID, plan.FleetID}, {"name", state.Name, plan.Name}, {"location", state.Location, plan.Location}} {
		if shared.RelatedToAny(path.Root(c.attr), unknown) || !c.was.Equal(c.is) {
			return true
		}
	}
	return false
}

// PreviewInputs are what the preview reads of the fleet.
func (r *managedNamespaceResource) PreviewInputs() []facts.Input {
	return managedNamespacePreviewSpec.Inputs()
}

// plannedObjects is `objects` for the plan: unknown while what they are built from is.
func plannedObjects(m *managedNamespaceModel, unknown []path.Path) types.List {
	for _, a := range []string{"name", "labels", "annotations", "resource_quota", "network_policy"} {
		if shared.RelatedToAny(path.Root(a), unknown) {
			return types.ListUnknown(namespaceObjectType)
		}
	}
	l, err := namespaceObjects(m.Name.ValueString(), m.namespaceProperties())
	if err != nil {
		return types.ListUnknown(namespaceObjectType) // refused at validate (validateManagedNamespace)
	}
	return l
}

// previewInput reads what the preview starts from besides the fleet: for a namespace that exists
// (its generated placement on the hub), the placement's scheduling state, as the plan's refresh
// saved it (with `facts`) or as the hub has it now. why says why the preview stays unknown until
// apply (the hub's configuration is unknown, or the hub agent is still scheduling the placement).
func (r *managedNamespaceResource) previewInput(ctx context.Context, req resource.ModifyPlanRequest, plan *managedNamespaceModel, creating bool,
	unknown []path.Path, diags *diag.Diagnostics) (*namespacePreviewInput, string) {
	in := &namespacePreviewInput{managedNamespaceModel: plan}
	if shared.RelatedToAny(path.Root("name"), unknown) {
		return in, "" // the protocol says the input is unknown
	}
	hc, err := r.Clients.HubAPI(ctx)
	if err != nil {
		if session.IsConfigUnknown(err) {
			return nil, err.Error()
		}
		backend.AddBackendError(diags, "Reaching the fleet hub", err)
		return nil, ""
	}
	name := plan.Name.ValueString()
	crp, err := hc.PlacementAt(ctx, hub.ClusterPlacement(name))
	switch {
	case hub.IsNotFound(err):
		return in, ""
	case err != nil:
		backend.AddBackendError(diags, "Reading the managed namespace's placement", err)
		return nil, ""
	case crp.Labels[managednamespace.ManagedByLabel] != "true":
		diags.AddAttributeWarning(path.Root("name"), "A placement of that name exists",
			fmt.Sprintf("The hub has a ClusterResourcePlacement named %q that no managed namespace generated. The managed namespace's "+
				"placement takes the namespace's name; the preview assumes it starts anew.", name))
		return in, ""
	case creating:
		// A namespace this configuration's killed apply created, or another's: Create adopts or refuses it;
		// the scheduler starts from its placement either way.
	}
	var f types.String
	diags.Append(req.Config.GetAttribute(ctx, preview.FactsPath, &f)...)
	if !f.IsNull() && !f.IsUnknown() && f.ValueString() != "" && !creating {
		in.sched = loadSchedulingState(ctx, req.Private) // as the plan's refresh read it
	}
	if in.sched == nil {
		if in.sched, err = readSchedulingState(ctx, hc, hub.ClusterPlacement(name)); err != nil {
			backend.AddBackendError(diags, "Computing the managed namespace's preview", err)
			return nil, ""
		}
		in.sched.Unsettled = unsettledReason(crp, name)
	}
	return in, in.sched.Unsettled
}

func (r *managedNamespaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportFleetChild(ctx, req, resp, "managedNamespaces", "a managed namespace's", map[string]any{
		"preview": types.ObjectNull(managedNamespacePreviewAttrTypes),
	})
}

func (r *managedNamespaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Create, managedNamespaceCreateTimeout, &resp.Diagnostics,
		func(ctx context.Context, plan managedNamespaceModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
			// If-None-Match: a namespace of that name made elsewhere is not overwritten.
			r.write(ctx, fc, fleet, &plan, &fleetapi.Precondition{IfNoneMatch: "*"}, req.Config, resp.Private, &resp.State, &resp.Diagnostics)
		})
}

func (r *managedNamespaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Update, managedNamespaceUpdateTimeout, &resp.Diagnostics,
		func(ctx context.Context, plan managedNamespaceModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
			// The stable API's PATCH carries tags only: every change is a PUT of the whole body, guarded by the ETag.
			pre, d := backend.ETagPrecondition(ctx, req.Private)
			resp.Diagnostics.Append(d...)
			r.write(ctx, fc, fleet, &plan, pre, req.Config, resp.Private, &resp.State, &resp.Diagnostics)
		})
}

// write PUTs the planned namespace, saves it, and waits until the generated placement has placed
// it as written; with If-None-Match a namespace that exists already is adopted when it is the
// planned one (adoptNamespace). State is saved before the wait, so a failed wait leaves nothing
// untracked.
func (r *managedNamespaceResource) write(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *managedNamespaceModel,
	pre *fleetapi.Precondition, config tfsdk.Config, private shared.PrivateSetter, state *tfsdk.State, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	body := plan.toAPI()
	poller, err := fc.BeginCreateOrUpdateManagedNamespace(ctx, fleet, name, body, pre)
	got, err := shared.PollDone(ctx, poller, err)
	if err != nil && fleetapi.IsPreconditionFailed(err) && pre != nil && pre.IfNoneMatch != "" {
		if got, err = r.adoptNamespace(ctx, fc, fleet, plan, diags); got == nil && err == nil {
			return
		}
	}
	if err != nil {
		if fleetapi.IsPreconditionFailed(err) {
			diags.AddError("Managed namespace changed by someone else",
				fmt.Sprintf("The managed namespace %q was changed by someone else since Terraform read it (its ETag no longer matches), so this "+
					"change was not written and the state keeps what Terraform last read. Run terraform plan to see the other change, then apply again.\n\n%v", name, err))
		} else {
			diags.AddError("Writing the managed namespace", fmt.Sprintf("Managed namespace %q: %v", name, err))
		}
		return
	}
	id := fleet.ChildID("managedNamespaces", name)
	tflog.Info(ctx, "managed namespace written", map[string]any{"namespace": name, "fleet": fleet.String()})
	plan.ID = types.StringValue(id)
	plan.FleetID = types.StringValue(fleet.String())
	setComputedFromAPI(plan, got)
	if plan.Objects.IsUnknown() {
		plan.Objects = plannedObjects(plan, nil)
	}
	diags.Append(backend.SaveETag(ctx, private, got.ETag)...)
	hc, ok := backend.HubAPI(ctx, r.Clients, diags)
	if !ok {
		plan.PlacedMembers = types.ListNull(types.StringType)
		if plan.Preview.IsUnknown() {
			plan.Preview = types.ObjectNull(managedNamespacePreviewAttrTypes)
		}
		diags.Append(state.Set(ctx, plan)...)
		return
	}
	if plan.Preview.IsUnknown() {
		// Unknown at plan (an input was): computed now, as the plan would have.
		plan.Preview = r.previewNow(ctx, hc, plan, diags)
	}
	if plan.PlacedMembers.IsUnknown() {
		plan.PlacedMembers = types.ListNull(types.StringType)
	}
	diags.Append(state.Set(ctx, plan)...)
	r.warnMoved(ctx, hc, config, plan, diags)
	want, err := managednamespace.Placement(id, name, body.Properties)
	var objs managednamespace.Objects
	if err == nil {
		objs, err = managednamespace.Build(name, body.Properties.ManagedNamespaceProperties)
	}
	if err != nil {
		diags.AddError("Writing the managed namespace", err.Error())
		return
	}
	crp, err := waitForNamespacePlacement(ctx, hc, name, want, objs, placementPollInterval)
	if crp != nil {
		plan.PlacedMembers = placedMembersValue(crp)
		diags.Append(state.Set(context.WithoutCancel(ctx), plan)...)
	}
	if err != nil {
		diags.AddError("Managed namespace not placed", fmt.Sprintf("Managed namespace %q is saved, but waiting for its placement: %v", name, err))
	}
}

// setComputedFromAPI sets what the Fleet API computes from a write's result.
func setComputedFromAPI(m *managedNamespaceModel, got *fleetapi.FleetManagedNamespace) {
	read := *m
	read.setFromAPI(got)
	m.Provisioning, m.PortalFQDN, m.StatusMessage = read.Provisioning, read.PortalFQDN, read.StatusMessage
}

// adoptNamespace takes over the managed namespace a Create found under its name when it is the
// planned one — made by a killed apply, or by another running at the same time — and otherwise
// says how it differs and returns nil, nil.
func (r *managedNamespaceResource) adoptNamespace(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *managedNamespaceModel, diags *diag.Diagnostics) (*fleetapi.FleetManagedNamespace, error) {
	name := plan.Name.ValueString()
	existing, err := fc.GetManagedNamespace(ctx, fleet, name)
	if err != nil {
		return nil, fmt.Errorf("it exists already, and reading it failed: %w", err)
	}
	if d := namespaceDiff(plan, existing); d != "" {
		diags.AddAttributeError(path.Root("name"), "Managed namespace already exists",
			fmt.Sprintf("The fleet already has a managed namespace named %q with a different definition: %s.\n\nIt was made outside this "+
				"configuration's state (elsewhere, or by another apply racing this one); nothing was changed. Import it (terraform import "+
				"with its ID %s) to manage it, or choose another name.", name, d, fleet.ChildID("managedNamespaces", name)))
		return nil, nil
	}
	tflog.Info(ctx, "managed namespace existed as planned; adopted", map[string]any{"namespace": name})
	diags.AddWarning("Existing managed namespace adopted", fmt.Sprintf("The fleet already had a managed namespace named %q as planned, "+
		"made by an apply that did not save it to state or by one running at the same time. Terraform now manages it.", name))
	return existing, nil
}

// namespaceDiff names the first configured attribute in which the fleet's namespace differs from
// the plan ("" when none does), comparing the plan with the namespace read as Read would.
func namespaceDiff(plan *managedNamespaceModel, existing *fleetapi.FleetManagedNamespace) string {
	read := *plan
	read.setFromAPI(existing)
	for _, c := range []struct {
		attr        string
		planned, in any
	}{
		{"location", plan.Location.ValueString(), read.Location.ValueString()},
		{"tags", nonNil(plan.Tags), nonNil(read.Tags)},
		{"labels", nonNil(plan.Labels), nonNil(read.Labels)},
		{"annotations", nonNil(plan.Annotations), nonNil(read.Annotations)},
		{"adoption_policy", plan.AdoptionPolicy.ValueString(), read.AdoptionPolicy.ValueString()},
		{"delete_policy", plan.DeletePolicy.ValueString(), read.DeletePolicy.ValueString()},
		{"resource_quota", plan.ResourceQuota, read.ResourceQuota},
		{"network_policy", plan.NetworkPolicy, read.NetworkPolicy},
		{"placement", plan.Placement.policy().toAPI(), read.Placement.policy().toAPI()},
	} {
		if !reflect.DeepEqual(c.planned, c.in) {
			return fmt.Sprintf("%s differs (planned %v, in the fleet %v)", c.attr, shownValue(c.planned), shownValue(c.in))
		}
	}
	return ""
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// shownValue words a compared value: a pointer by what it points to, nil as unset.
func shownValue(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "unset"
	}
	if rv.Kind() == reflect.Pointer {
		return fmt.Sprintf("%+v", rv.Elem().Interface())
	}
	return v
}

// previewNow computes at apply, from the live fleet, a preview the plan left unknown.
func (r *managedNamespaceResource) previewNow(ctx context.Context, hc *hub.Client, m *managedNamespaceModel, diags *diag.Diagnostics) types.Object {
	in := &namespacePreviewInput{managedNamespaceModel: m}
	if crp, err := generatedPlacement(ctx, hc, m.Name.ValueString()); err == nil && crp != nil {
		in.sched, in.schedErr = readSchedulingState(ctx, hc, crp.Key())
	}
	var d diag.Diagnostics
	obj, err := computeManagedNamespacePreview(ctx, r.Clients.View(), in, &d)
	if err != nil || d.HasError() || obj == nil {
		why := fmt.Sprint(err)
		if err == nil {
			why = fmt.Sprint(d.Errors())
		}
		diags.AddWarning("Managed namespace preview", "The preview could not be computed: "+why)
		return types.ObjectNull(managedNamespacePreviewAttrTypes)
	}
	diags.Append(d...)
	o, _ := obj.(types.Object)
	return o
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now, the scheduler starting from the generated placement as the hub has it now.
func (r *managedNamespaceResource) warnMoved(ctx context.Context, hc *hub.Client, config tfsdk.Config, m *managedNamespaceModel, d *diag.Diagnostics) {
	var ignored diag.Diagnostics
	if _, planned, _ := preview.View(ctx, r.Clients, config, &ignored); planned == nil {
		return // no facts: nothing to compare
	}
	in := &namespacePreviewInput{managedNamespaceModel: m}
	if crp, err := generatedPlacement(ctx, hc, m.Name.ValueString()); err != nil {
		in.schedErr = err
	} else if crp != nil {
		in.sched, in.schedErr = readSchedulingState(ctx, hc, crp.Key())
	}
	managedNamespacePreviewSpec.WarnMoved(ctx, r.Clients, config, in, m.Preview, d)
}

func (r *managedNamespaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state managedNamespaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	got, fleet, ok := backend.ReadFleetChild(ctx, r.Clients, resp, state.FleetID, name, (*fleetapi.Client).GetManagedNamespace,
		"managed namespace", map[string]any{"namespace": name})
	if !ok {
		return
	}
	state.ID = types.StringValue(fleet.ChildID("managedNamespaces", name))
	state.FleetID = types.StringValue(fleet.String())
	state.setFromAPI(got)
	objects, err := namespaceObjects(name, state.namespaceProperties())
	if err != nil {
		tflog.Warn(ctx, "managed namespace objects not rendered", map[string]any{"namespace": name, "error": err.Error()})
	}
	state.Objects = objects
	r.readPlacement(ctx, &state, resp)
	if state.Timeouts.IsNull() {
		state.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	resp.Diagnostics.Append(backend.SaveETag(ctx, resp.Private, got.ETag)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// readPlacement refreshes placed_members from the generated placement and keeps its scheduling
// state in private state (with `facts`, the apply's re-plan previews an update from what the
// plan's refresh saw). A hub that cannot be read keeps the prior placed_members, with a warning:
// the managed namespace itself was read.
func (r *managedNamespaceResource) readPlacement(ctx context.Context, state *managedNamespaceModel, resp *resource.ReadResponse) {
	name := state.Name.ValueString()
	keep := func(err error) {
		resp.Diagnostics.AddWarning("Placed members not refreshed",
			fmt.Sprintf("Reading the generated placement of managed namespace %q on the hub failed, so placed_members keeps its last value: %v", name, err))
	}
	hc, err := r.Clients.HubAPI(ctx)
	if err != nil {
		keep(err)
		return
	}
	crp, err := generatedPlacement(ctx, hc, name)
	if err != nil {
		keep(err)
		return
	}
	state.PlacedMembers = placedMembersValue(crp)
	if crp == nil {
		return
	}
	if sched, err := readSchedulingState(ctx, hc, crp.Key()); err == nil {
		sched.Unsettled = unsettledReason(crp, name)
		resp.Diagnostics.Append(saveSchedulingState(ctx, resp.Private, sched)...)
	} else {
		tflog.Debug(ctx, "managed namespace scheduling state not saved", map[string]any{"namespace": name, "error": err.Error()})
	}
}

func (r *managedNamespaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.FleetOp(ctx, r.Clients, req.State, timeouts.Value.Delete, managedNamespaceDeleteTimeout, &resp.Diagnostics,
		func(ctx context.Context, state managedNamespaceModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
			name := state.Name.ValueString()
			pre, d := backend.ETagPrecondition(ctx, req.Private)
			resp.Diagnostics.Append(d...)
			poller, err := fc.BeginDeleteManagedNamespace(ctx, fleet, name, pre)
			if _, err := shared.PollDone(ctx, poller, err); err != nil && !fleetapi.IsNotFound(err) {
				if fleetapi.IsPreconditionFailed(err) {
					resp.Diagnostics.AddError("Managed namespace changed by someone else",
						fmt.Sprintf("The managed namespace %q was changed by someone else since Terraform read it (its ETag no longer matches), so it "+
							"was not deleted. Run terraform plan to see the change, then destroy again.\n\n%v", name, err))
					return
				}
				resp.Diagnostics.AddError("Deleting the managed namespace", fmt.Sprintf("Managed namespace %q: %v", name, err))
				return
			}
			tflog.Info(ctx, "managed namespace deleted", map[string]any{"namespace": name, "delete_policy": state.DeletePolicy.ValueString()})
		})
}
