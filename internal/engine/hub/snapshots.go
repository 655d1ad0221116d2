package hub

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// What the hub agent derives from a placement: policy snapshots, bindings, resource snapshots.

// LatestPolicySnapshots lists the ClusterResourcePlacement's policy snapshots labelled latest
// (normally one; the staged update run controller refuses zero or several).
func (c *Client) LatestPolicySnapshots(ctx context.Context, placement string) ([]placementv1.ClusterSchedulingPolicySnapshot, error) {
	return c.LatestPolicySnapshotsAt(ctx, ClusterPlacement(placement))
}

// LatestPolicySnapshotsAt is LatestPolicySnapshots of a placement of either scope: a
// ResourcePlacement's SchedulingPolicySnapshots, in its namespace, have the same spec
// (apis/placement/v1/policysnapshot_types.go).
func (c *Client) LatestPolicySnapshotsAt(ctx context.Context, key PlacementKey) ([]placementv1.ClusterSchedulingPolicySnapshot, error) {
	l, err := listIn[placementv1.ClusterSchedulingPolicySnapshot](ctx, c, policySnapshotKind, key.Namespace,
		labels.Set{placementv1beta1.PlacementTrackingLabel: key.Name, placementv1beta1.IsLatestSnapshotLabel: "true"})
	if err != nil {
		return nil, fmt.Errorf("listing the policy snapshots of placement %s: %w", key, err)
	}
	return l, nil
}

// Bindings lists the ClusterResourcePlacement's ClusterResourceBindings by name.
func (c *Client) Bindings(ctx context.Context, placement string) ([]placementv1.ClusterResourceBinding, error) {
	return c.BindingsAt(ctx, ClusterPlacement(placement))
}

// BindingsAt lists a placement's bindings by name: ClusterResourceBindings, or a
// ResourcePlacement's ResourceBindings in its namespace (same spec and status,
// apis/placement/v1/binding_types.go).
func (c *Client) BindingsAt(ctx context.Context, key PlacementKey) ([]placementv1.ClusterResourceBinding, error) {
	l, err := listIn[placementv1.ClusterResourceBinding](ctx, c, bindingKind, key.Namespace, labels.Set{placementv1beta1.PlacementTrackingLabel: key.Name})
	if err != nil {
		return nil, fmt.Errorf("listing the bindings of placement %s: %w", key, err)
	}
	return l, nil
}

// ResourceSnapshots lists the ClusterResourcePlacement's ClusterResourceSnapshots (every index,
// master and sub-snapshots), ordered by index then name: their metadata only, since the selected
// resources they hold can be megabytes per index.
func (c *Client) ResourceSnapshots(ctx context.Context, placement string) ([]placementv1.ClusterResourceSnapshot, error) {
	return c.ResourceSnapshotsAt(ctx, ClusterPlacement(placement))
}

// ResourceSnapshotsAt is ResourceSnapshots of a placement of either scope (a ResourcePlacement's
// ResourceSnapshots, in its namespace: apis/placement/v1/resourcesnapshot_types.go).
func (c *Client) ResourceSnapshotsAt(ctx context.Context, key PlacementKey) ([]placementv1.ClusterResourceSnapshot, error) {
	l, err := c.resourceSnapshotsMetadata(ctx, key)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(l, func(i, j int) bool { return SnapshotIndex(&l[i]) < SnapshotIndex(&l[j]) })
	return l, nil
}

// SnapshotIndex is a resource snapshot's index label (-1 when absent or not a number).
func SnapshotIndex(s *placementv1.ClusterResourceSnapshot) int {
	n, err := strconv.Atoi(s.Labels[placementv1beta1.ResourceIndexLabel])
	if err != nil {
		return -1
	}
	return n
}

// IsMasterSnapshot reports whether s is the master snapshot of its index (the only one carrying
// the resource group hash; resourcesnapshot_types.go).
func IsMasterSnapshot(s *placementv1.ClusterResourceSnapshot) bool {
	return s.Annotations[placementv1beta1.ResourceGroupHashAnnotation] != ""
}

// LatestResourceSnapshotIndex is the index of the placement's latest resource snapshot (as
// ResourceVersions.Latest: labelled latest, else the highest; "" before the hub agent cut one).
func LatestResourceSnapshotIndex(snaps []placementv1.ClusterResourceSnapshot) string {
	return resourceVersionsOf("", snaps, nil).Latest
}
