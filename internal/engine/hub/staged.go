package hub

import (
	"context"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Staged rollouts: ClusterStagedUpdateStrategy, ClusterStagedUpdateRun, ClusterApprovalRequest.

// Strategy reads a ClusterStagedUpdateStrategy.
func (c *Client) Strategy(ctx context.Context, name string) (*placementv1.ClusterStagedUpdateStrategy, error) {
	return get[placementv1.ClusterStagedUpdateStrategy](ctx, c, StrategyGVR, name)
}

// CreateStrategy creates s.
func (c *Client) CreateStrategy(ctx context.Context, s *placementv1.ClusterStagedUpdateStrategy) (*placementv1.ClusterStagedUpdateStrategy, error) {
	s.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: placementv1beta1.ClusterStagedUpdateStrategyKind}
	return create(ctx, c, StrategyGVR, s)
}

// UpdateStrategySpec writes spec over the hub's current strategy, retrying on conflicts.
func (c *Client) UpdateStrategySpec(ctx context.Context, name string, spec placementv1.UpdateStrategySpec) (*placementv1.ClusterStagedUpdateStrategy, error) {
	for {
		cur, err := c.Strategy(ctx, name)
		if err != nil {
			return nil, err
		}
		cur.Spec = spec
		cur.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: placementv1beta1.ClusterStagedUpdateStrategyKind}
		got, err := update(ctx, c, StrategyGVR, cur)
		if IsConflict(err) && ctx.Err() == nil {
			continue
		}
		return got, err
	}
}

// DeleteStrategy deletes a strategy; a missing one is not an error.
func (c *Client) DeleteStrategy(ctx context.Context, name string) error {
	return remove(ctx, c, StrategyGVR, name)
}

// Run reads a ClusterStagedUpdateRun.
func (c *Client) Run(ctx context.Context, name string) (*placementv1.ClusterStagedUpdateRun, error) {
	return get[placementv1.ClusterStagedUpdateRun](ctx, c, RunGVR, name)
}

// CreateRun creates r.
func (c *Client) CreateRun(ctx context.Context, r *placementv1.ClusterStagedUpdateRun) (*placementv1.ClusterStagedUpdateRun, error) {
	r.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: placementv1beta1.ClusterStagedUpdateRunKind}
	return create(ctx, c, RunGVR, r)
}

// DeleteRun deletes a run (KubeFleet abandons its release); a missing one is not an error.
func (c *Client) DeleteRun(ctx context.Context, name string) error {
	return remove(ctx, c, RunGVR, name)
}

// RunExists reports whether the run is still on the hub (its finalizer keeps it while the
// controller cleans up).
func (c *Client) RunExists(ctx context.Context, name string) (bool, error) {
	return exists(ctx, c, RunGVR, name)
}

// ApprovalRequests lists the approval requests the controller made for a run.
func (c *Client) ApprovalRequests(ctx context.Context, run string) ([]placementv1.ClusterApprovalRequest, error) {
	return list[placementv1.ClusterApprovalRequest](ctx, c, ApprovalGVR, labels.Set{placementv1beta1.TargetUpdateRunLabel: run})
}

// Approve sets the Approved condition on an approval request's status, as KubeFleet's docs do it
// (`kubectl patch clusterapprovalrequests <name> --subresource=status --type=merge` with an
// Approved=True condition at the request's generation). Approving twice is harmless.
func (c *Client) Approve(ctx context.Context, req *placementv1.ClusterApprovalRequest, now time.Time, by string) error {
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True","reason":"ApprovedByTerraform","message":%s,"lastTransitionTime":%q,"observedGeneration":%d}]}}`,
		placementv1.ApprovalRequestConditionApproved, strconv.Quote("approved by "+by), now.UTC().Format(time.RFC3339), req.Generation)
	r, err := c.res(ctx, ApprovalGVR)
	if err != nil {
		return err
	}
	_, err = r.Patch(ctx, req.Name, k8stypes.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: FieldManager}, "status")
	return err
}

// RunInputs reads what KubeFleet's controller reads when it initializes a run of placement with
// strategy: the placement (nil when missing), its latest policy snapshots, bindings and resource
// snapshots, and the strategy (nil when missing). The member clusters are the caller's to add
// (the provider lists them once per process).
func (c *Client) RunInputs(ctx context.Context, placement, strategy string) (RunInputs, error) {
	var in RunInputs
	var err error
	if in.Placement, err = get[placementv1.ClusterResourcePlacement](ctx, c, PlacementGVR, placement); IsNotFound(err) {
		in.Placement = nil
	} else if err != nil {
		return in, fmt.Errorf("reading placement %s: %w", placement, err)
	}
	if in.Strategy, err = c.Strategy(ctx, strategy); IsNotFound(err) {
		in.Strategy = nil
	} else if err != nil {
		return in, fmt.Errorf("reading staged update strategy %s: %w", strategy, err)
	}
	if in.Placement == nil {
		return in, nil
	}
	if in.PolicySnapshots, err = c.LatestPolicySnapshots(ctx, placement); err != nil {
		return in, err
	}
	if in.Bindings, err = c.Bindings(ctx, placement); err != nil {
		return in, err
	}
	if in.ResourceSnapshots, err = c.ResourceSnapshots(ctx, placement); err != nil {
		return in, err
	}
	return in, nil
}

// RunInputs is what RunInputs reads.
type RunInputs struct {
	Placement         *placementv1.ClusterResourcePlacement
	Strategy          *placementv1.ClusterStagedUpdateStrategy
	PolicySnapshots   []placementv1.ClusterSchedulingPolicySnapshot
	Bindings          []placementv1.ClusterResourceBinding
	ResourceSnapshots []placementv1.ClusterResourceSnapshot
	MemberClusters    []clusterv1.MemberCluster
}
