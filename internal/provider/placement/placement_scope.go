package placement

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// placementScope is what differs between fleet_placement (a ClusterResourcePlacement) and
// fleet_resource_placement (a ResourcePlacement in a namespace): the kinds' names, whether
// `namespace` is part of the key, and how the resource's model maps onto the one both share.
// Everything else (schema of policy, strategy, preview and status; validation; the preview by
// internal/engine/scheduling; create, read, update, delete, waits) is one implementation,
// placementResource, parameterised by it. KubeFleet v0.18.9 schedules both kinds with one
// scheduler and one profile (pkg/scheduler/scheduler.go, pkg/scheduler/profile/profile.go).
type placementScope struct {
	// namespaced: the resource has a `namespace` and its id is <namespace>/<name>.
	namespaced bool
	// kind and snapshotKind name the placement and its resource snapshots in messages.
	kind, snapshotKind string
}

var (
	clusterPlacementScope    = &placementScope{kind: "ClusterResourcePlacement", snapshotKind: "ClusterResourceSnapshot"}
	namespacedPlacementScope = &placementScope{namespaced: true, kind: hub.ResourcePlacementKind, snapshotKind: "ResourceSnapshot"}
)

// newScopedPlacement is the constructor of a placement resource of scope s.
func newScopedPlacement(suffix string, s *placementScope) func() resource.Resource {
	return newResourceWith(shared.NewResource[placementResource](suffix), func(r *placementResource) { r.scope = s })
}

// newResourceWith is the constructor base with set applied to each resource it makes: for one
// implementation serving several resource types, the setting that tells them apart.
func newResourceWith[P resource.Resource](base func() resource.Resource, set func(P)) func() resource.Resource {
	return func() resource.Resource {
		r, ok := base().(P)
		if !ok {
			panic(fmt.Sprintf("newResourceWith: the constructor did not make a %T", r)) // a programming error, at provider start
		}
		set(r)
		return r
	}
}

// sc is the resource's scope: a zero placementResource is fleet_placement.
func (r *placementResource) sc() *placementScope {
	if r.scope == nil {
		return clusterPlacementScope
	}
	return r.scope
}

// key is the placement m describes.
func (s *placementScope) key(m *placementModel) hub.PlacementKey {
	k := hub.PlacementKey{Name: m.Name.ValueString()}
	if s.namespaced {
		k.Namespace = m.Namespace.ValueString()
	}
	return k
}

// id is the resource's id: the name, or <namespace>/<name>.
func (s *placementScope) id(m *placementModel) string { return s.key(m).String() }

// configAttributes are the attributes a user configures; the preview is recomputed when one of
// them changes.
func (s *placementScope) configAttributes() []string {
	if s.namespaced {
		return append([]string{"namespace"}, placementConfigAttributes...)
	}
	return placementConfigAttributes
}

// previewSpec is the scope's placement preview.
func (s *placementScope) previewSpec() preview.Spec[placementPreviewInput] {
	if s.namespaced {
		return resourcePlacementPreviewSpec
	}
	return placementPreviewSpec
}

// keyPaths are the attributes whose change replaces the placement.
func (s *placementScope) keyPaths() []path.Path {
	if s.namespaced {
		return []path.Path{path.Root("namespace"), path.Root("name")}
	}
	return []path.Path{path.Root("name")}
}

// computedPaths are the attributes unknown by nature at plan.
var placementComputedPaths = []path.Path{path.Root("id"), path.Root("preview"), path.Root("status"),
	path.Root("latest_resource_snapshot_index"), path.Root("resource_snapshots")}

// models decodes, reads and writes the resource's model as the shared one.
func (s *placementScope) models() scopedModel[placementModel, resourcePlacementModel] {
	return scopedModel[placementModel, resourcePlacementModel]{
		Namespaced: s.namespaced, Shared: (*resourcePlacementModel).shared, Of: resourcePlacementModelOf,
	}
}

// placementScheduledCondition and placementAvailableCondition are the placement-level condition
// types of the placement's kind: ResourcePlacement's conditions are prefixed ResourcePlacement
// instead of ClusterResourcePlacement (apis/placement/v1/clusterresourceplacement_types.go); the
// per-cluster conditions are the same for both kinds.
func placementScheduledCondition(m *metav1.ObjectMeta) string {
	if m.Namespace != "" {
		return string(placementv1.ResourcePlacementScheduledConditionType)
	}
	return string(placementv1.ClusterResourcePlacementScheduledConditionType)
}

func placementAvailableCondition(m *metav1.ObjectMeta) string {
	if m.Namespace != "" {
		return string(placementv1.ResourcePlacementAvailableConditionType)
	}
	return string(placementv1.ClusterResourcePlacementAvailableConditionType)
}
