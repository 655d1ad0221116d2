package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/override"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The override preview: for each resource of the placement the override selects, what each cluster
// of the placement's selection gets, grouped by distinct result (internal/engine/override.Preview).

var (
	overrideGroupType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"outcome": types.StringType, "clusters_count": types.Int64Type, "clusters": types.ListType{ElemType: types.StringType},
		"clusters_omitted": types.Int64Type, "patch": types.StringType, "error": types.StringType, "manifest": types.StringType,
	}}
	overrideResourceType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"resource": types.StringType, "override_snapshots": types.ListType{ElemType: types.StringType},
		"groups_count": types.Int64Type, "groups": types.ListType{ElemType: overrideGroupType}, "groups_omitted": types.Int64Type,
	}}
	overridePreviewAttrTypes = map[string]attr.Type{
		"placement": types.StringType, "clusters_from": types.StringType, "clusters_count": types.Int64Type,
		"snapshot": types.StringType, "failed_clusters_count": types.Int64Type, "failed_clusters": types.ListType{ElemType: types.StringType},
		"resources_count": types.Int64Type, "resources": types.ListType{ElemType: overrideResourceType}, "resources_omitted": types.Int64Type,
	}
)

func overridePreviewAttribute() rschema.SingleNestedAttribute {
	list := func(doc string) rschema.ListAttribute {
		return rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: doc}
	}
	n := func(doc string) rschema.Int64Attribute {
		return rschema.Int64Attribute{Computed: true, Description: doc}
	}
	s := func(doc string) rschema.StringAttribute {
		return rschema.StringAttribute{Computed: true, Description: doc}
	}
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "What KubeFleet v0.18.9's hub agent will write into each member cluster's Work once the override is applied, computed " +
			"at plan with its own rules, with every override of the placement on the hub. Lists hold at most 20 entries unless the " +
			"provider's `preview_detail` is `full`, which also fills each group's `manifest`; counts are exact either way. Unknown " +
			"(with a warning saying why) while the placement is only planned, not yet on the hub.",
		Attributes: map[string]rschema.Attribute{
			"placement": s("The placement: `<name>` or `<namespace>/<name>`."),
			"clusters_from": s("Where the clusters come from: `bindings` (the clusters the placement is scheduled on now) or " +
				"`planned placement` (the selection of the placement's preview planned in the same configuration)."),
			"clusters_count":        n("The placement's clusters considered."),
			"snapshot":              s("The override snapshot the hub agent will take, `<name>-<index>`: the name KubeFleet's bindings and errors use."),
			"failed_clusters_count": n("Clusters whose whole Work the hub agent will refuse (an override fails on one of its resources there)."),
			"failed_clusters":       list("The first of them by name."),
			"resources_count":       n("Resources of the placement the override selects."),
			"resources_omitted":     n("Resources left out of `resources`."),
			"resources": rschema.ListNestedAttribute{Computed: true, Description: "Per resource, in the placement's resource snapshot order.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"resource":           s("The resource as KubeFleet names it: `Deployment \"web\" in namespace \"app\"`."),
					"override_snapshots": list("The override snapshots that change it on at least one cluster (this one's and others'), in the order the hub agent applies them."),
					"groups_count":       n("Distinct results."),
					"groups_omitted":     n("Groups left out of `groups`."),
					"groups": rschema.ListNestedAttribute{Computed: true, Description: "The clusters that get the same result, largest group first.",
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"outcome":          s("`patched`, `unchanged`, `deleted` (left out of the cluster's Work by a `Delete` rule) or `failed`."),
							"clusters_count":   n("How many clusters."),
							"clusters":         list("The clusters, by name."),
							"clusters_omitted": n("Clusters left out of `clusters`."),
							"patch":            s("For `patched`: the JSON patch (RFC 6902) from the hub's resource to what the clusters get."),
							"error":            s("For `failed`: KubeFleet's error, in its words, as the binding's Overridden condition will say."),
							"manifest":         s("With `preview_detail = \"full\"`: the rendered manifest these clusters get, as JSON."),
						}}},
				}}},
		},
	}
}

// clusterResourceOverridePreviewSpec and resourceOverridePreviewSpec are the override preview of
// each scope: the same computation, recomputed on the scope's configured attributes.
var (
	clusterResourceOverridePreviewSpec = preview.Spec[overridePreviewInput]{
		What: "the override preview", AttrTypes: overridePreviewAttrTypes,
		Follows: overrideConfigAttributes[1:], Reads: overridePreviewReads, Compute: computeOverridePreview,
	}
	resourceOverridePreviewSpec = preview.Spec[overridePreviewInput]{
		What: "the override preview", AttrTypes: overridePreviewAttrTypes,
		Follows: overrideConfigAttributes, Reads: overridePreviewReads, Compute: computeOverridePreview,
	}
)

// overridePreviewReads: the hub's override snapshots, the placement with its bindings and latest
// resources, and the member clusters' labels.
var overridePreviewReads = []facts.Input{facts.InputSettings, facts.InputHubMembers, facts.InputPlacements,
	facts.InputSelectedResources, facts.InputOverrideSnapshots}

// overridePreviewInput is what the override preview is computed from besides the fleet: the
// planned model, and what the provider process knows of its placement.
type overridePreviewInput struct {
	*overrideModel
	namespaced bool
	// exists: the override is on the hub (an update: its next snapshot follows its current one).
	exists bool
	// planned are the clusters the placement's preview selects when the placement was planned in
	// this process (isPlanned; preview.PlannedPlacement).
	planned   []string
	isPlanned bool
}

// previewSpec is the resource's override preview.
func (r *overrideResource) previewSpec() preview.Spec[overridePreviewInput] {
	if r.namespaced {
		return resourceOverridePreviewSpec
	}
	return clusterResourceOverridePreviewSpec
}

// previewInput is the preview's input for m (exists: the override is on the hub).
func (r *overrideResource) previewInput(m *overrideModel, exists bool) *overridePreviewInput {
	in := &overridePreviewInput{overrideModel: m, namespaced: r.namespaced, exists: exists}
	in.planned, in.isPlanned = preview.PlannedPlacement(r.Clients, m.placementKey().String())
	return in
}

// computeOverridePreview validates the override against the hub's other overrides and its
// placement, and computes the preview over the fleet v. A preview that cannot be computed yet (its
// placement is only planned, has no resource snapshot or no cluster yet) is unknown, with a
// warning saying why.
func computeOverridePreview(ctx context.Context, v view.Fleet, in *overridePreviewInput, diags *diag.Diagnostics) (attr.Value, error) {
	m := in.overrideModel
	others, err := otherOverrides(ctx, v, m)
	if err != nil {
		diags.AddError("Reading the hub's overrides", err.Error())
		return nil, nil
	}
	validateOverride(diags, m, others, overrideKind(in.namespaced))
	if diags.HasError() {
		return nil, nil
	}
	key := m.placementKey()
	onHub, err := view.HubPlacementExists(ctx, v, key)
	if err != nil || (!onHub && !in.isPlanned) {
		addPlacementNotFound(diags, key, err)
		return nil, nil
	}
	if !onHub {
		return overridePreviewUnknown(diags, fmt.Sprintf("%s %s is planned in this configuration and not on the hub yet; the preview needs its resource snapshot and is computed by the next plan", key.Kind(), key))
	}
	resources, _, err := v.LatestSelectedResources(ctx, key)
	if err != nil {
		diags.AddError("Reading the placement's resources", fmt.Sprintf("Reading the resource snapshot of %s %s: %v", key.Kind(), key, err))
		return nil, nil
	}
	if resources == nil {
		return overridePreviewUnknown(diags, fmt.Sprintf("the hub agent has not cut a resource snapshot of %s %s yet", key.Kind(), key))
	}
	clusters, from, err := previewClusters(ctx, v, key, in.planned, in.isPlanned)
	if err != nil {
		diags.AddError("Reading the placement's clusters", err.Error())
		return nil, nil
	}
	if len(clusters) == 0 && !in.isPlanned {
		return overridePreviewUnknown(diags, fmt.Sprintf("the hub agent has not scheduled %s %s on any cluster yet", key.Kind(), key))
	}
	self, err := engineOverride(m.hub(), nextSnapshot(ctx, v, m, in.exists))
	if err != nil {
		diags.AddError("Planning the override", err.Error())
		return nil, nil
	}
	// ResourceOverrides of every namespace the placement's resources are in.
	all := append([]override.Override{self}, others...)
	if !in.namespaced {
		for _, ns := range facts.ResourceNamespaces(resources) {
			ros, err := otherOverrides(ctx, v, &overrideModel{Namespace: types.StringValue(ns), Name: types.StringValue("")})
			if err != nil {
				diags.AddError("Reading the hub's overrides", err.Error())
				return nil, nil
			}
			all = append(all, ros...)
		}
	} else {
		cros, err := otherOverrides(ctx, v, &overrideModel{Namespace: types.StringValue(""), Name: types.StringValue("")})
		if err != nil {
			diags.AddError("Reading the hub's overrides", err.Error())
			return nil, nil
		}
		all = append(all, cros...)
	}
	res, err := override.Preview(key.String(), resources, clusters, all, func(raw []byte) bool { return override.Selects(self, raw) })
	if err != nil {
		diags.AddError("Computing the override preview", err.Error())
		return nil, nil
	}
	if len(res) == 0 {
		diags.AddAttributeWarning(path.Root("resource_selector"), "The override selects none of the placement's resources",
			fmt.Sprintf("%s %s carries none of the resources the override selects (its latest resource snapshot): KubeFleet attaches the override to no binding.", key.Kind(), key))
	}
	warnConflicts(diags, res)
	obj, d := overridePreviewObject(key.String(), from, self.Snapshot, len(clusters), res, v.ListLimit())
	diags.Append(d...)
	return obj, nil
}

// overridePreviewUnknown is the preview left unknown until apply, with the warning saying why.
func overridePreviewUnknown(diags *diag.Diagnostics, why string) (attr.Value, error) {
	shared.AddPreviewUnknownWarning(diags, preview.Path, why)
	return types.ObjectUnknown(overridePreviewAttrTypes), nil
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now (preview.Spec.WarnMoved).
func (r *overrideResource) warnMoved(ctx context.Context, config tfsdk.Config, m *overrideModel, exists bool, d *diag.Diagnostics) {
	if m.Preview.IsUnknown() || m.Preview.IsNull() {
		return
	}
	knownOrFailed(r.previewSpec()).WarnMoved(ctx, r.Clients, config, r.previewInput(m, exists), m.Preview, d)
}

// previewClusters are the placement's clusters with their labels: those of its planned preview
// when it was planned in this process, else those its bindings schedule it on now.
func previewClusters(ctx context.Context, v view.Fleet, key hub.PlacementKey, planned []string, isPlanned bool) ([]override.Cluster, string, error) {
	members, err := v.HubMemberClusters(ctx)
	if err != nil {
		return nil, "", err
	}
	labels := map[string]map[string]string{}
	for _, mc := range members {
		labels[mc.Name] = mc.Labels
	}
	names, from := planned, "planned placement"
	if !isPlanned {
		from = "bindings"
		bs, err := v.HubPlacementBindings(ctx, key)
		if err != nil {
			return nil, "", err
		}
		names = nil
		for _, b := range bs {
			if b.DeletionTimestamp == nil && (b.Spec.State == placementv1.BindingStateBound || b.Spec.State == placementv1.BindingStateScheduled) {
				names = append(names, b.Spec.TargetCluster)
			}
		}
	}
	out := make([]override.Cluster, 0, len(names))
	for _, n := range names {
		out = append(out, override.Cluster{Name: n, Labels: labels[n]})
	}
	return out, from, nil
}

// nextSnapshot is the name of the snapshot the override controller will take: the current one's
// for an unchanged spec, the next index for a changed one, index 0 for a new override
// (pkg/controllers/overrider/clusterresource_controller.go and resource_controller.go).
func nextSnapshot(ctx context.Context, v view.Fleet, m *overrideModel, exists bool) string {
	name := m.Name.ValueString()
	if !exists {
		return override.SnapshotName(name, 0)
	}
	snaps, err := v.LatestOverrideSnapshots(ctx, m.Namespace.ValueString())
	if err != nil {
		return override.SnapshotName(name, 0)
	}
	for _, s := range snaps {
		if s.Override != name {
			continue
		}
		i, err := strconv.Atoi(s.Name[strings.LastIndex(s.Name, "-")+1:])
		if err != nil {
			break
		}
		cur, _ := json.Marshal(s.Spec.Policy)
		want, _ := json.Marshal(m.hub().Spec.Policy)
		if string(cur) == string(want) {
			return s.Name
		}
		return override.SnapshotName(name, i+1)
	}
	return override.SnapshotName(name, 0)
}

// warnConflicts warns, once per resource, when this override and another change the same field
// on a cluster: KubeFleet applies both, in order, and the later one wins without saying so.
func warnConflicts(diags *diag.Diagnostics, res []override.ResourcePreview) {
	for _, rp := range res {
		if len(rp.Overrides) < 2 {
			continue
		}
		for _, g := range rp.Groups {
			if g.Outcome == override.Patched && len(rp.Overrides) > 1 {
				diags.AddAttributeWarning(path.Root("rule"), "Several overrides change one resource",
					fmt.Sprintf("%s is changed by override snapshots %s on %s: KubeFleet applies ClusterResourceOverrides by snapshot name, then "+
						"ResourceOverrides by namespace and name, each on the result of the one before, so where two set one field the later wins.",
						rp.Target, strings.Join(rp.Overrides, ", "), preview.Plural(len(g.Clusters), "cluster")))
				break
			}
		}
	}
}

// overridePreviewObject builds the preview's value, listing at most limit entries per list (0: all,
// with the rendered manifests).
func overridePreviewObject(placement, from, snapshot string, nClusters int, res []override.ResourcePreview, limit int) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	strs := func(ss []string) types.List {
		vs := make([]attr.Value, 0, len(ss))
		for _, s := range ss {
			vs = append(vs, types.StringValue(s))
		}
		return types.ListValueMust(types.StringType, vs)
	}
	failed := map[string]bool{}
	shownRes, resOmitted := preview.CapList(res, limit)
	resources := make([]attr.Value, 0, len(shownRes))
	for _, rp := range res {
		for _, g := range rp.Groups {
			if g.Outcome == override.Failed {
				for _, c := range g.Clusters {
					failed[c] = true
				}
			}
		}
	}
	for _, rp := range shownRes {
		shownGroups, groupsOmitted := preview.CapList(rp.Groups, limit)
		groups := make([]attr.Value, 0, len(shownGroups))
		for _, g := range shownGroups {
			cl, clOmitted := preview.CapList(g.Clusters, limit)
			patch, errText, manifest := types.StringNull(), types.StringNull(), types.StringNull()
			if g.Patch != nil {
				b, _ := json.Marshal(g.Patch)
				patch = types.StringValue(string(b))
			}
			if g.Error != "" {
				errText = types.StringValue(g.Error)
			}
			if limit == 0 && g.Manifest != nil {
				manifest = types.StringValue(string(g.Manifest))
			}
			groups = append(groups, types.ObjectValueMust(overrideGroupType.AttrTypes, map[string]attr.Value{
				"outcome": types.StringValue(g.Outcome), "clusters_count": types.Int64Value(int64(len(g.Clusters))), "clusters": strs(cl),
				"clusters_omitted": types.Int64Value(clOmitted), "patch": patch, "error": errText, "manifest": manifest,
			}))
		}
		resources = append(resources, types.ObjectValueMust(overrideResourceType.AttrTypes, map[string]attr.Value{
			"resource": types.StringValue(rp.Target), "override_snapshots": strs(rp.Overrides),
			"groups_count": types.Int64Value(int64(len(rp.Groups))), "groups": types.ListValueMust(overrideGroupType, groups),
			"groups_omitted": types.Int64Value(groupsOmitted),
		}))
	}
	failedNames := sortedKeysOf(failed)
	shownFailed, _ := preview.CapList(failedNames, limit)
	obj, d := types.ObjectValue(overridePreviewAttrTypes, map[string]attr.Value{
		"placement": types.StringValue(placement), "clusters_from": types.StringValue(from), "clusters_count": types.Int64Value(int64(nClusters)),
		"snapshot": types.StringValue(snapshot), "failed_clusters_count": types.Int64Value(int64(len(failedNames))), "failed_clusters": strs(shownFailed),
		"resources_count": types.Int64Value(int64(len(res))), "resources": types.ListValueMust(overrideResourceType, resources),
		"resources_omitted": types.Int64Value(resOmitted),
	})
	diags.Append(d...)
	return obj, diags
}

func sortedKeysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// recordPlannedSelection records the clusters a placement's planned preview selects, for the
// previews of its overrides planned after it in the same configuration.
func recordPlannedSelection(c *session.Session, key hub.PlacementKey, clusters []string) {
	preview.RecordPlannedPlacement(c, key.String(), clusters)
}

// placementOverrideSnapshots is, per pick of a placement on the hub, the override snapshots the
// rollout controller will attach to its binding (pkg/utils/overrider/overrider.go:
// FetchAllMatchingOverridesForResourceSnapshot, then PickFromResourceMatchedOverridesForTargetCluster),
// ResourceOverride snapshots as <namespace>/<name>; nil when it cannot tell (logged).
func placementOverrideSnapshots(ctx context.Context, v view.Fleet, key hub.PlacementKey, p placementPreviewModel) map[string][]string {
	fail := func(err error) map[string][]string {
		tflog.Info(ctx, "placement preview without override snapshots", map[string]any{"placement": key.String(), "error": err.Error()})
		return nil
	}
	resources, _, err := v.LatestSelectedResources(ctx, key)
	if err != nil || resources == nil {
		if err == nil {
			err = fmt.Errorf("no resource snapshot yet")
		}
		return fail(err)
	}
	var all []override.Override
	for _, ns := range append([]string{""}, facts.ResourceNamespaces(resources)...) {
		snaps, err := v.LatestOverrideSnapshots(ctx, ns)
		if err != nil {
			return fail(err)
		}
		for _, s := range snaps {
			o, err := engineOverride(&hub.Override{Namespace: s.Namespace, Name: s.Override, Spec: s.Spec, ResourceSelectors: s.ResourceSelectors}, s.Name)
			if err != nil {
				return fail(err)
			}
			all = append(all, o)
		}
	}
	cros, ros, err := override.Matching(key.String(), resources, all)
	if err != nil {
		return fail(err)
	}
	members, err := v.HubMemberClusters(ctx)
	if err != nil {
		return fail(err)
	}
	labels := map[string]map[string]string{}
	for _, mc := range members {
		labels[mc.Name] = mc.Labels
	}
	out := map[string][]string{}
	for _, pick := range p.Selected {
		pc, pr, err := override.ForCluster(override.Cluster{Name: pick.Cluster, Labels: labels[pick.Cluster]}, cros, ros)
		if err != nil {
			return fail(err)
		}
		var names []string
		for _, o := range pc {
			names = append(names, o.Snapshot)
		}
		for _, o := range pr {
			names = append(names, hub.Key(o.Namespace, o.Snapshot))
		}
		if len(names) > 0 {
			out[pick.Cluster] = names
		}
	}
	return out
}

// overrideSnapshotsValue is the preview's override_snapshots of the listed picks.
func overrideSnapshotsValue(by map[string][]string, shown []placementPickModel) types.Map {
	elem := types.ListType{ElemType: types.StringType}
	if by == nil {
		return types.MapNull(elem)
	}
	m := map[string]attr.Value{}
	for _, s := range shown {
		if names, ok := by[s.Cluster]; ok {
			vs := make([]attr.Value, 0, len(names))
			for _, n := range names {
				vs = append(vs, types.StringValue(n))
			}
			m[s.Cluster] = types.ListValueMust(types.StringType, vs)
		}
	}
	if len(m) == 0 {
		return types.MapNull(elem) // no override applies: nothing to show
	}
	return types.MapValueMust(elem, m)
}
