package staged

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*stagedRunResource)(nil)

// stagedRunResource is fleet_staged_update_run: KubeFleet's ClusterStagedUpdateRun,
// one release of a placement's resource snapshot, stage by stage.
type stagedRunResource struct{ shared.ResourceBase }

const (
	stagedRunCreateTimeout = 2 * time.Hour
	stagedRunDeleteTimeout = 10 * time.Minute
	// stagedRunPoll is how often a waiting apply reads the run (a hub read is cheap).
	stagedRunPoll = 2 * time.Second
	// stagedRunMaxNameLength is the CRD's rule size(self.metadata.name) < 128.
	stagedRunMaxNameLength = 127
)

// stagedRunConfigAttributes make up the run's spec: a change replaces the run.
var stagedRunConfigAttributes = []string{"name", "placement_name", "resource_snapshot_index", "staged_update_strategy_name"}

var (
	stagedClusterStepAttrTypes = map[string]attr.Type{
		"state": types.StringType, "started_at": types.StringType, "finished_at": types.StringType, "message": types.StringType,
	}
	stagedStageStatusAttrTypes = map[string]attr.Type{
		"name": types.StringType, "state": types.StringType, "started_at": types.StringType, "finished_at": types.StringType,
		"message": types.StringType, "cluster_count": types.Int64Type, "succeeded_count": types.Int64Type,
		"clusters":         types.MapType{ElemType: types.ObjectType{AttrTypes: stagedClusterStepAttrTypes}},
		"clusters_omitted": types.Int64Type,
	}
	stagedConditionAttrTypes = map[string]attr.Type{
		"type": types.StringType, "status": types.StringType, "reason": types.StringType, "message": types.StringType, "last_transition_time": types.StringType,
	}
	stagedRunStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"state":             types.StringType,
		"message":           types.StringType,
		"conditions":        types.ListType{ElemType: types.ObjectType{AttrTypes: stagedConditionAttrTypes}},
		"stages":            types.ListType{ElemType: types.ObjectType{AttrTypes: stagedStageStatusAttrTypes}},
		"approvals_waiting": types.MapType{ElemType: types.StringType},
	}}
	stagedRunPreviewType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"resource_snapshot_index": types.StringType,
		"stages":                  types.ListType{ElemType: stagedStagePreviewType},
		"deletion_count":          types.Int64Type,
		"deletion":                types.ListType{ElemType: types.StringType},
		"deletion_omitted":        types.Int64Type,
		"failure":                 types.StringType,
	}}
)

func (r *stagedRunResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	str := func(desc string) rschema.StringAttribute {
		return rschema.StringAttribute{Computed: true, Description: desc}
	}
	resp.Schema = rschema.Schema{
		Description: "A KubeFleet staged update run (`ClusterStagedUpdateRun`) on the fleet hub: one release of a placement's " +
			"resource snapshot to the clusters it schedules, stage by stage as a `fleet_staged_update_strategy` says, one cluster " +
			"at a time, with the strategy's waits and approvals between stages; afterwards the placement's resources are removed " +
			"from clusters it no longer schedules. The placement needs `strategy.type = \"External\"`. The plan's `preview` shows " +
			"the stages, their clusters in update order and what each waits for — or why KubeFleet would refuse to start the run. " +
			"The run's spec is immutable: changing it replaces the run. Destroying the run deletes it, which abandons the release " +
			"as KubeFleet does: clusters already updated keep the new version, the others keep theirs.",
		Attributes: map[string]rschema.Attribute{
			"id": rschema.StringAttribute{
				Computed: true, Description: "The run's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": rschema.StringAttribute{
				Required:      true,
				Description:   "The ClusterStagedUpdateRun's name (a DNS subdomain of at most 127 characters).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{stringvalidator.LengthBetween(1, stagedRunMaxNameLength),
					stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")},
			},
			"placement_name": rschema.StringAttribute{
				Required:      true,
				Description:   "The `fleet_placement` (ClusterResourcePlacement) to roll out; its `strategy.type` must be `External`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthBetween(1, 255)},
			},
			"resource_snapshot_index": rschema.StringAttribute{
				Optional: true, Computed: true,
				Description: "The placement's resource snapshot to roll out (its `resource_snapshots` list them). Absent: the " +
					"placement's latest when the run is created.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIf(
					func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
						resp.RequiresReplace = !req.ConfigValue.IsNull()
					}, "A configured index that changes replaces the run.", "A configured index that changes replaces the run.")},
				Validators: []validator.String{stringvalidator.RegexMatches(stagedIndexRe, "must be a resource snapshot index: an integer >= 0")},
			},
			"staged_update_strategy_name": rschema.StringAttribute{
				Required:      true,
				Description:   "The `fleet_staged_update_strategy` whose stages the run follows (KubeFleet copies it when the run starts).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"approvals": rschema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Stages whose Approval task this configuration approves: apply approves the stage's ClusterApprovalRequest " +
					"once the run has made it (KubeFleet's way: an `Approved` condition on the request's status). A waiting apply " +
					"approves requests as they appear; otherwise the next apply does.",
			},
			"wait_for": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(shared.WaitNone),
				Description: "`none` (default) or `completed`: apply waits until the run has succeeded, logging each stage and cluster " +
					"transition, and fails naming each failed cluster and its message (or KubeFleet's reason when the run fails to " +
					"initialize). A wait stopped by a timeout or a cancelled apply saves the state, and the next apply resumes waiting " +
					"for the same run. Timeouts: create and update 2 hours, delete 10 minutes (the controller's finalizer).",
				Validators: []validator.String{stringvalidator.OneOf(shared.WaitNone, shared.WaitCompleted)},
			},
			"timeouts": shared.TimeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}, shared.TimeoutDefault{Op: "create", Default: stagedRunCreateTimeout}, shared.TimeoutDefault{Op: "update", Default: stagedRunCreateTimeout}, shared.TimeoutDefault{Op: "delete", Default: stagedRunDeleteTimeout}),
			"preview": rschema.SingleNestedAttribute{
				Computed: true,
				Description: "How KubeFleet will initialize the run, computed at plan from the hub (KubeFleet v0.14.0's rules, " +
					"`internal/engine/staged`): the stages with the placement's scheduled clusters in update order and what each " +
					"waits for, the clusters whose resources are removed at the end, or why the run would fail to initialize. " +
					"Unknown at plan while the placement or strategy does not exist yet; then computed at apply.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]rschema.Attribute{
					"resource_snapshot_index": str("The resource snapshot the run rolls out."),
					"stages": rschema.ListNestedAttribute{
						Computed:    true,
						Description: "The stages in order, each with its cluster count, the first clusters in update order (20 names shared among the stages unless `preview_detail` is `full`) and what it waits for afterwards.",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"name": str("The stage."), "cluster_count": rschema.Int64Attribute{Computed: true, Description: "Clusters the stage updates."},
							"clusters":         rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The first of them, in update order."},
							"clusters_omitted": rschema.Int64Attribute{Computed: true, Description: "How many are not listed."},
							"after_stage":      rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "What the stage waits for (a timed wait; the approval request to approve)."},
						}},
					},
					"deletion_count":   rschema.Int64Attribute{Computed: true, Description: "Clusters the placement no longer schedules: the run removes the placement's resources from them after the last stage."},
					"deletion":         rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The first 20 of them by name."},
					"deletion_omitted": rschema.Int64Attribute{Computed: true, Description: "How many are not listed."},
					"failure":          str("Why KubeFleet would refuse to initialize the run (its own message, with the clusters concerned), or null."),
				},
			},
			"status": rschema.SingleNestedAttribute{
				Computed:      true,
				Description:   "The run as the hub reports it, refreshed on every read.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]rschema.Attribute{
					"state":   str("`Initializing`, `InitializationFailed`, `Progressing`, `Waiting` (an after-stage task), `Succeeded` or `Failed`."),
					"message": str("The message of the condition that decides the state."),
					"conditions": rschema.ListNestedAttribute{
						Computed: true, Description: "The run's conditions (Initialized, Progressing, Succeeded).",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"type": str("Type."), "status": str("True, False or Unknown."), "reason": str("Reason."), "message": str("Message."),
							"last_transition_time": str("When the status last changed (RFC 3339)."),
						}},
					},
					"stages": rschema.ListNestedAttribute{
						Computed: true,
						Description: "Each stage, then the deletion stage (`kubernetes-fleet.io/deleteStage`): its state and times, and its " +
							"clusters by name with their state and times — failed, updating, still to update, then updated clusters, 20 in all unless `preview_detail` is `full`.",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"name": str("The stage."), "state": str("`NotStarted`, `Updating`, `Waiting`, `Succeeded` or `Failed`."),
							"started_at": str("When the stage started."), "finished_at": str("When it finished."), "message": str("Why it waits or failed."),
							"cluster_count":   rschema.Int64Attribute{Computed: true, Description: "Clusters in the stage."},
							"succeeded_count": rschema.Int64Attribute{Computed: true, Description: "Clusters updated."},
							"clusters": rschema.MapNestedAttribute{
								Computed: true, Description: "Clusters by name.",
								NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
									"state": str("`NotStarted`, `Updating`, `Succeeded` or `Failed`."), "started_at": str("When its update started."),
									"finished_at": str("When it finished."), "message": str("Why it failed."),
								}},
							},
							"clusters_omitted": rschema.Int64Attribute{Computed: true, Description: "How many clusters are not listed."},
						}},
					},
					"approvals_waiting": rschema.MapAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "Approval requests the run has made that nobody has approved yet: request name → stage.",
					},
				},
			},
		},
	}
}

func (r *stagedRunResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg stagedRunModel
	if _, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("status"), path.Root("id")); diags.HasError() {
		resp.Diagnostics.Append(diags...)
		return
	}
	for _, s := range cfg.Approvals {
		if !stagedStageNameRe.MatchString(s) {
			p := path.Root("approvals").AtSetValue(types.StringValue(s))
			resp.Diagnostics.AddAttributeError(p, "Invalid stage name", fmt.Sprintf("Attribute approvals: %q is not a stage name (lowercase letters and digits).", s))
		}
	}
}

func (r *stagedRunResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan stagedRunModel
	unknown, diags := shared.DecodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, path.Root("preview"), path.Root("status"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	replacing, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, stagedRunConfigAttributes...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the staged update run", err.Error())
		return
	}
	if !req.State.Raw.IsNull() && !replacing {
		var state stagedRunModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		// An unfinished wait, an approval to give, or new approvals: an in-place update whose apply does it.
		if stagedRunResumes(ctx, state, plan) || stagedApprovalDue(ctx, state, plan) || !slices.Equal(sortedSet(state.Approvals), sortedSet(plan.Approvals)) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(stagedRunStatusType.AttrTypes))...)
		}
		return
	}
	if !req.State.Raw.IsNull() {
		// A new run replaces this one: nothing of the old one's carries over.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(stagedRunStatusType.AttrTypes))...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
	}
	previewPath := path.Root("preview")
	setUnknown := func(why string) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, previewPath, types.ObjectUnknown(stagedRunPreviewType.AttrTypes))...)
		shared.AddPreviewUnknownWarning(&resp.Diagnostics, previewPath, why)
	}
	var inputsUnknown []path.Path
	for _, a := range []string{"name", "placement_name", "staged_update_strategy_name"} {
		if shared.PathsContain(unknown, path.Root(a)) {
			inputsUnknown = append(inputsUnknown, path.Root(a))
		}
	}
	var cfgIndex types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("resource_snapshot_index"), &cfgIndex)...)
	if cfgIndex.IsUnknown() {
		inputsUnknown = append(inputsUnknown, path.Root("resource_snapshot_index"))
	}
	if len(inputsUnknown) > 0 {
		setUnknown(shared.UnknownInputs(inputsUnknown))
		return
	}
	h, err := r.Clients.HubAPI(ctx)
	if err != nil {
		if engine.IsConfigUnknown(err) {
			setUnknown(err.Error())
			return
		}
		shared.AddBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
		return
	}
	in, err := r.runInputs(ctx, h, plan)
	if err != nil {
		resp.Diagnostics.AddError("Planning the staged update run", fmt.Sprintf("Reading what KubeFleet initializes the run from: %v", err))
		return
	}
	if missing := stagedMissing(in, plan); missing != "" {
		setUnknown(missing + " is not on the hub yet: the preview is computed at apply, once it exists " +
			"(reference the resource that creates it, e.g. its id, so that the run is created after it)")
		return
	}
	if cfgIndex.IsNull() {
		latest := hub.LatestResourceSnapshotIndex(in.ResourceSnapshots)
		if latest == "" {
			setUnknown(fmt.Sprintf("placement %s has no resource snapshot yet", plan.PlacementName.ValueString()))
			return
		}
		plan.ResourceSnapshotIndex = types.StringValue(latest)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("resource_snapshot_index"), latest)...)
	}
	p := staged.Initialize(stagedInputs(in, plan))
	obj, d := stagedRunPreview(p, plan.ResourceSnapshotIndex.ValueString(), r.Clients.ListLimit())
	resp.Diagnostics.Append(d...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, previewPath, obj)...)
	if p.Failure != "" {
		resp.Diagnostics.AddAttributeWarning(previewPath, "The staged update run will fail to initialize",
			fmt.Sprintf("KubeFleet will refuse to start run %q: %s", plan.Name.ValueString(), stagedProblem(p.Failure, p.Duplicated, p.Unstaged).ValueString()))
	}
	stagedCheckApprovals(&resp.Diagnostics, in.Strategy, plan.Approvals)
}

func (r *stagedRunResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportHubName(ctx, req, resp, stagedRunMaxNameLength, "a ClusterStagedUpdateRun on the fleet hub (a DNS subdomain)", map[string]any{
		"wait_for": shared.WaitNone,
		"preview":  types.ObjectNull(stagedRunPreviewType.AttrTypes),
		"status":   types.ObjectNull(stagedRunStatusType.AttrTypes),
	})
}

func (r *stagedRunResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan stagedRunModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, stagedRunCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	if plan.ResourceSnapshotIndex.IsUnknown() || plan.Preview.IsUnknown() {
		// The placement or strategy came with this apply: what plan could not read, read now.
		in, err := r.runInputs(ctx, h, plan)
		if err != nil {
			resp.Diagnostics.AddError("Creating the staged update run", fmt.Sprintf("Reading what KubeFleet initializes the run from: %v", err))
			return
		}
		if plan.ResourceSnapshotIndex.IsUnknown() {
			latest := hub.LatestResourceSnapshotIndex(in.ResourceSnapshots)
			if latest == "" {
				resp.Diagnostics.AddAttributeError(path.Root("resource_snapshot_index"), "No resource snapshot to roll out",
					fmt.Sprintf("Placement %q has no resource snapshot on the hub: set resource_snapshot_index, or create the run once KubeFleet has snapshotted the placement's resources.", plan.PlacementName.ValueString()))
				return
			}
			plan.ResourceSnapshotIndex = types.StringValue(latest)
		}
		if plan.Preview.IsUnknown() {
			obj, d := stagedRunPreview(staged.Initialize(stagedInputs(in, plan)), plan.ResourceSnapshotIndex.ValueString(), r.Clients.ListLimit())
			resp.Diagnostics.Append(d...)
			plan.Preview = obj
		}
	}
	run, err := h.CreateRun(ctx, &placementv1.ClusterStagedUpdateRun{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1.UpdateRunSpec{
			PlacementName: plan.PlacementName.ValueString(), ResourceSnapshotIndex: plan.ResourceSnapshotIndex.ValueString(),
			StagedUpdateStrategyName: plan.StrategyName.ValueString(),
		},
	})
	if err != nil {
		if hub.IsAlreadyExists(err) {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Staged update run already exists",
				fmt.Sprintf("The fleet hub already has a ClusterStagedUpdateRun named %q: import it, or choose another name.", name))
			return
		}
		resp.Diagnostics.AddError("Creating the staged update run", fmt.Sprintf("Creating ClusterStagedUpdateRun %q on the hub: %v", name, err))
		return
	}
	tflog.Info(ctx, "staged update run created", map[string]any{"run": name, "placement": plan.PlacementName.ValueString(), "resource_snapshot_index": plan.ResourceSnapshotIndex.ValueString()})
	plan.ID = types.StringValue(name)
	r.converge(ctx, h, &plan, run, true, &resp.State, &resp.Diagnostics)
}

func (r *stagedRunResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state stagedRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	run, err := h.Run(ctx, state.Name.ValueString())
	if shared.RemoveGone(ctx, resp, hub.IsNotFound(err), "staged update run", map[string]any{"run": state.Name.ValueString()}) {
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the staged update run", fmt.Sprintf("Reading ClusterStagedUpdateRun %q: %v", state.Name.ValueString(), err))
		return
	}
	state.ID = types.StringValue(run.Name)
	state.PlacementName = types.StringValue(run.Spec.PlacementName)
	state.ResourceSnapshotIndex = types.StringValue(run.Spec.ResourceSnapshotIndex)
	state.StrategyName = types.StringValue(run.Spec.StagedUpdateStrategyName)
	reqs, err := h.ApprovalRequests(ctx, run.Name)
	if err != nil {
		resp.Diagnostics.AddError("Reading the staged update run", fmt.Sprintf("Listing the approval requests of run %q: %v", run.Name, err))
		return
	}
	state.Status = stagedRunStatus(run, reqs, r.Clients.ListLimit(), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update approves newly listed stages and resumes an unfinished wait; everything else replaces.
func (r *stagedRunResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan stagedRunModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, stagedRunCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	run, err := h.Run(ctx, plan.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Reading the staged update run", fmt.Sprintf("Reading ClusterStagedUpdateRun %q: %v", plan.Name.ValueString(), err))
		return
	}
	r.converge(ctx, h, &plan, run, false, &resp.State, &resp.Diagnostics)
}

func (r *stagedRunResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state stagedRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, stagedRunDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, ok := shared.HubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := state.Name.ValueString()
	if err := h.DeleteRun(ctx, name); err != nil {
		resp.Diagnostics.AddError("Deleting the staged update run", fmt.Sprintf("Deleting ClusterStagedUpdateRun %q: %v", name, err))
		return
	}
	// The controller's finalizer removes the run's approval requests first.
	tick := time.NewTicker(stagedRunPoll)
	defer tick.Stop()
	for {
		there, err := h.RunExists(ctx, name)
		if err == nil && !there {
			return
		}
		select {
		case <-ctx.Done():
			resp.Diagnostics.AddError("Deleting the staged update run", fmt.Sprintf("ClusterStagedUpdateRun %q is still on the hub (%v): its finalizer has not finished.", name, context.Cause(ctx)))
			return
		case <-tick.C:
		}
	}
}

type stagedRunModel struct {
	ID                    types.String   `tfsdk:"id"`
	Name                  types.String   `tfsdk:"name"`
	PlacementName         types.String   `tfsdk:"placement_name"`
	ResourceSnapshotIndex types.String   `tfsdk:"resource_snapshot_index"`
	StrategyName          types.String   `tfsdk:"staged_update_strategy_name"`
	Approvals             []string       `tfsdk:"approvals"`
	WaitFor               types.String   `tfsdk:"wait_for"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
	Preview               types.Object   `tfsdk:"preview"`
	Status                types.Object   `tfsdk:"status"`
}

// converge approves the stages the configuration approves, waits as wait_for says, and saves
// state — also when a step fails. In Create an interrupted wait is a warning: an error would
// taint the run and the next apply would replace it instead of waiting for it.
func (r *stagedRunResource) converge(ctx context.Context, h *hub.Client, plan *stagedRunModel, run *placementv1.ClusterStagedUpdateRun, creating bool, st *tfsdk.State, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	var reqs []placementv1.ClusterApprovalRequest
	save := func() {
		if latest, err := h.Run(context.WithoutCancel(ctx), name); err == nil {
			run = latest
		}
		if got, err := h.ApprovalRequests(context.WithoutCancel(ctx), name); err == nil {
			reqs = got
		}
		plan.Status = stagedRunStatus(run, reqs, r.Clients.ListLimit(), diags)
		diags.Append(st.Set(ctx, plan)...)
	}
	approve := func() error {
		got, err := h.ApprovalRequests(ctx, name)
		if err != nil {
			return err
		}
		for _, req := range staged.WaitingApprovals(run, got) {
			if slices.Contains(plan.Approvals, req.Spec.TargetStage) {
				if err := h.Approve(ctx, &req, r.Clients.Now(), "terraform-provider-fleet"); err != nil {
					return fmt.Errorf("approving %s (stage %s): %w", req.Name, req.Spec.TargetStage, err)
				}
				tflog.Info(ctx, "approved stage", map[string]any{"run": name, "stage": req.Spec.TargetStage, "approval_request": req.Name})
			}
		}
		return nil
	}
	if err := approve(); err != nil {
		diags.AddError("Approving a stage of the staged update run", fmt.Sprintf("Run %q: %v", name, err))
		save()
		return
	}
	if plan.WaitFor.ValueString() != shared.WaitCompleted {
		save()
		return
	}
	tick := time.NewTicker(stagedRunPoll)
	defer tick.Stop()
	last := map[string]string{}
	lastState := staged.State("")
	for {
		state, msg := staged.RunState(run)
		if state != lastState {
			tflog.Info(ctx, "staged update run", map[string]any{"run": name, "state": string(state), "message": msg})
			lastState = state
		}
		steps := staged.Steps(run)
		for _, k := range slices.Sorted(maps.Keys(steps)) {
			if last[k] != steps[k] {
				tflog.Info(ctx, "staged update run: "+k, map[string]any{"run": name, "state": steps[k]})
			}
		}
		last = steps
		switch state {
		case staged.StateSucceeded:
			save()
			return
		case staged.StateInitializationFailed:
			save()
			diags.AddError("Staged update run failed to initialize", fmt.Sprintf("KubeFleet refused to start run %q: %s", name, msg))
			return
		case staged.StateFailed:
			save()
			detail := msg
			if failed := staged.FailedClusters(run); len(failed) > 0 {
				detail += "\n\nFailed: " + strings.Join(failed, "; ")
			}
			diags.AddError("Staged update run failed", fmt.Sprintf("Run %q: %s", name, detail))
			return
		}
		if err := approve(); err != nil {
			diags.AddError("Approving a stage of the staged update run", fmt.Sprintf("Run %q: %v", name, err))
			save()
			return
		}
		select {
		case <-ctx.Done():
			save()
			why := fmt.Sprintf("Run %q is %s (%v)%s.", name, state, context.Cause(ctx), stagedWaitingFor(run, reqs, plan.Approvals))
			if creating {
				diags.AddWarning("Stopped waiting for the staged update run", why+"\n\nThe run was created and its state is saved: the next apply resumes waiting for the same run.")
			} else {
				diags.AddError("Waiting for the staged update run", why)
			}
			return
		case <-tick.C:
		}
		got, err := h.Run(ctx, name)
		if err != nil {
			if ctx.Err() == nil {
				tflog.Warn(ctx, "reading the staged update run failed; retrying", map[string]any{"run": name, "error": err.Error()})
			}
			continue
		}
		run = got
	}
}

// stagedWaitingFor says which approvals an unfinished run waits for that this configuration does
// not give.
func stagedWaitingFor(run *placementv1.ClusterStagedUpdateRun, reqs []placementv1.ClusterApprovalRequest, approvals []string) string {
	var out []string
	for _, req := range staged.WaitingApprovals(run, reqs) {
		if !slices.Contains(approvals, req.Spec.TargetStage) {
			out = append(out, fmt.Sprintf("%s (stage %s)", req.Name, req.Spec.TargetStage))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; it waits for approval requests this configuration does not approve: " + strings.Join(out, ", ") + " (add the stage to approvals, or approve the request on the hub)"
}

// stagedRunResumes reports whether an earlier apply stopped waiting for a run that goes on.
func stagedRunResumes(ctx context.Context, state, plan stagedRunModel) bool {
	if plan.WaitFor.ValueString() != shared.WaitCompleted || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st stagedRunStatusModel
	if d := state.Status.As(ctx, &st, shared.ObjectAsOptions); d.HasError() {
		return false
	}
	return !staged.State(st.State.ValueString()).Ended()
}

// stagedApprovalDue reports whether the refreshed run waits for an approval this configuration
// gives: apply (an in-place update) then gives it.
func stagedApprovalDue(ctx context.Context, state, plan stagedRunModel) bool {
	if len(plan.Approvals) == 0 || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st stagedRunStatusModel
	if d := state.Status.As(ctx, &st, shared.ObjectAsOptions); d.HasError() {
		return false
	}
	for _, stage := range st.ApprovalsWaiting {
		if slices.Contains(plan.Approvals, stage) {
			return true
		}
	}
	return false
}

func sortedSet(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// stagedIndexRe is a resource snapshot index as the controller parses it (strconv.Atoi, >= 0).
var stagedIndexRe = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// runInputs reads what the controller initializes the run from, with the hub's member clusters
// from the inventory (listed once per provider process).
func (r *stagedRunResource) runInputs(ctx context.Context, h *hub.Client, plan stagedRunModel) (hub.RunInputs, error) {
	in, err := h.RunInputs(ctx, plan.PlacementName.ValueString(), plan.StrategyName.ValueString())
	if err != nil || in.Placement == nil {
		return in, err
	}
	in.MemberClusters, err = r.Clients.HubMemberClusters(ctx)
	return in, err
}

// stagedMissing names the referenced object the hub does not have yet.
func stagedMissing(in hub.RunInputs, plan stagedRunModel) string {
	switch {
	case in.Placement == nil:
		return fmt.Sprintf("placement %q", plan.PlacementName.ValueString())
	case in.Strategy == nil:
		return fmt.Sprintf("staged update strategy %q", plan.StrategyName.ValueString())
	}
	return ""
}

func stagedInputs(in hub.RunInputs, plan stagedRunModel) staged.Inputs {
	return staged.Inputs{
		RunName: plan.Name.ValueString(), Placement: in.Placement, PlacementName: plan.PlacementName.ValueString(),
		LatestPolicySnapshots: in.PolicySnapshots, Bindings: in.Bindings,
		StrategyName: plan.StrategyName.ValueString(), Strategy: in.Strategy, MemberClusters: in.MemberClusters,
		ResourceSnapshotIndex: plan.ResourceSnapshotIndex.ValueString(), ResourceSnapshots: in.ResourceSnapshots,
	}
}

// stagedCheckApprovals fails approvals of stages that have no Approval task.
func stagedCheckApprovals(diags *diag.Diagnostics, s *placementv1.ClusterStagedUpdateStrategy, approvals []string) {
	if s == nil {
		return
	}
	withApproval := map[string]bool{}
	for _, st := range s.Spec.Stages {
		for _, t := range st.AfterStageTasks {
			if t.Type == placementv1.StageTaskTypeApproval {
				withApproval[st.Name] = true
			}
		}
	}
	for _, a := range approvals {
		if !withApproval[a] {
			diags.AddAttributeError(path.Root("approvals").AtSetValue(types.StringValue(a)), "No approval to give",
				fmt.Sprintf("Attribute approvals: strategy %q has no stage %q with an Approval task (stages with one: %s).", s.Name, a, strings.Join(slices.Sorted(maps.Keys(withApproval)), ", ")))
		}
	}
}

type stagedRunPreviewModel struct {
	ResourceSnapshotIndex string               `tfsdk:"resource_snapshot_index"`
	Stages                []stagedStagePreview `tfsdk:"stages"`
	DeletionCount         int64                `tfsdk:"deletion_count"`
	Deletion              []string             `tfsdk:"deletion"`
	DeletionOmitted       int64                `tfsdk:"deletion_omitted"`
	Failure               types.String         `tfsdk:"failure"`
}

func stagedRunPreview(p staged.Plan, index string, listLimit int) (types.Object, diag.Diagnostics) {
	deletion, omitted := shared.CapList(p.Deletion, listLimit)
	m := stagedRunPreviewModel{
		ResourceSnapshotIndex: index, Stages: shared.NullIfEmpty(stagedStagePreviews(p.Stages, listLimit)),
		DeletionCount: int64(len(p.Deletion)), Deletion: shared.NullIfEmpty(deletion), DeletionOmitted: omitted,
		Failure: stagedProblem(p.Failure, p.Duplicated, p.Unstaged),
	}
	return types.ObjectValueFrom(context.Background(), stagedRunPreviewType.AttrTypes, m)
}

type stagedRunStatusModel struct {
	State            types.String        `tfsdk:"state"`
	Message          types.String        `tfsdk:"message"`
	Conditions       []stagedCondition   `tfsdk:"conditions"`
	Stages           []stagedStageStatus `tfsdk:"stages"`
	ApprovalsWaiting map[string]string   `tfsdk:"approvals_waiting"`
}

type stagedCondition struct {
	Type               string `tfsdk:"type"`
	Status             string `tfsdk:"status"`
	Reason             string `tfsdk:"reason"`
	Message            string `tfsdk:"message"`
	LastTransitionTime string `tfsdk:"last_transition_time"`
}

type stagedStageStatus struct {
	Name            string                       `tfsdk:"name"`
	State           string                       `tfsdk:"state"`
	StartedAt       types.String                 `tfsdk:"started_at"`
	FinishedAt      types.String                 `tfsdk:"finished_at"`
	Message         types.String                 `tfsdk:"message"`
	ClusterCount    int64                        `tfsdk:"cluster_count"`
	SucceededCount  int64                        `tfsdk:"succeeded_count"`
	Clusters        map[string]stagedClusterStep `tfsdk:"clusters"`
	ClustersOmitted int64                        `tfsdk:"clusters_omitted"`
}

type stagedClusterStep struct {
	State      string       `tfsdk:"state"`
	StartedAt  types.String `tfsdk:"started_at"`
	FinishedAt types.String `tfsdk:"finished_at"`
	Message    types.String `tfsdk:"message"`
}

// stagedRunStatus is the run's status, its per-cluster detail bounded: failed clusters first, then
// updating ones, then those still to update, then updated ones, each in update order.
func stagedRunStatus(run *placementv1.ClusterStagedUpdateRun, reqs []placementv1.ClusterApprovalRequest, listLimit int, diags *diag.Diagnostics) types.Object {
	state, msg := staged.RunState(run)
	m := stagedRunStatusModel{State: types.StringValue(string(state)), Message: shared.StringOrNull(msg)}
	for _, c := range run.Status.Conditions {
		m.Conditions = append(m.Conditions, stagedCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.UTC().Format(time.RFC3339)})
	}
	type entry struct {
		stage, pos, rank int
		step             staged.Step
	}
	var entries []entry
	stages := staged.AllStages(run)
	for i, s := range stages {
		st := staged.StageStep(s, run.Generation)
		ss := stagedStageStatus{Name: s.StageName, State: st.State, StartedAt: optTime(st.Started), FinishedAt: optTime(st.Finished), Message: shared.StringOrNull(st.Message), ClusterCount: int64(len(s.Clusters))}
		for j := range s.Clusters {
			cs := staged.ClusterStep(&s.Clusters[j], run.Generation)
			if cs.State == staged.StepSucceeded {
				ss.SucceededCount++
			}
			rank := map[string]int{staged.StepFailed: 0, staged.StepUpdating: 1, staged.StepNotStarted: 2, staged.StepSucceeded: 3}[cs.State]
			entries = append(entries, entry{i, j, rank, cs})
		}
		m.Stages = append(m.Stages, ss)
	}
	taken := shared.FirstToRead(len(entries), listLimit, func(a, b int) bool {
		ea, eb := entries[a], entries[b]
		if ea.rank != eb.rank {
			return ea.rank < eb.rank
		}
		if ea.stage != eb.stage {
			return ea.stage < eb.stage
		}
		return ea.pos < eb.pos
	})
	for k, e := range entries {
		ss := &m.Stages[e.stage]
		if !taken[k] {
			ss.ClustersOmitted++
			continue
		}
		if ss.Clusters == nil {
			ss.Clusters = map[string]stagedClusterStep{}
		}
		ss.Clusters[stages[e.stage].Clusters[e.pos].ClusterName] = stagedClusterStep{State: e.step.State, StartedAt: optTime(e.step.Started), FinishedAt: optTime(e.step.Finished), Message: shared.StringOrNull(e.step.Message)}
	}
	for _, req := range staged.WaitingApprovals(run, reqs) {
		if m.ApprovalsWaiting == nil {
			m.ApprovalsWaiting = map[string]string{}
		}
		m.ApprovalsWaiting[req.Name] = req.Spec.TargetStage
	}
	obj, d := types.ObjectValueFrom(context.Background(), stagedRunStatusType.AttrTypes, m)
	diags.Append(d...)
	return obj
}

func optTime(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}
