package member

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
	fleetvalidator "go.goms.io/fleet/pkg/utils/validator"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*taintsResource)(nil)

// taintsResource is fleet_member_cluster_taints: taints of a hub MemberCluster, owned by
// server-side apply under the provider's field manager.
type taintsResource struct{ shared.ResourceBase }

// taintEffects are the effects v0.18.9's MemberCluster CRD accepts (apis/cluster/v1/membercluster_types.go:
// +kubebuilder:validation:Enum=NoSchedule).
var taintEffects = []string{string(corev1.TaintEffectNoSchedule)}

// taintsApplyAttempts bounds the retries of an apply that lost a race with another writer.
const taintsApplyAttempts = 5

var (
	taintAttrTypes        = map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}
	taintsPreviewAttrType = map[string]attr.Type{
		"no_longer_picking":         types.MapType{ElemType: types.StringType},
		"no_longer_picking_count":   types.Int64Type,
		"no_longer_picking_omitted": types.Int64Type,
	}
)

func (r *taintsResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "Taints of a hub `MemberCluster` (KubeFleet v0.18.9, `cluster.kubernetes-fleet.io/v1`), which placements answer " +
			"with `toleration` blocks: a placement that does not tolerate one does not pick the cluster. The provider server-side applies " +
			"`spec.taints` under its field manager (`terraform-provider-fleet`); KubeFleet's CRD makes that list atomic, so the apply " +
			"carries the taints others set too, and takes over a list written imperatively (kubectl), but not one another " +
			"server-side apply manager declares (an error names it). Destroy removes only the taints of this resource, keeping " +
			"the others, and hands the list back. The plan says which placements bound to the cluster would no longer pick it on " +
			"their next scheduling. KubeFleet's taints do not evict: what is already bound stays. Imported by the member " +
			"cluster's name (the import claims every taint the cluster has). Its plan reads the MemberCluster, every placement and " +
			"binding (both scopes), and dry-runs the apply, so a list the hub would refuse fails the plan.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The member cluster's name."),
			"member_cluster": shared.ReplacingAttribute("The MemberCluster's name on the hub (a fleet member's name). Changing it replaces the resource.", stringvalidator.LengthBetween(1, 253),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lower-case letters, digits, '-' and '.'")),
			"facts": preview.FactsAttribute("the preview (the MemberCluster's taints, the placements and their bindings)"),
			"preview": rschema.SingleNestedAttribute{
				Computed: true,
				Description: "At plan (from `facts` when set), the placements (cluster-scoped by name, ResourcePlacements as `namespace/name`) bound to the cluster " +
					"that tolerate its taints now but not with this resource's taints: the taint each would not tolerate. Their next " +
					"scheduling (a policy change, a PickN re-pick) leaves the cluster out (KubeFleet's TaintToleration filter, " +
					"`pkg/scheduler/framework/plugins/tainttoleration`); what they have bound stays. PickFixed placements ignore taints.",
				Attributes: map[string]rschema.Attribute{
					"no_longer_picking": rschema.MapAttribute{Computed: true, ElementType: types.StringType,
						Description: "Placement → the first taint it does not tolerate (`key=value:effect`); 20 unless the provider's `preview_detail` is `full`; null when none."},
					"no_longer_picking_count":   rschema.Int64Attribute{Computed: true, Description: "How many placements, all of them."},
					"no_longer_picking_omitted": rschema.Int64Attribute{Computed: true, Description: "How many the map leaves out."},
				},
			},
		},
		Blocks: map[string]rschema.Block{
			"taint": rschema.ListNestedBlock{
				Description: "Required. A taint this resource sets, one block per taint (at least one); at most 100 (the CRD's maxItems, shared with the taints others set). " +
					"Refresh drops from state a taint removed outside Terraform, so the next plan adds it again.",
				Validators: []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 100)},
				NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
					"key":   rschema.StringAttribute{Required: true, Description: "The taint's key: a qualified name (`dedicated`, `example.com/maintenance`), as KubeFleet's MemberCluster webhook requires."},
					"value": rschema.StringAttribute{Optional: true, Description: "The taint's value: a label value (63 characters or fewer). Null is KubeFleet's empty value."},
					"effect": rschema.StringAttribute{Required: true, Description: "`NoSchedule`, the only effect KubeFleet v0.18.9 accepts.",
						Validators: []validator.String{stringvalidator.OneOf(taintEffects...)}},
				}},
			},
		},
	}
}

// ValidateConfig checks each known taint with KubeFleet's own MemberCluster validation
// (pkg/utils/validator/membercluster.go: qualified-name keys, label values, no duplicates).
func (r *taintsResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m taintsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Taints.IsNull() || m.Taints.IsUnknown() {
		return
	}
	var taints []taintModel
	resp.Diagnostics.Append(m.Taints.ElementsAs(ctx, &taints, false)...)
	seen := map[clusterv1.Taint]int{}
	for i, t := range taints {
		if t.Key.IsUnknown() || t.Value.IsUnknown() || t.Effect.IsUnknown() {
			continue
		}
		ct := t.taint()
		at := path.Root("taint").AtListIndex(i)
		mc := clusterv1beta1.MemberCluster{Spec: clusterv1beta1.MemberClusterSpec{Taints: []clusterv1beta1.Taint{{Key: ct.Key, Value: ct.Value, Effect: ct.Effect}}}}
		if err := fleetvalidator.ValidateMemberCluster(mc); err != nil {
			resp.Diagnostics.AddAttributeError(at, "Taint KubeFleet refuses", fmt.Sprintf("taint[%d]: %v", i, err))
		}
		if j, dup := seen[ct]; dup {
			resp.Diagnostics.AddAttributeError(at, "Duplicate taint", fmt.Sprintf("taint[%d] repeats taint[%d]: KubeFleet requires unique taints.", i, j))
		}
		seen[ct] = i
	}
}

// ModifyPlan dry-runs the apply when the taints change, so a taint list the hub would refuse
// (another apply manager's, the CRD's limits) fails the plan, and plans the preview.
func (r *taintsResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	plan, state, ok := shared.PlanChanged(ctx, req, resp, func(plan, state *taintsModel) { plan.Preview = state.Preview }, taintsPreviewSpec.Follows...)
	if !ok {
		return
	}
	plan.ID = plan.MemberCluster
	plan.Preview = types.ObjectUnknown(taintsPreviewAttrType)
	in := &taintsPreviewInput{memberCluster: plan.MemberCluster.ValueString(), mine: plan.taints(ctx, &resp.Diagnostics), prior: state.taints(ctx, &resp.Diagnostics)}
	unknown := taintsUnknown(plan)
	if len(unknown) == 0 {
		h, ok := backend.PlanHubAPI(ctx, r.Clients, &resp.Diagnostics)
		if !ok {
			return
		}
		mc, err := h.MemberCluster(ctx, in.memberCluster)
		if err != nil {
			if hub.IsNotFound(err) {
				resp.Diagnostics.AddAttributeError(path.Root("member_cluster"), "Member cluster not found",
					fmt.Sprintf("member_cluster: the hub has no MemberCluster %q: join the cluster to the fleet first (fleet_member).", in.memberCluster))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reading the member cluster", err)
			return
		}
		if err := h.ApplyMemberClusterTaints(ctx, mc, desiredTaints(mc.Spec.Taints, in.prior, in.mine), true); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("taint"), "The hub refuses these taints", fmt.Sprintf("taint: MemberCluster %q: %v", in.memberCluster, err))
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	taintsPreviewSpec.Plan(ctx, r.Clients, req, resp, in, unknown)
}

// taintsPreviewInput is what the preview is computed from: the member cluster, this resource's
// taints, and those it set before (the state's; none on create).
type taintsPreviewInput struct {
	memberCluster string
	mine, prior   []clusterv1.Taint
}

// taintsPreviewSpec is the taints' preview: the placements bound to the cluster that would no
// longer pick it, over the cluster, placements and bindings the view holds (with facts, the
// plan's: the apply's re-plan computes the same; docs/guides/plan-apply-contract.md).
var taintsPreviewSpec = preview.Spec[taintsPreviewInput]{
	What:      "the member cluster taints preview",
	AttrTypes: taintsPreviewAttrType,
	Follows:   []string{"member_cluster", "taint"},
	Reads:     []facts.Input{facts.InputHubMembers, facts.InputPlacements, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, in *taintsPreviewInput, d *diag.Diagnostics) (attr.Value, error) {
		mc, err := view.HubMemberCluster(ctx, v, in.memberCluster)
		if err != nil {
			preview.AddReadError(d, "Reading the member cluster", err)
			return nil, nil
		}
		obj := taintsPreview(ctx, v, mc, desiredTaints(mc.Spec.Taints, in.prior, in.mine), d)
		if d.HasError() {
			return nil, nil
		}
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *taintsResource) PreviewInputs() []facts.Input { return taintsPreviewSpec.Inputs() }

// taintsPreview lists the placements that lose mc on their next scheduling once its taints are
// desired, with one bounded warning that also says KubeFleet's taints evict nothing. It reads the
// placements and bindings through v.
func taintsPreview(ctx context.Context, v view.Fleet, mc *clusterv1.MemberCluster, desired []clusterv1.Taint, diags *diag.Diagnostics) types.Object {
	placements, err := v.HubPlacements(ctx)
	if err != nil {
		preview.AddReadError(diags, "Listing the placements", err)
		return types.ObjectNull(taintsPreviewAttrType)
	}
	bindings, err := v.HubBindings(ctx)
	if err != nil {
		preview.AddReadError(diags, "Listing the placements' bindings", err)
		return types.ObjectNull(taintsPreviewAttrType)
	}
	losses := scheduling.NoLongerPicking(placements, bindings, mc.Name, mc.Spec.Taints, desired)
	listed, omitted := preview.CapList(losses, v.ListLimit())
	m := map[string]attr.Value{}
	names := make([]string, 0, len(losses))
	for _, l := range listed {
		m[l.Placement] = types.StringValue(taintString(l.Taint))
	}
	for _, l := range losses {
		names = append(names, l.Placement)
	}
	lost := types.MapNull(types.StringType)
	if len(m) > 0 {
		lost = types.MapValueMust(types.StringType, m)
	}
	if len(losses) > 0 {
		diags.AddAttributeWarning(path.Root("preview"), "Placements that will not pick the cluster again",
			fmt.Sprintf("%s bound to %s would not pick it on their next scheduling (a policy change, a PickN re-pick): %s. "+
				"KubeFleet's taints do not evict: what they have bound on %s stays (the scheduler never deselects a cluster, "+
				"pkg/scheduler/watchers/membercluster/watcher.go); evict with fleet_placement_evict to move them.",
				preview.Plural(len(losses), "placement"), mc.Name, preview.NameSample(names), mc.Name))
	}
	tflog.Debug(ctx, "member cluster taints preview", map[string]any{"member_cluster": mc.Name, "no_longer_picking": len(losses)})
	return types.ObjectValueMust(taintsPreviewAttrType, map[string]attr.Value{
		"no_longer_picking": lost, "no_longer_picking_count": types.Int64Value(int64(len(losses))), "no_longer_picking_omitted": types.Int64Value(omitted),
	})
}

// ImportState takes the member cluster's name; Read then claims its taints.
func (r *taintsResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !shared.DNSSubdomainRe.MatchString(req.ID) || len(req.ID) > 253 {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected a MemberCluster's name, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("member_cluster"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("preview"), types.ObjectNull(taintsPreviewAttrType))...)
}

func (r *taintsResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan taintsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	r.apply(ctx, req.Config, &plan, nil, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// Read keeps in state this resource's taints the cluster still has; an imported resource (no
// taints in state) claims them all.
func (r *taintsResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *taintsModel, h *hub.Client) {
		name := state.MemberCluster.ValueString()
		mc, err := h.MemberCluster(ctx, name)
		if backend.ReadGoneOrBackendError(ctx, resp, err, "member cluster", map[string]any{"member_cluster": name}) {
			return
		}
		kept := mc.Spec.Taints
		if !state.Taints.IsNull() {
			kept = nil
			for _, t := range state.taints(ctx, &resp.Diagnostics) {
				if hasTaint(mc.Spec.Taints, t) {
					kept = append(kept, t)
				}
			}
		}
		state.ID = types.StringValue(name)
		state.Taints = taintList(kept)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	})
}

func (r *taintsResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state taintsModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	r.apply(ctx, req.Config, &plan, state.taints(ctx, &resp.Diagnostics), &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	}
}

// Delete removes this resource's taints, keeping the others, with an Update that also releases
// the apply's ownership of the list.
func (r *taintsResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *taintsModel, h *hub.Client) {
		name := state.MemberCluster.ValueString()
		mine := state.taints(ctx, &resp.Diagnostics)
		var err error
		for range taintsApplyAttempts {
			var mc *clusterv1.MemberCluster
			if mc, err = h.MemberCluster(ctx, name); err != nil {
				if hub.IsNotFound(err) {
					return
				}
				break
			}
			if err = h.SetMemberClusterTaints(ctx, mc, desiredTaints(mc.Spec.Taints, mine, nil)); err == nil || !hub.IsConflict(err) {
				break
			}
		}
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, fmt.Sprintf("Removing the taints of MemberCluster %q", name), err)
		}
	})
}

// apply server-side applies the others' taints plus plan's (prior: the taints this resource set
// before), on a fresh read each time another writer wins the race. Before its first write it
// says, when the plan was computed from facts, what moved since and how the preview would differ
// now (WarnMoved; said once the write succeeds): this apply's own taints are not a move, and the
// preview computed now starts, as the plan's did, from the cluster's taints without them.
func (r *taintsResource) apply(ctx context.Context, config tfsdk.Config, plan *taintsModel, prior []clusterv1.Taint, diags *diag.Diagnostics) {
	h, ok := backend.HubAPI(ctx, r.Clients, diags)
	if diags.HasError() || !ok {
		return
	}
	name := plan.MemberCluster.ValueString()
	mine := plan.taints(ctx, diags)
	var moved diag.Diagnostics
	var err error
	for attempt := range taintsApplyAttempts {
		var mc *clusterv1.MemberCluster
		if mc, err = h.MemberCluster(ctx, name); err != nil {
			break
		}
		desired := desiredTaints(mc.Spec.Taints, prior, mine)
		if plan.Preview.IsUnknown() {
			// Unknown at plan (an input was): computed now from the cluster as read, before the write.
			plan.Preview = taintsPreview(ctx, r.Clients.View(), mc, desired, diags)
		}
		if attempt == 0 {
			taintsPreviewSpec.WarnMoved(ctx, r.Clients, config, &taintsPreviewInput{memberCluster: name, mine: mine, prior: prior}, plan.Preview, &moved)
		}
		if err = h.ApplyMemberClusterTaints(ctx, mc, desired, false); err == nil || !hub.IsConflict(err) || strings.Contains(err.Error(), "also applied by") {
			break
		}
		tflog.Info(ctx, "MemberCluster changed during the apply; applying again on a fresh read", map[string]any{"member_cluster": name})
	}
	if err != nil {
		backend.AddBackendError(diags, fmt.Sprintf("Applying the taints of MemberCluster %q", name), err)
		return
	}
	plan.ID = plan.MemberCluster
	diags.Append(moved...)
}

type taintsModel struct {
	ID            types.String `tfsdk:"id"`
	MemberCluster types.String `tfsdk:"member_cluster"`
	Taints        types.List   `tfsdk:"taint"`
	Preview       types.Object `tfsdk:"preview"`
	Facts         types.String `tfsdk:"facts"`
}

func (t taintModel) taint() clusterv1.Taint {
	return clusterv1.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: corev1.TaintEffect(t.Effect.ValueString())}
}

func (m taintsModel) taints(ctx context.Context, diags *diag.Diagnostics) []clusterv1.Taint {
	if m.Taints.IsNull() || m.Taints.IsUnknown() {
		return nil
	}
	var ts []taintModel
	diags.Append(m.Taints.ElementsAs(ctx, &ts, false)...)
	out := make([]clusterv1.Taint, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.taint())
	}
	return out
}

// taintsUnknown are the paths of m's member cluster and taints not known at plan.
func taintsUnknown(m *taintsModel) []path.Path {
	var out []path.Path
	if m.MemberCluster.IsUnknown() {
		out = append(out, path.Root("member_cluster"))
	}
	if m.Taints.IsUnknown() {
		return append(out, path.Root("taint"))
	}
	for i, e := range m.Taints.Elements() {
		at := path.Root("taint").AtListIndex(i)
		o, ok := e.(types.Object)
		if !ok || o.IsUnknown() {
			out = append(out, at)
			continue
		}
		for _, n := range []string{"key", "value", "effect"} {
			if v, ok := o.Attributes()[n]; ok && v.IsUnknown() {
				out = append(out, at.AtName(n))
			}
		}
	}
	return out
}

func taintList(ts []clusterv1.Taint) types.List {
	elems := make([]attr.Value, 0, len(ts))
	for _, t := range ts {
		elems = append(elems, types.ObjectValueMust(taintAttrTypes, map[string]attr.Value{
			"key": types.StringValue(t.Key), "value": shared.StringOrNull(t.Value), "effect": types.StringValue(string(t.Effect)),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: taintAttrTypes}, elems)
}

// desiredTaints is the cluster's list after this resource sets mine: the live taints that are not
// its prior ones, in their order, then mine not already there.
func desiredTaints(live, prior, mine []clusterv1.Taint) []clusterv1.Taint {
	out := make([]clusterv1.Taint, 0, len(live)+len(mine))
	for _, t := range live {
		if !hasTaint(prior, t) || hasTaint(mine, t) {
			out = append(out, t)
		}
	}
	for _, t := range mine {
		if !hasTaint(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func hasTaint(ts []clusterv1.Taint, t clusterv1.Taint) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// taintString writes a taint as kubectl does: key=value:effect.
func taintString(t clusterv1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
