package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/override"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ resource.ResourceWithValidateConfig = (*overrideResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*overrideResource)(nil)
	_ resource.ResourceWithImportState    = (*overrideResource)(nil)
)

// overrideResource is fleet_cluster_resource_override (KubeFleet's ClusterResourceOverride, v1)
// and, with namespaced set, fleet_resource_override (ResourceOverride, v1, in a namespace): one
// implementation, as placement_scope.go shares fleet_placement and fleet_resource_placement. The
// rules are internal/engine/override's (KubeFleet v0.18.9's own validator and overrider helpers,
// its work generator's rendering); the preview is override_preview.go.
type overrideResource struct {
	shared.ResourceBase
	namespaced bool
}

// newOverride is the constructor of fleet_cluster_resource_override (namespaced false) or
// fleet_resource_override.
func newOverride(suffix string, namespaced bool) func() resource.Resource {
	base := shared.NewResource[overrideResource](suffix)
	return func() resource.Resource {
		r, ok := base().(*overrideResource)
		if !ok {
			panic("newOverride: shared.NewResource did not make an *overrideResource") // a programming error, at provider start
		}
		r.namespaced = namespaced
		return r
	}
}

func (r *overrideResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	kind := r.kind()
	selectorDoc := "Required. A cluster-scoped resource to override, by name; repeat the block for more (1 to 20, no two alike; KubeFleet " +
		"v0.18.9 refuses label selectors here). A Namespace selects the namespace and, as KubeFleet applies it, every namespaced resource the placement " +
		"carries in it."
	scopeDoc := "`Cluster` (the default): a `ClusterResourcePlacement`; KubeFleet refuses a ClusterResourceOverride bound to a " +
		"ResourcePlacement."
	desc := "A ClusterResourceOverride on the fleet hub (KubeFleet `placement.kubernetes-fleet.io/v1`): how the cluster-scoped " +
		"resources a `fleet_placement` carries (and, for a Namespace, everything in it) differ per member cluster."
	if r.namespaced {
		selectorDoc = "Required. A resource of `namespace` to override, by kind and name; repeat the block for more (1 to 20, no two alike)."
		scopeDoc = "`Cluster` (KubeFleet's default: a `ClusterResourcePlacement`) or `Namespaced` (a `ResourcePlacement` in `namespace`)."
		desc = "A ResourceOverride on the fleet hub (KubeFleet `placement.kubernetes-fleet.io/v1`, namespaced): how resources of one " +
			"hub namespace that a placement carries differ per member cluster."
	}
	desc += " Rules pick member clusters by label and apply JSON patches (RFC 6902: `add`, `remove`, `replace`) with the " +
		"variables `${MEMBER-CLUSTER-NAME}` and `${MEMBER-CLUSTER-LABEL-KEY-<key>}`, or delete the resource from those clusters. " +
		"The plan's `preview` shows, for each resource the override selects, what each cluster of the placement gets, grouped by " +
		"distinct result with exact counts and a JSON patch per group, computed by KubeFleet v0.18.9's own rules (its validator, " +
		"override matching and work generator's rendering) and conformance-tested against its hub agent's Works. Everything KubeFleet's " +
		"validating webhook refuses fails at validate or plan with the attribute's path. Imported by " + map[bool]string{false: "name", true: "`<namespace>/<name>`"}[r.namespaced] + "."
	str := func(req bool, doc string, v ...validator.String) rschema.StringAttribute {
		return rschema.StringAttribute{Required: req, Optional: !req, Description: doc, Validators: v}
	}
	attrs := map[string]rschema.Attribute{
		"id": rschema.StringAttribute{Computed: true, Description: map[bool]string{false: "The name.", true: "`<namespace>/<name>`."}[r.namespaced],
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": rschema.StringAttribute{Required: true,
			Description:   "The " + kind + "'s name: a DNS subdomain of at most 63 characters (its snapshots carry it in a label). Changing it replaces the override.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{stringvalidator.LengthBetween(1, 63),
				stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be lower-case letters, digits, '-' and '.', starting and ending with a letter or digit")}},
	}
	blocks := map[string]rschema.Block{
		"placement": shared.RequiredInBlock(rschema.SingleNestedBlock{
			Description: "Required. The placement the override is for (KubeFleet applies an override only to its placement's resources). It must be " +
				"on the hub or planned in the same configuration; otherwise the plan fails. Immutable in KubeFleet: changing it replaces the override.",
			Validators:    []validator.Object{objectvalidator.IsRequired()},
			PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			Attributes: map[string]rschema.Attribute{
				"name":  str(true, "The placement's name.", stringvalidator.LengthBetween(1, 253)),
				"scope": str(false, scopeDoc, stringvalidator.OneOf(map[bool][]string{false: {"Cluster"}, true: {"Cluster", "Namespaced"}}[r.namespaced]...)),
			},
		}, "name"),
		"resource_selector": rschema.ListNestedBlock{Description: selectorDoc,
			Validators: []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 20)},
			NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
				"group":   str(false, "The API group (\"\" or omitted for the core group)."),
				"version": str(true, "The API version, e.g. `v1`.", stringvalidator.LengthAtLeast(1)),
				"kind":    str(true, "The kind, e.g. `Namespace`, `Deployment`.", stringvalidator.LengthAtLeast(1)),
				"name":    str(true, "The resource's name.", stringvalidator.LengthAtLeast(1)),
			}}},
		"rule": rschema.ListNestedBlock{
			Description: "Required. An override rule; repeat the block for more (1 to 20). The rules apply in order on each cluster they select: a " +
				"`Delete` rule drops the resource from the cluster and ends the override there; JSON patches apply one rule after the other.",
			Validators: []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 20)},
			NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
				"type": str(false, "`JSONPatch` (the default) or `Delete`.", stringvalidator.OneOf("JSONPatch", "Delete")),
			}, Blocks: map[string]rschema.Block{
				"cluster_selector": rschema.SingleNestedBlock{
					Description: "Which member clusters the rule applies to. Omitted: none (KubeFleet's meaning). `cluster_selector {}` " +
						"(no `term` block): every cluster. Otherwise the clusters matching at least one term.",
					Blocks: map[string]rschema.Block{
						"term": rschema.ListNestedBlock{Description: "A term; repeated, the terms are ORed. Each must have `labels` or an `expression` block.",
							NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
								"labels": rschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Labels the cluster must have (ANDed)."},
							}, Blocks: map[string]rschema.Block{
								"expression": rschema.ListNestedBlock{Description: "A label requirement, ANDed with `labels` and the other expressions.",
									NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
										"key":      str(true, "The label key."),
										"operator": str(true, "`In`, `NotIn`, `Exists` or `DoesNotExist`.", stringvalidator.OneOf("In", "NotIn", "Exists", "DoesNotExist")),
										"values":   rschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "Values for `In` and `NotIn`."},
									}}},
								"property": rschema.ListNestedBlock{
									Description: "A property requirement, as placements have them. KubeFleet v0.18.9 refuses them in overrides " +
										"(\"only labelSelector is supported\"): present so that the refusal names the block.",
									NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
										"name":     str(true, "The property."),
										"operator": str(true, "The operator."),
										"values":   rschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: "The values."},
									}}},
							}}},
					}},
				"json_patch": rschema.ListNestedBlock{
					Description: "A JSON patch operation of a `JSONPatch` rule; repeat the block for more (1 to 20; none for `Delete`).",
					Validators:  []validator.List{listvalidator.SizeAtMost(20)},
					NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
						"op": str(true, "`add`, `remove` or `replace`.", stringvalidator.OneOf("add", "remove", "replace")),
						"path": str(true, "A JSON pointer into the resource. KubeFleet refuses `/kind`, `/apiVersion`, `/status/...` and `/metadata/...` "+
							"other than labels and annotations."),
						"value": str(false, "The value as JSON (`jsonencode(...)`), for `add` and `replace`; may hold `${MEMBER-CLUSTER-NAME}` "+
							"and `${MEMBER-CLUSTER-LABEL-KEY-<key>}`, replaced per cluster (a cluster without the label fails the whole Work of that cluster)."),
					}}},
			}}},
	}
	attrs["preview"] = overridePreviewAttribute()
	attrs["facts"] = preview.FactsAttribute("the preview (the placement's latest resources and bindings, the member clusters' labels, " +
		"the hub's override snapshots; name the placement in the data source's `override_placements`)")
	if r.namespaced {
		attrs["namespace"] = rschema.StringAttribute{Required: true,
			Description:   "The hub namespace of the ResourceOverride: the namespace of the resources it overrides. Changing it replaces the override.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{stringvalidator.LengthBetween(1, 63),
				stringvalidator.RegexMatches(dnsLabelRe, "must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit")}}
	}
	resp.Schema = rschema.Schema{
		Version:     1, // 1: nested attributes became blocks (placement_upgrade.go)
		Description: desc, Attributes: attrs, Blocks: blocks,
	}
}

// ValidateConfig runs KubeFleet v0.18.9's validator on what is known, each refusal at its path.
func (r *overrideResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	m, _, diags := r.decode(ctx, req.Config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateOverride(&resp.Diagnostics, &m, nil, r.kind())
}

// validateOverride checks the override (of KubeFleet kind) alone (others nil) or against the
// other overrides on the hub.
func validateOverride(diags *diag.Diagnostics, m *overrideModel, others []override.Override, kind string) {
	for i, rule := range m.Rules {
		for j, p := range rule.JSONPatches {
			at := path.Root("rule").AtListIndex(i).AtName("json_patch").AtListIndex(j).AtName("value")
			v := p.Value.ValueString()
			if v != "" && !json.Valid([]byte(v)) {
				diags.AddAttributeError(at, "Invalid JSON patch value", fmt.Sprintf("%s: the value must be JSON (use jsonencode): %q is not.", at, v))
			}
			if k := strings.Index(v, placementv1beta1.OverrideClusterLabelKeyVariablePrefix); k >= 0 && !strings.Contains(v[k:], "}") {
				diags.AddAttributeError(at, "Malformed variable", fmt.Sprintf("%s: KubeFleet v0.18.9 fails every cluster on this value: input %s is missing the closing bracket `}`.", at, v))
			}
		}
	}
	if diags.HasError() {
		return
	}
	o := m.engine()
	for _, is := range override.Validate(o, others) {
		at := path.Empty()
		switch {
		case is.Where.Selector >= 0:
			at = path.Root("resource_selector").AtListIndex(is.Where.Selector)
		case is.Where.Op >= 0:
			at = path.Root("rule").AtListIndex(is.Where.Rule).AtName("json_patch").AtListIndex(is.Where.Op)
		case is.Where.Rule >= 0:
			at = path.Root("rule").AtListIndex(is.Where.Rule)
		}
		summary := "KubeFleet refuses the " + kind
		if len(at.Steps()) == 0 {
			diags.AddError(summary, "KubeFleet v0.18.9's validating webhook: "+is.Message)
			continue
		}
		diags.AddAttributeError(at, summary, at.String()+": KubeFleet v0.18.9's validating webhook: "+is.Message)
	}
}

var overrideComputedPaths = []path.Path{path.Root("id"), path.Root("preview")}

// overrideConfigAttributes are the configured attributes and blocks: the preview is recomputed when one changes
// (a ClusterResourceOverride has no namespace: all but the first).
var overrideConfigAttributes = []string{"namespace", "name", "placement", "resource_selector", "rule"}

// ModifyPlan validates against the hub (the other overrides, the placement) and computes the
// preview of a new or changed override; an unchanged one keeps its state's preview.
func (r *overrideResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	m, unknown, diags := r.decode(ctx, tfsdk.Config{Schema: req.Plan.Schema, Raw: req.Plan.Raw})
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, r.previewSpec().Follows...)
	if err != nil {
		resp.Diagnostics.AddError("Planning the override", err.Error())
		return
	}
	if !m.Name.IsUnknown() && !m.Name.IsNull() && (!r.namespaced || !m.Namespace.IsNull()) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), m.id())...)
	}
	if !changed || r.Clients == nil {
		return
	}
	// The hub's configuration unknown leaves the preview unknown, after the reasons the preview
	// protocol gives first (facts or an attribute unknown).
	var f types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, preview.FactsPath, &f)...)
	if len(unknown) == 0 && !f.IsUnknown() {
		if _, err := r.Clients.HubAPI(ctx); err != nil {
			if session.IsConfigUnknown(err) {
				shared.PlanPreviewUnknown(ctx, &resp.Plan, &resp.Diagnostics, preview.Path, overridePreviewAttrTypes, err.Error())
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reaching the fleet hub", err)
			return
		}
	}
	r.previewSpec().Plan(ctx, r.Clients, req, resp, r.previewInput(&m, !req.State.Raw.IsNull()), unknown)
}

// PreviewInputs are what the preview reads of the fleet.
func (r *overrideResource) PreviewInputs() []facts.Input { return r.previewSpec().Inputs() }

func (r *overrideResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !r.namespaced {
		shared.ImportHubName(ctx, req, resp, 63, "a ClusterResourceOverride on the fleet hub (a DNS subdomain)", map[string]any{})
		return
	}
	ns, name, ok := strings.Cut(req.ID, "/")
	if !ok || !dnsLabelRe.MatchString(ns) || !shared.DNSSubdomainRe.MatchString(name) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <namespace>/<name> of a ResourceOverride, got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

func (r *overrideResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.write(ctx, req.Plan, req.Config, &resp.State, &resp.Diagnostics, false)
}

func (r *overrideResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	backend.WithHubModel(ctx, r.Clients, r.scope().Source(req.State), &resp.Diagnostics, func(ctx context.Context, m *overrideModel, hc *hub.Client) {
		o, err := hc.GetOverride(ctx, m.Namespace.ValueString(), m.Name.ValueString())
		if backend.ReadGoneOrFailed(ctx, resp, err, r.kind(), map[string]any{"id": m.id()}, func(err error) {
			resp.Diagnostics.AddError("Reading the override", fmt.Sprintf("Reading %s %s on the hub: %v", r.kind(), m.id(), err))
		}) {
			return
		}
		m.fromHub(o)
		m.ID = types.StringValue(m.id())
		if m.Preview.IsNull() || m.Preview.IsUnknown() {
			m.Preview = types.ObjectNull(overridePreviewAttrTypes)
		}
		resp.Diagnostics.Append(r.set(ctx, &resp.State, m)...)
	})
}

func (r *overrideResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.write(ctx, req.Plan, req.Config, &resp.State, &resp.Diagnostics, true)
}

func (r *overrideResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	backend.WithHubModel(ctx, r.Clients, r.scope().Source(req.State), &resp.Diagnostics, func(ctx context.Context, m *overrideModel, hc *hub.Client) {
		if err := hc.DeleteOverride(ctx, m.Namespace.ValueString(), m.Name.ValueString()); err != nil {
			resp.Diagnostics.AddError("Deleting the override", fmt.Sprintf("Deleting %s %s on the hub: %v", r.kind(), m.id(), err))
			return
		}
		tflog.Info(ctx, "override deleted", map[string]any{"kind": r.kind(), "id": m.id()})
	})
}

// write creates or updates the override after the checks the plan made, repeated against the hub
// as it is now: nothing is written when one fails.
func (r *overrideResource) write(ctx context.Context, plan tfsdk.Plan, config tfsdk.Config, st *tfsdk.State, diags *diag.Diagnostics, replace bool) {
	var m overrideModel
	diags.Append(r.get(ctx, plan, &m)...)
	if diags.HasError() {
		return
	}
	hc, ok := backend.HubAPI(ctx, r.Clients, diags)
	if !ok {
		return
	}
	others, err := otherOverrides(ctx, r.Clients.View(), &m)
	if err != nil {
		diags.AddError("Reading the hub's overrides", err.Error())
		return
	}
	validateOverride(diags, &m, others, r.kind())
	if !diags.HasError() {
		r.warnMoved(ctx, config, &m, replace, diags) // before the write: the override's own new snapshot is not a move
	}
	key := m.placementKey()
	if exists, err := hc.PlacementExistsAt(ctx, key); err != nil || !exists {
		addPlacementNotFound(diags, key, err)
	}
	if diags.HasError() {
		return
	}
	o := m.hub()
	if replace {
		cur, err := hc.GetOverride(ctx, o.Namespace, o.Name)
		if err != nil {
			diags.AddError("Updating the override", fmt.Sprintf("Reading %s %s on the hub: %v", r.kind(), m.id(), err))
			return
		}
		o.ResourceVersion = cur.ResourceVersion
	}
	if _, err := hc.WriteOverride(ctx, o, replace); err != nil {
		diags.AddError("Writing the override", fmt.Sprintf("Writing %s %s on the hub: %v", r.kind(), m.id(), err))
		return
	}
	tflog.Info(ctx, "override written", map[string]any{"kind": r.kind(), "id": m.id(), "update": replace})
	m.ID = types.StringValue(m.id())
	if m.Preview.IsUnknown() {
		// Unknown at plan (its placement was planned with it): computed now that the placement is on
		// the hub, from the clusters the hub agent scheduled it on; null while it has none.
		m.Preview = types.ObjectNull(overridePreviewAttrTypes)
		var d diag.Diagnostics
		p, err := r.previewSpec().Compute(ctx, r.Clients.View(), r.previewInput(&m, replace), &d)
		if obj, ok := p.(types.Object); ok && err == nil && !d.HasError() && !obj.IsUnknown() {
			m.Preview = obj
		} else {
			tflog.Info(ctx, "override preview left null after apply", map[string]any{"error": err, "diagnostics": d})
		}
	}
	diags.Append(r.set(ctx, st, &m)...)
}

// addPlacementNotFound is the error of an override whose placement is not on the hub.
func addPlacementNotFound(diags *diag.Diagnostics, key hub.PlacementKey, err error) {
	if err != nil {
		diags.AddError("Reading the placement", fmt.Sprintf("Reading %s %s on the hub: %v", key.Kind(), key, err))
		return
	}
	diags.AddAttributeError(path.Root("placement").AtName("name"), "Placement not found",
		fmt.Sprintf("placement.name: the hub has no %s %s, and no fleet placement of that name is planned in this configuration. An override binds to "+
			"a placement that exists (a ClusterResourcePlacement with scope = \"Cluster\", a ResourcePlacement of the override's namespace "+
			"with scope = \"Namespaced\").", key.Kind(), key))
}

// ---- models ----

type overrideModel struct {
	ID                types.String          `tfsdk:"id"`
	Namespace         types.String          `tfsdk:"-"`
	Name              types.String          `tfsdk:"name"`
	Placement         *overridePlacementRef `tfsdk:"placement"`
	ResourceSelectors []overrideSelector    `tfsdk:"resource_selector"`
	Rules             []overrideRuleModel   `tfsdk:"rule"`
	Preview           types.Object          `tfsdk:"preview"`
	Facts             types.String          `tfsdk:"facts"`
}

// resourceOverrideModel is fleet_resource_override's: overrideModel with the namespace (the
// embedded model's own Namespace is not an attribute).
type resourceOverrideModel struct {
	Namespace types.String `tfsdk:"namespace"`
	overrideModel
}

type overridePlacementRef struct {
	Name  types.String `tfsdk:"name"`
	Scope types.String `tfsdk:"scope"`
}

type overrideSelector struct {
	Group   types.String `tfsdk:"group"`
	Version types.String `tfsdk:"version"`
	Kind    types.String `tfsdk:"kind"`
	Name    types.String `tfsdk:"name"`
}

type overrideRuleModel struct {
	ClusterSelector *overrideClusterSelector `tfsdk:"cluster_selector"`
	Type            types.String             `tfsdk:"type"`
	JSONPatches     []overridePatchModel     `tfsdk:"json_patch"`
}

type overrideClusterSelector struct {
	Terms []overrideTermModel `tfsdk:"term"`
}

type overrideTermModel struct {
	Labels      map[string]types.String `tfsdk:"labels"`
	Expressions []overrideRequirement   `tfsdk:"expression"`
	Properties  []overridePropertyReq   `tfsdk:"property"`
}

type overrideRequirement struct {
	Key      types.String   `tfsdk:"key"`
	Operator types.String   `tfsdk:"operator"`
	Values   []types.String `tfsdk:"values"`
}

type overridePropertyReq struct {
	Name     types.String   `tfsdk:"name"`
	Operator types.String   `tfsdk:"operator"`
	Values   []types.String `tfsdk:"values"`
}

type overridePatchModel struct {
	Op    types.String `tfsdk:"op"`
	Path  types.String `tfsdk:"path"`
	Value types.String `tfsdk:"value"`
}

// ---- helpers ----

// kind names the resource's KubeFleet kind.
func (r *overrideResource) kind() string { return overrideKind(r.namespaced) }

// overrideKind names the KubeFleet kind of an override of either scope.
func overrideKind(namespaced bool) string {
	if namespaced {
		return hub.OverrideKind("x")
	}
	return hub.OverrideKind("")
}
