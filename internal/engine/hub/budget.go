package hub

import (
	"context"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// DisruptionBudgetGVR is KubeFleet's ClusterResourcePlacementDisruptionBudget (v1beta1 only in
// v0.18.9): named like the ClusterResourcePlacement it guards.
var DisruptionBudgetGVR = placementv1beta1.GroupVersion.WithResource("clusterresourceplacementdisruptionbudgets")

// DisruptionBudget reads the budget of placement.
func (c *Client) DisruptionBudget(ctx context.Context, placement string) (*placementv1beta1.ClusterResourcePlacementDisruptionBudget, error) {
	return get[placementv1beta1.ClusterResourcePlacementDisruptionBudget](ctx, c, DisruptionBudgetGVR, placement)
}

// CreateDisruptionBudget creates the budget of placement under the provider's field manager.
func (c *Client) CreateDisruptionBudget(ctx context.Context, placement string, spec placementv1beta1.PlacementDisruptionBudgetSpec) (*placementv1beta1.ClusterResourcePlacementDisruptionBudget, error) {
	b := &placementv1beta1.ClusterResourcePlacementDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{Kind: "ClusterResourcePlacementDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: placement},
		Spec:       spec,
	}
	return create[placementv1beta1.ClusterResourcePlacementDisruptionBudget](ctx, c, DisruptionBudgetGVR, b)
}

// UpdateDisruptionBudget replaces the budget's spec (both fields: the one unset is cleared).
func (c *Client) UpdateDisruptionBudget(ctx context.Context, placement string, spec placementv1beta1.PlacementDisruptionBudgetSpec) (*placementv1beta1.ClusterResourcePlacementDisruptionBudget, error) {
	var out *placementv1beta1.ClusterResourcePlacementDisruptionBudget
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		b, err := c.DisruptionBudget(ctx, placement)
		if err != nil {
			return err
		}
		b.TypeMeta = metav1.TypeMeta{Kind: "ClusterResourcePlacementDisruptionBudget"}
		b.Spec = spec
		out, err = update[placementv1beta1.ClusterResourcePlacementDisruptionBudget](ctx, c, DisruptionBudgetGVR, b)
		return err
	})
	return out, err
}

// DeleteDisruptionBudget deletes the budget of placement; a missing one is not an error.
func (c *Client) DeleteDisruptionBudget(ctx context.Context, placement string) error {
	r, err := c.res(ctx, DisruptionBudgetGVR)
	if err != nil {
		return err
	}
	if err := r.Delete(ctx, placement, metav1.DeleteOptions{}); err != nil && !IsNotFound(err) {
		return err
	}
	return nil
}
