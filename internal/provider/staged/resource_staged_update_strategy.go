package staged

import (
	"context"
	"fmt"
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
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ resource.ResourceWithValidateConfig = (*stagedStrategyResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*stagedStrategyResource)(nil)
)

// stagedStrategyResource is fleet_staged_update_strategy: KubeFleet's
// ClusterStagedUpdateStrategy on the hub, or a StagedUpdateStrategy in a namespace.
type stagedStrategyResource struct{ shared.ResourceBase }

const stagedStrategyTimeout = 5 * time.Minute

var stagedStrategyConfigAttributes = []string{"name", "namespace", "stage"}

var stagedStrategyPreviewType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"member_count":     types.Int64Type,
	"stages":           types.ListType{ElemType: stagedStagePreviewType},
	"unstaged_count":   types.Int64Type,
	"unstaged":         types.ListType{ElemType: types.StringType},
	"unstaged_omitted": types.Int64Type,
	"problem":          types.StringType,
}}

func (r *stagedStrategyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "A KubeFleet staged update strategy on the fleet hub — a `ClusterStagedUpdateStrategy`, or with `namespace` " +
			"a `StagedUpdateStrategy` for the ResourcePlacements of that namespace: the stages in which `fleet_staged_update_run` " +
			"rolls a placement with `strategy.type = \"External\"` out, how many clusters of a stage are updated at once " +
			"(`max_concurrency`), and the approvals and timed waits before and after each stage. The plan's `preview` shows which " +
			"joined member clusters each stage holds now, in the order and batches a run updates them, and which clusters no stage " +
			"holds (KubeFleet v0.18.9's rules).",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The strategy's name."),
			"name": shared.ReplacingAttribute("The ClusterStagedUpdateStrategy's name (a DNS subdomain). Changing it replaces the strategy.", stringvalidator.LengthBetween(1, stagedObjectNameMax),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit")),
			"namespace": stagedNamespaceAttribute("strategy"),
			"facts":     preview.FactsAttribute("the preview"),
			"preview": rschema.SingleNestedAttribute{
				Computed: true,
				Description: "What the stages hold now (computed at plan from the hub's joined member clusters, when the strategy is " +
					"created or its stages change). A run updates only the clusters its placement schedules, in this order.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]rschema.Attribute{
					"member_count": rschema.Int64Attribute{Computed: true, Description: "Joined member clusters on the hub."},
					"stages": rschema.ListNestedAttribute{
						Computed:     true,
						Description:  "Each stage in order: how many joined clusters it holds, the first of them in update order (integer order of `sorting_label_key`'s value, then name; 20 names shared among the stages unless the provider's `preview_detail` is `full`) and batches, and what it waits for before and after.",
						NestedObject: rschema.NestedAttributeObject{Attributes: stagedStagePreviewAttributes("the stage holds")},
					},
					"unstaged_count":   rschema.Int64Attribute{Computed: true, Description: "Joined clusters no stage holds: a run of a placement that schedules any of them fails to initialize."},
					"unstaged":         rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The first 20 of them by name."},
					"unstaged_omitted": rschema.Int64Attribute{Computed: true, Description: "How many are not listed."},
					"problem":          rschema.StringAttribute{Computed: true, Description: "Why a run scheduling every joined cluster would fail to initialize (KubeFleet's own message, with the clusters concerned), or null."},
				},
			},
		},
		Blocks: stagedStrategyBlocks(ctx),
		// Version 1: nested attributes became blocks (issue 35).
		Version: 1,
	}
}

func stagedStrategyBlocks(ctx context.Context) map[string]rschema.Block {
	b := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: stagedStrategyTimeout, Update: stagedStrategyTimeout, Delete: stagedStrategyTimeout})
	b["stage"] = stagedStagesBlock()
	return b
}

// UpgradeState upgrades the state of the nested-attribute schema (version 0).
func (r *stagedStrategyResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(shared.BlockRenames{Renames: stagedStageRenames})}
}

func (r *stagedStrategyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg stagedStrategyModel
	unknown, diags := shared.DecodePartial(ctx, req.Config, &cfg, path.Root("preview"), path.Root("id"))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateStagedStages(&resp.Diagnostics, path.Root("stage"), cfg.Stages, unknown)
}

// stagedStrategyPreview is the strategy's preview: which member clusters each stage selects.
var stagedStrategyPreviewSpec = preview.Spec[stagedStrategyModel]{
	What:      "the staged update strategy preview",
	AttrTypes: stagedStrategyPreviewType.AttrTypes,
	Follows:   stagedStrategyConfigAttributes,
	Reads:     []facts.Input{facts.InputHubMembers, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, plan *stagedStrategyModel, d *diag.Diagnostics) (attr.Value, error) {
		members, err := v.HubMemberClusters(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the hub's member clusters: %w", err)
		}
		obj, ds := stagedStrategyPreview(plan.Namespace.ValueString(), plan.Name.ValueString(), stagedStrategySpec(plan.Stages), joinedMembers(members), v.ListLimit())
		d.Append(ds...)
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *stagedStrategyResource) PreviewInputs() []facts.Input {
	return stagedStrategyPreviewSpec.Inputs()
}

func (r *stagedStrategyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan stagedStrategyModel
	unknown, diags := shared.DecodePartial(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan, preview.Path, path.Root("id"))
	resp.Diagnostics.Append(diags...)
	stagedStrategyPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
}

func (r *stagedStrategyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	stagedImport(ctx, req, resp, stagedObjectNameMax, "strategy", map[string]any{
		"preview": types.ObjectNull(stagedStrategyPreviewType.AttrTypes),
	})
}

func (r *stagedStrategyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	withHubModelTimeout(ctx, r.Clients, req.Plan, &resp.Diagnostics, timeouts.Value.Create, stagedStrategyTimeout, func(ctx context.Context, plan *stagedStrategyModel, h *hub.Client) {
		ns, name := plan.Namespace.ValueString(), plan.Name.ValueString()
		got, err := h.CreateStrategy(ctx, &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: stagedStrategySpec(plan.Stages)})
		if err != nil {
			addStagedCreateError(&resp.Diagnostics, "strategy", ns, name, err)
			return
		}
		tflog.Info(ctx, "staged update strategy created", map[string]any{"strategy": name})
		plan.ID = types.StringValue(hub.Key(got.Namespace, got.Name))
		plan.Stages = stagedStagesFromAPI(got.Spec, plan.Stages)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		stagedStrategyPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, plan, plan.Preview, &resp.Diagnostics)
	})
}

func (r *stagedStrategyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *stagedStrategyModel, h *hub.Client) {
		got, ok := stagedRead(ctx, resp, "strategy", state.Namespace.ValueString(), state.Name.ValueString(), h.Strategy)
		if !ok {
			return
		}
		state.ID = types.StringValue(hub.Key(got.Namespace, got.Name))
		state.Stages = stagedStagesFromAPI(got.Spec, state.Stages)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	})
}

func (r *stagedStrategyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	withHubModelTimeout(ctx, r.Clients, req.Plan, &resp.Diagnostics, timeouts.Value.Update, stagedStrategyTimeout, func(ctx context.Context, plan *stagedStrategyModel, h *hub.Client) {
		ns := plan.Namespace.ValueString()
		got, err := h.UpdateStrategySpec(ctx, ns, plan.Name.ValueString(), stagedStrategySpec(plan.Stages))
		if err != nil {
			addStagedError(&resp.Diagnostics, "Updating", "strategy", ns, plan.Name.ValueString(), err)
			return
		}
		plan.ID = types.StringValue(hub.Key(got.Namespace, got.Name))
		plan.Stages = stagedStagesFromAPI(got.Spec, plan.Stages)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		stagedStrategyPreviewSpec.WarnMoved(ctx, r.Clients, req.Config, plan, plan.Preview, &resp.Diagnostics)
	})
}

func (r *stagedStrategyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	withHubModelTimeout(ctx, r.Clients, req.State, &resp.Diagnostics, timeouts.Value.Delete, stagedStrategyTimeout, func(ctx context.Context, state *stagedStrategyModel, h *hub.Client) {
		ns := state.Namespace.ValueString()
		if err := h.DeleteStrategy(ctx, ns, state.Name.ValueString()); err != nil {
			addStagedError(&resp.Diagnostics, "Deleting", "strategy", ns, state.Name.ValueString(), err)
		}
	})
}

type stagedStrategyModel struct {
	ID        types.String       `tfsdk:"id"`
	Name      types.String       `tfsdk:"name"`
	Namespace types.String       `tfsdk:"namespace"`
	Stages    []stagedStageModel `tfsdk:"stage"`
	timed
	Facts   types.String `tfsdk:"facts"`
	Preview types.Object `tfsdk:"preview"`
}

type stagedStrategyPreviewModel struct {
	MemberCount     int64                `tfsdk:"member_count"`
	Stages          []stagedStagePreview `tfsdk:"stages"`
	UnstagedCount   int64                `tfsdk:"unstaged_count"`
	Unstaged        []string             `tfsdk:"unstaged"`
	UnstagedOmitted int64                `tfsdk:"unstaged_omitted"`
	Problem         types.String         `tfsdk:"problem"`
}

// stagedStrategyPreview places every joined cluster as a run scheduling all of them would
// (staged.StageClusters).
func stagedStrategyPreview(ns, name string, spec placementv1.UpdateStrategySpec, members []clusterv1.MemberCluster, listLimit int) (types.Object, diag.Diagnostics) {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Name
	}
	stages, serr := staged.StageClusters(k8stypes.NamespacedName{Namespace: ns, Name: name}.String(), spec, members, names)
	plan := make([]staged.Stage, len(stages))
	for i, s := range stages {
		plan[i] = staged.Stage{Name: s.Name, Clusters: s.Clusters}
		if len(s.Clusters) > 0 {
			plan[i].MaxConcurrency, _ = staged.MaxConcurrency(spec.Stages[i].MaxConcurrency, len(s.Clusters))
		}
		for _, t := range spec.Stages[i].BeforeStageTasks {
			plan[i].BeforeTasks = append(plan[i].BeforeTasks, staged.TaskOf(t))
		}
		for _, t := range spec.Stages[i].AfterStageTasks {
			plan[i].Tasks = append(plan[i].Tasks, staged.TaskOf(t))
		}
	}
	unstaged, omitted := preview.CapList(serr.Unstaged, listLimit)
	m := stagedStrategyPreviewModel{
		MemberCount: int64(len(members)), Stages: stagedStagePreviews(plan, listLimit, ns),
		UnstagedCount: int64(len(serr.Unstaged)), Unstaged: preview.NullIfEmpty(unstaged), UnstagedOmitted: omitted,
		Problem: stagedProblem(serr.Message, serr.Duplicated, serr.Unstaged),
	}
	return types.ObjectValueFrom(context.Background(), stagedStrategyPreviewType.AttrTypes, m)
}

// stagedProblem is KubeFleet's message, followed by the clusters concerned when its message does
// not name them all.
func stagedProblem(msg string, duplicated, unstaged []string) types.String {
	if msg == "" {
		return types.StringNull()
	}
	if len(duplicated) > 1 {
		msg += fmt.Sprintf(" (%s in more than one stage: %s)", preview.Plural(len(duplicated), "cluster"), preview.NameSample(duplicated))
	}
	if len(unstaged) > 0 {
		msg += fmt.Sprintf(" (%s in no stage: %s)", preview.Plural(len(unstaged), "cluster"), preview.NameSample(unstaged))
	}
	return types.StringValue(msg)
}

// relatedPaths are the paths of ps related to p.
func relatedPaths(ps []path.Path, p path.Path) []path.Path {
	var out []path.Path
	for _, q := range ps {
		if shared.PathsRelated(q, p) {
			out = append(out, q)
		}
	}
	return out
}
