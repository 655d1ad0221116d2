package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

var (
	_ resource.Resource                   = (*updateRunResource)(nil)
	_ resource.ResourceWithConfigure      = (*updateRunResource)(nil)
	_ resource.ResourceWithValidateConfig = (*updateRunResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*updateRunResource)(nil)
	_ resource.ResourceWithImportState    = (*updateRunResource)(nil)
)

// NewUpdateRunResource is fleet_update_run: fleets/updateRuns with start, stop, skip and gates.
func NewUpdateRunResource() resource.Resource { return &updateRunResource{} }

type updateRunResource struct {
	clients *engine.Clients
}

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

const (
	waitNone      = "none"
	waitStarted   = "started"
	waitCompleted = "completed"
)

// updateRunDefinitionAttributes define the run: the preview follows them,
// and changing one after the run started replaces it.
var updateRunDefinitionAttributes = []string{"fleet_id", "update_strategy_id", "stages", "managed_cluster_update", "triggers"}

func (r *updateRunResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_update_run"
}

func (r *updateRunResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "An update run of an Azure Kubernetes Fleet Manager fleet (`fleets/updateRuns`): upgrades the members' clusters " +
			"stage by stage. Apply creates the run and starts, stops, skips and approves it to match the configuration, and can " +
			"wait for it. The plan's `preview` is the rollout plan — which member is upgraded when, in which stage, group and " +
			"maintenance window, from which versions to which, and which members are skipped or stay pending and why — computed by " +
			"the same rules the Fleet API emulator executes. `status` is the run's status tree, refreshed from the Fleet API. " +
			"Create never overwrites a run made elsewhere: a run of the same name with the planned definition (left by an apply " +
			"killed before it saved state, or made by a concurrent apply) is adopted with a warning, and any other is an error " +
			"naming the first attribute that differs. Changes are guarded by the run's ETag.",
		Attributes: map[string]rschema.Attribute{
			"id": rschema.StringAttribute{
				Computed: true, Description: idDescription("updateRun"),
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": rschema.StringAttribute{
				Required: true, Description: "The run's name: lower-case letters, digits and '-', 1 to 50 characters. Changing it replaces the run.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    childNameValidators(),
			},
			"fleet_id": rschema.StringAttribute{
				Optional: true, Computed: true, Description: fleetIDAttribute("run").Description, Validators: fleetIDAttribute("run").Validators,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"update_strategy_id": rschema.StringAttribute{
				Optional: true,
				Description: "The ARM ID of a fleet_update_strategy; the Fleet API copies its stages into the run when the run is created. " +
					"Conflicts with `stages`; with neither, members are updated one by one. Changing it once the run has started replaces the run.",
			},
			"stages": stagesAttribute(false, " Inline stages instead of `update_strategy_id`. Changing them once the run has started replaces the run."),
			"managed_cluster_update": rschema.SingleNestedAttribute{
				Required: true, Description: "What the run upgrades. Changing it once the run has started replaces the run.",
				Attributes: map[string]rschema.Attribute{
					"upgrade": rschema.SingleNestedAttribute{
						Required: true, Description: "The upgrade.",
						Attributes: map[string]rschema.Attribute{
							"type": rschema.StringAttribute{
								Required: true, Description: "`Full` (control plane and node pools), `ControlPlaneOnly` or `NodeImageOnly`.",
								Validators: []validator.String{stringvalidator.OneOf("Full", "ControlPlaneOnly", "NodeImageOnly")},
							},
							"kubernetes_version": rschema.StringAttribute{
								Optional: true, Description: "The target Kubernetes version (e.g. `1.33.1`): required for Full and ControlPlaneOnly, not allowed for NodeImageOnly.",
							},
						},
					},
					"node_image_selection": rschema.SingleNestedAttribute{
						Optional: true, Description: "How node images are chosen (Full and NodeImageOnly). Default: Latest.",
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
					},
				},
			},
			"state": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(runStateRunning),
				Description: "`NotStarted`, `Running` (default) or `Stopped`: apply starts or stops the run to match. Refresh reads " +
					"Stopped for a run that is Stopped, Stopping or Failed, so apply re-starts it; a started run cannot go back to NotStarted.",
				Validators: []validator.String{stringvalidator.OneOf(runStateNotStarted, runStateRunning, runStateStopped)},
			},
			"skip": rschema.ListNestedAttribute{
				Optional:    true,
				Description: "Targets to skip; targets added to the list are skipped on the next apply (a skip cannot be undone).",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"type": rschema.StringAttribute{
						Required: true, Description: "`Member`, `Group`, `Stage` or `AfterStageWait` (the wait after the named stage).",
						Validators: []validator.String{stringvalidator.OneOf("Member", "Group", "Stage", "AfterStageWait")},
					},
					"name": rschema.StringAttribute{Required: true, Description: "The member's, group's or stage's name."},
				}},
			},
			"approvals": rschema.ListNestedAttribute{
				Optional: true,
				Description: "Approval gates apply approves once the run reaches them, by position rather than gate ID: a stage's gate " +
					"(no `group`) or a group's, Before or After it. A gate the run reaches later is approved by a waiting apply " +
					"(`wait_for = \"completed\"`) or by the next apply.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"stage":  rschema.StringAttribute{Required: true, Description: "The stage."},
					"group":  rschema.StringAttribute{Optional: true, Description: "The group, for a group's gate."},
					"timing": rschema.StringAttribute{Required: true, Description: "`Before` or `After`.", Validators: []validator.String{stringvalidator.OneOf("Before", "After")}},
				}},
			},
			"wait_for": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(waitNone),
				Description: "`none` (default), `started`, or `completed`: apply waits until the run is Completed, reading it at most " +
					"once every 30 seconds and logging each state change, and fails naming each failed member and its message if the run " +
					"ends Failed or Stopped (the state is saved either way). When a timeout or a cancelled apply stops the wait while the run " +
					"goes on, the state is saved (a warning on create, which must not taint the run; an error on update) and the next plan is " +
					"an in-place update whose apply resumes waiting for the same run.",
				Validators: []validator.String{stringvalidator.OneOf(waitNone, waitStarted, waitCompleted)},
			},
			"triggers": rschema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				Description: "Arbitrary values (as `terraform_data`'s `triggers_replace`) whose change runs the update again: the run is " +
					"deleted and created anew under the same name over the members as they are then, and started as `state` says. " +
					"This is how a run that ended Completed or Skipped is re-run to apply updates it skipped or that failed — the " +
					"Fleet API starts only runs that are NotStarted, Stopped or Failed (a Stopped or Failed run is re-started in place by " +
					"`state = \"Running\"`, which the next apply does after refresh reads Stopped). The plan's `preview` of the " +
					"replacement shows what the re-run would do: members already at the target are skipped, those skipped or failed " +
					"last time are upgraded.",
			},
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}, timeoutDefault{"create", updateRunCreateTimeout}, timeoutDefault{"update", updateRunCreateTimeout}, timeoutDefault{"delete", updateRunDeleteTimeout}),
			"preview":  runPreviewAttribute(),
			"status":   runStatusAttribute(),
		},
	}
}

func cstr(desc string) rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, Description: desc}
}
func clist(desc string) rschema.ListAttribute {
	return rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: desc}
}
func cmap(desc string) rschema.MapAttribute {
	return rschema.MapAttribute{Computed: true, ElementType: types.StringType, Description: desc}
}
func cobjs(desc string, attrs map[string]rschema.Attribute) rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{Computed: true, Description: desc, NestedObject: rschema.NestedAttributeObject{Attributes: attrs}}
}

func previewGatesAttribute() rschema.ListNestedAttribute {
	return cobjs("Approval gates, Before or After; null when there are none.", map[string]rschema.Attribute{
		"timing": cstr("`Before` or `After`."), "display_name": cstr("The gate's display name."), "type": cstr("`Approval`."),
	})
}

func cint(desc string) rschema.Int64Attribute {
	return rschema.Int64Attribute{Computed: true, Description: desc}
}

func cactions(what string) rschema.MapAttribute {
	return rschema.MapAttribute{Computed: true, ElementType: types.Int64Type,
		Description: "Action (`upgrade`, `skip`, `pending`, `fail`) → how many members of " + what + " get it: every member, listed or not."}
}

// runPreviewMemberLimit is how many members a run's preview lists in all (summary detail).
// Choice: a listed member takes about 15 lines of plan text (two node-image maps), and the rest of
// a run of 1,000 members over 3 stages and 6 groups (stages, groups, their counts and actions)
// takes about 120 lines with update_strategy_id and 170 with the stages inline and four actions;
// make bench measured 201 lines with 3 members there (the real terraform CLI), so 2 keep the plan
// under 200 lines either way: the first member the run updates and the first exception.
const runPreviewMemberLimit = 2

// runMemberLimit is the run preview's member cap for the provider's list limit (0: all).
func runMemberLimit(listLimit int) int {
	if listLimit <= 0 {
		return 0
	}
	return min(listLimit, runPreviewMemberLimit)
}

func runPreviewAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "The rollout plan, computed at plan at the Fleet API's current time when the run is created or its definition changes " +
			"(kept as-is otherwise). Assumes approval gates are approved when reached and upgrades succeed. Counts (`member_count`, " +
			"`actions`) cover every member; with the provider's `preview_detail = \"summary\"` (the default) the groups' `members` " +
			"lists hold " + fmt.Sprint(runPreviewMemberLimit) + " members of the whole run in all — each takes about 15 lines of plan " +
			"text, and this keeps the plan of a run of 1,000 members over 3 stages and 6 groups under 200 lines — chosen in the order " +
			"a reader needs them: the first members the run updates (the first of each group of the first stage), then exceptions " +
			"(`fail`, `pending`, `skip`), then upgrades, each in update order. `preview_detail = \"full\"` lists every member. " +
			"Empty lists are null.",
		PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
		Attributes: map[string]rschema.Attribute{
			"member_count": cint("How many members the run's stages select."),
			"actions":      cactions("the run"),
			"stages": cobjs("Stages in order.", map[string]rschema.Attribute{
				"name":                        cstr("The stage."),
				"after_stage_wait_in_seconds": rschema.Int64Attribute{Computed: true, Description: "Wait after the stage; null for none."},
				"gates":                       previewGatesAttribute(),
				"member_count":                cint("How many members the stage's groups select."),
				"actions":                     cactions("the stage"),
				"groups": cobjs("Groups, updated in parallel.", map[string]rschema.Attribute{
					"name":            cstr("The group."),
					"gates":           previewGatesAttribute(),
					"member_count":    cint("How many members the group selects."),
					"actions":         cactions("the group"),
					"members_omitted": cint("How many of the group's members `members` leaves out (summary detail; 0 with full detail)."),
					"members": cobjs("The listed members in the order the group updates them (maintenance window: open now, opening within "+
						"4 hours, none, closed); `position` says where each stands in that order, so gaps show members left out. Null "+
						"when none is listed.", map[string]rschema.Attribute{
						"position": cint("The member's place in the group's update order, from 1."),
						"name":     cstr("The member."),
						"action": cstr("`upgrade`, `skip`, `pending` (waits for a window or a version; the reason says which and until when) or " +
							"`fail` (AKS would reject the upgrade, e.g. skipping a minor version; a failure stops the run)."),
						"reason":                      cstr("Why the member is upgraded, skipped, pending or fails."),
						"current_kubernetes_version":  cstr("The cluster's version now."),
						"target_kubernetes_version":   cstr("The version after the run."),
						"current_node_image_versions": cmap("Node pool → node image version now (null without node pools)."),
						"target_node_image_versions":  cmap("Node pool → node image version after the run (null without node pools)."),
						"maintenance_window":          cstr("`open`, `opens_soon`, `none` or `closed` when the run reaches the member."),
						"window_opens_at":             cstr("When that window opened or opens next (RFC 3339)."),
					}),
				}),
			}),
			"unselected_members": clist("Members no group of the strategy selects (the run never updates them), by name: at most " +
				fmt.Sprint(summaryListLimit) + " with summary detail, all with full detail; null when there are none."),
			"unselected_member_count":        cint("How many members no group of the strategy selects."),
			"consistent_node_image_versions": clist("With Consistent node images: the image set the run will use; null otherwise."),
			"outcome":                        cstr("How the run is expected to end: Completed, Skipped, Failed, or Pending (still waiting a year on)."),
			"warnings": clist("Groups without members, predicted failures, missing consistent images, members no group selects and " +
				"members left out: a warning that concerns members is told once, with how many and the first names. Null when there are none."),
		},
	}
}

func statusTimes() map[string]rschema.Attribute {
	return map[string]rschema.Attribute{
		"state":      cstr("NotStarted, Running, Pending, Stopping, Stopped, Skipped, Failed or Completed."),
		"start_time": cstr("RFC 3339."), "end_time": cstr("RFC 3339."), "error": cstr("The error message, if any."),
	}
}

func withAttrs(base map[string]rschema.Attribute, extra map[string]rschema.Attribute) map[string]rschema.Attribute {
	for k, v := range extra {
		base[k] = v
	}
	return base
}

func statusGatesAttribute() rschema.ListNestedAttribute {
	return cobjs("Gates with their state and gate ID once the run reaches them.", map[string]rschema.Attribute{
		"timing": cstr("`Before` or `After`."), "display_name": cstr("The gate's display name."),
		"gate_id": cstr("The fleets/gates resource name, once the run reached the gate."), "state": cstr("Pending, Skipped or Completed."),
	})
}

func runStatusAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true, Description: "The run's status from the Fleet API.",
		Attributes: withAttrs(statusTimes(), map[string]rschema.Attribute{
			"selected_node_image_versions": clist("With Consistent node images: the selected versions."),
			"stages": cobjs("Stages.", withAttrs(statusTimes(), map[string]rschema.Attribute{
				"name":                   cstr("The stage."),
				"gates":                  statusGatesAttribute(),
				"after_stage_wait_state": cstr("The after-stage wait's state."),
				"groups": cobjs("Groups.", withAttrs(statusTimes(), map[string]rschema.Attribute{
					"name":  cstr("The group."),
					"gates": statusGatesAttribute(),
					"members": cobjs("Members.", withAttrs(statusTimes(), map[string]rschema.Attribute{
						"name": cstr("The member."), "message": cstr("The member update's message."),
						"operation_id": cstr("The AKS operation ID of the member's upgrade."),
					})),
				})),
			})),
		}),
	}
}

var (
	runPreviewType = objectType(runPreviewAttribute().GetType(), "the update run's preview")
	runStatusType  = objectType(runStatusAttribute().GetType(), "the update run's status")
)

func (r *updateRunResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks field combinations the Fleet API rejects.
func (r *updateRunResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg updateRunModel
	unknown, diags := decodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("status"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Stages != nil && !cfg.UpdateStrategyID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("stages"), "Conflicting attributes", "Set update_strategy_id or stages, not both.")
	}
	if !cfg.UpdateStrategyID.IsNull() && !pathsContain(unknown, path.Root("update_strategy_id")) {
		if _, _, err := fleetapi.ParseChildID(cfg.UpdateStrategyID.ValueString(), "updateStrategies"); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("update_strategy_id"), "Invalid update strategy ID", err.Error())
		}
	}
	validateStages(cfg.Stages, path.Root("stages"), &resp.Diagnostics)
	if m := cfg.ManagedClusterUpdate; m != nil && !pathsContain(unknown, path.Root("managed_cluster_update").AtName("upgrade").AtName("type")) &&
		!pathsContain(unknown, path.Root("managed_cluster_update").AtName("upgrade").AtName("kubernetes_version")) {
		p := path.Root("managed_cluster_update").AtName("upgrade").AtName("kubernetes_version")
		switch t, v := m.Upgrade.Type.ValueString(), m.Upgrade.KubernetesVersion.ValueString(); {
		case t == "NodeImageOnly" && v != "":
			resp.Diagnostics.AddAttributeError(p, "Invalid attribute combination", "kubernetes_version is not allowed with the NodeImageOnly upgrade.")
		case t != "NodeImageOnly" && t != "" && v == "":
			resp.Diagnostics.AddAttributeError(p, "Missing attribute", fmt.Sprintf("kubernetes_version is required with the %s upgrade.", t))
		}
		if s := m.NodeImageSelection; s != nil {
			custom := s.Type.ValueString() == "Custom"
			if custom && len(s.CustomVersions) == 0 && !pathsContain(unknown, path.Root("managed_cluster_update").AtName("node_image_selection").AtName("custom_versions")) {
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
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	var plan updateRunModel
	unknown, diags := decodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, path.Root("preview"), path.Root("status"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	var cfgFleet types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fleet_id"), &cfgFleet)...)
	if cfgFleet.IsNull() && creating {
		f, ok := resolveRolloutFleet(r.clients, types.StringNull(), &resp.Diagnostics)
		if !ok {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), types.StringValue(f.String()))...)
		plan.FleetID = types.StringValue(f.String())
		unknown = removePath(unknown, path.Root("fleet_id"))
	}
	changed, err := configChanged(req.Plan.Raw, req.State.Raw, updateRunDefinitionAttributes...)
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
		if started && plan.State.ValueString() == runStateNotStarted {
			resp.Diagnostics.AddAttributeError(path.Root("state"), "Run already started",
				"A run that has started cannot go back to NotStarted: set Running or Stopped, or destroy the run.")
			return
		}
		if changed && started {
			for _, a := range []string{"update_strategy_id", "stages", "managed_cluster_update"} {
				c, err := configChanged(req.Plan.Raw, req.State.Raw, a)
				if err != nil {
					resp.Diagnostics.AddAttributeError(path.Root(a), "Planning the update run", err.Error())
					return
				}
				if c {
					resp.RequiresReplace = append(resp.RequiresReplace, path.Root(a))
				}
			}
		}
		if retrigger, err := configChanged(req.Plan.Raw, req.State.Raw, "triggers"); err != nil {
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
	if !changed {
		return
	}
	previewPath := path.Root("preview")
	var defUnknown []path.Path
	for _, p := range unknown {
		for _, a := range updateRunDefinitionAttributes {
			if pathsRelated(p, path.Root(a)) {
				defUnknown = append(defUnknown, p)
			}
		}
	}
	if len(defUnknown) > 0 {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, previewPath, types.ObjectUnknown(runPreviewType.AttrTypes))...)
		addPreviewUnknownWarning(&resp.Diagnostics, previewPath, unknownInputs(defUnknown))
		return
	}
	obj, err := r.preview(ctx, &plan)
	if err != nil {
		if engine.IsConfigUnknown(err) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, previewPath, types.ObjectUnknown(runPreviewType.AttrTypes))...)
			addPreviewUnknownWarning(&resp.Diagnostics, previewPath, err.Error())
			return
		}
		var invalid *invalidRunError
		if errors.As(err, &invalid) {
			resp.Diagnostics.AddAttributeError(path.Root("managed_cluster_update"), "Invalid update run", invalid.Error())
			return
		}
		addBackendError(&resp.Diagnostics, "Computing the update run preview", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, previewPath, obj)...)
}

type invalidRunError struct{ err error }

func (e *invalidRunError) Error() string { return e.err.Error() }

func removePath(paths []path.Path, p path.Path) []path.Path {
	var out []path.Path
	for _, q := range paths {
		if !pathsRelated(q, p) {
			out = append(out, q)
		}
	}
	return out
}

// waitPendingKey is the private-state key set while an apply stopped waiting
// for a run that goes on (create timeout, cancelled apply).
const waitPendingKey = "wait_pending"

func setWaitPending(ctx context.Context, p privateSetter, pending bool) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if !pending {
		return p.SetKey(ctx, waitPendingKey, nil)
	}
	return p.SetKey(ctx, waitPendingKey, []byte(`true`))
}

// waitResumes reports whether an earlier apply stopped waiting for the run
// and the configuration still waits for it to complete while the refreshed
// run has not ended: apply (an in-place update) then resumes the wait for
// the same run.
func waitResumes(ctx context.Context, p privateGetter, state, plan updateRunModel, diags *diag.Diagnostics) bool {
	if p == nil || plan.WaitFor.ValueString() != waitCompleted || plan.State.ValueString() != runStateRunning {
		return false
	}
	b, d := p.GetKey(ctx, waitPendingKey)
	diags.Append(d...)
	if string(b) != `true` || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st runStatusModel
	if d := state.Status.As(ctx, &st, basetypesObjectAsOptions); d.HasError() {
		return false
	}
	return !runEnded(fleetapi.UpdateState(st.State.ValueString()))
}

// approvalWaiting reports whether a configured approval's gate is Pending in
// the refreshed status: apply then approves it.
func (r *updateRunResource) approvalWaiting(ctx context.Context, state, plan updateRunModel) bool {
	if len(plan.Approvals) == 0 || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st runStatusModel
	if d := state.Status.As(ctx, &st, basetypesObjectAsOptions); d.HasError() {
		return false
	}
	for _, g := range statusGates(st) {
		if g.state == string(fleetapi.GateStatePending) && g.id != "" && approved(plan.Approvals, g) {
			return true
		}
	}
	return false
}

// planInput is what the preview knows of a run before it exists: its strategy
// (read now), update and skips, and the fleet's rollout facts.
func (r *updateRunResource) planInput(ctx context.Context, plan *updateRunModel) (rollout.PlanInput, engine.RolloutFacts, error) {
	fleet, err := r.clients.ResolveFleet(plan.FleetID.ValueString())
	if err != nil {
		return rollout.PlanInput{}, engine.RolloutFacts{}, err
	}
	strategy, err := r.strategyOf(ctx, plan)
	if err != nil {
		return rollout.PlanInput{}, engine.RolloutFacts{}, err
	}
	facts, err := r.clients.RolloutFacts(ctx, fleet)
	if err != nil {
		return rollout.PlanInput{}, engine.RolloutFacts{}, err
	}
	return rollout.PlanInput{
		Strategy: strategyToRollout(strategy), Update: plan.ManagedClusterUpdate.toRollout(),
		Members: facts.Members, Regions: facts.Regions, Skip: skipTargetsToRollout(plan.Skip),
	}, facts, nil
}

// preview computes the rollout plan at the Fleet API's current time.
func (r *updateRunResource) preview(ctx context.Context, plan *updateRunModel) (types.Object, error) {
	in, facts, err := r.planInput(ctx, plan)
	if err != nil {
		return types.Object{}, err
	}
	p, err := rollout.Plan(in, r.clients.FleetNow())
	if err != nil {
		return types.Object{}, &invalidRunError{err}
	}
	m := runPreviewFrom(p, r.clients.ListLimit(), facts.Unreadable)
	if facts.NodeImageWarning != "" {
		m.Warnings = append(m.Warnings, facts.NodeImageWarning)
	}
	if w := releaseWarnings(p, plan.ManagedClusterUpdate.toRollout()); len(w) > 0 {
		m.Warnings = append(m.Warnings, w...)
	}
	if w := assumedImageWarning(p, facts); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	obj, d := types.ObjectValueFrom(ctx, runPreviewType.AttrTypes, m)
	if d.HasError() {
		return types.Object{}, fmt.Errorf("preview: %v", d)
	}
	return obj, nil
}

// releaseWarnings say where the preview cannot know: AKS offers new
// Kubernetes versions and node images without announcing them, so a release
// in a member's region while the run goes on changes what happens
// (TestRolloutFidelityRealPath counts these as "unknowable at plan").
func releaseWarnings(p rollout.Preview, u rollout.Update) []string {
	waiting, images := 0, 0
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.Action == rollout.ActionPending && strings.Contains(m.Reason, "is not yet available in region") {
					waiting++
				}
				if m.Action == rollout.ActionUpgrade || m.Action == rollout.ActionPending {
					images++
				}
			}
		}
	}
	var out []string
	if waiting > 0 {
		out = append(out, fmt.Sprintf("%d member(s) wait for a Kubernetes version or node image their region does not offer now: "+
			"AKS does not announce releases, so when they proceed is unknown at plan; the preview shows them pending and the outcome assumes no release", waiting))
	}
	sel := u.NodeImageSelection
	if images > 0 && u.Upgrade != rollout.ControlPlaneOnly && (sel == "" || sel == rollout.Latest) {
		out = append(out, "target node images are the newest the members' regions offer now as far as the provider can read them "+
			"(the images fleet members run): Latest takes the newest image in a member's region when its upgrade starts, "+
			"so an image released before then, or one no member runs yet, replaces the one shown")
	}
	return out
}

// assumedImageWarning is the one warning for members whose target node image
// their region offers only by the provider's assumption (AKS lists just the
// latest image of each type: engine.RolloutFacts), or "".
func assumedImageWarning(p rollout.Preview, facts engine.RolloutFacts) string {
	location := map[string]string{}
	for _, m := range facts.Members {
		location[m.Name] = m.Location
	}
	var names []string
	images := map[string]bool{}
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.Action != rollout.ActionUpgrade && m.Action != rollout.ActionPending {
					continue
				}
				found := false
				for pool, img := range m.TargetNodeImageVersions {
					if img != m.CurrentNodeImageVersions[pool] && facts.Assumed(location[m.Name], img) {
						images[img+" in "+location[m.Name]], found = true, true
					}
				}
				if found {
					names = append(names, m.Name)
				}
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%d member(s) (%s) get a node image their region's AKS list does not show (%s): AKS lists only the latest image "+
		"of each type, and the preview assumes a region still offers an older image another region lists or a member runs. "+
		"If AKS no longer offers it there, Consistent picks an older common image or skips the member",
		len(names), nameSample(names), strings.Join(slices.Sorted(maps.Keys(images)), ", "))
}

// skipTargetsToRollout are the configured skip targets, which apply skips
// before it starts the run.
func skipTargetsToRollout(skips []skipModel) []rollout.SkipTarget {
	var out []rollout.SkipTarget
	for _, s := range skips {
		out = append(out, rollout.SkipTarget{Type: rollout.SkipTargetType(s.Type.ValueString()), Name: s.Name.ValueString()})
	}
	return out
}

// strategyOf is the run's strategy: the update strategy's (read now), the
// inline stages, or nil (members one by one).
func (r *updateRunResource) strategyOf(ctx context.Context, plan *updateRunModel) (*fleetapi.UpdateRunStrategy, error) {
	if plan.Stages != nil {
		s := stagesToAPI(plan.Stages)
		return &s, nil
	}
	if plan.UpdateStrategyID.IsNull() || plan.UpdateStrategyID.ValueString() == "" {
		return nil, nil
	}
	fleet, name, err := fleetapi.ParseChildID(plan.UpdateStrategyID.ValueString(), "updateStrategies")
	if err != nil {
		return nil, &invalidRunError{err}
	}
	fc, err := r.clients.Fleet()
	if err != nil {
		return nil, err
	}
	s, err := fc.GetUpdateStrategy(ctx, fleet, name)
	if err != nil {
		return nil, fmt.Errorf("read update strategy %s: %w", plan.UpdateStrategyID.ValueString(), err)
	}
	if s.Properties == nil {
		return nil, nil
	}
	return &s.Properties.Strategy, nil
}

func (r *updateRunResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	fleet, name, err := fleetapi.ParseChildID(req.ID, "updateRuns")
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected an update run's ARM ID (<fleet ID>/updateRuns/<name>): %v", err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), fleet.ChildID("updateRuns", name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("fleet_id"), fleet.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for"), waitNone)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("preview"), types.ObjectNull(runPreviewType.AttrTypes))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("status"), types.ObjectNull(runStatusType.AttrTypes))...)
}

func (r *updateRunResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan updateRunModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, updateRunCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fleet, ok := resolveRolloutFleet(r.clients, plan.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	fc, err := r.clients.Fleet()
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the Fleet API", err)
		return
	}
	if plan.Preview.IsUnknown() {
		// Unknown at plan (an input was): computed now, before the run exists.
		obj, err := r.preview(ctx, &plan)
		if err != nil {
			resp.Diagnostics.AddWarning("Update run preview", fmt.Sprintf("The preview could not be computed: %v", err))
			obj = types.ObjectNull(runPreviewType.AttrTypes)
		}
		plan.Preview = obj
	}
	name := plan.Name.ValueString()
	poller, err := fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, plan.toAPI(), &fleetapi.Precondition{IfNoneMatch: "*"})
	run, err := pollDone(ctx, poller, err)
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
	plan.ID = types.StringValue(fleet.ChildID("updateRuns", name))
	plan.FleetID = types.StringValue(fleet.String())
	if run.ETag != "" {
		resp.Diagnostics.Append(saveETag(ctx, resp.Private, run.ETag)...)
	}
	r.converge(ctx, fc, fleet, &plan, skipped, run, true, &resp.State, resp.Private, &resp.Diagnostics)
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
	var plan, state updateRunModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, updateRunCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fleet, ok := resolveRolloutFleet(r.clients, plan.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	fc, err := r.clients.Fleet()
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the Fleet API", err)
		return
	}
	name := plan.Name.ValueString()
	run, err := fc.GetUpdateRun(ctx, fleet, name)
	if err != nil {
		resp.Diagnostics.AddError("Reading the update run", err.Error())
		return
	}
	changed, err := configChanged(req.Plan.Raw, req.State.Raw, "update_strategy_id", "stages", "managed_cluster_update")
	if err != nil {
		resp.Diagnostics.AddError("Updating the update run", fmt.Sprintf("Update run %q: %v", name, err))
		return
	}
	if changed {
		// Not started (ModifyPlan replaces a started run): change it in place, guarded by its ETag.
		pre, d := etagPrecondition(ctx, req.Private)
		resp.Diagnostics.Append(d...)
		poller, err := fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, plan.toAPI(), pre)
		if run, err = pollDone(ctx, poller, err); err != nil {
			if fleetapi.IsPreconditionFailed(err) {
				addChangedElsewhereError(&resp.Diagnostics, "update run", name, err)
				return
			}
			resp.Diagnostics.AddError("Updating the update run", fmt.Sprintf("Update run %q: %v", name, err))
			return
		}
		if run.ETag != "" {
			resp.Diagnostics.Append(saveETag(ctx, resp.Private, run.ETag)...)
		}
	}
	r.converge(ctx, fc, fleet, &plan, state.Skip, run, false, &resp.State, resp.Private, &resp.Diagnostics)
}

// converge starts or stops the run to match plan.State, skips the targets
// not skipped before, approves waiting gates, waits as wait_for says, and
// saves state — also when a step fails, before returning the error.
//
// A wait that is interrupted (timeout or cancel) while the run goes on sets
// the private "wait pending" flag, so the next plan is an in-place update
// whose apply resumes waiting for the same run. In Create (creating) the
// interruption is a warning, not an error: Terraform taints an object whose
// Create returns an error and the next apply would then destroy the run and
// create a new one instead of waiting for it (SPEC §8).
func (r *updateRunResource) converge(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, skipped []skipModel, run *fleetapi.UpdateRun, creating bool, st *tfsdk.State, priv privateSetter, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	save := func() {
		plan.Status = runStatusObject(ctx, run, diags)
		diags.Append(st.Set(ctx, plan)...)
	}
	fail := func(summary string, err error) {
		diags.AddError(summary, fmt.Sprintf("Update run %q: %v", name, err))
		if latest, gerr := fc.GetUpdateRun(context.WithoutCancel(ctx), fleet, name); gerr == nil {
			run = latest
		}
		save()
	}
	// Skips first: a run created (or re-started) with skip targets must not reach them before
	// they are skipped — the Fleet API accepts skips in NotStarted, Stopped and Failed runs.
	if targets := newSkipTargets(plan.Skip, skipped); len(targets) > 0 {
		tflog.Info(ctx, "skipping update run targets", map[string]any{"run": name, "targets": fmt.Sprint(targets)})
		poller, err := fc.BeginSkipUpdateRun(ctx, fleet, name, fleetapi.SkipProperties{Targets: targets}, nil)
		got, err := pollDone(ctx, poller, err)
		if err != nil {
			fail("Skipping update run targets", err)
			return
		}
		run = got
	}
	// Running wanted while a stop finishes a member's upgrade (refresh reads Stopping as Stopped):
	// the run can be started only once it is Stopped, so wait for that, one read per interval.
	for plan.State.ValueString() == runStateRunning && runState(run) == fleetapi.UpdateStateStopping {
		tflog.Info(ctx, "update run still stopping; waiting to start it again", map[string]any{"run": name})
		select {
		case <-ctx.Done():
			fail("Starting the update run", fmt.Errorf("still stopping: %w", context.Cause(ctx)))
			return
		case <-time.After(pollInterval()):
		}
		got, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			fail("Starting the update run", err)
			return
		}
		run = got
	}
	state := runState(run)
	switch want := plan.State.ValueString(); {
	case want == runStateRunning && (state == fleetapi.UpdateStateNotStarted || state == fleetapi.UpdateStateStopped || state == fleetapi.UpdateStateFailed):
		tflog.Info(ctx, "starting update run", map[string]any{"run": name, "from": string(state)})
		poller, err := fc.BeginStartUpdateRun(ctx, fleet, name, nil)
		got, err := pollDone(ctx, poller, err)
		if err != nil && fleetapi.IsConflict(err) && state == fleetapi.UpdateStateNotStarted {
			// A concurrent apply of the same run may have started it first.
			if latest, gerr := fc.GetUpdateRun(ctx, fleet, name); gerr == nil && runStarted(runState(latest)) {
				got, err = latest, nil
			}
		}
		if err != nil {
			fail("Starting the update run", err)
			return
		}
		run = got
	case want == runStateStopped && (state == fleetapi.UpdateStateRunning || state == fleetapi.UpdateStatePending):
		tflog.Info(ctx, "stopping update run", map[string]any{"run": name, "from": string(state)})
		poller, err := fc.BeginStopUpdateRun(ctx, fleet, name, nil)
		got, err := pollDone(ctx, poller, err)
		if err != nil {
			fail("Stopping the update run", err)
			return
		}
		run = got
	}
	if err := r.approve(ctx, fc, fleet, plan, run); err != nil {
		fail("Approving a gate", err)
		return
	}
	if plan.WaitFor.ValueString() != waitCompleted || plan.State.ValueString() != runStateRunning {
		if n := len(plan.Approvals); n > 0 {
			// Approvals changed a gate's state: read the run once more so status shows it.
			if latest, err := fc.GetUpdateRun(ctx, fleet, name); err == nil {
				run = latest
			}
		}
		save()
		return
	}
	final, err := r.wait(ctx, fc, fleet, plan, run)
	if final != nil {
		run = final
	}
	if err != nil {
		if ctx.Err() != nil && !runEnded(runState(run)) {
			diags.Append(setWaitPending(ctx, priv, true)...)
			if creating {
				diags.AddWarning("Stopped waiting for the update run", fmt.Sprintf("Update run %q: %v.\n\n"+
					"The run was created and started, and its state is saved. The next plan shows an in-place update "+
					"of this run: applying it resumes waiting for the same run.", name, err))
			} else {
				diags.AddError("Waiting for the update run", fmt.Sprintf("Update run %q: %v", name, err))
			}
			save()
			return
		}
		diags.AddError("Waiting for the update run", fmt.Sprintf("Update run %q: %v", name, err))
		save()
		return
	}
	diags.Append(setWaitPending(ctx, priv, false)...)
	save()
	if s := runState(run); s == fleetapi.UpdateStateFailed || s == fleetapi.UpdateStateStopped {
		diags.AddError(fmt.Sprintf("Update run %s", s), runFailureDetail(run))
	}
}

// wait reads the run every pollInterval until it ends (Completed, Failed,
// Stopped, Skipped): one Fleet API request per interval, plus one per gate
// it approves. Each state change of the run, a stage, a group or a member is
// logged.
func (r *updateRunResource) wait(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, run *fleetapi.UpdateRun) (*fleetapi.UpdateRun, error) {
	name := plan.Name.ValueString()
	seen := map[string]string{}
	logChanges(ctx, name, run, seen)
	interval := pollInterval()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for !runEnded(runState(run)) {
		select {
		case <-ctx.Done():
			return run, fmt.Errorf("stopped waiting while the run is %s (%v); the run goes on: apply again to wait for it", runState(run), context.Cause(ctx))
		case <-timer.C:
		}
		got, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return run, err
		}
		run = got
		logChanges(ctx, name, run, seen)
		if err := r.approve(ctx, fc, fleet, plan, run); err != nil {
			return run, err
		}
		timer.Reset(interval)
	}
	return run, nil
}

// runStarted reports a state a start leads to.
func runStarted(s fleetapi.UpdateState) bool {
	switch s {
	case fleetapi.UpdateStateRunning, fleetapi.UpdateStatePending, fleetapi.UpdateStateCompleted:
		return true
	}
	return false
}

func runEnded(s fleetapi.UpdateState) bool {
	switch s {
	case fleetapi.UpdateStateCompleted, fleetapi.UpdateStateFailed, fleetapi.UpdateStateStopped, fleetapi.UpdateStateSkipped:
		return true
	}
	return false
}

func logChanges(ctx context.Context, run string, u *fleetapi.UpdateRun, seen map[string]string) {
	note := func(what string, s *fleetapi.UpdateStatus, msg string) {
		if s == nil {
			return
		}
		if seen[what] == string(s.State) {
			return
		}
		seen[what] = string(s.State)
		f := map[string]any{"run": run, "what": what, "state": string(s.State)}
		if msg != "" {
			f["message"] = msg
		}
		tflog.Info(ctx, "update run state changed", f)
	}
	if u.Properties == nil || u.Properties.Status == nil {
		return
	}
	rs := u.Properties.Status
	note("run", rs.Status, "")
	for _, st := range rs.Stages {
		note("stage "+st.Name, st.Status, "")
		for _, g := range st.Groups {
			note("group "+g.Name, g.Status, "")
			for _, m := range g.Members {
				note("member "+m.Name, m.Status, m.Message)
			}
		}
	}
}

// approve completes the Pending gates the approvals name. The gate IDs come
// from the run's status tree (UpdateRunGateStatus.gateId), which names the
// fleets/gates resource the run created for each gate it reached.
func (r *updateRunResource) approve(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, run *fleetapi.UpdateRun) error {
	if len(plan.Approvals) == 0 {
		return nil
	}
	for _, g := range statusGates(runStatusFrom(run)) {
		if g.state != string(fleetapi.GateStatePending) || g.id == "" || !approved(plan.Approvals, g) {
			continue
		}
		tflog.Info(ctx, "approving gate", map[string]any{"run": plan.Name.ValueString(), "stage": g.stage, "group": g.group, "timing": g.timing, "gate": g.id})
		// gateId is the gate's ARM resource ID (fleets/{fleet}/gates/{name}); the API takes the name.
		gate := g.id
		if i := strings.LastIndex(gate, "/"); i >= 0 {
			gate = gate[i+1:]
		}
		poller, err := fc.BeginApproveGate(ctx, fleet, gate, nil)
		if _, err := pollDone(ctx, poller, err); err != nil && !fleetapi.IsConflict(err) {
			return fmt.Errorf("gate %s (%s %s of stage %s%s): %w", g.id, g.timing, joinNonEmpty(" ", "group", g.group), g.stage, "", err)
		}
	}
	return nil
}

type gateRef struct{ stage, group, timing, id, state string }

func statusGates(st runStatusModel) []gateRef {
	var out []gateRef
	for _, s := range st.Stages {
		for _, g := range s.Gates {
			out = append(out, gateRef{stage: s.Name, timing: g.Timing, id: g.GateID.ValueString(), state: g.State.ValueString()})
		}
		for _, grp := range s.Groups {
			for _, g := range grp.Gates {
				out = append(out, gateRef{stage: s.Name, group: grp.Name, timing: g.Timing, id: g.GateID.ValueString(), state: g.State.ValueString()})
			}
		}
	}
	return out
}

func approved(approvals []approvalModel, g gateRef) bool {
	for _, a := range approvals {
		if a.Stage.ValueString() == g.stage && a.Group.ValueString() == g.group && a.Timing.ValueString() == g.timing {
			return true
		}
	}
	return false
}

// runFailureDetail names each failed member with its message.
func runFailureDetail(run *fleetapi.UpdateRun) string {
	var lines []string
	if run.Properties != nil && run.Properties.Status != nil {
		rs := run.Properties.Status
		if rs.Status != nil && rs.Status.Error != nil && rs.Status.Error.Message != "" {
			lines = append(lines, "Run error: "+rs.Status.Error.Message)
		}
		for _, st := range rs.Stages {
			for _, g := range st.Groups {
				for _, m := range g.Members {
					if m.Status == nil || m.Status.State != fleetapi.UpdateStateFailed {
						continue
					}
					msg := m.Message
					if msg == "" && m.Status.Error != nil {
						msg = m.Status.Error.Message
					}
					lines = append(lines, fmt.Sprintf("Member %s (stage %s, group %s) failed: %s", m.Name, st.Name, g.Name, msg))
				}
			}
		}
	}
	lines = append(lines, "The state is saved. Fix the cause and apply again: the run is re-started (its refreshed state is Stopped).")
	return strings.Join(lines, "\n")
}

func newSkipTargets(plan, prior []skipModel) []fleetapi.SkipTarget {
	done := map[skipModel]bool{}
	for _, s := range prior {
		done[skipModel{Type: types.StringValue(s.Type.ValueString()), Name: types.StringValue(s.Name.ValueString())}] = true
	}
	var out []fleetapi.SkipTarget
	for _, s := range plan {
		k := skipModel{Type: types.StringValue(s.Type.ValueString()), Name: types.StringValue(s.Name.ValueString())}
		if done[k] {
			continue
		}
		done[k] = true
		out = append(out, fleetapi.SkipTarget{Type: fleetapi.TargetType(s.Type.ValueString()), Name: s.Name.ValueString()})
	}
	return out
}

func runState(run *fleetapi.UpdateRun) fleetapi.UpdateState {
	if run == nil || run.Properties == nil || run.Properties.Status == nil || run.Properties.Status.Status == nil {
		return fleetapi.UpdateStateNotStarted
	}
	return run.Properties.Status.Status.State
}

// desiredFromActual maps the run's state to the `state` attribute: a run
// that ended Stopped or Failed reads Stopped, so apply with Running re-starts it.
func desiredFromActual(s fleetapi.UpdateState) string {
	switch s {
	case fleetapi.UpdateStateNotStarted, "":
		return runStateNotStarted
	case fleetapi.UpdateStateStopped, fleetapi.UpdateStateStopping, fleetapi.UpdateStateFailed:
		return runStateStopped
	default:
		return runStateRunning
	}
}

func (r *updateRunResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state updateRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fleet, ok := resolveRolloutFleet(r.clients, state.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	fc, err := r.clients.Fleet()
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the Fleet API", err)
		return
	}
	name := state.Name.ValueString()
	run, err := fc.GetUpdateRun(ctx, fleet, name)
	if err != nil {
		if fleetapi.IsNotFound(err) {
			tflog.Warn(ctx, "update run gone; removing it from state", map[string]any{"run": name})
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Reading the update run", err.Error())
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
	state.State = types.StringValue(desiredFromActual(runState(run)))
	if state.WaitFor.IsNull() {
		state.WaitFor = types.StringValue(waitNone)
	}
	state.Status = runStatusObject(ctx, run, &resp.Diagnostics)
	if run.ETag != "" {
		resp.Diagnostics.Append(saveETag(ctx, resp.Private, run.ETag)...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *updateRunResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state updateRunModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, updateRunDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fleet, ok := resolveRolloutFleet(r.clients, state.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	fc, err := r.clients.Fleet()
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the Fleet API", err)
		return
	}
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
		if _, err = pollDone(ctx, poller, err); err != nil && !fleetapi.IsConflict(err) {
			resp.Diagnostics.AddError("Stopping the update run", err.Error())
			return
		}
	}
	interval := pollInterval()
	for {
		poller, err := fc.BeginDeleteUpdateRun(ctx, fleet, name, nil)
		_, err = pollDone(ctx, poller, err)
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
}

// ---- models ----

type updateRunModel struct {
	ID                   types.String    `tfsdk:"id"`
	Name                 types.String    `tfsdk:"name"`
	FleetID              types.String    `tfsdk:"fleet_id"`
	UpdateStrategyID     types.String    `tfsdk:"update_strategy_id"`
	Stages               []stageModel    `tfsdk:"stages"`
	ManagedClusterUpdate *mcuModel       `tfsdk:"managed_cluster_update"`
	State                types.String    `tfsdk:"state"`
	Skip                 []skipModel     `tfsdk:"skip"`
	Approvals            []approvalModel `tfsdk:"approvals"`
	WaitFor              types.String    `tfsdk:"wait_for"`
	Triggers             types.Map       `tfsdk:"triggers"`
	Timeouts             timeouts.Value  `tfsdk:"timeouts"`
	Preview              types.Object    `tfsdk:"preview"`
	Status               types.Object    `tfsdk:"status"`
}

type mcuModel struct {
	Upgrade            upgradeModel `tfsdk:"upgrade"`
	NodeImageSelection *nisModel    `tfsdk:"node_image_selection"`
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
	if m.Stages != nil {
		s := stagesToAPI(m.Stages)
		p.Strategy = &s
	}
	return fleetapi.UpdateRun{Properties: p}
}

func (m *mcuModel) toAPI() *fleetapi.ManagedClusterUpdate {
	if m == nil {
		return nil
	}
	out := &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{
		Type: fleetapi.ManagedClusterUpgradeType(m.Upgrade.Type.ValueString()), KubernetesVersion: m.Upgrade.KubernetesVersion.ValueString(),
	}}
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
	u := rollout.Update{Upgrade: rollout.UpgradeType(m.Upgrade.Type.ValueString()), KubernetesVersion: m.Upgrade.KubernetesVersion.ValueString()}
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
	out := &mcuModel{Upgrade: upgradeModel{Type: types.StringValue(string(u.Upgrade.Type)), KubernetesVersion: types.StringNull()}}
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

// ---- preview and status ----

type runPreviewModel struct {
	MemberCount                 int64                  `tfsdk:"member_count"`
	Actions                     map[string]int64       `tfsdk:"actions"`
	Stages                      []runStagePreviewModel `tfsdk:"stages"`
	UnselectedMembers           []string               `tfsdk:"unselected_members"`
	UnselectedMemberCount       int64                  `tfsdk:"unselected_member_count"`
	ConsistentNodeImageVersions []string               `tfsdk:"consistent_node_image_versions"`
	Outcome                     string                 `tfsdk:"outcome"`
	Warnings                    []string               `tfsdk:"warnings"`
}

type runStagePreviewModel struct {
	Name                    string                 `tfsdk:"name"`
	AfterStageWaitInSeconds types.Int64            `tfsdk:"after_stage_wait_in_seconds"`
	Gates                   []previewGateModel     `tfsdk:"gates"`
	MemberCount             int64                  `tfsdk:"member_count"`
	Actions                 map[string]int64       `tfsdk:"actions"`
	Groups                  []runGroupPreviewModel `tfsdk:"groups"`
}

type previewGateModel struct {
	Timing      string       `tfsdk:"timing"`
	DisplayName types.String `tfsdk:"display_name"`
	Type        string       `tfsdk:"type"`
}

type runGroupPreviewModel struct {
	Name           string                  `tfsdk:"name"`
	Gates          []previewGateModel      `tfsdk:"gates"`
	MemberCount    int64                   `tfsdk:"member_count"`
	Actions        map[string]int64        `tfsdk:"actions"`
	Members        []runMemberPreviewModel `tfsdk:"members"`
	MembersOmitted int64                   `tfsdk:"members_omitted"`
}

type runMemberPreviewModel struct {
	Position                 int64             `tfsdk:"position"`
	Name                     string            `tfsdk:"name"`
	Action                   string            `tfsdk:"action"`
	Reason                   types.String      `tfsdk:"reason"`
	CurrentKubernetesVersion string            `tfsdk:"current_kubernetes_version"`
	TargetKubernetesVersion  string            `tfsdk:"target_kubernetes_version"`
	CurrentNodeImageVersions map[string]string `tfsdk:"current_node_image_versions"`
	TargetNodeImageVersions  map[string]string `tfsdk:"target_node_image_versions"`
	MaintenanceWindow        string            `tfsdk:"maintenance_window"`
	WindowOpensAt            types.String      `tfsdk:"window_opens_at"`
}

func optString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func previewGates(gs []rollout.GatePreview) []previewGateModel {
	var out []previewGateModel
	for _, g := range gs {
		out = append(out, previewGateModel{Timing: string(g.Timing), DisplayName: optString(g.DisplayName), Type: string(g.Type)})
	}
	return out
}

// exceptionRank orders a rollout preview's actions for a reader: a failure (it stops the run),
// then what waits, then what is skipped, then routine upgrades.
func exceptionRank(a rollout.Action) int {
	switch a {
	case rollout.ActionFail:
		return 1
	case rollout.ActionPending:
		return 2
	case rollout.ActionSkip:
		return 3
	}
	return 4
}

// runMemberRef locates one member of a rollout preview.
type runMemberRef struct{ stage, group, position int }

// runPreviewFrom maps rollout.Plan's preview for the provider's list limit (0: everything):
// at most runMemberLimit(listLimit) members of the whole run are listed, and every one counted. Actions are the rules' own: upgrade, skip, pending, and fail
// (a predicted failure, also in warnings). unreadable are the members the facts left out.
func runPreviewFrom(p rollout.Preview, listLimit int, unreadable []engine.UnreadableMember) runPreviewModel {
	limit := runMemberLimit(listLimit)
	out := runPreviewModel{
		Actions:                     map[string]int64{},
		UnselectedMemberCount:       int64(len(p.UnselectedMembers)),
		ConsistentNodeImageVersions: nullIfEmpty(append([]string{}, p.ConsistentNodeImageVersions...)),
		Outcome:                     string(p.Outcome),
	}
	out.UnselectedMembers, _ = capList(nullIfEmpty(append([]string{}, p.UnselectedMembers...)), listLimit)

	// Which members to list: the first the run updates, then exceptions (fail, pending, skip),
	// then the first of the first stage's other groups, then upgrades, each in update order.
	var refs []runMemberRef
	var actions []rollout.Action
	firstStage := -1
	for si, st := range p.Stages {
		for gi, g := range st.Groups {
			for mi, m := range g.Members {
				if firstStage < 0 {
					firstStage = si
				}
				refs = append(refs, runMemberRef{si, gi, mi})
				actions = append(actions, m.Action)
			}
		}
	}
	tier := func(i int) int {
		switch {
		case i == 0:
			return 0
		case exceptionRank(actions[i]) < exceptionRank(rollout.ActionUpgrade):
			return exceptionRank(actions[i])
		case refs[i].stage == firstStage && refs[i].position == 0:
			return exceptionRank(rollout.ActionUpgrade)
		}
		return exceptionRank(rollout.ActionUpgrade) + 1
	}
	taken := firstToRead(len(refs), limit, func(a, b int) bool {
		ra, rb := refs[a], refs[b]
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta < tb
		}
		if ra.stage != rb.stage {
			return ra.stage < rb.stage
		}
		if ra.position != rb.position {
			return ra.position < rb.position
		}
		return ra.group < rb.group
	})

	i := 0
	for _, st := range p.Stages {
		sp := runStagePreviewModel{Name: st.Name, AfterStageWaitInSeconds: types.Int64Null(), Gates: previewGates(st.Gates), Actions: map[string]int64{}}
		if st.AfterStageWaitInSeconds > 0 {
			sp.AfterStageWaitInSeconds = types.Int64Value(int64(st.AfterStageWaitInSeconds))
		}
		for _, g := range st.Groups {
			gp := runGroupPreviewModel{Name: g.Name, Gates: previewGates(g.Gates), Actions: map[string]int64{}, MemberCount: int64(len(g.Members))}
			for mi, m := range g.Members {
				a := string(m.Action)
				gp.Actions[a]++
				sp.Actions[a]++
				out.Actions[a]++
				if !taken[i] {
					gp.MembersOmitted++
					i++
					continue
				}
				i++
				gp.Members = append(gp.Members, runMemberPreviewModel{
					Position: int64(mi + 1), Name: m.Name, Action: a, Reason: optString(stableReason(m.Reason)),
					CurrentKubernetesVersion: m.CurrentKubernetesVersion, TargetKubernetesVersion: m.TargetKubernetesVersion,
					CurrentNodeImageVersions: nilIfEmptyMap(m.CurrentNodeImageVersions), TargetNodeImageVersions: nilIfEmptyMap(m.TargetNodeImageVersions),
					MaintenanceWindow: string(m.MaintenanceWindow), WindowOpensAt: timeString(m.WindowOpensAt),
				})
			}
			sp.MemberCount += gp.MemberCount
			sp.Groups = append(sp.Groups, gp)
		}
		out.MemberCount += sp.MemberCount
		out.Stages = append(out.Stages, sp)
	}

	// Warnings: the run's own, then one per kind of member warning.
	warnings := append([]string{}, p.Warnings...)
	var grouped memberWarnings
	for _, w := range p.MemberWarnings {
		grouped.add(w.Summary(), w.Member)
	}
	warnings = append(warnings, grouped.messages()...)
	if len(unreadable) > 0 {
		var u unreadableMembers
		for _, m := range unreadable {
			u.add(m.Name, m.Err)
		}
		warnings = append(warnings, u.message(": they are left out of the preview"))
	}
	out.Warnings = nullIfEmpty(warnings)
	return out
}

func nilIfEmptyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

type runStatusModel struct {
	State                     types.String          `tfsdk:"state"`
	StartTime                 types.String          `tfsdk:"start_time"`
	EndTime                   types.String          `tfsdk:"end_time"`
	Error                     types.String          `tfsdk:"error"`
	SelectedNodeImageVersions []string              `tfsdk:"selected_node_image_versions"`
	Stages                    []runStageStatusModel `tfsdk:"stages"`
}

type runStageStatusModel struct {
	Name                string                `tfsdk:"name"`
	State               types.String          `tfsdk:"state"`
	StartTime           types.String          `tfsdk:"start_time"`
	EndTime             types.String          `tfsdk:"end_time"`
	Error               types.String          `tfsdk:"error"`
	Gates               []gateStatusModel     `tfsdk:"gates"`
	AfterStageWaitState types.String          `tfsdk:"after_stage_wait_state"`
	Groups              []runGroupStatusModel `tfsdk:"groups"`
}

type runGroupStatusModel struct {
	Name      string                 `tfsdk:"name"`
	State     types.String           `tfsdk:"state"`
	StartTime types.String           `tfsdk:"start_time"`
	EndTime   types.String           `tfsdk:"end_time"`
	Error     types.String           `tfsdk:"error"`
	Gates     []gateStatusModel      `tfsdk:"gates"`
	Members   []runMemberStatusModel `tfsdk:"members"`
}

type runMemberStatusModel struct {
	Name        string       `tfsdk:"name"`
	State       types.String `tfsdk:"state"`
	StartTime   types.String `tfsdk:"start_time"`
	EndTime     types.String `tfsdk:"end_time"`
	Error       types.String `tfsdk:"error"`
	Message     types.String `tfsdk:"message"`
	OperationID types.String `tfsdk:"operation_id"`
}

type gateStatusModel struct {
	Timing      string       `tfsdk:"timing"`
	DisplayName types.String `tfsdk:"display_name"`
	GateID      types.String `tfsdk:"gate_id"`
	State       types.String `tfsdk:"state"`
}

type statusTimesModel struct{ state, start, end, err types.String }

func statusFields(s *fleetapi.UpdateStatus) statusTimesModel {
	if s == nil {
		return statusTimesModel{types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()}
	}
	out := statusTimesModel{state: optString(string(s.State)), start: types.StringNull(), end: types.StringNull(), err: types.StringNull()}
	if s.StartTime != nil {
		out.start = timeString(*s.StartTime)
	}
	if s.CompletedTime != nil {
		out.end = timeString(*s.CompletedTime)
	}
	if s.Error != nil && s.Error.Message != "" {
		out.err = types.StringValue(s.Error.Message)
	}
	return out
}

func gateStatuses(timing string, gs []fleetapi.UpdateRunGateStatus) []gateStatusModel {
	var out []gateStatusModel
	for _, g := range gs {
		st := statusFields(g.Status)
		out = append(out, gateStatusModel{Timing: timing, DisplayName: optString(g.DisplayName), GateID: optString(g.GateID), State: st.state})
	}
	return out
}

func runStatusFrom(run *fleetapi.UpdateRun) runStatusModel {
	out := runStatusModel{SelectedNodeImageVersions: []string{}, Stages: []runStageStatusModel{}}
	var rs *fleetapi.UpdateRunStatus
	if run != nil && run.Properties != nil {
		rs = run.Properties.Status
	}
	if rs == nil {
		f := statusFields(&fleetapi.UpdateStatus{State: fleetapi.UpdateStateNotStarted})
		out.State, out.StartTime, out.EndTime, out.Error = f.state, f.start, f.end, f.err
		return out
	}
	f := statusFields(rs.Status)
	out.State, out.StartTime, out.EndTime, out.Error = f.state, f.start, f.end, f.err
	if rs.NodeImageSelection != nil {
		for _, v := range rs.NodeImageSelection.SelectedNodeImageVersions {
			out.SelectedNodeImageVersions = append(out.SelectedNodeImageVersions, v.Version)
		}
	}
	for _, st := range rs.Stages {
		f := statusFields(st.Status)
		sm := runStageStatusModel{Name: st.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err, AfterStageWaitState: types.StringNull(),
			Gates: append(gateStatuses("Before", st.BeforeGates), gateStatuses("After", st.AfterGates)...), Groups: []runGroupStatusModel{}}
		if sm.Gates == nil {
			sm.Gates = []gateStatusModel{}
		}
		if st.AfterStageWaitStatus != nil {
			sm.AfterStageWaitState = statusFields(st.AfterStageWaitStatus.Status).state
		}
		for _, g := range st.Groups {
			f := statusFields(g.Status)
			gm := runGroupStatusModel{Name: g.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err,
				Gates: append(gateStatuses("Before", g.BeforeGates), gateStatuses("After", g.AfterGates)...), Members: []runMemberStatusModel{}}
			if gm.Gates == nil {
				gm.Gates = []gateStatusModel{}
			}
			for _, m := range g.Members {
				f := statusFields(m.Status)
				gm.Members = append(gm.Members, runMemberStatusModel{Name: m.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err,
					Message: optString(m.Message), OperationID: optString(m.OperationID)})
			}
			sm.Groups = append(sm.Groups, gm)
		}
		out.Stages = append(out.Stages, sm)
	}
	return out
}

func runStatusObject(ctx context.Context, run *fleetapi.UpdateRun, diags *diag.Diagnostics) types.Object {
	obj, d := types.ObjectValueFrom(ctx, runStatusType.AttrTypes, runStatusFrom(run))
	diags.Append(d...)
	return obj
}

// stableReason drops the simulated start time the rules add to a pending
// member's reason: it moves with the clock between plan and apply, and a
// preview must not change once planned.
func stableReason(r string) string {
	if i := strings.Index(r, "; expected to start at "); i >= 0 {
		rest := r[i+len("; expected to start at "):]
		if j := strings.Index(rest, ";"); j >= 0 {
			return r[:i] + rest[j:]
		}
		return r[:i]
	}
	return r
}
