package hub

import (
	"context"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EvictionGVR is KubeFleet's ClusterResourcePlacementEviction (v1beta1 in v0.18.9).
var EvictionGVR = placementv1beta1.GroupVersion.WithResource("clusterresourceplacementevictions")

// CreateEviction asks the hub to evict placement's resources from cluster: KubeFleet's eviction
// controller then decides, honouring the placement's ClusterResourcePlacementDisruptionBudget, and
// records its verdict in the eviction's Valid and Executed conditions.
func (c *Client) CreateEviction(ctx context.Context, name, placement, cluster string) (*placementv1beta1.ClusterResourcePlacementEviction, error) {
	e := &placementv1beta1.ClusterResourcePlacementEviction{
		TypeMeta:   metav1.TypeMeta{Kind: "ClusterResourcePlacementEviction"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       placementv1beta1.PlacementEvictionSpec{PlacementName: placement, ClusterName: cluster},
	}
	return create[placementv1beta1.ClusterResourcePlacementEviction](ctx, c, EvictionGVR, e)
}

// Eviction reads a ClusterResourcePlacementEviction.
func (c *Client) Eviction(ctx context.Context, name string) (*placementv1beta1.ClusterResourcePlacementEviction, error) {
	return get[placementv1beta1.ClusterResourcePlacementEviction](ctx, c, EvictionGVR, name)
}
