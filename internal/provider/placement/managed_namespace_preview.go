package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// fleet_managed_namespace's plan-time views: the placement preview — fleet_placement's, computed
// by the same code (placementPreviewFrom) for the policy the generated ClusterResourcePlacement
// will have — and the objects the namespace carries, rendered by the mapping the Fleet API side
// writes them with (managednamespace.Build).

// managedNamespaceConfigAttributes are the attributes a user configures: the preview is computed
// when the managed namespace is created or one of them changes.
var managedNamespaceConfigAttributes = []string{"fleet_id", "name", "location", "tags", "labels", "annotations",
	"adoption_policy", "delete_policy", "resource_quota", "network_policy", "placement", "timeouts"}

// managedNamespacePreviewSpec is the preview: the scheduler over the hub's member clusters on the
// provider's clock, bounded by the preview settings; an existing namespace's scheduling state is
// read beside the view (namespacePreviewInput), as fleet_placement's is.
var managedNamespacePreviewSpec = preview.Spec[namespacePreviewInput]{
	What: "the managed namespace's placement preview", AttrTypes: managedNamespacePreviewAttrTypes,
	Follows: managedNamespaceConfigAttributes,
	Reads:   []facts.Input{facts.InputClock, facts.InputSettings, facts.InputHubMembers},
	Compute: computeManagedNamespacePreview,
}

// namespacePreviewInput is what the preview is computed from besides the fleet.
type namespacePreviewInput struct {
	*managedNamespaceModel
	// sched is the generated placement's scheduling state (nil for a new namespace), schedErr why
	// it could not be read.
	sched    *schedulingState
	schedErr error
}

// computeManagedNamespacePreview is the preview over the fleet v. A PickFixed name that is not a
// member of the fleet is an error at its path (the hub would accept it and never place there); a
// member the scheduler leaves out is an exclusion.
func computeManagedNamespacePreview(ctx context.Context, v view.Fleet, in *namespacePreviewInput, d *diag.Diagnostics) (attr.Value, error) {
	policy, err := in.kubeFleetPolicy()
	if err != nil {
		return nil, err
	}
	if policy.PlacementType == placementv1.PickFixedPlacementType {
		members, err := v.HubMemberClusters(ctx)
		if err != nil {
			return nil, err
		}
		checkFixedMembers(d, in.Placement.ClusterNames, members)
		if d.HasError() {
			return nil, nil
		}
	}
	p, warnings, err := placementPreviewFrom(ctx, v, in.sched, policy)
	if err == nil {
		err = in.schedErr // after the reads: apply still says what of them moved
	}
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		d.AddAttributeWarning(path.Root("placement"), "Managed namespace will not be placed as written", w)
	}
	obj, ds := p.object(v.ListLimit())
	d.Append(ds...)
	if ds.HasError() {
		return nil, nil
	}
	return withoutOverrides(obj, d), nil
}

// withoutOverrides is a placement preview without override_snapshots (not this resource's).
func withoutOverrides(o types.Object, d *diag.Diagnostics) types.Object {
	attrs := make(map[string]attr.Value, len(managedNamespacePreviewAttrTypes))
	for k, v := range o.Attributes() {
		if _, ok := managedNamespacePreviewAttrTypes[k]; ok {
			attrs[k] = v
		}
	}
	out, ds := types.ObjectValue(managedNamespacePreviewAttrTypes, attrs)
	d.Append(ds...)
	return out
}

// checkFixedMembers fails each PickFixed name the hub has no MemberCluster of, at
// placement.cluster_names[i], naming a few of the members there are.
func checkFixedMembers(d *diag.Diagnostics, names []string, members []clusterv1.MemberCluster) {
	known := make(map[string]bool, len(members))
	all := make([]string, 0, len(members))
	for _, m := range members {
		known[m.Name] = true
		all = append(all, m.Name)
	}
	sort.Strings(all)
	for i, n := range names {
		if known[n] {
			continue
		}
		p := path.Root("placement").AtName("cluster_names").AtListIndex(i)
		list := "none"
		if len(all) > 0 {
			list = preview.NameSample(all)
		}
		d.AddAttributeError(p, "Not a member of the fleet",
			fmt.Sprintf("Attribute %s: %q is not a member of the fleet (the hub has no MemberCluster of that name); members: %s.", p, n, list))
	}
}

// namespaceObjects renders the objects of a namespace named name with properties props, in the
// order Build gives them, as the `objects` attribute.
func namespaceObjects(name string, props *fleetapi.ManagedNamespaceProperties) (types.List, error) {
	objs, err := managednamespace.Build(name, props)
	if err != nil {
		return types.ListNull(namespaceObjectType), err
	}
	var values []attr.Value
	for _, o := range []struct {
		kind, name string
		obj        any
		present    bool
	}{
		{"Namespace", name, objs.Namespace, objs.Namespace != nil},
		{"ResourceQuota", managednamespace.QuotaName, objs.ResourceQuota, objs.ResourceQuota != nil},
		{"NetworkPolicy", managednamespace.NetworkPolicyName, objs.NetworkPolicy, objs.NetworkPolicy != nil},
	} {
		if !o.present {
			continue
		}
		y, err := manifestYAML(o.obj)
		if err != nil {
			return types.ListNull(namespaceObjectType), err
		}
		v, d := types.ObjectValue(namespaceObjectType.AttrTypes, map[string]attr.Value{
			"kind": types.StringValue(o.kind), "name": types.StringValue(o.name), "yaml": types.StringValue(y),
		})
		if d.HasError() {
			return types.ListNull(namespaceObjectType), fmt.Errorf("%s", d.Errors()[0].Detail())
		}
		values = append(values, v)
	}
	l, d := types.ListValue(namespaceObjectType, values)
	if d.HasError() {
		return types.ListNull(namespaceObjectType), fmt.Errorf("%s", d.Errors()[0].Detail())
	}
	return l, nil
}

// manifestYAML is an object as a reviewer reads it: without the fields a typed object carries
// empty (metadata.creationTimestamp, status, an empty spec), which the API server fills.
func manifestYAML(obj any) (string, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "", err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	if spec, ok := m["spec"].(map[string]any); ok && len(spec) == 0 {
		delete(m, "spec")
	}
	out, err := yaml.Marshal(m)
	return string(out), err
}
