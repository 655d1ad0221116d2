package placement

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*placementResource)(nil)

// placementResource is fleet_placement (a ClusterResourcePlacement on the fleet hub) and, with
// the namespaced scope, fleet_resource_placement (a ResourcePlacement): one implementation for
// both (placement_scope.go).
type placementResource struct {
	shared.ResourceBase
	scope *placementScope
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

// placementConfigAttributes are the attributes and blocks a user configures; the preview is recomputed when one of
// them changes.
var placementConfigAttributes = []string{"name", "resource_selector", "policy", "strategy", "apply_strategy", "revision_history_limit", "wait_for_rollout", "timeouts"}

func (r *placementResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = placementSchema(ctx)
	if r.sc().namespaced {
		resourcePlacementSchema(&resp.Schema)
	}
}

// placementSchema is fleet_placement's schema; resourcePlacementSchema adapts it for the namespaced scope.
func placementSchema(ctx context.Context) rschema.Schema {
	return rschema.Schema{
		Version: 1, // 1: nested attributes became blocks (placement_upgrade.go)
		Description: "A ClusterResourcePlacement on the fleet hub (KubeFleet `placement.kubernetes-fleet.io/v1`): which hub " +
			"resources go to which member clusters. The plan's `preview` shows which clusters KubeFleet's scheduler will pick, in " +
			"which order and with which scores, and why every other cluster is left out, computed by the hub agent's own rules " +
			"(v0.18.9). Changing `policy.placement_type`, removing a toleration or the policy, or changing `strategy.type` from " +
			"External fails at plan, as KubeFleet rejects each.",
		Attributes: map[string]rschema.Attribute{
			"id": shared.IDAttribute("The placement's name."),
			"name": shared.ReplacingAttribute("The ClusterResourcePlacement's name: a DNS subdomain of at most 63 characters. Changing it replaces the placement.", stringvalidator.LengthBetween(1, 63),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a DNS subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit")),
			"revision_history_limit": rschema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(placementDefaultRevisionHistoryLimit),
				Description: "How many policy and resource snapshots the hub keeps (1 to 1000). Default: 10.",
				Validators:  []validator.Int64{int64validator.Between(1, 1000)},
			},
			"wait_for_rollout": rschema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Apply waits until the placement is scheduled and its resources are Applied and Available on every " +
					"picked cluster (within the create or update timeout). Needs the RollingUpdate strategy and an `apply_strategy.type` " +
					"other than ReportDiff (which applies nothing). Default: false.",
			},
			"facts":   preview.FactsAttribute("the preview"),
			"preview": placementPreviewAttribute(),
			"status":  placementStatusAttribute(),
			"latest_resource_snapshot_index": rschema.StringAttribute{
				Computed: true,
				Description: "The index of the latest ClusterResourceSnapshot the hub agent cut of the selected resources " +
					"(`\"0\"`, `\"1\"`, …, as KubeFleet writes it): a new one whenever the selected resources or their " +
					"content change. With the External strategy KubeFleet v0.18 cuts none itself: a staged update run that names " +
					"no index cuts one when it initializes (and a run may name an existing index). Refreshed on every read; null " +
					"until the first one is cut (for a RollingUpdate placement, right after it is created).",
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
		Blocks: placementBlocks(ctx),
	}
}

// placementBlocks are the placement's blocks: its configuration besides the plain attributes, and timeouts.
func placementBlocks(ctx context.Context) map[string]rschema.Block {
	blocks := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: placementCreateTimeout, Update: placementUpdateTimeout, Delete: placementDeleteTimeout})
	blocks["resource_selector"] = placementResourceSelectorBlock()
	blocks["policy"] = placementPolicyBlock()
	blocks["strategy"] = placementStrategyBlock()
	blocks["apply_strategy"] = placementApplyStrategyBlock()
	return blocks
}

func placementResourceSelectorBlock() rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: "Required. Cluster-scoped hub resources to place: a kind, or the objects of a kind with a name or labels. Repeat the " +
			"block for more (ORed, 1 to 100). A Namespace is placed with everything in it unless `selection_scope` says otherwise.",
		Validators: []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 100)},
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
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
			"selection_scope": rschema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(placementScopeWithResources),
				Description: "For a Namespace: `NamespaceWithResources` (the namespace and everything in it; the default) or " +
					"`NamespaceOnly` (the namespace alone; needs a hub whose KubeFleet knows selectionScope, which v0.14.0 does not — " +
					"checked at plan).",
				Validators: []validator.String{stringvalidator.OneOf(placementScopeWithResources, placementScopeNamespaceOnly)},
			},
		}, Blocks: map[string]rschema.Block{
			"label_selector": rschema.SingleNestedBlock{
				Description: "Selects resources of the kind by label: `match_labels`, `match_expression` blocks, or both.",
				Attributes: map[string]rschema.Attribute{
					"match_labels": rschema.MapAttribute{
						Optional: true, ElementType: types.StringType,
						Description: "Labels the resources must have, with these values.",
						// With or without match_expression blocks: ValidateConfig (validators of the attributes of
						// an absent label_selector run too, so an AtLeastOneOf here would fail it).
						Validators: []validator.Map{mapvalidator.SizeAtLeast(1), mapvalidator.NoNullValues()},
					},
				},
				Blocks: map[string]rschema.Block{
					"match_expression": shared.LabelExpressionsBlock("the resources"),
				},
			},
		}},
	}
}

// ValidateConfig checks what needs no backend: KubeFleet's policy rules, label selectors and the
// strategy's field combinations, with attribute paths.
func (r *placementResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, unknown, diags := r.sc().models().Decode(ctx, req.Config, placementComputedPaths...)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.sc().namespaced {
		validateNamespacedSelectors(&resp.Diagnostics, m.ResourceSelectors, unknown)
	}
	validatePlacementPolicy(&resp.Diagnostics, path.Root("policy"), m.Policy, unknown)
	validateApplyStrategy(&resp.Diagnostics, m.ApplyStrategy, unknown)
	if as := m.ApplyStrategy; as != nil && as.Type.ValueString() == string(placementv1.ApplyStrategyTypeReportDiff) && m.WaitForRollout.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("wait_for_rollout"), "Invalid rollout wait",
			"Attribute wait_for_rollout waits until the resources are Applied and Available on every picked cluster, which never happens with apply_strategy.type ReportDiff: the member agents apply nothing and report differences (DiffReported) in status.apply.")
	}
	for i, s := range m.ResourceSelectors {
		if s.LabelSelector == nil {
			continue
		}
		p := path.Root("resource_selector").AtListIndex(i).AtName("label_selector")
		if shared.RelatedToAny(p, unknown) {
			continue
		}
		if len(s.LabelSelector.MatchLabels) == 0 && len(s.LabelSelector.MatchExpressions) == 0 {
			resp.Diagnostics.AddAttributeError(p, "Invalid label selector",
				fmt.Sprintf("Block %s needs match_labels or a match_expression block (an empty selector would select every resource of the kind: omit label_selector for that).", p))
			continue
		}
		if _, err := metav1.LabelSelectorAsSelector(shared.LabelSelector(s.LabelSelector.MatchLabels, s.LabelSelector.MatchExpressions)); err != nil {
			resp.Diagnostics.AddAttributeError(p, "Invalid label selector", fmt.Sprintf("Attribute %s: %v.", p, err))
		}
	}
	if st := m.Strategy; st != nil && st.Type.ValueString() == string(placementv1.ExternalRolloutStrategyType) {
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
	sc := r.sc()
	plan, unknown, diags := sc.models().Decode(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, placementComputedPaths...)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	var state placementModel
	if !creating {
		resp.Diagnostics.Append(sc.models().Get(ctx, req.State, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	replacing := !creating && sc.key(&plan) != sc.key(&state)
	for _, p := range sc.keyPaths() {
		replacing = replacing || (!creating && shared.PathsContain(unknown, p))
	}
	if !creating && !replacing {
		checkPlacementImmutable(&resp.Diagnostics, state.Policy, plan.Policy, unknown)
		checkStrategyImmutable(&resp.Diagnostics, state.Strategy, plan.Strategy, unknown)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, sc.configAttributes()...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the placement", err.Error())
		return
	}
	if !changed || r.Clients == nil {
		return
	}
	existing := hub.PlacementKey{}
	if !creating && !replacing {
		existing = sc.key(&state)
	}
	var policyUnknown []path.Path
	for _, p := range unknown {
		if shared.PathsRelated(p, path.Root("policy")) {
			policyUnknown = append(policyUnknown, p)
		}
	}
	in, why := r.previewInput(ctx, req, &plan, existing, unknown, policyUnknown, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if why != "" {
		shared.PlanPreviewUnknown(ctx, &resp.Plan, &resp.Diagnostics, preview.Path, placementPreviewAttrTypes, why)
		return
	}
	sc.previewSpec().Plan(ctx, r.Clients, req, resp, in, policyUnknown)
	if in.selected == nil && len(policyUnknown) == 0 && !resp.Diagnostics.HasError() {
		// The preview waits for `facts`; the overrides and budgets of the placement planned after
		// it in this configuration take its selection from the live fleet meanwhile.
		var f types.String
		if req.Config.GetAttribute(ctx, preview.FactsPath, &f); f.IsUnknown() {
			var ignored diag.Diagnostics
			live := *in
			live.overrides = false
			if _, err := computePlacementPreview(ctx, r.Clients.View(), &live, &ignored); err == nil {
				in.selected = live.selected
			}
		}
	}
	if in.selected != nil {
		recordPlannedSelection(r.Clients, sc.key(&plan), in.selected) // for overrides of the placement (override_preview.go)
	}
}

// PreviewInputs are what the preview reads of the fleet.
func (r *placementResource) PreviewInputs() []facts.Input { return r.sc().previewSpec().Inputs() }

// previewInput runs the checks that need the hub and reads what the preview of a new placement
// (existing zero) or of an update of an existing one starts from besides the fleet: the
// placement's scheduling state, as the plan's refresh saved it (with `facts`) or as the hub has
// it now. why says why the preview stays unknown until apply (the hub's configuration is unknown,
// or the hub agent is still scheduling the placement); while the policy is unknown
// (policyUnknown), the preview protocol says so.
func (r *placementResource) previewInput(ctx context.Context, req resource.ModifyPlanRequest, plan *placementModel, existing hub.PlacementKey,
	unknown, policyUnknown []path.Path, diags *diag.Diagnostics) (in *placementPreviewInput, why string) {
	hc, err := r.Clients.HubAPI(ctx)
	if err != nil {
		if session.IsConfigUnknown(err) {
			return nil, err.Error()
		}
		backend.AddBackendError(diags, "Reaching the fleet hub", err)
		return nil, ""
	}
	keyKnown := true
	for _, p := range r.sc().keyPaths() {
		keyKnown = keyKnown && !shared.PathsContain(unknown, p)
	}
	if existing.Name == "" && keyKnown {
		r.checkNotOnHub(ctx, diags, hc, r.sc().key(plan))
	}
	if r.sc().namespaced {
		checkSelectedKinds(diags, hc, plan.ResourceSelectors, unknown, true)
	} else {
		r.checkSelectionScope(ctx, diags, hc, plan.ResourceSelectors, unknown)
		checkSelectedKinds(diags, hc, plan.ResourceSelectors, unknown, false)
	}
	if diags.HasError() {
		return nil, ""
	}
	in = &placementPreviewInput{placementModel: plan, namespaced: r.sc().namespaced, existing: existing, overrides: existing.Name != ""}
	if existing.Name == "" || len(policyUnknown) > 0 {
		return in, ""
	}
	var f types.String
	diags.Append(req.Config.GetAttribute(ctx, preview.FactsPath, &f)...)
	if !f.IsNull() && !f.IsUnknown() && f.ValueString() != "" {
		in.sched = loadSchedulingState(ctx, req.Private) // as the plan's refresh read it
	}
	if in.sched == nil {
		if in.sched, err = readSchedulingState(ctx, hc, existing); err != nil {
			backend.AddBackendError(diags, "Computing the placement preview", err)
			return nil, ""
		}
		in.sched.Unsettled = r.unsettled(ctx, hc, existing)
	}
	// While the hub agent reschedules, a preview now would not be what the apply, seconds
	// later, plans again.
	return in, in.sched.Unsettled
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now (preview.Spec.WarnMoved), the scheduler starting from the placement as the hub
// has it now.
func (r *placementResource) warnMoved(ctx context.Context, hc *hub.Client, config tfsdk.Config, plan *placementModel, existing hub.PlacementKey, d *diag.Diagnostics) {
	var ignored diag.Diagnostics
	pinned, planned, _ := preview.View(ctx, r.Clients, config, &ignored)
	if planned == nil {
		return // no facts: nothing to compare
	}
	in := &placementPreviewInput{placementModel: plan, namespaced: r.sc().namespaced, existing: existing}
	if existing.Name != "" {
		// Override snapshots are compared only when the plan's facts had them (override_placements):
		// otherwise the reviewed preview left them null and a live value would be no move.
		_, _, err := pinned.LatestSelectedResources(ctx, existing)
		var notRead *facts.NotReadError
		in.overrides = !errors.As(err, &notRead)
		in.sched, in.schedErr = readSchedulingState(ctx, hc, existing)
	}
	r.sc().previewSpec().WarnMoved(ctx, r.Clients, config, in, plan.Preview, d)
}

// unsettled says why the hub agent has not finished scheduling the placement's current spec, or
// "" when it has.
func (r *placementResource) unsettled(ctx context.Context, hc *hub.Client, key hub.PlacementKey) string {
	name := key.String()
	crp, err := hc.PlacementAt(ctx, key)
	if err != nil {
		return fmt.Sprintf("reading placement %q on the hub failed (%v)", name, err)
	}
	return unsettledReason(crp, name)
}

// unsettledReason is unsettled's answer for the placement as read.
func unsettledReason(crp *hub.Placement, name string) string {
	c := meta.FindStatusCondition(crp.Status.Conditions, placementScheduledCondition(&crp.ObjectMeta))
	if c == nil || c.ObservedGeneration != crp.Generation || c.Status == metav1.ConditionUnknown {
		return fmt.Sprintf("the hub agent is still scheduling placement %q (generation %d); the preview is computed when the apply starts", name, crp.Generation)
	}
	return ""
}

// checkPlacementImmutable fails a plan that changes what KubeFleet's webhook forbids changing: the
// placement type, and existing tolerations (they can only be added).
func checkPlacementImmutable(diags *diag.Diagnostics, old, updated *policyModel, unknown []path.Path) {
	typePath := path.Root("policy").AtName("placement_type")
	tolerationsPath := path.Root("policy").AtName("toleration")
	if updated == nil {
		typePath, tolerationsPath = path.Root("policy"), path.Root("policy")
	}
	for _, is := range scheduling.ImmutableChanges(old.toAPI(), updated.toAPI()) {
		switch is.Path.String() {
		case "": // the policy itself: KubeFleet v0.18.9's CRD refuses removing it
			diags.AddAttributeError(path.Root("policy"), "Policy cannot be removed",
				"Attribute policy: "+is.Message+": KubeFleet rejects the update. Keep the policy block (placement_type = \"PickAll\" picks every eligible cluster).")
		case "placementType":
			if shared.RelatedToAny(typePath, unknown) {
				continue
			}
			diags.AddAttributeError(typePath, "Placement type cannot change",
				fmt.Sprintf("Attribute %s: the placement type is immutable (%s → %s): KubeFleet rejects the change. To change it, "+
					"create a placement with another name and the new type, then remove this one; replacing this placement in one "+
					"apply would first remove its resources from every cluster.", typePath, placementTypeOf(old), placementTypeOf(updated)))
		case "tolerations":
			if shared.RelatedToAny(tolerationsPath, unknown) {
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
		return string(placementv1.PickAllPlacementType)
	}
	return string(p.PlacementType)
}

func removedTolerations(old, updated *policyModel) string {
	keep := map[placementv1.Toleration]bool{}
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
func (r *placementResource) checkNotOnHub(ctx context.Context, diags *diag.Diagnostics, hc *hub.Client, key hub.PlacementKey) {
	name := key.String()
	there, err := hc.PlacementExistsAt(ctx, key)
	switch {
	case err != nil:
		diags.AddError("Reading the placement", fmt.Sprintf("Checking whether placement %q exists on the hub: %v", name, err))
	case there:
		diags.AddAttributeError(path.Root("name"), "Placement already exists",
			fmt.Sprintf("The fleet hub already has a %s named %q. To manage it with Terraform, import it "+
				"(terraform import <address> %s, or an import block), or choose another name.", r.sc().kind, name, name))
	}
}

// checkSelectionScope fails a NamespaceOnly selector the hub's API would silently drop.
func (r *placementResource) checkSelectionScope(ctx context.Context, diags *diag.Diagnostics, hc *hub.Client, selectors []resourceSelectorModel, unknown []path.Path) {
	for i, s := range selectors {
		p := path.Root("resource_selector").AtListIndex(i).AtName("selection_scope")
		if s.SelectionScope.ValueString() != placementScopeNamespaceOnly || shared.RelatedToAny(p, unknown) {
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
	if r.sc().namespaced {
		importResourcePlacement(ctx, req, resp)
		return
	}
	shared.ImportHubName(ctx, req, resp, 63, "a ClusterResourcePlacement on the fleet hub (a DNS subdomain of at most 63 characters)", nil)
}

func (r *placementResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.withHub(ctx, req.Plan, timeouts.Value.Create, placementCreateTimeout, &resp.Diagnostics, func(ctx context.Context, hc *hub.Client, plan *placementModel) {
		sc := r.sc()
		name := sc.id(plan)
		created, err := hc.CreatePlacement(ctx, placementFromModel(plan))
		if err != nil {
			if hub.IsAlreadyExists(err) {
				resp.Diagnostics.AddAttributeError(path.Root("name"), "Placement already exists",
					fmt.Sprintf("The fleet hub already has a %s named %q: import it, or choose another name.", sc.kind, name))
				return
			}
			if sc.namespaced && hub.IsNotFound(err) {
				resp.Diagnostics.AddAttributeError(path.Root("namespace"), "Namespace not found",
					fmt.Sprintf("The hub has no namespace %q: create it first (for example with the kubernetes provider's kubernetes_namespace_v1 against the hub): %v", plan.Namespace.ValueString(), err))
				return
			}
			resp.Diagnostics.AddError("Creating the placement", fmt.Sprintf("Creating %s %q on the hub: %v", sc.kind, name, err))
			return
		}
		tflog.Info(ctx, "placement created", map[string]any{"placement": name})
		if plan.Preview.IsUnknown() {
			// Unknown at plan (an input was): computed now, before the hub acts on the placement.
			resp.Diagnostics.Append(r.fillPreview(ctx, hc, plan, hub.PlacementKey{})...)
		}
		r.finish(ctx, hc, req.Config, plan, created, hub.PlacementKey{}, &resp.State, &resp.Diagnostics)
	})
}

func (r *placementResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.withHub(ctx, req.State, nil, 0, &resp.Diagnostics, func(ctx context.Context, hc *hub.Client, state *placementModel) {
		sc := r.sc()
		key := sc.key(state)
		name := key.String()
		crp, err := hc.PlacementAt(ctx, key)
		if backend.RemoveGone(ctx, resp, hub.IsNotFound(err), "placement", map[string]any{"placement": name}) {
			return
		}
		if err != nil {
			resp.Diagnostics.AddError("Reading the placement", fmt.Sprintf("Reading %s %q: %v", sc.kind, name, err))
			return
		}
		versions, err := hc.ResourceVersionsAt(ctx, key)
		if err != nil {
			resp.Diagnostics.AddError("Reading the placement", fmt.Sprintf("Reading the resource snapshots of %s %q: %v", sc.kind, name, err))
			return
		}
		state.ID = types.StringValue(name)
		if sched, err := readSchedulingState(ctx, hc, key); err == nil {
			sched.Unsettled = unsettledReason(crp, name)
			resp.Diagnostics.Append(saveSchedulingState(ctx, resp.Private, sched)...)
		} else {
			tflog.Debug(ctx, "placement scheduling state not saved", map[string]any{"placement": name, "error": err.Error()})
		}
		placementSpecToModel(state, crp)
		if state.WaitForRollout.IsNull() {
			state.WaitForRollout = types.BoolValue(false) // imported
		}
		resp.Diagnostics.Append(state.setObserved(crp, versions, r.Clients.ListLimit())...)
		resp.Diagnostics.Append(sc.models().Set(ctx, &resp.State, state)...)
	})
}

func (r *placementResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.withHub(ctx, req.Plan, timeouts.Value.Update, placementUpdateTimeout, &resp.Diagnostics, func(ctx context.Context, hc *hub.Client, plan *placementModel) {
		sc := r.sc()
		name := sc.id(plan)
		if plan.Preview.IsUnknown() {
			resp.Diagnostics.Append(r.fillPreview(ctx, hc, plan, sc.key(plan))...)
		}
		// Only the fields the provider manages are written; the hub client retries conflicts with the
		// hub agent, which writes the placement too.
		updated, err := hc.UpdatePlacementSpec(ctx, placementFromModel(plan))
		if err != nil {
			resp.Diagnostics.AddError("Updating the placement", fmt.Sprintf("Updating %s %q: %v", sc.kind, name, err))
			return
		}
		tflog.Info(ctx, "placement updated", map[string]any{"placement": name, "generation": updated.Generation})
		r.finish(ctx, hc, req.Config, plan, updated, sc.key(plan), &resp.State, &resp.Diagnostics)
	})
}

// withHub reads the plan or state into the shared model and runs an operation on it: within its
// timeout (op picks it from the timeouts block; nil: none), with the hub client.
func (r *placementResource) withHub(ctx context.Context, from shared.ModelSource, op shared.TimeoutOp, def time.Duration,
	diags *diag.Diagnostics, run func(context.Context, *hub.Client, *placementModel),
) {
	var m placementModel
	diags.Append(r.sc().models().Get(ctx, from, &m)...)
	if diags.HasError() {
		return
	}
	if op != nil {
		var cancel context.CancelFunc
		var ok bool
		ctx, cancel, ok = shared.WithTimeout(ctx, shared.Configured(op, m.Timeouts), def, diags)
		defer cancel()
		if !ok {
			return
		}
	}
	if hc, ok := backend.HubAPI(ctx, r.Clients, diags); ok {
		run(ctx, hc, &m)
	}
}

// finish saves a created or updated placement (existing: the key it had before, empty on
// create) with its status, says what moved since the plan's facts (once it is in state), and
// waits for the rollout when the configuration asks for it.
func (r *placementResource) finish(ctx context.Context, hc *hub.Client, config tfsdk.Config, plan *placementModel, got *hub.Placement, existing hub.PlacementKey, st *tfsdk.State, diags *diag.Diagnostics) {
	plan.ID = types.StringValue(r.sc().id(plan))
	r.saveWithStatus(ctx, hc, plan, got, st, diags)
	r.warnMoved(ctx, hc, config, plan, existing, diags)
	if diags.HasError() || !plan.WaitForRollout.ValueBool() {
		return
	}
	r.waitAndSave(ctx, hc, plan, st, diags)
}

func (r *placementResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.withHub(ctx, req.State, timeouts.Value.Delete, placementDeleteTimeout, &resp.Diagnostics, func(ctx context.Context, hc *hub.Client, state *placementModel) {
		sc := r.sc()
		key := sc.key(state)
		if err := hc.DeletePlacementAt(ctx, key); err != nil {
			resp.Diagnostics.AddError("Deleting the placement", fmt.Sprintf("Deleting %s %q: %v", sc.kind, key.String(), err))
			return
		}
		// The hub agent's finalizers remove the placed resources from the clusters first.
		if err := hc.WaitPlacementGoneAt(ctx, key, time.Second); err != nil {
			resp.Diagnostics.AddError("Deleting the placement", err.Error())
		}
	})
}

// ---- models ----

// placementModel is fleet_placement's model, and the model the shared implementation works on
// for both scopes (fleet_resource_placement's is converted: resourcePlacementModel).
type placementModel struct {
	ID        types.String `tfsdk:"id"`
	Namespace types.String `tfsdk:"-"` // the namespaced scope's

	Name                 types.String            `tfsdk:"name"`
	ResourceSelectors    []resourceSelectorModel `tfsdk:"resource_selector"`
	Policy               *policyModel            `tfsdk:"policy"`
	Strategy             *placementStrategyModel `tfsdk:"strategy"`
	ApplyStrategy        *applyStrategyModel     `tfsdk:"apply_strategy"`
	RevisionHistoryLimit types.Int64             `tfsdk:"revision_history_limit"`
	WaitForRollout       types.Bool              `tfsdk:"wait_for_rollout"`
	Timeouts             timeouts.Value          `tfsdk:"timeouts"`
	Facts                types.String            `tfsdk:"facts"`
	Preview              types.Object            `tfsdk:"preview"`
	Status               types.Object            `tfsdk:"status"`
	LatestResourceIndex  types.String            `tfsdk:"latest_resource_snapshot_index"`
	ResourceSnapshots    types.List              `tfsdk:"resource_snapshots"`
}

// placementLabelSelectorModel is a resource selector's `label_selector` of match_labels and
// match_expression blocks (KubeFleet's metav1.LabelSelector).
type placementLabelSelectorModel struct {
	MatchLabels      map[string]string             `tfsdk:"match_labels"`
	MatchExpressions []shared.LabelExpressionModel `tfsdk:"match_expression"`
}

type resourceSelectorModel struct {
	Group          types.String                 `tfsdk:"group"`
	Version        types.String                 `tfsdk:"version"`
	Kind           types.String                 `tfsdk:"kind"`
	Name           types.String                 `tfsdk:"name"`
	LabelSelector  *placementLabelSelectorModel `tfsdk:"label_selector"`
	SelectionScope types.String                 `tfsdk:"selection_scope"`
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
		"apply":               types.ObjectType{AttrTypes: applyStatusAttrTypes},
	}
)

// ---- helpers ----

// fillPreview computes at apply, from the live fleet, a preview the plan left unknown.
func (r *placementResource) fillPreview(ctx context.Context, hc *hub.Client, m *placementModel, existing hub.PlacementKey) diag.Diagnostics {
	var diags diag.Diagnostics
	p, warnings, err := placementPreview(ctx, hc, r.Clients.View(), existing, m.Policy.toAPI())
	if err != nil {
		diags.AddWarning("Placement preview", fmt.Sprintf("The preview could not be computed: %v", err))
		m.Preview = types.ObjectNull(placementPreviewAttrTypes)
		return diags
	}
	for _, w := range warnings {
		diags.AddWarning("Placement will not schedule", w)
	}
	obj, d := p.object(r.Clients.ListLimit())
	diags.Append(d...)
	m.Preview = obj
	return diags
}

// placementFromModel is the ClusterResourcePlacement the configuration describes (KubeFleet's
// v1beta1 types, plus selectionScope, which v0.14.0's types lack).
func placementFromModel(m *placementModel) *hub.Placement {
	p := &hub.Placement{}
	p.Name = m.Name.ValueString()
	p.Namespace = m.Namespace.ValueString()
	p.Spec = placementv1.PlacementSpec{Policy: m.Policy.toAPI(), Strategy: m.Strategy.toAPI()}
	p.Spec.Strategy.ApplyStrategy = m.ApplyStrategy.toAPI()
	for i, s := range m.ResourceSelectors {
		sel := placementv1.ResourceSelectorTerm{Group: s.Group.ValueString(), Version: s.Version.ValueString(), Kind: s.Kind.ValueString(), Name: s.Name.ValueString()}
		if s.LabelSelector != nil {
			sel.LabelSelector = shared.LabelSelector(s.LabelSelector.MatchLabels, s.LabelSelector.MatchExpressions)
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
// left empty; m holds the prior state (on import, only the key).
func placementSpecToModel(m *placementModel, crp *hub.Placement) {
	m.Name = types.StringValue(crp.Name)
	if crp.Namespace != "" {
		m.Namespace = types.StringValue(crp.Namespace)
	}
	m.ResourceSelectors = make([]resourceSelectorModel, 0, len(crp.Spec.ResourceSelectors))
	for i, s := range crp.Spec.ResourceSelectors {
		sm := resourceSelectorModel{
			Group: types.StringValue(s.Group), Version: types.StringValue(s.Version), Kind: types.StringValue(s.Kind),
			Name: plString(s.Name), SelectionScope: types.StringValue(placementScopeWithResources),
		}
		if s.LabelSelector != nil {
			ml, me := shared.LabelsFromSelector(s.LabelSelector)
			sm.LabelSelector = &placementLabelSelectorModel{MatchLabels: ml, MatchExpressions: me}
		}
		if scope := crp.SelectionScope(i); scope != "" {
			sm.SelectionScope = types.StringValue(scope)
		}
		m.ResourceSelectors = append(m.ResourceSelectors, sm)
	}
	m.Policy = placementPolicyFromAPI(crp.Spec.Policy)
	// strategy and apply_strategy are blocks, which cannot be computed: one the state (or an import)
	// does not have stays null while the hub holds its defaults, which is what an omitted block
	// writes; anything else is read back, so that a change made outside Terraform shows as a diff.
	strategyOmitted, applyOmitted := m.Strategy == nil, m.ApplyStrategy == nil
	m.Strategy = placementStrategyFromAPI(crp.Spec.Strategy)
	if strategyOmitted && m.Strategy.isDefault() {
		m.Strategy = nil
	}
	m.ApplyStrategy = applyStrategyFromAPI(crp.Spec.Strategy.ApplyStrategy)
	if applyOmitted && m.ApplyStrategy.isDefault() {
		m.ApplyStrategy = nil
	}
	m.RevisionHistoryLimit = types.Int64Value(placementDefaultRevisionHistoryLimit)
	if crp.Spec.RevisionHistoryLimit != nil {
		m.RevisionHistoryLimit = types.Int64Value(int64(*crp.Spec.RevisionHistoryLimit))
	}
}
