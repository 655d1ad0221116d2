package rollout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
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
	_ resource.ResourceWithValidateConfig = (*updateRunResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*updateRunResource)(nil)
)

// updateRunResource is fleet_update_run: fleets/updateRuns with start, stop, skip and gates.
type updateRunResource struct{ shared.ResourceBase }

const (
	updateRunCreateTimeout = 3 * time.Hour
	updateRunDeleteTimeout = 30 * time.Minute

	// updateRunPollInterval is how often a wait reads the run: SPEC §8, at
	// most one Fleet API request per 30 s of waiting.
	updateRunPollInterval = 30 * time.Second
	// updateRunPollIntervalEnv shortens the interval in acceptance tests only
	// (honoured when TF_ACC is set); users cannot make the wait chattier.
	updateRunPollIntervalEnv = "FLEET_TEST_UPDATE_RUN_POLL_INTERVAL"
)

// pollInterval is updateRunPollInterval, or the test override.
func pollInterval() time.Duration {
	if os.Getenv("TF_ACC") != "" {
		if d, err := time.ParseDuration(os.Getenv(updateRunPollIntervalEnv)); err == nil && d > 0 {
			return d
		}
	}
	return updateRunPollInterval
}

// States of the `state` attribute: what apply makes the run.
const (
	runStateNotStarted = "NotStarted"
	runStateRunning    = "Running"
	runStateStopped    = "Stopped"
)

var runKubernetesVersionRe = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`)

// updateRunDefinitionAttributes define the run: the preview follows them,
// and changing one after the run started replaces it.
var updateRunDefinitionAttributes = []string{"fleet_id", "update_strategy_id", "stage", "managed_cluster_update", "triggers"}

func (r *updateRunResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "An update run of an Azure Kubernetes Fleet Manager fleet (`fleets/updateRuns`): upgrades the members' clusters " +
			"stage by stage. Apply creates the run and starts, stops, skips and approves it to match the configuration, and can " +
			"wait for it. The plan's `preview` is the rollout plan — which member is upgraded when, in which stage, group and " +
			"maintenance window, from which versions to which, and which members are skipped or stay pending and why — computed by " +
			"the rules Fleet Manager's update-run documentation states (the guide \"How previews are verified\" says what they are checked against). `status` is the run's status tree, refreshed from the Fleet API. " +
			"Create never overwrites a run made elsewhere: a run of the same name with the planned definition (left by an apply " +
			"killed before it saved state, or made by a concurrent apply) is adopted with a warning, and any other is an error " +
			"naming the first attribute that differs. Changes are guarded by the run's ETag.",
		Attributes: map[string]rschema.Attribute{
			"id":   shared.IDAttribute(idDescription("update run", "updateRuns")),
			"name": shared.ReplacingAttribute("The run's name: lower-case letters, digits and '-', 1 to 50 characters. Changing it replaces the run.", childNameValidators()...),
			"fleet_id": rschema.StringAttribute{
				Optional: true, Computed: true, Description: shared.FleetIDAttribute("run").Description, Validators: shared.FleetIDAttribute("run").Validators,
				PlanModifiers: shared.KeptOrReplaced(),
			},
			"update_strategy_id": rschema.StringAttribute{
				Optional: true,
				Description: "The ARM ID of a fleet_update_strategy; the Fleet API copies its stages into the run when the run is created. " +
					"Conflicts with `stage`; with neither, members are updated one by one. Changing it once the run has started replaces the run.",
			},
			"state": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(runStateRunning),
				Description: "What apply makes of the run: `NotStarted` (created, not started), `Running` (default: started) or " +
					"`Stopped`. Transitions: NotStarted → Running starts the run; Running → Stopped stops it (member upgrades under " +
					"way finish); Stopped → Running starts it again where it stopped; a started run cannot go back to NotStarted. " +
					"Refresh reads a Stopping or Stopped run as `Stopped` (so a run stopped outside Terraform is started again by the " +
					"next apply, which its plan says in a warning) and keeps the configured value for a run that ended Completed, " +
					"Failed or Skipped: a Failed run is never re-started by an apply unless `retry` changes (or Terraform replaces it: a " +
					"run that failed in the apply that created it is tainted, see `wait_for`). `status.state` is the " +
					"run's own state (NotStarted, Running, Stopping, Stopped, Completed, Failed, Skipped, Pending).",
				Validators: []validator.String{stringvalidator.OneOf(runStateNotStarted, runStateRunning, runStateStopped)},
			},
			"retry": rschema.StringAttribute{
				Optional: true,
				Description: "Any value; changing it re-starts the run in place if it is Failed (the Fleet API restarts a Failed run " +
					"from the last unprocessed cluster). With the run in any " +
					"other state a change does nothing but update this value, and its plan says so in a warning. A run that ended " +
					"Completed or Skipped is run again with `triggers` instead (a new run under the same name).",
			},
			"wait_for": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(shared.WaitNone),
				Description: "What apply waits for once it has started the run (with `state = \"Running\"`): `none` (default) returns " +
					"as soon as the Fleet API accepted the start; `started` waits until the run is past NotStarted (Running, Pending " +
					"or already ended), reading it at most once every 30 seconds; `completed` waits until the run is Completed, reading it at most " +
					"once every 30 seconds and logging each state change, and fails naming each failed member and its message if the run " +
					"ends Failed or Stopped (the state is saved either way). When a timeout or a cancelled apply stops the wait while the run " +
					"goes on, the state is saved (a warning on create, which must not taint the run; an error on update) and the next plan is " +
					"an in-place update whose apply resumes waiting for the same run. A run that ends Failed or Stopped in the apply that " +
					"created it is marked tainted by Terraform (it taints whatever a failed create leaves in state; the provider cannot " +
					"prevent it), so the next plan replaces it: the apply deletes it and creates and starts a new run under the same " +
					"name, which upgrades the members not at the target again, the failed one included. To keep the run instead, " +
					"`terraform untaint` it: the next plan then changes nothing, and `retry` re-starts it in place once the cause is fixed.",
				Validators: []validator.String{stringvalidator.OneOf(shared.WaitNone, shared.WaitStarted, shared.WaitCompleted)},
			},
			"accepted_failures": rschema.Int64Attribute{
				Optional: true,
				Description: "How many failed members a run that ends Completed may have for `wait_for = \"completed\"` to succeed (default 0). " +
					"With `max_allowed_failures` the Fleet API goes past member failures within the thresholds and ends the run Completed, " +
					"reporting them in `status.failure_count`: apply then fails naming the failed members and their messages when there are " +
					"more than this (the state is saved either way), so a Completed run never hides failures you did not accept. The plan " +
					"warns when the preview predicts more." + previewVersionNote,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"triggers": rschema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Description: "Arbitrary values (as `terraform_data`'s `triggers_replace`) whose change runs the update again: the run is " +
					"deleted and created anew under the same name over the members as they are then, and started as `state` says. " +
					"This is how a run that ended Completed or Skipped is re-run to apply updates it skipped or that failed — the " +
					"Fleet API starts only runs that are NotStarted, Stopped or Failed (a Stopped run is re-started in place by " +
					"`state = \"Running\"`, a Failed one by changing `retry`). The plan's `preview` of the " +
					"replacement shows what the re-run would do: members already at the target are skipped, those skipped or failed " +
					"last time are upgraded.",
			},
			"facts":   preview.FactsAttribute("the preview"),
			"preview": runPreviewAttribute(),
			"status":  runStatusAttribute(),
		},
		Blocks: updateRunBlocks(ctx),
		// Version 1: nested attributes became blocks (issue 35).
		Version: 1,
	}
}

func updateRunBlocks(ctx context.Context) map[string]rschema.Block {
	b := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: updateRunCreateTimeout, Update: updateRunCreateTimeout, Delete: updateRunDeleteTimeout})
	b["stage"] = stagesBlock(false, " Inline stages instead of `update_strategy_id` (optional: with neither, members are updated one by one). "+
		"To run a fleet_update_strategy's stages, set `update_strategy_id` (the Fleet API copies them when the run is created); to "+
		"build the stages from other values, use a `dynamic \"stage\"` block. Changing them once the run has started replaces the run.")
	b["managed_cluster_update"] = rschema.SingleNestedBlock{
		Description: "Required. What the run upgrades. Changing it once the run has started replaces the run.",
		Validators:  []validator.Object{objectvalidator.IsRequired()},
		Blocks: map[string]rschema.Block{
			"upgrade": shared.RequiredInBlock(rschema.SingleNestedBlock{
				Description: "Required. The upgrade.",
				Validators:  []validator.Object{objectvalidator.IsRequired()},
				Attributes: map[string]rschema.Attribute{
					"type": rschema.StringAttribute{
						Required: true, Description: "`Full` (control plane and node pools), `ControlPlaneOnly` or `NodeImageOnly`.",
						Validators: []validator.String{stringvalidator.OneOf("Full", "ControlPlaneOnly", "NodeImageOnly")},
					},
					"kubernetes_version": rschema.StringAttribute{
						Optional: true, Description: "The target Kubernetes version (e.g. `1.33.1`, or `1.33` for the minor's latest patch, as AKS reads it): required for Full and ControlPlaneOnly, not allowed for NodeImageOnly.",
						// The forms kubeversion.ParseAny reads (AKS's kubernetesVersion: major.minor or major.minor.patch).
						Validators: []validator.String{stringvalidator.RegexMatches(runKubernetesVersionRe, `must be a Kubernetes version "major.minor.patch" (e.g. "1.33.1") or "major.minor"`)},
					},
				},
			}, "type"),
			"node_image_selection": shared.RequiredInBlock(rschema.SingleNestedBlock{
				Description: "How node images are chosen (Full and NodeImageOnly). Default: Latest.",
				Attributes: map[string]rschema.Attribute{
					"type": rschema.StringAttribute{
						Required: true,
						Description: "`Latest` (each cluster's region's newest image when its upgrade starts), `Consistent` (the newest " +
							"image version every region of the run's members has; a member with a pool that has none is skipped) or `Custom`.",
						Validators: []validator.String{stringvalidator.OneOf("Latest", "Consistent", "Custom")},
					},
					"custom_versions": rschema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						Description: "With Custom: full node image versions, e.g. `AKSUbuntu-2204gen2containerd-202511.04.0`.",
						Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
					},
				},
			}, "type"),
		},
	}
	b["skip"] = rschema.ListNestedBlock{
		Description: "A target to skip (repeat the block for more); targets added are skipped on the next apply (a skip cannot be undone).",
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
			"type": rschema.StringAttribute{
				Required: true, Description: "`Member`, `Group`, `Stage` or `AfterStageWait` (the wait after the named stage).",
				Validators: []validator.String{stringvalidator.OneOf("Member", "Group", "Stage", "AfterStageWait")},
			},
			"name": rschema.StringAttribute{Required: true, Description: "The member's, group's or stage's name."},
		}},
	}
	b["approval"] = rschema.ListNestedBlock{
		Description: "An approval gate apply approves once the run reaches it (repeat the block for more), by position rather than gate ID: " +
			"a stage's gate (no `group`) or a group's, Before or After it. A gate the run reaches later is approved by a waiting apply " +
			"(`wait_for = \"completed\"`) or by the next apply.",
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
			"stage":  rschema.StringAttribute{Required: true, Description: "The stage."},
			"group":  rschema.StringAttribute{Optional: true, Description: "The group, for a group's gate."},
			"timing": rschema.StringAttribute{Required: true, Description: "`Before` or `After`.", Validators: []validator.String{stringvalidator.OneOf("Before", "After")}},
		}},
	}
	return b
}

// UpgradeState upgrades the state of the nested-attribute schema (version 0).
func (r *updateRunResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	renames := stageRenames("stages")
	renames["approvals"] = "approval"
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(shared.BlockRenames{Renames: renames})}
}

// ValidateConfig checks field combinations the Fleet API rejects.
func (r *updateRunResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg updateRunModel
	unknown, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("status"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(cfg.Stages) > 0 && !cfg.UpdateStrategyID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("stage"), "Conflicting arguments", "Set update_strategy_id or stage blocks, not both.")
	}
	if !cfg.UpdateStrategyID.IsNull() && !shared.PathsContain(unknown, path.Root("update_strategy_id")) {
		if _, _, err := fleetapi.ParseChildID(cfg.UpdateStrategyID.ValueString(), "updateStrategies"); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("update_strategy_id"), "Invalid update strategy ID", err.Error())
		}
	}
	validateStages(cfg.Stages, path.Root("stage"), unknown, &resp.Diagnostics)
	if m := cfg.ManagedClusterUpdate; m != nil && m.Upgrade != nil && !shared.PathsContain(unknown, path.Root("managed_cluster_update").AtName("upgrade").AtName("type")) &&
		!shared.PathsContain(unknown, path.Root("managed_cluster_update").AtName("upgrade").AtName("kubernetes_version")) {
		p := path.Root("managed_cluster_update").AtName("upgrade").AtName("kubernetes_version")
		switch t, v := m.Upgrade.Type.ValueString(), m.Upgrade.KubernetesVersion.ValueString(); {
		case t == "NodeImageOnly" && v != "":
			resp.Diagnostics.AddAttributeError(p, "Invalid attribute combination", "kubernetes_version is not allowed with the NodeImageOnly upgrade.")
		case t != "NodeImageOnly" && t != "" && v == "":
			resp.Diagnostics.AddAttributeError(p, "Missing attribute", fmt.Sprintf("kubernetes_version is required with the %s upgrade.", t))
		}
		if s := m.NodeImageSelection; s != nil {
			custom := s.Type.ValueString() == "Custom"
			if custom && len(s.CustomVersions) == 0 && !shared.PathsContain(unknown, path.Root("managed_cluster_update").AtName("node_image_selection").AtName("custom_versions")) {
				resp.Diagnostics.AddAttributeError(path.Root("managed_cluster_update").AtName("node_image_selection").AtName("custom_versions"), "Missing attribute", "custom_versions is required with the Custom node image selection.")
			}
			if !custom && len(s.CustomVersions) > 0 {
				resp.Diagnostics.AddAttributeError(path.Root("managed_cluster_update").AtName("node_image_selection").AtName("custom_versions"), "Invalid attribute combination", "custom_versions is allowed only with the Custom node image selection.")
			}
		}
	}
}

// ModifyPlan resolves the default fleet, plans a replacement when a started
// run's definition changes, plans an update when a configured approval's
// gate is waiting, and computes the preview when the run is created or its
// definition changes.
func (r *updateRunResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	defer addInventoryWarnings(r.Clients, &resp.Diagnostics)
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan updateRunModel
	unknown, diags := shared.DecodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, path.Root("preview"), path.Root("status"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	// Before anything is read or sent: the preview API's arguments need its version.
	if refusePreviewArguments(req.Config.Raw, r.Clients.FleetAPIVersion(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	var cfgFleet types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfgFleet)...)
	if cfgFleet.IsNull() && creating {
		f, ok := backend.ResolveFleet(r.Clients, types.StringNull(), &resp.Diagnostics)
		if !ok {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), types.StringValue(f.String()))...)
		plan.FleetID = types.StringValue(f.String())
		unknown = shared.RemovePath(unknown, path.Root("fleet_id"))
	}
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, updateRunDefinitionAttributes...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the update run", err.Error())
		return
	}
	if !creating {
		var state updateRunModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		started := state.State.ValueString() != runStateNotStarted
		planRunTransitions(ctx, state, plan, &resp.Diagnostics)
		if !started {
			// A started run is replaced by any change of its stages (below).
			planCreateOnly(state.Stages, plan.Stages, "run", &resp.RequiresReplace, &resp.Diagnostics)
		}
		if changed && started {
			for _, a := range []string{"update_strategy_id", "stage", "managed_cluster_update"} {
				c, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, a)
				if err != nil {
					resp.Diagnostics.AddAttributeError(path.Root(a), "Planning the update run", err.Error())
					return
				}
				if c {
					resp.RequiresReplace = append(resp.RequiresReplace, path.Root(a))
				}
			}
			if len(resp.RequiresReplace) > 0 {
				resp.Diagnostics.AddAttributeWarning(resp.RequiresReplace[0], "A new update run will be created and started",
					fmt.Sprintf("Update run %q has started (%s); its definition cannot change, so apply deletes it and creates a new run "+
						"under the same name over the members as they are then, started as `state` says (%s).",
						plan.Name.ValueString(), statusState(ctx, state), plan.State.ValueString()))
			}
		}
		if retrigger, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, "triggers"); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("triggers"), "Planning the update run", err.Error())
			return
		} else if retrigger {
			// A new run replaces this one: nothing of the old one's status carries over.
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(runStatusType.AttrTypes))...)
		}
		if !changed && (r.approvalWaiting(ctx, state, plan) || waitResumes(ctx, req.Private, state, plan, &resp.Diagnostics)) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.ObjectUnknown(runStatusType.AttrTypes))...)
		}
	}
	updateRunPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
}

// updateRunPreviewSpec is the run's preview: the rollout plan over the fleet's members.
var updateRunPreviewSpec = preview.Spec[updateRunModel]{
	What:      "the update run preview",
	AttrTypes: runPreviewType.AttrTypes,
	Follows:   updateRunDefinitionAttributes,
	Reads: []facts.Input{facts.InputFleetClock, facts.InputSettings, facts.InputFleetMembers, facts.InputWindows,
		facts.InputStrategies, facts.InputRegions},
	Compute: func(ctx context.Context, v view.Fleet, plan *updateRunModel, d *diag.Diagnostics) (attr.Value, error) {
		obj, warnings, err := runPreview(ctx, v, plan)
		var invalid *invalidRunError
		if errors.As(err, &invalid) {
			d.AddAttributeError(path.Root("managed_cluster_update"), "Invalid update run", invalid.Error())
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			d.AddAttributeWarning(preview.Path, "Update run preview", w)
		}
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *updateRunResource) PreviewInputs() []facts.Input {
	return updateRunPreviewSpec.Inputs()
}

type invalidRunError struct{ err error }

func (e *invalidRunError) Error() string { return e.err.Error() }

func (r *updateRunResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportFleetChild(ctx, req, resp, "updateRuns", "an update run's", map[string]any{
		"wait_for": shared.WaitNone,
		"preview":  types.ObjectNull(runPreviewType.AttrTypes),
		"status":   types.ObjectNull(runStatusType.AttrTypes),
	})
}

func (r *updateRunResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Create, updateRunCreateTimeout, &resp.Diagnostics, func(ctx context.Context, plan updateRunModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		if plan.Preview.IsUnknown() {
			// Unknown at plan (an input was): computed now, before the run exists.
			obj, _, err := runPreview(ctx, r.Clients.View(), &plan)
			if err != nil {
				resp.Diagnostics.AddWarning("Update run preview", fmt.Sprintf("The preview could not be computed: %v", err))
				obj = types.ObjectNull(runPreviewType.AttrTypes)
			}
			plan.Preview = obj
		}
		name := plan.Name.ValueString()
		poller, err := fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, plan.toAPI(), &fleetapi.Precondition{IfNoneMatch: "*"})
		run, err := shared.PollDone(ctx, poller, err)
		var skipped []skipModel
		if err != nil && fleetapi.IsPreconditionFailed(err) {
			if run, err = r.adopt(ctx, fc, fleet, &plan, &resp.Diagnostics); run == nil && err == nil {
				return
			}
			if run != nil && runState(run) != fleetapi.UpdateStateNotStarted {
				// The apply that made it skipped the planned targets before it started the run.
				skipped = plan.Skip
			}
		}
		if err != nil {
			resp.Diagnostics.AddError("Creating the update run", fmt.Sprintf("Update run %q: %v", name, err))
			return
		}
		tflog.Info(ctx, "update run created", map[string]any{"run": name, "fleet": fleet.String()})
		// After converge has saved the run in state.
		defer func() {
			updateRunPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics)
		}()
		plan.ID = types.StringValue(fleet.ChildID("updateRuns", name))
		plan.FleetID = types.StringValue(fleet.String())
		resp.Diagnostics.Append(backend.SaveETag(ctx, resp.Private, run.ETag)...)
		r.converge(ctx, fc, fleet, &plan, skipped, run, true, false, &resp.State, resp.Private, &resp.Diagnostics)
	})
}

// adopt takes over the run a Create found under its name when its
// definition is the planned one (adopt.go): the run of an apply that was
// killed before it saved state, or of a concurrent apply. Otherwise it
// reports the difference and returns nil, nil.
func (r *updateRunResource) adopt(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, diags *diag.Diagnostics) (*fleetapi.UpdateRun, error) {
	name := plan.Name.ValueString()
	existing, err := fc.GetUpdateRun(ctx, fleet, name)
	if err != nil {
		return nil, fmt.Errorf("it exists already, and reading it failed: %w", err)
	}
	if d := specDiff(runSpec(plan.toAPI().Properties), runSpec(existing.Properties)); d != "" {
		addExistsError(diags, "update run", name, fleet.ChildID("updateRuns", name), d)
		return nil, nil
	}
	tflog.Info(ctx, "update run existed with the planned definition; adopted", map[string]any{"run": name, "state": string(runState(existing))})
	diags.AddWarning("Existing update run adopted", fmt.Sprintf("The fleet already had an update run named %q with the planned definition "+
		"(%s), made by an apply that did not save it to state or by one running at the same time. Terraform now manages that run; "+
		"no second run was created.", name, runState(existing)))
	return existing, nil
}

func (r *updateRunResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var state updateRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	backend.FleetOp(ctx, r.Clients, req.Plan, timeouts.Value.Update, updateRunCreateTimeout, &resp.Diagnostics, func(ctx context.Context, plan updateRunModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		name := plan.Name.ValueString()
		run, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			resp.Diagnostics.AddError("Reading the update run", err.Error())
			return
		}
		changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, "update_strategy_id", "stage", "managed_cluster_update")
		if err != nil {
			resp.Diagnostics.AddError("Updating the update run", fmt.Sprintf("Update run %q: %v", name, err))
			return
		}
		if changed {
			// Not started (ModifyPlan replaces a started run): change it in place, guarded by its ETag.
			pre, d := backend.ETagPrecondition(ctx, req.Private)
			resp.Diagnostics.Append(d...)
			poller, err := fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, plan.toAPI(), pre)
			if run, err = shared.PollDone(ctx, poller, err); err != nil {
				if fleetapi.IsPreconditionFailed(err) {
					addChangedElsewhereError(&resp.Diagnostics, "update run", name, err)
					return
				}
				resp.Diagnostics.AddError("Updating the update run", fmt.Sprintf("Update run %q: %v", name, err))
				return
			}
			resp.Diagnostics.Append(backend.SaveETag(ctx, resp.Private, run.ETag)...)
			// After converge has saved the run in state.
			defer func() {
				updateRunPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, &plan, plan.Preview, &resp.Diagnostics)
			}()
		}
		// Re-start a Failed run only if the reviewed plan saw it Failed (and said so): a run that fails
		// between plan and apply is not re-started by a plan that said "nothing to retry".
		retry := !plan.Retry.Equal(state.Retry) && statusState(ctx, state) == string(fleetapi.UpdateStateFailed)
		r.converge(ctx, fc, fleet, &plan, state.Skip, run, false, retry, &resp.State, resp.Private, &resp.Diagnostics)
	})
}

func (r *updateRunResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state updateRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	run, fleet, ok := backend.ReadFleetChild(ctx, r.Clients, resp, state.FleetID, name, (*fleetapi.Client).GetUpdateRun, "update run", map[string]any{"run": name})
	if !ok {
		return
	}
	state.ID = types.StringValue(fleet.ChildID("updateRuns", name))
	state.FleetID = types.StringValue(fleet.String())
	if p := run.Properties; p != nil {
		if p.UpdateStrategyID != "" {
			state.UpdateStrategyID = types.StringValue(p.UpdateStrategyID)
		} else {
			state.UpdateStrategyID = types.StringNull()
		}
		if p.UpdateStrategyID == "" && p.Strategy != nil && len(p.Strategy.Stages) > 0 {
			state.Stages = stagesFromAPI(*p.Strategy, state.Stages)
		} else if p.UpdateStrategyID != "" {
			state.Stages = nil
		}
		if p.ManagedClusterUpdate != nil {
			state.ManagedClusterUpdate = mcuFromAPI(*p.ManagedClusterUpdate, state.ManagedClusterUpdate)
		}
	}
	state.State = types.StringValue(desiredFromActual(runState(run), state.State))
	if state.WaitFor.IsNull() {
		state.WaitFor = types.StringValue(shared.WaitNone)
	}
	state.Status = runStatusObject(ctx, run, &resp.Diagnostics)
	resp.Diagnostics.Append(backend.SaveETag(ctx, resp.Private, run.ETag)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *updateRunResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.FleetOp(ctx, r.Clients, req.State, timeouts.Value.Delete, updateRunDeleteTimeout, &resp.Diagnostics, func(ctx context.Context, state updateRunModel, fc *fleetapi.Client, fleet fleetapi.FleetID) {
		name := state.Name.ValueString()
		run, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			if fleetapi.IsNotFound(err) {
				return
			}
			resp.Diagnostics.AddError("Reading the update run", err.Error())
			return
		}
		if s := runState(run); s == fleetapi.UpdateStateRunning || s == fleetapi.UpdateStatePending {
			// A running run is stopped first: member upgrades under way finish (Stopping), then it can go.
			tflog.Info(ctx, "stopping update run before deleting it", map[string]any{"run": name, "state": string(s)})
			poller, err := fc.BeginStopUpdateRun(ctx, fleet, name, nil)
			if _, err = shared.PollDone(ctx, poller, err); err != nil && !fleetapi.IsConflict(err) {
				resp.Diagnostics.AddError("Stopping the update run", err.Error())
				return
			}
		}
		interval := pollInterval()
		for {
			poller, err := fc.BeginDeleteUpdateRun(ctx, fleet, name, nil)
			_, err = shared.PollDone(ctx, poller, err)
			if err == nil || fleetapi.IsNotFound(err) {
				tflog.Info(ctx, "update run deleted", map[string]any{"run": name})
				return
			}
			if !fleetapi.IsConflict(err) {
				resp.Diagnostics.AddError("Deleting the update run", err.Error())
				return
			}
			// Still Stopping while a member upgrade finishes.
			tflog.Info(ctx, "update run still stopping; waiting to delete it", map[string]any{"run": name})
			select {
			case <-ctx.Done():
				resp.Diagnostics.AddError("Deleting the update run", fmt.Sprintf("Update run %q is still stopping: %v", name, err))
				return
			case <-time.After(interval):
			}
		}
	})
}

// ---- models ----

type updateRunModel struct {
	ID                   types.String    `tfsdk:"id"`
	Name                 types.String    `tfsdk:"name"`
	FleetID              types.String    `tfsdk:"fleet_id"`
	UpdateStrategyID     types.String    `tfsdk:"update_strategy_id"`
	Stages               []stageModel    `tfsdk:"stage"`
	ManagedClusterUpdate *mcuModel       `tfsdk:"managed_cluster_update"`
	State                types.String    `tfsdk:"state"`
	Retry                types.String    `tfsdk:"retry"`
	Skip                 []skipModel     `tfsdk:"skip"`
	Approvals            []approvalModel `tfsdk:"approval"`
	WaitFor              types.String    `tfsdk:"wait_for"`
	AcceptedFailures     types.Int64     `tfsdk:"accepted_failures"`
	Triggers             types.Map       `tfsdk:"triggers"`
	Timeouts             timeouts.Value  `tfsdk:"timeouts"`
	Facts                types.String    `tfsdk:"facts"`
	Preview              types.Object    `tfsdk:"preview"`
	Status               types.Object    `tfsdk:"status"`
}

// FleetAndTimeouts is what backend.FleetOp reads of the model.
func (m updateRunModel) FleetAndTimeouts() (types.String, timeouts.Value) {
	return m.FleetID, m.Timeouts
}

type mcuModel struct {
	Upgrade            *upgradeModel `tfsdk:"upgrade"`
	NodeImageSelection *nisModel     `tfsdk:"node_image_selection"`
}

type upgradeModel struct {
	Type              types.String `tfsdk:"type"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
}

type nisModel struct {
	Type           types.String   `tfsdk:"type"`
	CustomVersions []types.String `tfsdk:"custom_versions"`
}

type skipModel struct {
	Type types.String `tfsdk:"type"`
	Name types.String `tfsdk:"name"`
}

type approvalModel struct {
	Stage  types.String `tfsdk:"stage"`
	Group  types.String `tfsdk:"group"`
	Timing types.String `tfsdk:"timing"`
}

func (m *updateRunModel) toAPI() fleetapi.UpdateRun {
	p := &fleetapi.UpdateRunProperties{UpdateStrategyID: m.UpdateStrategyID.ValueString(), ManagedClusterUpdate: m.ManagedClusterUpdate.toAPI()}
	if len(m.Stages) > 0 {
		s := stagesToAPI(m.Stages)
		p.Strategy = &s
	}
	return fleetapi.UpdateRun{Properties: p}
}

func (m *mcuModel) toAPI() *fleetapi.ManagedClusterUpdate {
	if m == nil {
		return nil
	}
	out := &fleetapi.ManagedClusterUpdate{}
	if u := m.Upgrade; u != nil {
		out.Upgrade = fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.ManagedClusterUpgradeType(u.Type.ValueString()), KubernetesVersion: u.KubernetesVersion.ValueString()}
	}
	if s := m.NodeImageSelection; s != nil {
		out.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionType(s.Type.ValueString())}
		for _, v := range s.CustomVersions {
			out.NodeImageSelection.CustomNodeImageVersions = append(out.NodeImageSelection.CustomNodeImageVersions, fleetapi.NodeImageVersion{Version: v.ValueString()})
		}
	}
	return out
}

func (m *mcuModel) toRollout() rollout.Update {
	if m == nil {
		return rollout.Update{}
	}
	var u rollout.Update
	if up := m.Upgrade; up != nil {
		u.Upgrade, u.KubernetesVersion = rollout.UpgradeType(up.Type.ValueString()), up.KubernetesVersion.ValueString()
	}
	if s := m.NodeImageSelection; s != nil {
		u.NodeImageSelection = rollout.NodeImageSelectionType(s.Type.ValueString())
		for _, v := range s.CustomVersions {
			u.CustomNodeImageVersions = append(u.CustomNodeImageVersions, v.ValueString())
		}
	}
	return u
}

// mcuFromAPI maps the run's update back; prior keeps an unset node image
// selection unset when the API reports the default (Latest).
func mcuFromAPI(u fleetapi.ManagedClusterUpdate, prior *mcuModel) *mcuModel {
	out := &mcuModel{Upgrade: &upgradeModel{Type: types.StringValue(string(u.Upgrade.Type)), KubernetesVersion: types.StringNull()}}
	if u.Upgrade.KubernetesVersion != "" {
		out.Upgrade.KubernetesVersion = types.StringValue(u.Upgrade.KubernetesVersion)
	}
	// Latest is the service's default: shown only when the configuration set it.
	if s := u.NodeImageSelection; s != nil && (s.Type != fleetapi.NodeImageSelectionLatest || (prior != nil && prior.NodeImageSelection != nil)) {
		out.NodeImageSelection = &nisModel{Type: types.StringValue(string(s.Type))}
		for _, v := range s.CustomNodeImageVersions {
			out.NodeImageSelection.CustomVersions = append(out.NodeImageSelection.CustomVersions, types.StringValue(v.Version))
		}
	}
	return out
}
