package provider

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

var (
	_ resource.ResourceWithConfigure      = &placementResource{}
	_ resource.ResourceWithValidateConfig = &placementResource{}
	_ resource.ResourceWithModifyPlan     = &placementResource{}
	_ resource.ResourceWithImportState    = &placementResource{}
)

// NewPlacementResource is fleet_placement: a ClusterResourcePlacement on the fleet hub.
func NewPlacementResource() resource.Resource { return &placementResource{} }

type placementResource struct {
	clients *engine.Clients
}

// Defaults of a RollingUpdate strategy (the CRD's, and the hub agent's defaulter:
// pkg/utils/defaulter/clusterresourceplacement.go).
const (
	placementDefaultMaxUnavailable       = "25%"
	placementDefaultMaxSurge             = "25%"
	placementDefaultUnavailablePeriod    = 60
	placementDefaultRevisionHistoryLimit = 10

	placementCreateTimeout = 20 * time.Minute
	placementUpdateTimeout = 20 * time.Minute
	placementDeleteTimeout = 10 * time.Minute

	// placementPollInterval: placement status changes within seconds; a hub GET is cheap.
	placementPollInterval = 2 * time.Second
)

// placementConfigAttributes are the attributes a user configures; the preview is recomputed when one of
// them changes.
var placementConfigAttributes = []string{"name", "resource_selectors", "policy", "strategy", "revision_history_limit", "wait_for_rollout", "timeouts"}

func (r *placementResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_placement"
}

func (r *placementResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = rschema.Schema{
		Description: "A ClusterResourcePlacement on the fleet hub (KubeFleet `placement.kubernetes-fleet.io/v1beta1`): which hub " +
			"resources go to which member clusters. The plan's `preview` shows which clusters KubeFleet's scheduler will pick, in " +
			"which order and with which scores, and why every other cluster is left out, computed by the hub agent's own rules " +
			"(v0.14.0). Changing `policy.placement_type` or removing a toleration fails at plan, as KubeFleet rejects both.",
		Attributes: map[string]rschema.Attribute{
			"id": rschema.StringAttribute{
				Computed: true, Description: "The placement's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": rschema.StringAttribute{
				Required:      true,
				Description:   "The ClusterResourcePlacement's name: a DNS subdomain of at most 63 characters. Changing it replaces the placement.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{
					stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(placementNameRe, "must be a DNS subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"),
				},
			},
			"resource_selectors": placementResourceSelectorsAttribute(),
			"policy":             placementPolicyAttribute(),
			"strategy":           placementStrategyAttribute(),
			"revision_history_limit": rschema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(placementDefaultRevisionHistoryLimit),
				Description: "How many policy and resource snapshots the hub keeps (1 to 1000). Default: 10.",
				Validators:  []validator.Int64{int64validator.Between(1, 1000)},
			},
			"wait_for_rollout": rschema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Apply waits until the placement is scheduled and its resources are Applied and Available on every " +
					"picked cluster (within the create or update timeout). Needs the RollingUpdate strategy. Default: false.",
			},
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}, timeoutDefault{"create", placementCreateTimeout}, timeoutDefault{"update", placementUpdateTimeout}, timeoutDefault{"delete", placementDeleteTimeout}),
			"preview":  placementPreviewAttribute(),
			"status":   placementStatusAttribute(),
			"latest_resource_snapshot_index": rschema.StringAttribute{
				Computed: true,
				Description: "The index of the latest ClusterResourceSnapshot the hub agent cut of the selected resources " +
					"(`\"0\"`, `\"1\"`, …, as KubeFleet writes it): a new one whenever the selected resources or their " +
					"content change. With the External strategy, a staged update run names the index it rolls out. Refreshed " +
					"on every read; null until the hub agent has cut the first one (right after the placement is created).",
			},
			"resource_snapshots": rschema.ListNestedAttribute{
				Computed: true,
				Description: "The resource snapshots the hub keeps (at most `revision_history_limit`, older ones are removed), " +
					"ordered by index: the versions an update run can name. Refreshed on every read.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"index":      rschema.StringAttribute{Computed: true, Description: "The snapshot's resource index."},
					"created_at": rschema.StringAttribute{Computed: true, Description: "When the hub agent cut it (RFC 3339, UTC)."},
				}},
			},
		},
	}
}

func placementResourceSelectorsAttribute() rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{
		Required: true,
		Description: "The cluster-scoped hub resources to place (ORed, 1 to 100). A Namespace is placed with everything in it " +
			"unless `selection_scope` says otherwise.",
		Validators: []validator.List{listvalidator.SizeBetween(1, 100)},
		NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
			"group": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(""),
				Description: "The API group; empty (the default) for the core group.",
			},
			"version": rschema.StringAttribute{Required: true, Description: "The API version, e.g. `v1`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"kind": rschema.StringAttribute{Required: true, Description: "The kind, e.g. `Namespace`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"name": rschema.StringAttribute{
				Optional:    true,
				Description: "The resource's name; conflicts with `label_selector`. With neither, every resource of the kind.",
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("label_selector")),
				},
			},
			"label_selector": rschema.SingleNestedAttribute{
				Optional:    true,
				Description: "Selects resources of the kind by label.",
				Attributes: map[string]rschema.Attribute{
					"match_labels": rschema.MapAttribute{
						Optional: true, ElementType: types.StringType,
						Description: "Labels the resources must have, with these values.",
						Validators: []validator.Map{mapvalidator.SizeAtLeast(1), mapvalidator.NoNullValues(),
							mapvalidator.AtLeastOneOf(path.MatchRelative().AtParent().AtName("match_expressions"))},
					},
					"match_expressions": placementLabelExpressionsAttribute("the resources"),
				},
			},
			"selection_scope": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(placementScopeWithResources),
				Description: "For a Namespace: `NamespaceWithResources` (the namespace and everything in it; the default) or " +
					"`NamespaceOnly` (the namespace alone; needs a hub whose KubeFleet knows selectionScope, which v0.14.0 does not — " +
					"checked at plan).",
				Validators: []validator.String{stringvalidator.OneOf(placementScopeWithResources, placementScopeNamespaceOnly)},
			},
		}},
	}
}

func placementStrategyAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Optional: true, Computed: true,
		Default: objectdefault.StaticValue(types.ObjectValueMust(placementStrategyAttrTypes, map[string]attr.Value{
			"type":                       types.StringValue(string(placementv1beta1.RollingUpdateRolloutStrategyType)),
			"max_unavailable":            types.StringValue(placementDefaultMaxUnavailable),
			"max_surge":                  types.StringValue(placementDefaultMaxSurge),
			"unavailable_period_seconds": types.Int64Value(placementDefaultUnavailablePeriod),
		})),
		Description: "How changes roll out to the picked clusters. Default: RollingUpdate with 25% unavailable, 25% surge, 60 s.",
		Attributes: map[string]rschema.Attribute{
			"type": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(placementv1beta1.RollingUpdateRolloutStrategyType)),
				Description: "`RollingUpdate` (the hub rolls out by itself; the default) or `External` (staged update runs roll it out).",
				Validators: []validator.String{stringvalidator.OneOf(string(placementv1beta1.RollingUpdateRolloutStrategyType),
					string(placementv1beta1.ExternalRolloutStrategyType))},
			},
			"max_unavailable": rschema.StringAttribute{
				Optional: true, Computed: true,
				Description: "RollingUpdate: how many picked clusters may be unavailable during a rollout, a number or a " +
					"percentage of the target (rounded up). Default: `25%`; null with External.",
				Validators:    []validator.String{stringvalidator.RegexMatches(placementIntOrPercentRe, "must be a number or a percentage from 0% to 100%")},
				PlanModifiers: []planmodifier.String{rollingUpdateString(placementDefaultMaxUnavailable)},
			},
			"max_surge": rschema.StringAttribute{
				Optional: true, Computed: true,
				Description: "RollingUpdate: how many clusters above the target may have the placement during a rollout, a " +
					"number or a percentage (rounded up). Default: `25%`; null with External.",
				Validators:    []validator.String{stringvalidator.RegexMatches(placementIntOrPercentRe, "must be a number or a percentage from 0% to 100%")},
				PlanModifiers: []planmodifier.String{rollingUpdateString(placementDefaultMaxSurge)},
			},
			"unavailable_period_seconds": rschema.Int64Attribute{
				Optional: true, Computed: true,
				Description: "RollingUpdate: how long the hub waits before it counts a cluster whose resources it cannot " +
					"track as available. Default: 60; null with External.",
				Validators:    []validator.Int64{int64validator.Between(0, math.MaxInt32)},
				PlanModifiers: []planmodifier.Int64{rollingUpdateInt64(placementDefaultUnavailablePeriod)},
			},
		},
	}
}

var placementStrategyAttrTypes = map[string]attr.Type{
	"type": types.StringType, "max_unavailable": types.StringType, "max_surge": types.StringType, "unavailable_period_seconds": types.Int64Type,
}

func placementConditionAttributes() map[string]rschema.Attribute {
	return map[string]rschema.Attribute{
		"type":    rschema.StringAttribute{Computed: true, Description: "The condition type."},
		"status":  rschema.StringAttribute{Computed: true, Description: "`True`, `False` or `Unknown`."},
		"reason":  rschema.StringAttribute{Computed: true, Description: "A machine-readable reason."},
		"message": rschema.StringAttribute{Computed: true, Description: "A human-readable message."},
	}
}

func placementStatusAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "The placement's status on the hub, refreshed on every read: what the hub agent did (compare with " +
			"`preview`, what it was going to do).",
		Attributes: map[string]rschema.Attribute{
			"observed_generation": rschema.Int64Attribute{Computed: true, Description: "The generation of the spec the Scheduled condition describes."},
			"conditions": rschema.ListNestedAttribute{
				Computed: true, Description: "The placement's conditions (Scheduled, RolloutStarted, Overridden, WorkSynchronized, Applied, Available).",
				NestedObject: rschema.NestedAttributeObject{Attributes: placementConditionAttributes()},
			},
			"placement_statuses": rschema.ListNestedAttribute{
				Computed: true,
				Description: "Per cluster, by name; a PickN or PickFixed placement short of clusters also lists, without a " +
					"cluster, one entry per missing cluster with the reason.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"cluster": rschema.StringAttribute{Computed: true, Description: "The member cluster; null for a cluster the scheduler could not find."},
					"resource_snapshot_index": rschema.StringAttribute{
						Computed: true,
						Description: "The resource snapshot index the cluster's binding points to: the version of the selected " +
							"resources it runs or is getting. Null while it has none, e.g. with the External strategy before an " +
							"update run has rolled a version out to it.",
					},
					"conditions": rschema.ListNestedAttribute{
						Computed: true, Description: "The cluster's conditions; Scheduled's message has the cluster's scores.",
						NestedObject: rschema.NestedAttributeObject{Attributes: placementConditionAttributes()},
					},
				}},
			},
			"selected_resources": rschema.ListNestedAttribute{
				Computed: true, Description: "The hub resources the placement selected.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"group":     rschema.StringAttribute{Computed: true, Description: "API group."},
					"version":   rschema.StringAttribute{Computed: true, Description: "API version."},
					"kind":      rschema.StringAttribute{Computed: true, Description: "Kind."},
					"name":      rschema.StringAttribute{Computed: true, Description: "Name."},
					"namespace": rschema.StringAttribute{Computed: true, Description: "Namespace; null for cluster-scoped resources."},
				}},
			},
		},
	}
}

func (r *placementResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks what needs no backend: KubeFleet's policy rules, label selectors and the
// strategy's field combinations, with attribute paths.
func (r *placementResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, unknown, diags := decodePlacementConfig(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	validatePlacementPolicy(&resp.Diagnostics, path.Root("policy"), m.Policy, unknown)
	for i, s := range m.ResourceSelectors {
		if s.LabelSelector == nil {
			continue
		}
		p := path.Root("resource_selectors").AtListIndex(i).AtName("label_selector")
		if relatedToAny(p, unknown) {
			continue
		}
		if _, err := metav1.LabelSelectorAsSelector(placementLabelSelector(s.LabelSelector.MatchLabels, s.LabelSelector.MatchExpressions)); err != nil {
			resp.Diagnostics.AddAttributeError(p, "Invalid label selector", fmt.Sprintf("Attribute %s: %v.", p, err))
		}
	}
	if st := m.Strategy; st != nil && st.Type.ValueString() == string(placementv1beta1.ExternalRolloutStrategyType) {
		for name, v := range map[string]attr.Value{"max_unavailable": st.MaxUnavailable, "max_surge": st.MaxSurge, "unavailable_period_seconds": st.UnavailablePeriodSeconds} {
			if !v.IsNull() {
				p := path.Root("strategy").AtName(name)
				resp.Diagnostics.AddAttributeError(p, "Invalid rollout strategy",
					fmt.Sprintf("Attribute %s applies to the RollingUpdate strategy only: with External, staged update runs roll the placement out.", p))
			}
		}
		if m.WaitForRollout.ValueBool() {
			resp.Diagnostics.AddAttributeError(path.Root("wait_for_rollout"), "Invalid rollout wait",
				"Attribute wait_for_rollout needs strategy.type RollingUpdate: with External, the placement rolls out only when a staged update run rolls it out, which this apply does not start.")
		}
	}
}

// ModifyPlan checks what KubeFleet would reject on update (placement type, tolerations) and what
// needs the hub, and computes the preview when the placement is created or its configuration
// changes; otherwise the prior preview stays, so an unchanged configuration plans empty.
func (r *placementResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, unknown, diags := decodePlacementConfig(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	var state placementModel
	if !creating {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	replacing := !creating && (pathsContain(unknown, path.Root("name")) || plan.Name.ValueString() != state.Name.ValueString())
	if !creating && !replacing {
		checkPlacementImmutable(&resp.Diagnostics, state.Policy, plan.Policy, unknown)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	changed, err := configChanged(req.Plan.Raw, req.State.Raw, placementConfigAttributes...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the placement", err.Error())
		return
	}
	if !changed || r.clients == nil {
		return
	}
	existing := ""
	if !creating && !replacing {
		existing = state.Name.ValueString()
	}
	preview, why, diags := r.planPreview(ctx, &plan, existing, unknown)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if why != "" {
		preview = types.ObjectUnknown(placementPreviewAttrTypes)
		addPreviewUnknownWarning(&resp.Diagnostics, path.Root("preview"), why)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), preview)...)
}

// planPreview runs the checks that need the hub and computes the preview of a new placement
// (existing "") or of an update of an existing one; why says why it stays unknown until apply.
func (r *placementResource) planPreview(ctx context.Context, plan *placementModel, existing string, unknown []path.Path) (preview types.Object, why string, diags diag.Diagnostics) {
	hc, err := r.clients.HubAPI(ctx)
	if err != nil {
		if engine.IsConfigUnknown(err) {
			return preview, err.Error(), nil
		}
		addBackendError(&diags, "Reaching the fleet hub", err)
		return preview, "", diags
	}
	if existing == "" && !pathsContain(unknown, path.Root("name")) {
		r.checkNotOnHub(ctx, &diags, hc, plan.Name.ValueString())
	}
	r.checkSelectionScope(ctx, &diags, hc, plan.ResourceSelectors, unknown)
	if diags.HasError() {
		return preview, "", diags
	}
	var policyUnknown []path.Path
	for _, p := range unknown {
		if pathsRelated(p, path.Root("policy")) {
			policyUnknown = append(policyUnknown, p)
		}
	}
	if len(policyUnknown) > 0 {
		return preview, unknownInputs(policyUnknown), diags
	}
	if existing != "" {
		// While the hub agent reschedules, a preview now would not be what the apply, seconds
		// later, plans again.
		if why := r.unsettled(ctx, hc, existing); why != "" {
			return preview, why, diags
		}
	}
	p, warnings, err := placementPreview(ctx, r.clients, existing, plan.Policy.toAPI())
	if err != nil {
		if engine.IsConfigUnknown(err) {
			return preview, err.Error(), diags
		}
		addBackendError(&diags, "Computing the placement preview", err)
		return preview, "", diags
	}
	for _, w := range warnings {
		diags.AddAttributeWarning(path.Root("policy"), "Placement will not schedule", w)
	}
	preview, d := p.object(r.clients.ListLimit())
	diags.Append(d...)
	return preview, "", diags
}

// unsettled says why the hub agent has not finished scheduling the placement's current spec, or
// "" when it has.
func (r *placementResource) unsettled(ctx context.Context, hc *hub.Client, name string) string {
	crp, err := hc.Placement(ctx, name)
	if err != nil {
		return fmt.Sprintf("reading placement %q on the hub failed (%v)", name, err)
	}
	c := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
	if c == nil || c.ObservedGeneration != crp.Generation || c.Status == metav1.ConditionUnknown {
		return fmt.Sprintf("the hub agent is still scheduling placement %q (generation %d); the preview is computed when the apply starts", name, crp.Generation)
	}
	return ""
}

// checkPlacementImmutable fails a plan that changes what KubeFleet's webhook forbids changing: the
// placement type, and existing tolerations (they can only be added).
func checkPlacementImmutable(diags *diag.Diagnostics, old, updated *policyModel, unknown []path.Path) {
	typePath := path.Root("policy").AtName("placement_type")
	tolerationsPath := path.Root("policy").AtName("tolerations")
	if updated == nil {
		typePath, tolerationsPath = path.Root("policy"), path.Root("policy")
	}
	for _, is := range scheduling.ImmutableChanges(old.toAPI(), updated.toAPI()) {
		switch is.Path.String() {
		case "placementType":
			if relatedToAny(typePath, unknown) {
				continue
			}
			diags.AddAttributeError(typePath, "Placement type cannot change",
				fmt.Sprintf("Attribute %s: the placement type is immutable (%s → %s): KubeFleet rejects the change. To change it, "+
					"create a placement with another name and the new type, then remove this one; replacing this placement in one "+
					"apply would first remove its resources from every cluster.", typePath, placementTypeOf(old), placementTypeOf(updated)))
		case "tolerations":
			if relatedToAny(tolerationsPath, unknown) {
				continue
			}
			diags.AddAttributeError(tolerationsPath, "Tolerations can only be added",
				fmt.Sprintf("Attribute %s: %s; KubeFleet rejects removing or changing a toleration (removed or changed: %s). "+
					"Keep the existing tolerations and append new ones.", tolerationsPath, is.Message, removedTolerations(old, updated)))
		}
	}
}

func placementTypeOf(m *policyModel) string {
	p := scheduling.Defaulted(m.toAPI())
	if p == nil {
		return string(placementv1beta1.PickAllPlacementType)
	}
	return string(p.PlacementType)
}

func removedTolerations(old, updated *policyModel) string {
	keep := map[placementv1beta1.Toleration]bool{}
	if p := scheduling.Defaulted(updated.toAPI()); p != nil {
		for _, t := range p.Tolerations {
			keep[t] = true
		}
	}
	var out []string
	if p := scheduling.Defaulted(old.toAPI()); p != nil {
		for _, t := range p.Tolerations {
			if !keep[t] {
				out = append(out, fmt.Sprintf("{key=%q operator=%s value=%q effect=%q}", t.Key, t.Operator, t.Value, t.Effect))
			}
		}
	}
	return strings.Join(out, ", ")
}

// checkNotOnHub fails the plan of a new placement whose name the hub already has.
func (r *placementResource) checkNotOnHub(ctx context.Context, diags *diag.Diagnostics, hc *hub.Client, name string) {
	there, err := hc.PlacementExists(ctx, name)
	switch {
	case err != nil:
		diags.AddError("Reading the placement", fmt.Sprintf("Checking whether placement %q exists on the hub: %v", name, err))
	case there:
		diags.AddAttributeError(path.Root("name"), "Placement already exists",
			fmt.Sprintf("The fleet hub already has a ClusterResourcePlacement named %q. To manage it with Terraform, import it "+
				"(terraform import <address> %s, or an import block), or choose another name.", name, name))
	}
}

// checkSelectionScope fails a NamespaceOnly selector the hub's API would silently drop.
func (r *placementResource) checkSelectionScope(ctx context.Context, diags *diag.Diagnostics, hc *hub.Client, selectors []resourceSelectorModel, unknown []path.Path) {
	for i, s := range selectors {
		p := path.Root("resource_selectors").AtListIndex(i).AtName("selection_scope")
		if s.SelectionScope.ValueString() != placementScopeNamespaceOnly || relatedToAny(p, unknown) {
			continue
		}
		ok, err := hc.SupportsSelectionScope(ctx)
		if err != nil {
			diags.AddAttributeWarning(p, "Cannot check selection_scope",
				fmt.Sprintf("Attribute %s: reading the hub's ClusterResourcePlacement API failed (%v); if the hub's KubeFleet does not know selectionScope, it places the namespace with its resources.", p, err))
			return
		}
		if !ok {
			diags.AddAttributeError(p, "Selection scope not supported by the hub",
				fmt.Sprintf("Attribute %s: the hub's ClusterResourcePlacement API has no resourceSelectors[].selectionScope (KubeFleet v0.14.0 and older), "+
					"so it would place the namespace with all its resources. Remove selection_scope or upgrade the hub.", p))
		}
		return
	}
}

func (r *placementResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !placementNameRe.MatchString(req.ID) || len(req.ID) > 63 {
		resp.Diagnostics.AddError("Invalid import ID",
			fmt.Sprintf("Expected the name of a ClusterResourcePlacement on the fleet hub (a DNS subdomain of at most 63 characters), got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

func (r *placementResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan placementModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, placementCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc, err := r.clients.HubAPI(ctx)
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
		return
	}
	name := plan.Name.ValueString()
	created, err := hc.CreatePlacement(ctx, placementFromModel(&plan))
	if err != nil {
		if hub.IsAlreadyExists(err) {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Placement already exists",
				fmt.Sprintf("The fleet hub already has a ClusterResourcePlacement named %q: import it, or choose another name.", name))
			return
		}
		resp.Diagnostics.AddError("Creating the placement", fmt.Sprintf("Creating ClusterResourcePlacement %q on the hub: %v", name, err))
		return
	}
	tflog.Info(ctx, "placement created", map[string]any{"placement": name})
	plan.ID = types.StringValue(name)
	if plan.Preview.IsUnknown() {
		// Unknown at plan (an input was): computed now, before the hub acts on the placement.
		resp.Diagnostics.Append(r.fillPreview(ctx, &plan, "")...)
	}
	r.saveWithStatus(ctx, hc, &plan, created, &resp.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !plan.WaitForRollout.ValueBool() {
		return
	}
	r.waitAndSave(ctx, hc, &plan, &resp.State, &resp.Diagnostics)
}

func (r *placementResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state placementModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	hc, err := r.clients.HubAPI(ctx)
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
		return
	}
	name := state.Name.ValueString()
	crp, err := hc.Placement(ctx, name)
	if hub.IsNotFound(err) {
		tflog.Info(ctx, "placement gone from the hub; removing it from state", map[string]any{"placement": name})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the placement", fmt.Sprintf("Reading ClusterResourcePlacement %q: %v", name, err))
		return
	}
	versions, err := hc.ResourceVersions(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Reading the placement", fmt.Sprintf("Reading the resource snapshots of ClusterResourcePlacement %q: %v", name, err))
		return
	}
	state.ID = types.StringValue(name)
	placementSpecToModel(&state, crp)
	if state.WaitForRollout.IsNull() {
		state.WaitForRollout = types.BoolValue(false) // imported
	}
	resp.Diagnostics.Append(state.setObserved(crp, versions)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *placementResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan placementModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, placementUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc, err := r.clients.HubAPI(ctx)
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
		return
	}
	name := plan.Name.ValueString()
	if plan.Preview.IsUnknown() {
		resp.Diagnostics.Append(r.fillPreview(ctx, &plan, name)...)
	}
	// Only the fields the provider manages are written; the hub client retries conflicts with the
	// hub agent, which writes the placement too.
	updated, err := hc.UpdatePlacementSpec(ctx, placementFromModel(&plan))
	if err != nil {
		resp.Diagnostics.AddError("Updating the placement", fmt.Sprintf("Updating ClusterResourcePlacement %q: %v", name, err))
		return
	}
	tflog.Info(ctx, "placement updated", map[string]any{"placement": name, "generation": updated.Generation})
	plan.ID = types.StringValue(name)
	r.saveWithStatus(ctx, hc, &plan, updated, &resp.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !plan.WaitForRollout.ValueBool() {
		return
	}
	r.waitAndSave(ctx, hc, &plan, &resp.State, &resp.Diagnostics)
}

func (r *placementResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state placementModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, placementDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc, err := r.clients.HubAPI(ctx)
	if err != nil {
		addBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
		return
	}
	name := state.Name.ValueString()
	if err := hc.DeletePlacement(ctx, name); err != nil {
		resp.Diagnostics.AddError("Deleting the placement", fmt.Sprintf("Deleting ClusterResourcePlacement %q: %v", name, err))
		return
	}
	// The hub agent's finalizers remove the placed resources from the clusters first.
	if err := hc.WaitPlacementGone(ctx, name, time.Second); err != nil {
		resp.Diagnostics.AddError("Deleting the placement", err.Error())
	}
}

// ---- models ----

type placementModel struct {
	ID                   types.String            `tfsdk:"id"`
	Name                 types.String            `tfsdk:"name"`
	ResourceSelectors    []resourceSelectorModel `tfsdk:"resource_selectors"`
	Policy               *policyModel            `tfsdk:"policy"`
	Strategy             *placementStrategyModel `tfsdk:"strategy"`
	RevisionHistoryLimit types.Int64             `tfsdk:"revision_history_limit"`
	WaitForRollout       types.Bool              `tfsdk:"wait_for_rollout"`
	Timeouts             timeouts.Value          `tfsdk:"timeouts"`
	Preview              types.Object            `tfsdk:"preview"`
	Status               types.Object            `tfsdk:"status"`
	LatestResourceIndex  types.String            `tfsdk:"latest_resource_snapshot_index"`
	ResourceSnapshots    types.List              `tfsdk:"resource_snapshots"`
}

type placementLabelSelectorModel struct {
	MatchLabels      map[string]string      `tfsdk:"match_labels"`
	MatchExpressions []labelExpressionModel `tfsdk:"match_expressions"`
}

type resourceSelectorModel struct {
	Group          types.String                 `tfsdk:"group"`
	Version        types.String                 `tfsdk:"version"`
	Kind           types.String                 `tfsdk:"kind"`
	Name           types.String                 `tfsdk:"name"`
	LabelSelector  *placementLabelSelectorModel `tfsdk:"label_selector"`
	SelectionScope types.String                 `tfsdk:"selection_scope"`
}

type placementStrategyModel struct {
	Type                     types.String `tfsdk:"type"`
	MaxUnavailable           types.String `tfsdk:"max_unavailable"`
	MaxSurge                 types.String `tfsdk:"max_surge"`
	UnavailablePeriodSeconds types.Int64  `tfsdk:"unavailable_period_seconds"`
}

var (
	placementConditionAttrTypes = types.ObjectType{AttrTypes: map[string]attr.Type{
		"type": types.StringType, "status": types.StringType, "reason": types.StringType, "message": types.StringType,
	}}
	placementClusterStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"cluster": types.StringType, "conditions": types.ListType{ElemType: placementConditionAttrTypes},
		"resource_snapshot_index": types.StringType,
	}}
	placementResourceSnapshotType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"index": types.StringType, "created_at": types.StringType,
	}}
	placementSelectedResourceType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"group": types.StringType, "version": types.StringType, "kind": types.StringType, "name": types.StringType, "namespace": types.StringType,
	}}
	placementStatusAttrTypes = map[string]attr.Type{
		"observed_generation": types.Int64Type,
		"conditions":          types.ListType{ElemType: placementConditionAttrTypes},
		"placement_statuses":  types.ListType{ElemType: placementClusterStatusType},
		"selected_resources":  types.ListType{ElemType: placementSelectedResourceType},
	}
)

// ---- helpers ----

// decodePlacementConfig reads a configuration or plan that may hold unknown values (see decodePartial);
// the computed attributes, unknown by nature at plan, are not reported.
func decodePlacementConfig(ctx context.Context, cfg tfsdk.Config) (placementModel, []path.Path, diag.Diagnostics) {
	var m placementModel
	unknown, diags := decodePartial(ctx, cfg, &m, path.Root("id"), path.Root("preview"), path.Root("status"),
		path.Root("latest_resource_snapshot_index"), path.Root("resource_snapshots"))
	return m, unknown, diags
}

// rollingUpdateString and rollingUpdateInt64 plan a RollingUpdate field left unset: its default
// with RollingUpdate, null with External (KubeFleet rejects rollingUpdate settings with External).
type rollingUpdateDefault struct {
	str string
	num int64
}

func rollingUpdateString(def string) planmodifier.String { return rollingUpdateDefault{str: def} }
func rollingUpdateInt64(def int64) planmodifier.Int64    { return rollingUpdateDefault{num: def} }

func (d rollingUpdateDefault) Description(context.Context) string {
	return "Defaults the RollingUpdate settings; null with the External strategy."
}

func (d rollingUpdateDefault) MarkdownDescription(ctx context.Context) string {
	return d.Description(ctx)
}

func (d rollingUpdateDefault) strategyType(ctx context.Context, plan tfsdk.Plan, p path.Path) (types.String, diag.Diagnostics) {
	var t types.String
	diags := plan.GetAttribute(ctx, p.ParentPath().AtName("type"), &t)
	return t, diags
}

func (d rollingUpdateDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	t, diags := d.strategyType(ctx, req.Plan, req.Path)
	resp.Diagnostics.Append(diags...)
	switch {
	case t.IsUnknown():
		resp.PlanValue = types.StringUnknown()
	case t.ValueString() == string(placementv1beta1.ExternalRolloutStrategyType):
		resp.PlanValue = types.StringNull()
	default:
		resp.PlanValue = types.StringValue(d.str)
	}
}

func (d rollingUpdateDefault) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if !req.ConfigValue.IsNull() {
		return
	}
	t, diags := d.strategyType(ctx, req.Plan, req.Path)
	resp.Diagnostics.Append(diags...)
	switch {
	case t.IsUnknown():
		resp.PlanValue = types.Int64Unknown()
	case t.ValueString() == string(placementv1beta1.ExternalRolloutStrategyType):
		resp.PlanValue = types.Int64Null()
	default:
		resp.PlanValue = types.Int64Value(d.num)
	}
}

func (r *placementResource) fillPreview(ctx context.Context, m *placementModel, existing string) diag.Diagnostics {
	var diags diag.Diagnostics
	preview, warnings, err := placementPreview(ctx, r.clients, existing, m.Policy.toAPI())
	if err != nil {
		diags.AddWarning("Placement preview", fmt.Sprintf("The preview could not be computed: %v", err))
		m.Preview = types.ObjectNull(placementPreviewAttrTypes)
		return diags
	}
	for _, w := range warnings {
		diags.AddWarning("Placement will not schedule", w)
	}
	obj, d := preview.object(r.clients.ListLimit())
	diags.Append(d...)
	m.Preview = obj
	return diags
}

// placementFromModel is the ClusterResourcePlacement the configuration describes (KubeFleet's
// v1beta1 types, plus selectionScope, which v0.14.0's types lack).
func placementFromModel(m *placementModel) *hub.Placement {
	p := &hub.Placement{}
	p.Name = m.Name.ValueString()
	p.Spec = placementv1beta1.ClusterResourcePlacementSpec{Policy: m.Policy.toAPI(), Strategy: m.Strategy.toAPI()}
	for i, s := range m.ResourceSelectors {
		sel := placementv1beta1.ClusterResourceSelector{Group: s.Group.ValueString(), Version: s.Version.ValueString(), Kind: s.Kind.ValueString(), Name: s.Name.ValueString()}
		if s.LabelSelector != nil {
			sel.LabelSelector = placementLabelSelector(s.LabelSelector.MatchLabels, s.LabelSelector.MatchExpressions)
			if sel.LabelSelector == nil {
				sel.LabelSelector = &metav1.LabelSelector{}
			}
		}
		p.Spec.ResourceSelectors = append(p.Spec.ResourceSelectors, sel)
		if s.SelectionScope.ValueString() == placementScopeNamespaceOnly {
			p.SelectionScopes = append(p.SelectionScopes, make([]string, i+1-len(p.SelectionScopes))...)
			p.SelectionScopes[i] = placementScopeNamespaceOnly
		}
	}
	if !m.RevisionHistoryLimit.IsNull() && !m.RevisionHistoryLimit.IsUnknown() {
		n := placementInt32(m.RevisionHistoryLimit)
		p.Spec.RevisionHistoryLimit = &n
	}
	return p
}

// placementSpecToModel reads the hub's spec into the model, with the API's defaults for fields the hub
// left empty.
func placementSpecToModel(m *placementModel, crp *hub.Placement) {
	m.Name = types.StringValue(crp.Name)
	m.ResourceSelectors = make([]resourceSelectorModel, 0, len(crp.Spec.ResourceSelectors))
	for i, s := range crp.Spec.ResourceSelectors {
		sm := resourceSelectorModel{
			Group: types.StringValue(s.Group), Version: types.StringValue(s.Version), Kind: types.StringValue(s.Kind),
			Name: plString(s.Name), SelectionScope: types.StringValue(placementScopeWithResources),
		}
		if s.LabelSelector != nil {
			ml, me := plLabelsFromSelector(s.LabelSelector)
			sm.LabelSelector = &placementLabelSelectorModel{MatchLabels: ml, MatchExpressions: me}
		}
		if scope := crp.SelectionScope(i); scope != "" {
			sm.SelectionScope = types.StringValue(scope)
		}
		m.ResourceSelectors = append(m.ResourceSelectors, sm)
	}
	m.Policy = placementPolicyFromAPI(crp.Spec.Policy)
	m.Strategy = placementStrategyFromAPI(crp.Spec.Strategy)
	m.RevisionHistoryLimit = types.Int64Value(placementDefaultRevisionHistoryLimit)
	if crp.Spec.RevisionHistoryLimit != nil {
		m.RevisionHistoryLimit = types.Int64Value(int64(*crp.Spec.RevisionHistoryLimit))
	}
}

func (s *placementStrategyModel) toAPI() placementv1beta1.RolloutStrategy {
	if s == nil {
		return placementv1beta1.RolloutStrategy{Type: placementv1beta1.RollingUpdateRolloutStrategyType}
	}
	out := placementv1beta1.RolloutStrategy{Type: placementv1beta1.RolloutStrategyType(s.Type.ValueString())}
	if out.Type == placementv1beta1.ExternalRolloutStrategyType {
		return out
	}
	ru := &placementv1beta1.RollingUpdateConfig{}
	if v := s.MaxUnavailable; !v.IsNull() && !v.IsUnknown() {
		ru.MaxUnavailable = placementIntOrPercent(v.ValueString())
	}
	if v := s.MaxSurge; !v.IsNull() && !v.IsUnknown() {
		ru.MaxSurge = placementIntOrPercent(v.ValueString())
	}
	if v := s.UnavailablePeriodSeconds; !v.IsNull() && !v.IsUnknown() {
		n := int(v.ValueInt64())
		ru.UnavailablePeriodSeconds = &n
	}
	out.RollingUpdate = ru
	return out
}

// placementIntOrPercent: "25%" stays a string, "1" is the number 1 (the rollout controller reads a
// string without % as an error).
func placementIntOrPercent(s string) *intstr.IntOrString {
	if n, err := strconv.Atoi(s); err == nil {
		v := intstr.FromInt32(int32(max(math.MinInt32, min(math.MaxInt32, n))))
		return &v
	}
	v := intstr.FromString(s)
	return &v
}

func placementStrategyFromAPI(s placementv1beta1.RolloutStrategy) *placementStrategyModel {
	if s.Type == placementv1beta1.ExternalRolloutStrategyType {
		return &placementStrategyModel{Type: types.StringValue(string(s.Type)), MaxUnavailable: types.StringNull(), MaxSurge: types.StringNull(), UnavailablePeriodSeconds: types.Int64Null()}
	}
	m := &placementStrategyModel{
		Type:                     types.StringValue(string(placementv1beta1.RollingUpdateRolloutStrategyType)),
		MaxUnavailable:           types.StringValue(placementDefaultMaxUnavailable),
		MaxSurge:                 types.StringValue(placementDefaultMaxSurge),
		UnavailablePeriodSeconds: types.Int64Value(placementDefaultUnavailablePeriod),
	}
	if ru := s.RollingUpdate; ru != nil {
		if ru.MaxUnavailable != nil {
			m.MaxUnavailable = types.StringValue(ru.MaxUnavailable.String())
		}
		if ru.MaxSurge != nil {
			m.MaxSurge = types.StringValue(ru.MaxSurge.String())
		}
		if ru.UnavailablePeriodSeconds != nil {
			m.UnavailablePeriodSeconds = types.Int64Value(int64(*ru.UnavailablePeriodSeconds))
		}
	}
	return m
}

// placementConditions lists conditions as values.
func placementConditions(conds []metav1.Condition, diags *diag.Diagnostics) types.List {
	out := make([]attr.Value, 0, len(conds))
	for _, c := range conds {
		o, d := types.ObjectValue(placementConditionAttrTypes.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(string(c.Status)),
			"reason": types.StringValue(c.Reason), "message": types.StringValue(c.Message),
		})
		diags.Append(d...)
		out = append(out, o)
	}
	l, d := types.ListValue(placementConditionAttrTypes, out)
	diags.Append(d...)
	return l
}

// placementStatusObject is the hub's status of the placement, built value by value (a placement
// on a thousand clusters has six thousand conditions: reflection would cost seconds). Per-cluster
// statuses are sorted by name (the hub's order follows its bindings), unnamed entries for missing
// clusters last.
func placementStatusObject(crp *placementv1beta1.ClusterResourcePlacement, indexByCluster map[string]string) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	generation := int64(0)
	if c := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType)); c != nil {
		generation = c.ObservedGeneration
	}
	statuses := append([]placementv1beta1.ResourcePlacementStatus(nil), crp.Status.PlacementStatuses...)
	sort.SliceStable(statuses, func(i, j int) bool {
		a, b := statuses[i].ClusterName, statuses[j].ClusterName
		if (a == "") != (b == "") {
			return b == ""
		}
		return a < b
	})
	clusters := make([]attr.Value, 0, len(statuses))
	for _, ps := range statuses {
		o, d := types.ObjectValue(placementClusterStatusType.AttrTypes, map[string]attr.Value{
			"cluster": plString(ps.ClusterName), "conditions": placementConditions(ps.Conditions, &diags),
			"resource_snapshot_index": plString(indexByCluster[ps.ClusterName]),
		})
		diags.Append(d...)
		clusters = append(clusters, o)
	}
	resources := make([]attr.Value, 0, len(crp.Status.SelectedResources))
	for _, r := range crp.Status.SelectedResources {
		o, d := types.ObjectValue(placementSelectedResourceType.AttrTypes, map[string]attr.Value{
			"group": types.StringValue(r.Group), "version": types.StringValue(r.Version), "kind": types.StringValue(r.Kind),
			"name": types.StringValue(r.Name), "namespace": plString(r.Namespace),
		})
		diags.Append(d...)
		resources = append(resources, o)
	}
	cl, d := types.ListValue(placementClusterStatusType, clusters)
	diags.Append(d...)
	rl, d := types.ListValue(placementSelectedResourceType, resources)
	diags.Append(d...)
	o, d := types.ObjectValue(placementStatusAttrTypes, map[string]attr.Value{
		"observed_generation": types.Int64Value(generation),
		"conditions":          placementConditions(crp.Status.Conditions, &diags),
		"placement_statuses":  cl,
		"selected_resources":  rl,
	})
	diags.Append(d...)
	return o, diags
}

// setObserved sets what the hub reports: the placement's status, with each cluster's resource
// snapshot index, and the resource snapshot history.
func (m *placementModel) setObserved(crp *hub.Placement, versions hub.ResourceVersions) diag.Diagnostics {
	status, diags := placementStatusObject(&crp.ClusterResourcePlacement, versions.ByCluster)
	m.Status = status
	m.LatestResourceIndex = plString(versions.Latest)
	snaps := make([]attr.Value, 0, len(versions.Snapshots))
	for _, s := range versions.Snapshots {
		o, d := types.ObjectValue(placementResourceSnapshotType.AttrTypes, map[string]attr.Value{
			"index": types.StringValue(s.Index), "created_at": types.StringValue(s.CreatedAt.UTC().Format(time.RFC3339)),
		})
		diags.Append(d...)
		snaps = append(snaps, o)
	}
	l, d := types.ListValue(placementResourceSnapshotType, snaps)
	diags.Append(d...)
	m.ResourceSnapshots = l
	return diags
}

// saveWithStatus saves the model with what the hub reports about the placement. Right after a
// create or update the hub agent may not have cut the new resource snapshot yet: the next refresh
// shows it.
func (r *placementResource) saveWithStatus(ctx context.Context, hc *hub.Client, m *placementModel, crp *hub.Placement, state *tfsdk.State, diags *diag.Diagnostics) {
	versions, err := hc.ResourceVersions(ctx, crp.Name)
	if err != nil {
		diags.AddWarning("Reading the placement's resource snapshots",
			fmt.Sprintf("Placement %q is saved, but its resource snapshots could not be read (%v); the next refresh reads them.", crp.Name, err))
	}
	diags.Append(m.setObserved(crp, versions)...)
	diags.Append(state.Set(ctx, m)...)
}

// waitAndSave waits for the rollout and saves the final status; on failure the state is saved
// all the same and the error says which clusters are not there yet.
func (r *placementResource) waitAndSave(ctx context.Context, hc *hub.Client, m *placementModel, state *tfsdk.State, diags *diag.Diagnostics) {
	name := m.Name.ValueString()
	crp, err := waitForPlacementRollout(ctx, hc, name, placementPollInterval)
	if crp != nil {
		r.saveWithStatus(context.WithoutCancel(ctx), hc, m, crp, state, diags)
	}
	if err != nil {
		diags.AddError("Placement did not roll out", fmt.Sprintf("Waiting for placement %q: %v", name, err))
		return
	}
	if c := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType)); c != nil && c.Status == metav1.ConditionFalse {
		diags.AddWarning("Placement not fulfilled", fmt.Sprintf("Placement %q rolled out to every cluster it picked, but the scheduler could not find all the clusters its policy asks for: %s", name, c.Message))
	}
}

// placementRolloutConditions are the per-cluster conditions in the order a rollout sets them.
var placementRolloutConditions = []placementv1beta1.ResourcePlacementConditionType{
	placementv1beta1.ResourceScheduledConditionType, placementv1beta1.ResourceRolloutStartedConditionType,
	placementv1beta1.ResourceOverriddenConditionType, placementv1beta1.ResourceWorkSynchronizedConditionType,
	placementv1beta1.ResourcesAppliedConditionType, placementv1beta1.ResourcesAvailableConditionType,
}

// placementRolloutProgress describes where a placement's rollout is, and whether it is done: scheduled for
// the current generation, and every picked cluster Applied and Available for it.
func placementRolloutProgress(crp *placementv1beta1.ClusterResourcePlacement) (string, bool) {
	gen := crp.Generation
	current := func(c *metav1.Condition) bool { return c != nil && c.ObservedGeneration == gen }
	sched := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
	if !current(sched) || sched.Status == metav1.ConditionUnknown {
		return "waiting for the scheduler", false
	}
	var waiting, ready []string
	for _, ps := range crp.Status.PlacementStatuses {
		if ps.ClusterName == "" {
			continue
		}
		pending := ""
		for _, t := range placementRolloutConditions {
			c := meta.FindStatusCondition(ps.Conditions, string(t))
			if !current(c) || c.Status != metav1.ConditionTrue {
				pending = fmt.Sprintf("%s: waiting for %s", ps.ClusterName, t)
				if current(c) && c.Message != "" {
					pending += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
				}
				break
			}
		}
		if pending != "" {
			waiting = append(waiting, pending)
		} else {
			ready = append(ready, ps.ClusterName)
		}
	}
	sort.Strings(waiting)
	sort.Strings(ready)
	desc := fmt.Sprintf("available on %d cluster(s) [%s]", len(ready), strings.Join(ready, ", "))
	if len(waiting) > 0 {
		desc += "; " + strings.Join(waiting, "; ")
		return desc, false
	}
	if len(ready) > 0 {
		avail := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType))
		if !current(avail) || avail.Status != metav1.ConditionTrue {
			return desc + "; waiting for the placement's Available condition", false
		}
	}
	return desc, true
}

// waitForPlacementRollout polls the placement until placementRolloutProgress says it is done, logging each change,
// until ctx ends (the apply's timeout, or Ctrl-C). It returns the last placement read.
func waitForPlacementRollout(ctx context.Context, hc *hub.Client, name string, every time.Duration) (*hub.Placement, error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var crp *hub.Placement
	last := ""
	for {
		got, err := hc.Placement(ctx, name)
		switch {
		case err == nil:
			crp = got
			progress, done := placementRolloutProgress(&crp.ClusterResourcePlacement)
			if progress != last {
				tflog.Info(ctx, "placement rollout", map[string]any{"placement": name, "generation": crp.Generation, "progress": progress})
				last = progress
			}
			if done {
				return crp, nil
			}
		case ctx.Err() != nil:
		case hub.IsNotFound(err):
			return crp, fmt.Errorf("the placement was deleted while waiting for its rollout")
		default:
			tflog.Warn(ctx, "reading the placement failed; retrying", map[string]any{"placement": name, "error": err.Error()})
		}
		select {
		case <-ctx.Done():
			if last == "" {
				last = "no status read"
			}
			return crp, fmt.Errorf("not rolled out before the timeout or cancellation (%v): %s", ctx.Err(), last)
		case <-tick.C:
		}
	}
}
