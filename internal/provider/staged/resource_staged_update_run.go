package staged

import (
	"context"
	"errors"
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

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*stagedRunResource)(nil)

// stagedRunResource is fleet_staged_update_run: KubeFleet's ClusterStagedUpdateRun (or a
// StagedUpdateRun in a namespace), one release of a placement's resources, stage by stage.
type stagedRunResource struct{ shared.ResourceBase }

const (
	stagedRunCreateTimeout = 2 * time.Hour
	stagedRunDeleteTimeout = 10 * time.Minute
	// stagedRunPoll is how often a waiting apply reads the run (a hub read is cheap).
	stagedRunPoll = 2 * time.Second
	// stagedRunMaxNameLength is the CRD's rule size(self.metadata.name) < 128.
	stagedRunMaxNameLength = 127
)

// stagedRunConfigAttributes make up the run's spec: a change replaces the run (state is changed in place).
var stagedRunConfigAttributes = []string{"name", "namespace", "placement_name", "resource_snapshot_index", "staged_update_strategy_name"}

// The run's states (spec.state); the CRD refuses Initialize → Stop, Run → Initialize and Stop → Initialize.
var stagedRunStates = []string{string(placementv1.StateInitialize), string(placementv1.StateRun), string(placementv1.StateStop)}

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
		"state":                        types.StringType,
		"resource_snapshot_index_used": types.StringType,
		"message":                      types.StringType,
		"conditions":                   types.ListType{ElemType: types.ObjectType{AttrTypes: stagedConditionAttrTypes}},
		"stages":                       types.ListType{ElemType: types.ObjectType{AttrTypes: stagedStageStatusAttrTypes}},
		"approvals_waiting":            types.MapType{ElemType: types.StringType},
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
	resp.Schema = rschema.Schema{
		Description: "A KubeFleet staged update run on the fleet hub — a `ClusterStagedUpdateRun` of a `fleet_placement`, or with " +
			"`namespace` a `StagedUpdateRun` of a ResourcePlacement in that namespace: one release of a placement's resources to the " +
			"clusters it schedules, stage by stage as a `fleet_staged_update_strategy` says, `max_concurrency` clusters of a stage at " +
			"a time, with the strategy's approvals and waits before and after stages; afterwards the placement's resources are removed " +
			"from clusters it no longer schedules. The placement needs `strategy.type = \"External\"`. `state` is the run's " +
			"`spec.state`: `Run` (default) starts or resumes it, `Initialize` creates it without starting, `Stop` stops it after the " +
			"updating clusters finish. The plan's `preview` shows the stages, their clusters in update order and batches and what each " +
			"waits for — or why KubeFleet (v0.18.9's rules) would refuse to start the run. The rest of the run's spec is immutable: " +
			"changing it replaces the run. Destroying the run deletes it, which abandons the release as KubeFleet does: clusters " +
			"already updated keep the new version, the others keep theirs.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The run's name."),
			"name": shared.ReplacingAttribute("The run's name (a DNS subdomain of at most 127 characters).", stringvalidator.LengthBetween(1, stagedRunMaxNameLength),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")),
			"namespace": stagedNamespaceAttribute("run"),
			"placement_name": shared.ReplacingAttribute("The placement to roll out: a ClusterResourcePlacement (`fleet_placement`), or with `namespace` a "+
				"ResourcePlacement of that namespace; its `strategy.type` must be `External`.", stringvalidator.LengthBetween(1, 255)),
			"resource_snapshot_index": rschema.StringAttribute{
				Optional: true,
				Description: "The placement's resource snapshot to roll out (its `resource_snapshots` list them). Absent: KubeFleet " +
					"v0.18 snapshots the placement's resources when it initializes the run (an External placement has no snapshot " +
					"before its first run); `status.resource_snapshot_index_used` then says which index it rolls out. Mind that " +
					"KubeFleet v0.18.9 hands such a run the latest existing snapshot instead of a new one while the resources' last " +
					"change is younger than the hub agent's `--resource-changes-collection-duration` (15 s) or the latest snapshot " +
					"younger than `--resource-snapshot-creation-minimum-interval` (30 s). An index that a placement under External rollout " +
					"does not have fails the plan with KubeFleet's reason: v0.18.9 would refuse the run for good, since it takes no " +
					"snapshot of such a placement until a run does (set the index from another run's `status.resource_snapshot_index_used` " +
					"to roll out what that run snapshots).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(
					func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
						resp.RequiresReplace = !req.ConfigValue.IsNull()
					}, "A configured index that changes replaces the run.", "A configured index that changes replaces the run.")},
				Validators: []validator.String{stringvalidator.RegexMatches(stagedIndexRe, "must be a resource snapshot index: an integer >= 0")},
			},
			"staged_update_strategy_name": shared.ReplacingAttribute("The `fleet_staged_update_strategy` whose stages the run follows (KubeFleet copies it when the run starts)."),
			"state": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(placementv1.StateRun)),
				Description: "The run's `spec.state`: `Run` (default) starts the run or resumes a stopped one; `Initialize` creates " +
					"it and lets KubeFleet initialize it without updating any cluster until `state` becomes `Run`; `Stop` stops it " +
					"once the clusters updating now have finished (`Run` resumes it). Changed in place; KubeFleet refuses " +
					"`Initialize` → `Stop` and going back to `Initialize`, and so does the plan.",
				Validators: []validator.String{stringvalidator.OneOf(stagedRunStates...)},
			},
			"approvals": rschema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "The approval requests this configuration approves: a stage name approves both its before-stage and " +
					"after-stage requests; `before:<stage>` or `after:<stage>` only one. Apply approves a request once the run has " +
					"made it (`<run>-before-<stage>` / `<run>-after-<stage>`; KubeFleet's way: an `Approved` condition on the " +
					"request's status). A waiting apply approves requests as they appear; otherwise the next apply does.",
			},
			"wait_for": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(shared.WaitNone),
				Description: "`none` (default) or `completed`: apply waits until the run has reached its `state` — succeeded for `Run`, " +
					"initialized for `Initialize`, stopped for `Stop` — logging each stage and cluster " +
					"transition, and fails naming each failed cluster and its message (or KubeFleet's reason when the run fails to " +
					"initialize). A wait stopped by a timeout or a cancelled apply saves the state, and the next apply resumes waiting " +
					"for the same run. A run that fails in the apply that created it is marked tainted by Terraform (it taints whatever a " +
					"failed create leaves in state), so the next plan replaces it with a new run under the same name, which KubeFleet " +
					"initializes and rolls out from the first stage; `terraform untaint` keeps the failed run and its status instead. " +
					"Timeouts: create and update 2 hours, delete 10 minutes (the controller's finalizer).",
				Validators: []validator.String{stringvalidator.OneOf(shared.WaitNone, shared.WaitCompleted)},
			},
			"facts": preview.FactsAttribute("the preview (the run's inputs: give the run to the data source's `staged_run` blocks)"),
			"preview": rschema.SingleNestedAttribute{
				Computed: true,
				Description: "How KubeFleet will initialize the run, computed at plan from the hub, or from `facts` when set (KubeFleet v0.18.9's rules " +
					"for initializing a run): the stages with the placement's scheduled clusters in update order and batches, and " +
					"what each waits for before and after, the clusters whose resources are removed at the end, or why the run would " +
					"fail to initialize. Unknown at plan while the placement or strategy does not exist yet; then computed at apply.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]rschema.Attribute{
					"resource_snapshot_index": shared.ComputedString("The resource snapshot the run rolls out; null when the run snapshots the placement's resources itself."),
					"stages": rschema.ListNestedAttribute{
						Computed:     true,
						Description:  "The stages in order, each with its cluster count, the first clusters in update order (20 names shared among the stages unless `preview_detail` is `full`), their batches, and what it waits for before and after.",
						NestedObject: rschema.NestedAttributeObject{Attributes: stagedStagePreviewAttributes("the stage updates")},
					},
					"deletion_count":   rschema.Int64Attribute{Computed: true, Description: "Clusters the placement no longer schedules: the run removes the placement's resources from them after the last stage."},
					"deletion":         rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The first 20 of them by name."},
					"deletion_omitted": rschema.Int64Attribute{Computed: true, Description: "How many are not listed."},
					"failure":          shared.ComputedString("Why KubeFleet would refuse to initialize the run (its own message, with the clusters concerned), or null."),
				},
			},
			"status": rschema.SingleNestedAttribute{
				Computed:      true,
				Description:   "The run as the hub reports it, refreshed on every read.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]rschema.Attribute{
					"state": shared.ComputedString("`Initializing`, `InitializationFailed`, `Initialized` (waiting for `state = \"Run\"`), `Progressing`, " +
						"`Waiting` (a before- or after-stage task, or a stuck cluster), `Stopping`, `Stopped`, `Succeeded` or `Failed`."),
					"resource_snapshot_index_used": shared.ComputedString("The resource snapshot index the run rolls out, once initialized."),
					"message":                      shared.ComputedString("The message of the condition that decides the state."),
					"conditions": rschema.ListNestedAttribute{
						Computed: true, Description: "The run's conditions (Initialized, Progressing, Succeeded).",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"type": shared.ComputedString("Type."), "status": shared.ComputedString("True, False or Unknown."), "reason": shared.ComputedString("Reason."), "message": shared.ComputedString("Message."),
							"last_transition_time": shared.ComputedString("When the status last changed (RFC 3339)."),
						}},
					},
					"stages": rschema.ListNestedAttribute{
						Computed: true,
						Description: "Each stage, then the deletion stage (`kubernetes-fleet.io/deleteStage`): its state and times, and its " +
							"clusters by name with their state and times — failed, updating, still to update, then updated clusters, 20 in all unless `preview_detail` is `full`.",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"name": shared.ComputedString("The stage."), "state": shared.ComputedString("`NotStarted`, `Updating`, `Waiting`, `Succeeded` or `Failed`."),
							"started_at": shared.ComputedString("When the stage started."), "finished_at": shared.ComputedString("When it finished."), "message": shared.ComputedString("Why it waits or failed."),
							"cluster_count":   rschema.Int64Attribute{Computed: true, Description: "Clusters in the stage."},
							"succeeded_count": rschema.Int64Attribute{Computed: true, Description: "Clusters updated."},
							"clusters": rschema.MapNestedAttribute{
								Computed: true, Description: "Clusters by name.",
								NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
									"state": shared.ComputedString("`NotStarted`, `Updating`, `Succeeded` or `Failed`."), "started_at": shared.ComputedString("When its update started."),
									"finished_at": shared.ComputedString("When it finished."), "message": shared.ComputedString("Why it failed."),
								}},
							},
							"clusters_omitted": rschema.Int64Attribute{Computed: true, Description: "How many clusters are not listed."},
						}},
					},
					"approvals_waiting": rschema.MapAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "Approval requests the run has made that nobody has approved yet: request name → `before:<stage>` or `after:<stage>`.",
					},
				},
			},
		},
		Blocks: shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: stagedRunCreateTimeout, Update: stagedRunCreateTimeout, Delete: stagedRunDeleteTimeout}),
	}
}

func (r *stagedRunResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg stagedRunModel
	if _, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("status"), path.Root("id")); diags.HasError() {
		resp.Diagnostics.Append(diags...)
		return
	}
	for _, s := range cfg.Approvals {
		stage := strings.TrimPrefix(strings.TrimPrefix(s, "before:"), "after:")
		if !stagedStageNameRe.MatchString(stage) {
			p := path.Root("approvals").AtSetValue(types.StringValue(s))
			resp.Diagnostics.AddAttributeError(p, "Invalid approval", fmt.Sprintf("Attribute approvals: %q is not a stage name (lowercase letters and digits), before:<stage> or after:<stage>.", s))
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
		if from, to := state.State.ValueString(), plan.State.ValueString(); !plan.State.IsUnknown() && from != to && !stagedTransitionAllowed(from, to) {
			resp.Diagnostics.AddAttributeError(path.Root("state"), "Invalid state transition",
				fmt.Sprintf("Attribute state: KubeFleet refuses to change a run's state from %s to %s (invalid state transition: cannot transition from %s to %s). "+
					"A run goes Initialize → Run ⇄ Stop; to start over, replace the run (a new name).", from, to, from, to))
			return
		}
		// An unfinished wait, an approval to give, new approvals or a new state: an in-place update whose apply does it.
		if stagedRunResumes(ctx, state, plan) || stagedApprovalDue(ctx, state, plan) || !slices.Equal(sortedSet(state.Approvals), sortedSet(plan.Approvals)) ||
			!state.State.Equal(plan.State) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(stagedRunStatusType.AttrTypes))...)
		}
		return
	}
	if !req.State.Raw.IsNull() {
		// A new run replaces this one: nothing of the old one's carries over.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(stagedRunStatusType.AttrTypes))...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
	}
	// The run is created on the hub: its configuration unknown leaves the preview unknown, and a
	// hub out of reach fails the plan, with or without facts — after the reasons the preview
	// protocol gives first (an input or facts unknown).
	var inputsUnknown []path.Path
	for _, a := range stagedRunPreviewSpec.Follows {
		inputsUnknown = append(inputsUnknown, relatedPaths(unknown, path.Root(a))...)
	}
	var f types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, preview.FactsPath, &f)...)
	if len(inputsUnknown) == 0 && !f.IsUnknown() {
		if _, err := r.Clients.HubAPI(ctx); err != nil {
			if session.IsConfigUnknown(err) {
				shared.PlanPreviewUnknown(ctx, &resp.Plan, &resp.Diagnostics, preview.Path, stagedRunPreviewType.AttrTypes, err.Error())
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
			return
		}
	}
	stagedRunPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
}

// stagedRunPreviewSpec is the run's preview: how KubeFleet will initialize it from what it reads
// on the hub (the placement, its bindings and snapshots, the strategy, the member clusters). With
// facts, these are the plan's: the apply's re-plan computes the same preview
// (docs/guides/plan-apply-contract.md).
var stagedRunPreviewSpec = preview.Spec[stagedRunModel]{
	What:      "the staged update run preview",
	AttrTypes: stagedRunPreviewType.AttrTypes,
	Follows:   stagedRunConfigAttributes,
	Reads:     []facts.Input{facts.InputRunInputs, facts.InputHubMembers, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, plan *stagedRunModel, d *diag.Diagnostics) (attr.Value, error) {
		unknown := func(why string) (attr.Value, error) {
			shared.AddPreviewUnknownWarning(d, preview.Path, why)
			return types.ObjectUnknown(stagedRunPreviewType.AttrTypes), nil
		}
		in, err := runInputs(ctx, v, *plan)
		var notRead *facts.NotReadError
		switch {
		case errors.As(err, &notRead):
			// Facts read without this run's inputs (typically: the placement or strategy was
			// created by the same plan, so the plan's preview was unknown): unknown now too,
			// computed at apply, so the apply's re-plan agrees with the saved plan.
			return unknown(fmt.Sprintf("%v, so a saved plan cannot pin this preview; it is computed at apply", err))
		case err != nil:
			d.AddError("Planning the staged update run", fmt.Sprintf("Reading what KubeFleet initializes the run from: %v", err))
			return nil, nil
		}
		if missing := stagedMissing(in, *plan); missing != "" {
			return unknown(missing + " is not on the hub yet: the preview is computed at apply, once it exists " +
				"(reference the resource that creates it, e.g. its id, so that the run is created after it)")
		}
		if refusal := staged.MissingSnapshotForGood(stagedInputs(in, *plan)); refusal != "" {
			addMissingSnapshotError(d, *plan, in, refusal)
			return nil, nil
		}
		if staged.Scheduling(stagedInputs(in, *plan)) {
			return unknown(fmt.Sprintf("placement %q is still being scheduled by the hub agent: the preview is computed at apply, once it is "+
				"scheduled (KubeFleet fails a run created before then for good)", plan.PlacementName.ValueString()))
		}
		p := staged.Initialize(stagedInputs(in, *plan))
		obj, ds := stagedRunPreview(p, plan.Namespace.ValueString(), plan.ResourceSnapshotIndex.ValueString(), v.ListLimit())
		d.Append(ds...)
		if p.Failure != "" {
			d.AddAttributeWarning(preview.Path, "The staged update run will fail to initialize",
				fmt.Sprintf("KubeFleet will refuse to start run %q: %s", plan.Name.ValueString(), stagedProblem(p.Failure, p.Duplicated, p.Unstaged).ValueString()))
		}
		if p.Retry != "" {
			d.AddAttributeWarning(preview.Path, "The placement is changing",
				fmt.Sprintf("KubeFleet would not initialize run %q yet and retry: %s", plan.Name.ValueString(), p.Retry))
		}
		stagedCheckApprovals(d, in.Strategy, plan.Approvals)
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *stagedRunResource) PreviewInputs() []facts.Input {
	return stagedRunPreviewSpec.Inputs()
}

func (r *stagedRunResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	stagedImport(ctx, req, resp, stagedRunMaxNameLength, "run", map[string]any{
		"wait_for": shared.WaitNone,
		"preview":  types.ObjectNull(stagedRunPreviewType.AttrTypes),
		"status":   types.ObjectNull(stagedRunStatusType.AttrTypes),
	})
}

func (r *stagedRunResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	withHubModelTimeout(ctx, r.Clients, req.Plan, &resp.Diagnostics, timeouts.Value.Create, stagedRunCreateTimeout, func(ctx context.Context, plan *stagedRunModel, h *hub.Client) {
		ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
		if plan.Preview.IsUnknown() {
			// The placement or strategy came with this apply: what plan could not read, read now.
			in, err := r.scheduledInputs(ctx, *plan)
			if err != nil {
				resp.Diagnostics.AddError("Creating the staged update run", fmt.Sprintf("Reading what KubeFleet initializes the run from: %v", err))
				return
			}
			obj, d := stagedRunPreview(staged.Initialize(stagedInputs(in, *plan)), ns, plan.ResourceSnapshotIndex.ValueString(), r.Clients.ListLimit())
			resp.Diagnostics.Append(d...)
			plan.Preview = obj
		}
		run, err := h.CreateRun(ctx, &placementv1.ClusterStagedUpdateRun{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: placementv1.UpdateRunSpec{
				PlacementName: plan.PlacementName.ValueString(), ResourceSnapshotIndex: plan.ResourceSnapshotIndex.ValueString(),
				StagedUpdateStrategyName: plan.StrategyName.ValueString(), State: placementv1.State(plan.State.ValueString()),
			},
		})
		if err != nil {
			addStagedCreateError(&resp.Diagnostics, "run", ns, name, err)
			return
		}
		tflog.Info(ctx, "staged update run created", map[string]any{"run": hub.Key(ns, name), "placement": plan.PlacementName.ValueString(),
			"resource_snapshot_index": plan.ResourceSnapshotIndex.ValueString(), "state": plan.State.ValueString()})
		plan.ID = types.StringValue(hub.Key(ns, name))
		r.converge(ctx, h, plan, run, true, &resp.State, &resp.Diagnostics)
		if !resp.Diagnostics.HasError() {
			stagedRunPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, plan, plan.Preview, &resp.Diagnostics)
		}
	})
}

func (r *stagedRunResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *stagedRunModel, h *hub.Client) {
		ns := state.Namespace.ValueString()
		run, ok := stagedRead(ctx, resp, "run", ns, state.Name.ValueString(), h.Run)
		if !ok {
			return
		}
		state.ID = types.StringValue(hub.Key(ns, run.Name))
		state.PlacementName = types.StringValue(run.Spec.PlacementName)
		state.ResourceSnapshotIndex = shared.StringOrNull(run.Spec.ResourceSnapshotIndex)
		state.StrategyName = types.StringValue(run.Spec.StagedUpdateStrategyName)
		state.State = types.StringValue(string(run.Spec.State))
		if run.Spec.State == "" {
			state.State = types.StringValue(string(placementv1.StateInitialize))
		}
		reqs, err := h.ApprovalRequests(ctx, ns, run.Name)
		if err != nil {
			resp.Diagnostics.AddError("Reading the staged update run", fmt.Sprintf("Listing the approval requests of run %q: %v", run.Name, err))
			return
		}
		state.Status = stagedRunStatus(run, reqs, r.Clients.ListLimit(), &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	})
}

// Update approves newly listed stages and resumes an unfinished wait; everything else replaces.
func (r *stagedRunResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	withHubModelTimeout(ctx, r.Clients, req.Plan, &resp.Diagnostics, timeouts.Value.Update, stagedRunCreateTimeout, func(ctx context.Context, plan *stagedRunModel, h *hub.Client) {
		ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
		kind := hub.StagedKind("run", ns)
		run, err := h.Run(ctx, ns, name)
		if err != nil {
			addStagedError(&resp.Diagnostics, "Reading", "run", ns, name, err)
			return
		}
		if want := placementv1.State(plan.State.ValueString()); run.Spec.State != want {
			if run, err = h.SetRunState(ctx, ns, name, want); err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("state"), "Changing the staged update run's state",
					fmt.Sprintf("Setting spec.state of %s %q to %s: %v", kind, hub.Key(ns, name), want, err))
				return
			}
			tflog.Info(ctx, "staged update run state changed", map[string]any{"run": hub.Key(ns, name), "state": string(want)})
		}
		r.converge(ctx, h, plan, run, false, &resp.State, &resp.Diagnostics)
	})
}

func (r *stagedRunResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	withHubModelTimeout(ctx, r.Clients, req.State, &resp.Diagnostics, timeouts.Value.Delete, stagedRunDeleteTimeout, func(ctx context.Context, state *stagedRunModel, h *hub.Client) {
		ns, name := state.Namespace.ValueString(), state.Name.ValueString()
		kind := hub.StagedKind("run", ns)
		if err := h.DeleteRun(ctx, ns, name); err != nil {
			addStagedError(&resp.Diagnostics, "Deleting", "run", ns, name, err)
			return
		}
		// The controller's finalizer removes the run's approval requests first.
		tick := time.NewTicker(stagedRunPoll)
		defer tick.Stop()
		for {
			there, err := h.RunExists(ctx, ns, name)
			if err == nil && !there {
				return
			}
			select {
			case <-ctx.Done():
				resp.Diagnostics.AddError("Deleting the staged update run", fmt.Sprintf("%s %q is still on the hub (%v): its finalizer has not finished.", kind, hub.Key(ns, name), context.Cause(ctx)))
				return
			case <-tick.C:
			}
		}
	})
}

type stagedRunModel struct {
	ID                    types.String `tfsdk:"id"`
	Name                  types.String `tfsdk:"name"`
	Namespace             types.String `tfsdk:"namespace"`
	PlacementName         types.String `tfsdk:"placement_name"`
	ResourceSnapshotIndex types.String `tfsdk:"resource_snapshot_index"`
	StrategyName          types.String `tfsdk:"staged_update_strategy_name"`
	State                 types.String `tfsdk:"state"`
	Approvals             []string     `tfsdk:"approvals"`
	WaitFor               types.String `tfsdk:"wait_for"`
	timed
	Preview types.Object `tfsdk:"preview"`
	Facts   types.String `tfsdk:"facts"`
	Status  types.Object `tfsdk:"status"`
}

// converge approves the stages the configuration approves, waits as wait_for says, and saves
// state — also when a step fails. In Create an interrupted wait is a warning: an error would
// taint the run and the next apply would replace it instead of waiting for it.
func (r *stagedRunResource) converge(ctx context.Context, h *hub.Client, plan *stagedRunModel, run *placementv1.ClusterStagedUpdateRun, creating bool, st *tfsdk.State, diags *diag.Diagnostics) {
	ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
	var reqs []placementv1.ClusterApprovalRequest
	save := func() {
		if latest, err := h.Run(context.WithoutCancel(ctx), ns, name); err == nil {
			run = latest
		}
		if got, err := h.ApprovalRequests(context.WithoutCancel(ctx), ns, name); err == nil {
			reqs = got
		}
		plan.Status = stagedRunStatus(run, reqs, r.Clients.ListLimit(), diags)
		diags.Append(st.Set(ctx, plan)...)
	}
	approve := func() error {
		got, err := h.ApprovalRequests(ctx, ns, name)
		if err != nil {
			return err
		}
		for _, req := range staged.WaitingApprovals(run, got) {
			if stagedApproves(plan.Approvals, &req) {
				if err := h.Approve(ctx, &req, r.Clients.Now(), "terraform-provider-fleet"); err != nil {
					return fmt.Errorf("approving %s (%s): %w", req.Name, stagedApprovalWhat(&req), err)
				}
				tflog.Info(ctx, "approved stage", map[string]any{"run": hub.Key(ns, name), "stage": req.Spec.TargetStage, "approval_request": req.Name, "task": stagedApprovalWhat(&req)})
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
	target := plan.State.ValueString()
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
		if !state.Ended() && stagedReached(target, state) {
			save()
			return
		}
		switch state {
		case staged.StateSucceeded:
			save()
			return
		case staged.StateInitializationFailed:
			save()
			detail := fmt.Sprintf("KubeFleet refused to start run %q: %s", name, msg)
			if creating {
				detail += "\n\n" + stagedCreatedTainted + " (deletes it and creates it anew, which KubeFleet initializes again: it " +
					"refuses it the same way until the cause is fixed). " + stagedUntaint
			}
			diags.AddError("Staged update run failed to initialize", detail)
			return
		case staged.StateFailed:
			save()
			detail := msg
			if failed := staged.FailedClusters(run); len(failed) > 0 {
				detail += "\n\nFailed: " + strings.Join(failed, "; ")
			}
			if creating {
				detail += "\n\n" + stagedCreatedTainted + " (deletes it and creates a new run under the same name, which rolls the " +
					"placement's resources out again from the first stage: KubeFleet does not resume a Failed run). " + stagedUntaint
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
			why := stagedStoppedWaiting(name, state, msg, context.Cause(ctx), stagedWaitingFor(run, reqs, plan.Approvals))
			if creating {
				diags.AddWarning("Stopped waiting for the staged update run", why+"\n\nThe run was created and its state is saved: the next apply resumes waiting for the same run.")
			} else {
				diags.AddError("Waiting for the staged update run", why)
			}
			return
		case <-tick.C:
		}
		got, err := h.Run(ctx, ns, name)
		if err != nil {
			if ctx.Err() == nil {
				tflog.Warn(ctx, "reading the staged update run failed; retrying", map[string]any{"run": name, "error": err.Error()})
			}
			continue
		}
		run = got
	}
}

// What follows a run that failed in the apply that created it: Terraform taints an object whose
// create returned an error, and the next plan replaces a tainted object (the protocol gives the
// provider no way to keep it).
const (
	stagedCreatedTainted = "The run is saved in state, but Terraform marks a resource whose create failed as tainted: the next plan replaces this run"
	stagedUntaint        = "To keep the failed run and its status in state instead, run `terraform untaint` with this resource's address."
)

// stagedStoppedWaiting is why a wait ended before the run did: its state, the controller's message
// (a stuck run's Progressing condition, UpdateRunStuck, names the stage and the clusters it
// waits for), the cause and the approvals it waits for that the configuration does not give.
func stagedStoppedWaiting(name string, state staged.State, msg string, cause error, waiting string) string {
	said := ""
	if msg != "" {
		said = ": " + strings.TrimSuffix(msg, ".")
	}
	return fmt.Sprintf("Run %q is %s%s (%v)%s.", name, state, said, cause, waiting)
}

// stagedWaitingFor says which approvals an unfinished run waits for that this configuration does
// not give.
func stagedWaitingFor(run *placementv1.ClusterStagedUpdateRun, reqs []placementv1.ClusterApprovalRequest, approvals []string) string {
	var out []string
	for _, req := range staged.WaitingApprovals(run, reqs) {
		if !stagedApproves(approvals, &req) {
			out = append(out, fmt.Sprintf("%s (%s)", req.Name, stagedApprovalWhat(&req)))
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
	return !stagedReached(plan.State.ValueString(), staged.State(st.State.ValueString()))
}

// stagedReached reports whether a run in state has reached what a wait for target waits for:
// initialized (Initialize), stopped (Stop), or an end (every target).
func stagedReached(target string, state staged.State) bool {
	switch {
	case state.Ended():
		return true
	case target == string(placementv1.StateInitialize):
		return state == staged.StateInitialized
	case target == string(placementv1.StateStop):
		return state == staged.StateStopped
	}
	return false
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
	for _, what := range st.ApprovalsWaiting {
		kind, stage, _ := strings.Cut(what, ":")
		if slices.Contains(plan.Approvals, stage) || slices.Contains(plan.Approvals, what) || slices.Contains(plan.Approvals, kind+":"+stage) {
			return true
		}
	}
	return false
}

// stagedApprovalWhat is `before:<stage>` or `after:<stage>`: which task an approval request is for.
func stagedApprovalWhat(req *placementv1.ClusterApprovalRequest) string {
	if staged.IsBefore(req) {
		return "before:" + req.Spec.TargetStage
	}
	return "after:" + req.Spec.TargetStage
}

// stagedApproves reports whether approvals approve req: its stage (both tasks) or its task.
func stagedApproves(approvals []string, req *placementv1.ClusterApprovalRequest) bool {
	return slices.Contains(approvals, req.Spec.TargetStage) || slices.Contains(approvals, stagedApprovalWhat(req))
}

// stagedTransitionAllowed is the CRD's rule on spec.state (apis/placement/v1/stageupdate_types.go
// UpdateRunSpec XValidation): not Initialize → Stop, Run → Initialize, Stop → Initialize.
func stagedTransitionAllowed(from, to string) bool {
	initialize, run, stop := string(placementv1.StateInitialize), string(placementv1.StateRun), string(placementv1.StateStop)
	refused := from == initialize && to == stop || from == run && to == initialize || from == stop && to == initialize
	return from == "" || !refused
}

func sortedSet(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// stagedIndexRe is a resource snapshot index as the controller parses it (strconv.Atoi, >= 0).
var stagedIndexRe = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// runInputs reads what the controller initializes the run from, with the hub's member clusters,
// through v (the live fleet, or the plan's facts).
func runInputs(ctx context.Context, v view.Fleet, plan stagedRunModel) (hub.RunInputs, error) {
	return v.RunInputs(ctx, plan.Namespace.ValueString(), plan.PlacementName.ValueString(), plan.StrategyName.ValueString())
}

// scheduledInputs is runInputs once the hub agent has scheduled the placement: a placement created
// in this apply is still being scheduled, and a run created then would fail for good
// (staged.Scheduling).
func (r *stagedRunResource) scheduledInputs(ctx context.Context, plan stagedRunModel) (hub.RunInputs, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for logged := false; ; logged = true {
		in, err := runInputs(ctx, r.Clients.View(), plan)
		if err != nil || !staged.Scheduling(stagedInputs(in, plan)) {
			return in, err
		}
		if !logged {
			tflog.Info(ctx, "waiting for the hub agent to schedule the placement before creating the run", map[string]any{"placement": plan.PlacementName.ValueString()})
		}
		select {
		case <-ctx.Done():
			return in, fmt.Errorf("placement %s is not scheduled yet: %w", plan.PlacementName.ValueString(), ctx.Err())
		case <-tick.C:
		}
	}
}

// addMissingSnapshotError fails the plan of a run naming a resource snapshot index its External
// placement does not have: KubeFleet would refuse the run at once and for good
// (staged.MissingSnapshotForGood), so the plan says why and how to fix it instead of creating it.
func addMissingSnapshotError(d *diag.Diagnostics, plan stagedRunModel, in hub.RunInputs, refusal string) {
	idx := plan.ResourceSnapshotIndex.ValueString()
	has := "none yet"
	if have := staged.SnapshotIndexes(stagedInputs(in, plan)); len(have) > 0 {
		has = "indexes " + strings.Join(have, ", ")
	}
	placement := hub.Key(plan.Namespace.ValueString(), plan.PlacementName.ValueString())
	d.AddAttributeError(path.Root("resource_snapshot_index"), "KubeFleet will refuse the staged update run",
		fmt.Sprintf("Attribute resource_snapshot_index: KubeFleet v0.18.9 would fail run %q at once and for good: %s.\n\n"+
			"Placement %q rolls out under strategy.type = \"External\", for which KubeFleet takes no resource snapshot until a run "+
			"does, and it has no snapshot of index %s (it has %s). Leave resource_snapshot_index out to have the run snapshot the "+
			"placement's resources itself (status.resource_snapshot_index_used then says which index), or name an index the "+
			"placement has (its resource_snapshots list them). If another run of this configuration takes that snapshot first, set "+
			"the index from that run's status.resource_snapshot_index_used: an index unknown at plan is checked at apply.",
			plan.Name.ValueString(), refusal, placement, idx, has))
}

// stagedMissing names the referenced object the hub does not have yet.
func stagedMissing(in hub.RunInputs, plan stagedRunModel) string {
	ns := plan.Namespace.ValueString()
	switch {
	case in.Placement == nil && ns != "":
		return fmt.Sprintf("ResourcePlacement %q", hub.Key(ns, plan.PlacementName.ValueString()))
	case in.Placement == nil:
		return fmt.Sprintf("placement %q", plan.PlacementName.ValueString())
	case in.Strategy == nil:
		return fmt.Sprintf("%s %q", hub.StagedKind("strategy", ns), hub.Key(ns, plan.StrategyName.ValueString()))
	}
	return ""
}

func stagedInputs(in hub.RunInputs, plan stagedRunModel) staged.Inputs {
	return staged.Inputs{
		RunName: plan.Name.ValueString(), Namespace: plan.Namespace.ValueString(), Placement: in.Placement, PlacementName: plan.PlacementName.ValueString(),
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
		for kind, tasks := range map[string][]placementv1.StageTask{"before": st.BeforeStageTasks, "after": st.AfterStageTasks} {
			for _, t := range tasks {
				if t.Type == placementv1.StageTaskTypeApproval {
					withApproval[st.Name] = true
					withApproval[kind+":"+st.Name] = true
				}
			}
		}
	}
	for _, a := range approvals {
		if !withApproval[a] {
			var stages []string
			for k := range withApproval {
				if !strings.Contains(k, ":") {
					stages = append(stages, k)
				}
			}
			slices.Sort(stages)
			diags.AddAttributeError(path.Root("approvals").AtSetValue(types.StringValue(a)), "No approval to give",
				fmt.Sprintf("Attribute approvals: strategy %q has no Approval task for %q (stages with one: %s).", s.Name, a, strings.Join(stages, ", ")))
		}
	}
}
