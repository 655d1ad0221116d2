package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

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
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	fleetcondition "go.goms.io/fleet/pkg/utils/condition"
	fleetvalidator "go.goms.io/fleet/pkg/utils/validator"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/placementbudget"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithConfigValidators = (*disruptionBudgetResource)(nil)

// disruptionBudgetResource is fleet_placement_disruption_budget: KubeFleet's
// ClusterResourcePlacementDisruptionBudget (v1beta1 in v0.18.9), named like its placement.
type disruptionBudgetResource struct{ shared.ResourceBase }

// budgetValueRe is a count or a percentage as the CRD's CEL rule accepts them
// (apis/placement/v1beta1/disruptionbudget_types.go: '^(100|[0-9]{1,2})%$' or an integer >= 0).
var budgetValueRe = regexp.MustCompile(`^([0-9]+|(100|[0-9]{1,2})%)$`)

var budgetPreviewAttrTypes = map[string]attr.Type{
	"disruptions_allowed":  types.Int64Type,
	"eviction_allowed":     types.BoolType,
	"available_count":      types.Int64Type,
	"placed_count":         types.Int64Type,
	"desired_count":        types.Int64Type,
	"unavailable_clusters": types.ListType{ElemType: types.StringType},
	"unavailable_omitted":  types.Int64Type,
	"message":              types.StringType,
}

func (r *disruptionBudgetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	value := func(what string) rschema.StringAttribute {
		return rschema.StringAttribute{
			Optional: true,
			Description: what + " A count (`\"1\"`) or a percentage from `\"0%\"` to `\"100%\"` of a PickN placement's `number_of_clusters`, " +
				"rounded up. Exactly one of `max_unavailable` and `min_available` is set. KubeFleet refuses `max_unavailable` and a " +
				"percentage `min_available` for a PickAll placement (it cannot know how many clusters that is): a plan error.",
			Validators: []validator.String{
				stringvalidator.RegexMatches(budgetValueRe, "must be a count such as \"1\" or a percentage from \"0%\" to \"100%\""),
				int32Value{},
			},
		}
	}
	resp.Schema = rschema.Schema{
		Description: "A KubeFleet `ClusterResourcePlacementDisruptionBudget` (`placement.kubernetes-fleet.io/v1beta1`, as v0.18.9 serves " +
			"it) for a `fleet_placement`: how many of the placement's clusters voluntary evictions (`fleet_placement_evict`, a " +
			"`ClusterResourcePlacementEviction`) may take at once. The plan's `preview` says how many the budget allows now, " +
			"computed as v0.18.9's eviction controller does (`pkg/controllers/clusterresourceplacementeviction`) and checked " +
			"against it on a local hub. Evictions of a binding that failed to apply or is not yet Available are not held by the " +
			"budget (KubeFleet evicts them without consulting it). Imported by the placement's name.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The placement's name, which the budget is named for."),
			"placement": shared.ReplacingAttribute("The ClusterResourcePlacement's name (`fleet_placement.<name>.name`); it must exist, or be planned in the same configuration. Changing it replaces the budget.", stringvalidator.LengthBetween(1, 253),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lower-case letters, digits, '-' and '.'")),
			"max_unavailable": value("The most of the placement's clusters that may be unavailable (not Available, or evicted) at once."),
			"min_available":   value("The fewest of the placement's clusters that must stay Available."),
			"facts":           preview.FactsAttribute("the preview (the placement's policy and bindings)"),
			"preview": rschema.SingleNestedAttribute{
				Computed: true,
				Description: "What the eviction controller would decide now, at plan (from `facts` when set) and on refresh: counts always, the " +
					"unavailable clusters by name (20 unless the provider's `preview_detail` is `full`).",
				Attributes: map[string]rschema.Attribute{
					"disruptions_allowed": rschema.Int64Attribute{Computed: true, Description: "How many of the placement's clusters may be evicted now (KubeFleet's disruptionsAllowed; 0 blocks every eviction of an Available cluster)."},
					"eviction_allowed":    rschema.BoolAttribute{Computed: true, Description: "Whether an eviction of an Available cluster would be executed now."},
					"available_count":     rschema.Int64Attribute{Computed: true, Description: "The placement's bindings whose Available condition is true for their generation (KubeFleet's availablePlacements)."},
					"placed_count":        rschema.Int64Attribute{Computed: true, Description: "All of the placement's bindings, whatever their state (KubeFleet's totalPlacements)."},
					"desired_count":       rschema.Int64Attribute{Computed: true, Description: "A PickN placement's `number_of_clusters`, which percentages scale; null for PickAll and PickFixed."},
					"unavailable_clusters": rschema.ListAttribute{Computed: true, ElementType: types.StringType,
						Description: "The clusters of bindings that are not Available, by name; null when none."},
					"unavailable_omitted": rschema.Int64Attribute{Computed: true, Description: "How many unavailable clusters the list leaves out."},
					"message":             rschema.StringAttribute{Computed: true, Description: "The eviction controller's message for an eviction of an Available cluster now, in its words."},
				},
			},
		},
	}
}

// ConfigValidators: the CRD's CEL rule "Both MaxUnavailable and MinAvailable cannot be specified",
// and a budget with neither would block every eviction without saying so.
func (r *disruptionBudgetResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{budgetExactlyOne{}}
}

type budgetExactlyOne struct{}

func (budgetExactlyOne) Description(context.Context) string {
	return "exactly one of max_unavailable and min_available"
}
func (v budgetExactlyOne) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (budgetExactlyOne) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var maxU, minA types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("max_unavailable"), &maxU)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("min_available"), &minA)...)
	switch {
	case !maxU.IsNull() && !minA.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("min_available"), "Both max_unavailable and min_available",
			"min_available: KubeFleet refuses a ClusterResourcePlacementDisruptionBudget with both MaxUnavailable and MinAvailable "+
				"(\"Both MaxUnavailable and MinAvailable cannot be specified\"): set one of them.")
	case maxU.IsNull() && minA.IsNull() && !maxU.IsUnknown() && !minA.IsUnknown():
		resp.Diagnostics.AddAttributeError(path.Root("max_unavailable"), "No budget",
			"max_unavailable: set max_unavailable or min_available (\"0\" to forbid every eviction of an Available cluster).")
	}
}

// budgetConfigAttributes are the configured attributes: the preview is recomputed when one changes.
var budgetConfigAttributes = []string{"placement", "max_unavailable", "min_available"}

// disruptionBudgetPreviewSpec is the budget's preview: the eviction controller's verdict on the
// placement's bindings.
var disruptionBudgetPreviewSpec = preview.Spec[budgetModel]{
	What:      "the disruption budget preview",
	AttrTypes: budgetPreviewAttrTypes,
	Follows:   budgetConfigAttributes,
	Reads:     []facts.Input{facts.InputPlacements, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, m *budgetModel, d *diag.Diagnostics) (attr.Value, error) {
		name := m.Placement.ValueString()
		p, err := v.HubPlacement(ctx, hub.ClusterPlacement(name))
		if hub.IsNotFound(err) { // ModifyPlan found it on the hub: it is not in the plan's facts
			d.AddAttributeWarning(preview.Path, "Preview after apply",
				fmt.Sprintf("ClusterResourcePlacement %q was created after data.fleet_facts read the hub: the budget's preview is computed once it is applied.", name))
			return types.ObjectUnknown(budgetPreviewAttrTypes), nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading ClusterResourcePlacement %q: %w", name, err)
		}
		return budgetPreview(ctx, v, p, *m, d), nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *disruptionBudgetResource) PreviewInputs() []facts.Input {
	return disruptionBudgetPreviewSpec.Inputs()
}

// ModifyPlan computes the preview when the budget is new or changes, from the placement and
// its bindings on the hub, and refuses what KubeFleet's webhook would (a PickAll placement with
// max_unavailable or a percentage) and a placement that neither exists nor is planned here.
func (r *disruptionBudgetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	plan, _, ok := shared.PlanChanged(ctx, req, resp, func(plan, state *budgetModel) { plan.Preview = state.Preview }, budgetConfigAttributes...)
	if !ok {
		return
	}
	plan.Preview = types.ObjectUnknown(budgetPreviewAttrTypes)
	if plan.Placement.IsUnknown() || plan.MaxUnavailable.IsUnknown() || plan.MinAvailable.IsUnknown() {
		shared.AddPreviewUnknownWarning(&resp.Diagnostics, preview.Path, "the placement or the budget is not known until apply")
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return
	}
	plan.ID = plan.Placement
	h, ok := backend.PlanHubAPI(ctx, r.Clients, &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Placement.ValueString()
	p, err := h.Placement(ctx, name)
	onHub := err == nil
	switch {
	case hub.IsNotFound(err):
		if _, planned := preview.PlannedPlacement(r.Clients, name); !planned {
			resp.Diagnostics.AddAttributeError(path.Root("placement"), "Placement not found",
				fmt.Sprintf("placement: the hub has no ClusterResourcePlacement %q, and none of that name is planned in this configuration: a budget for it would guard nothing.", name))
			return
		}
		resp.Diagnostics.AddAttributeWarning(preview.Path, "Preview after apply",
			fmt.Sprintf("ClusterResourcePlacement %q is created by this apply: the budget's preview is computed once it exists.", name))
	case err != nil:
		backend.AddBackendError(&resp.Diagnostics, "Reading the placement", err)
		return
	default:
		if checkBudgetFor(p, *plan, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
		if req.State.Raw.IsNull() {
			if _, err := h.DisruptionBudget(ctx, name); err == nil {
				resp.Diagnostics.AddAttributeError(path.Root("placement"), "Disruption budget already exists",
					fmt.Sprintf("placement: the hub already has a ClusterResourcePlacementDisruptionBudget %q: import it (terraform import with ID %q).", name, name))
				return
			}
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
	if onHub {
		// Of the placement and bindings the plan's facts hold, when it has them: the apply's
		// re-plan computes the same (docs/guides/plan-apply-contract.md).
		disruptionBudgetPreviewSpec.Plan(ctx, r.Clients, req, resp, plan, nil)
	}
}

// checkBudgetFor runs KubeFleet's own webhook check of a budget against its placement
// (pkg/utils/validator/clusterresourceplacementdisruptionbudget.go) and warns of a PickFixed one.
func checkBudgetFor(p *hub.Placement, m budgetModel, diags *diag.Diagnostics) {
	var crp placementv1beta1.ClusterResourcePlacement
	if b, err := json.Marshal(p.ClusterResourcePlacement); err == nil {
		_ = json.Unmarshal(b, &crp)
	}
	db := placementv1beta1.ClusterResourcePlacementDisruptionBudget{Spec: m.spec()}
	if err := fleetvalidator.ValidateClusterResourcePlacementDisruptionBudget(&db, &crp); err != nil {
		at := path.Root("min_available")
		if !m.MaxUnavailable.IsNull() {
			at = path.Root("max_unavailable")
		}
		diags.AddAttributeError(at, "Budget not allowed for a PickAll placement",
			fmt.Sprintf("%s: KubeFleet refuses this budget for ClusterResourcePlacement %q: %v. A PickAll placement takes an integer min_available.", at, p.Name, err))
		return
	}
	if pol := p.Spec.Policy; pol != nil && pol.PlacementType == "PickFixed" {
		diags.AddAttributeWarning(path.Root("placement"), "PickFixed placement",
			fmt.Sprintf("ClusterResourcePlacement %q is PickFixed: KubeFleet refuses every eviction from it (%q), so the budget has nothing to guard.", p.Name, fleetcondition.EvictionInvalidPickFixedCRPMessage))
	}
}

// budgetPreview is the eviction controller's verdict on placement p's bindings as the fleet v has
// them (live, or the plan's facts).
func budgetPreview(ctx context.Context, v view.Fleet, p *hub.Placement, m budgetModel, diags *diag.Diagnostics) types.Object {
	bindings, err := v.HubPlacementBindings(ctx, hub.ClusterPlacement(p.Name))
	if err != nil {
		backend.AddBackendError(diags, "Reading the placement's bindings", err)
		return types.ObjectNull(budgetPreviewAttrTypes)
	}
	spec := m.spec()
	verdict := placementbudget.Evaluate(p.Spec.Policy, bindings, placementbudget.Spec{MaxUnavailable: spec.MaxUnavailable, MinAvailable: spec.MinAvailable})
	var unavailable []string
	for i := range bindings {
		if !fleetcondition.IsConditionStatusTrue(bindings[i].GetCondition("Available"), bindings[i].Generation) {
			unavailable = append(unavailable, bindings[i].Spec.TargetCluster)
		}
	}
	sort.Strings(unavailable)
	listed, omitted := preview.CapList(unavailable, v.ListLimit())
	desired := types.Int64Null()
	if verdict.Desired > 0 || (p.Spec.Policy != nil && p.Spec.Policy.PlacementType == "PickN") {
		desired = types.Int64Value(int64(verdict.Desired))
	}
	var names types.List
	if len(listed) == 0 {
		names = types.ListNull(types.StringType)
	} else {
		names, _ = types.ListValueFrom(ctx, types.StringType, listed)
	}
	obj, d := types.ObjectValue(budgetPreviewAttrTypes, map[string]attr.Value{
		"disruptions_allowed": types.Int64Value(int64(verdict.Allowed)), "eviction_allowed": types.BoolValue(verdict.Allowed > 0 && !verdict.PickFixed && verdict.Misconfigured == ""),
		"available_count": types.Int64Value(int64(verdict.Available)), "placed_count": types.Int64Value(int64(verdict.Total)), "desired_count": desired,
		"unavailable_clusters": names, "unavailable_omitted": types.Int64Value(omitted), "message": types.StringValue(verdict.Message()),
	})
	diags.Append(d...)
	tflog.Debug(ctx, "disruption budget preview", map[string]any{"placement": p.Name, "allowed": verdict.Allowed, "available": verdict.Available, "total": verdict.Total})
	return obj
}

// ImportState takes the placement's name.
func (r *disruptionBudgetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !shared.DNSSubdomainRe.MatchString(req.ID) || len(req.ID) > 253 {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected the name of the ClusterResourcePlacement the budget is for, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("placement"), req.ID)...)
}

func (r *disruptionBudgetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	backend.WithHubModel(ctx, r.Clients, req.Plan, &resp.Diagnostics, func(ctx context.Context, plan *budgetModel, h *hub.Client) {
		name := plan.Placement.ValueString()
		if _, err := h.CreateDisruptionBudget(ctx, name, plan.spec()); err != nil {
			if hub.IsAlreadyExists(err) {
				resp.Diagnostics.AddAttributeError(path.Root("placement"), "Disruption budget already exists",
					fmt.Sprintf("placement: the hub already has a ClusterResourcePlacementDisruptionBudget %q: import it (terraform import with ID %q).", name, name))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Creating the disruption budget", err)
			return
		}
		plan.ID = plan.Placement
		r.previewAtApply(ctx, h, plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		r.warnMoved(ctx, req.Config, plan, &resp.Diagnostics)
	})
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now (preview.Spec.WarnMoved).
func (r *disruptionBudgetResource) warnMoved(ctx context.Context, config tfsdk.Config, plan *budgetModel, d *diag.Diagnostics) {
	knownOrFailed(disruptionBudgetPreviewSpec).WarnMoved(ctx, r.Clients, config, plan, plan.Preview, d)
}

// Read refreshes the budget and its preview: evictions and bindings change outside Terraform.
func (r *disruptionBudgetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *budgetModel, h *hub.Client) {
		name := state.Placement.ValueString()
		b, err := h.DisruptionBudget(ctx, name)
		if backend.ReadGoneOrBackendError(ctx, resp, err, "disruption budget", map[string]any{"placement": name}) {
			return
		}
		state.ID = types.StringValue(name)
		state.MaxUnavailable, state.MinAvailable = intOrStringValue(b.Spec.MaxUnavailable), intOrStringValue(b.Spec.MinAvailable)
		state.Preview = types.ObjectNull(budgetPreviewAttrTypes)
		if p, err := h.Placement(ctx, name); err == nil {
			state.Preview = budgetPreview(ctx, r.Clients.View(), p, *state, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	})
}

func (r *disruptionBudgetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	backend.WithHubModel(ctx, r.Clients, req.Plan, &resp.Diagnostics, func(ctx context.Context, plan *budgetModel, h *hub.Client) {
		if _, err := h.UpdateDisruptionBudget(ctx, plan.Placement.ValueString(), plan.spec()); err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Updating the disruption budget", err)
			return
		}
		r.previewAtApply(ctx, h, plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		r.warnMoved(ctx, req.Config, plan, &resp.Diagnostics)
	})
}

func (r *disruptionBudgetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.WithHubModel(ctx, r.Clients, req.State, &resp.Diagnostics, func(ctx context.Context, state *budgetModel, h *hub.Client) {
		if err := h.DeleteDisruptionBudget(ctx, state.Placement.ValueString()); err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Deleting the disruption budget", err)
		}
	})
}

// previewAtApply fills a preview the plan left unknown (its placement did not exist yet).
func (r *disruptionBudgetResource) previewAtApply(ctx context.Context, h *hub.Client, m *budgetModel, diags *diag.Diagnostics) {
	if !m.Preview.IsUnknown() {
		return
	}
	m.Preview = types.ObjectNull(budgetPreviewAttrTypes)
	if p, err := h.Placement(ctx, m.Placement.ValueString()); err == nil {
		m.Preview = budgetPreview(ctx, r.Clients.View(), p, *m, diags)
	}
}

type budgetModel struct {
	ID             types.String `tfsdk:"id"`
	Placement      types.String `tfsdk:"placement"`
	MaxUnavailable types.String `tfsdk:"max_unavailable"`
	MinAvailable   types.String `tfsdk:"min_available"`
	Preview        types.Object `tfsdk:"preview"`
	Facts          types.String `tfsdk:"facts"`
}

// spec is the budget's spec: "2" a count, "25%" a percentage.
func (m budgetModel) spec() placementv1beta1.PlacementDisruptionBudgetSpec {
	return placementv1beta1.PlacementDisruptionBudgetSpec{MaxUnavailable: intOrString(m.MaxUnavailable), MinAvailable: intOrString(m.MinAvailable)}
}

func intOrString(v types.String) *intstr.IntOrString {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		x := intstr.FromInt32(int32(n))
		return &x
	}
	x := intstr.FromString(s)
	return &x
}

func intOrStringValue(v *intstr.IntOrString) types.String {
	if v == nil {
		return types.StringNull()
	}
	return types.StringValue(v.String())
}

// int32Value refuses a count the CRD's int-or-string cannot hold.
type int32Value struct{}

func (int32Value) Description(context.Context) string { return "a count fits a 32-bit integer" }
func (v int32Value) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (int32Value) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	s := req.ConfigValue.ValueString()
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || strings.HasSuffix(s, "%") {
		return
	}
	if _, err := strconv.ParseInt(s, 10, 32); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Count out of range", fmt.Sprintf("%s: %q is not a count KubeFleet can hold (at most 2147483647).", req.Path, s))
	}
}
