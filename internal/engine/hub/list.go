package hub

import (
	"context"
	"sort"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the list resources find on the hub (terraform query): the objects of a kind, by name.

// Placements lists the ClusterResourcePlacements (ns "") or the ResourcePlacements of ns.
func (c *Client) Placements(ctx context.Context, ns string) ([]placementv1.ClusterResourcePlacement, error) {
	return listIn[placementv1.ClusterResourcePlacement](ctx, c, placementKind, ns, nil)
}

// Strategies lists the (Cluster)StagedUpdateStrategies of ns ("" for cluster-scoped).
func (c *Client) Strategies(ctx context.Context, ns string) ([]placementv1.ClusterStagedUpdateStrategy, error) {
	return listIn[placementv1.ClusterStagedUpdateStrategy](ctx, c, strategyKind, ns, nil)
}

// Runs lists the (Cluster)StagedUpdateRuns of ns ("" for cluster-scoped).
func (c *Client) Runs(ctx context.Context, ns string) ([]placementv1.ClusterStagedUpdateRun, error) {
	return listIn[placementv1.ClusterStagedUpdateRun](ctx, c, runKind, ns, nil)
}

// EnvelopeNames lists the ClusterResourceEnvelopes (ns "") or the ResourceEnvelopes of ns, by name.
func (c *Client) EnvelopeNames(ctx context.Context, ns string) ([]string, error) {
	r, _, err := c.envelopes(ctx, ns)
	if err != nil {
		return nil, err
	}
	l, err := r.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.Items))
	for _, u := range l.Items {
		out = append(out, u.GetName())
	}
	sort.Strings(out)
	return out, nil
}
