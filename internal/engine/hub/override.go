package hub

import (
	"context"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// KubeFleet v0.18.9's overrides (v1): ClusterResourceOverride (namespace "") and ResourceOverride
// in a namespace, and the snapshots the hub agent's override controllers take of them
// (pkg/controllers/overrider). The two kinds differ in their selectors only; an Override carries
// either.
var (
	ClusterOverrideGVR          = placementv1.GroupVersion.WithResource("clusterresourceoverrides")
	NamespacedOverrideGVR       = placementv1.GroupVersion.WithResource("resourceoverrides")
	ClusterOverrideSnapshotGVR  = placementv1.GroupVersion.WithResource("clusterresourceoverridesnapshots")
	NamespacedOverrideSnapshGVR = placementv1.GroupVersion.WithResource("resourceoverridesnapshots")

	overrideKind         = scoped{ClusterOverrideGVR, NamespacedOverrideGVR, placementv1beta1.ClusterResourceOverrideKind, placementv1beta1.ResourceOverrideKind}
	overrideSnapshotKind = scoped{ClusterOverrideSnapshotGVR, NamespacedOverrideSnapshGVR, placementv1beta1.ClusterResourceOverrideSnapshotKind, placementv1beta1.ResourceOverrideSnapshotKind}
)

// OverrideKind names the override kind of a scope: "ClusterResourceOverride" or "ResourceOverride".
func OverrideKind(ns string) string { return overrideKind.Kind(ns) }

// Override is a ClusterResourceOverride (Namespace "", Spec.ClusterResourceSelectors) or a
// ResourceOverride (ResourceSelectors) as one value.
type Override struct {
	Namespace, Name   string
	Spec              placementv1.ClusterResourceOverrideSpec
	ResourceSelectors []placementv1.ResourceSelector
	ResourceVersion   string
}

func (o *Override) cro() *placementv1.ClusterResourceOverride {
	c := &placementv1.ClusterResourceOverride{Spec: o.Spec}
	c.Name, c.ResourceVersion = o.Name, o.ResourceVersion
	return c
}

func (o *Override) ro() *placementv1.ResourceOverride {
	r := &placementv1.ResourceOverride{Spec: placementv1.ResourceOverrideSpec{Placement: o.Spec.Placement, ResourceSelectors: o.ResourceSelectors, Policy: o.Spec.Policy}}
	r.Namespace, r.Name, r.ResourceVersion = o.Namespace, o.Name, o.ResourceVersion
	return r
}

func overrideOfRO(r *placementv1.ResourceOverride) *Override {
	return &Override{Namespace: r.Namespace, Name: r.Name, ResourceVersion: r.ResourceVersion, ResourceSelectors: r.Spec.ResourceSelectors,
		Spec: placementv1.ClusterResourceOverrideSpec{Placement: r.Spec.Placement, Policy: r.Spec.Policy}}
}

// GetOverride reads an override.
func (c *Client) GetOverride(ctx context.Context, ns, name string) (*Override, error) {
	if ns == "" {
		o, err := getIn[placementv1.ClusterResourceOverride](ctx, c, overrideKind, "", name)
		if err != nil {
			return nil, err
		}
		return &Override{Name: o.Name, Spec: o.Spec, ResourceVersion: o.ResourceVersion}, nil
	}
	o, err := getIn[placementv1.ResourceOverride](ctx, c, overrideKind, ns, name)
	if err != nil {
		return nil, err
	}
	return overrideOfRO(o), nil
}

// WriteOverride creates (replace false) or updates (replace true, with o.ResourceVersion) o.
func (c *Client) WriteOverride(ctx context.Context, o *Override, replace bool) (*Override, error) {
	if o.Namespace == "" {
		got, err := writeIn(ctx, c, overrideKind, o.cro(), replace)
		if err != nil {
			return nil, err
		}
		return &Override{Name: got.Name, Spec: got.Spec, ResourceVersion: got.ResourceVersion}, nil
	}
	got, err := writeIn(ctx, c, overrideKind, o.ro(), replace)
	if err != nil {
		return nil, err
	}
	return overrideOfRO(got), nil
}

// DeleteOverride deletes an override (gone already is no error).
func (c *Client) DeleteOverride(ctx context.Context, ns, name string) error {
	return removeIn(ctx, c, overrideKind, ns, name)
}

// OverrideSnapshot is the latest snapshot of an override: its name (<override>-<index>) and the
// override's spec as the hub agent applies it.
type OverrideSnapshot struct {
	Namespace         string                                  `json:"namespace,omitempty"`
	Name              string                                  `json:"name"`
	Override          string                                  `json:"override"`
	Spec              placementv1.ClusterResourceOverrideSpec `json:"spec"`
	ResourceSelectors []placementv1.ResourceSelector          `json:"resourceSelectors,omitempty"`
}

// LatestOverrideSnapshots lists the latest snapshot of every ClusterResourceOverride (ns "") or of
// every ResourceOverride in ns, as the rollout controller lists them
// (pkg/utils/overrider/overrider.go: the is-latest-snapshot label), sorted by name.
func (c *Client) LatestOverrideSnapshots(ctx context.Context, ns string) ([]OverrideSnapshot, error) {
	sel := labels.Set{placementv1beta1.IsLatestSnapshotLabel: "true"}
	var out []OverrideSnapshot
	if ns == "" {
		l, err := listIn[placementv1.ClusterResourceOverrideSnapshot](ctx, c, overrideSnapshotKind, "", sel)
		if err != nil {
			return nil, err
		}
		for _, s := range l {
			out = append(out, OverrideSnapshot{Name: s.Name, Override: s.Labels[placementv1beta1.OverrideTrackingLabel], Spec: s.Spec.OverrideSpec})
		}
	} else {
		l, err := listIn[placementv1.ResourceOverrideSnapshot](ctx, c, overrideSnapshotKind, ns, sel)
		if err != nil {
			return nil, err
		}
		for _, s := range l {
			out = append(out, OverrideSnapshot{Namespace: s.Namespace, Name: s.Name, Override: s.Labels[placementv1beta1.OverrideTrackingLabel],
				ResourceSelectors: s.Spec.OverrideSpec.ResourceSelectors,
				Spec:              placementv1.ClusterResourceOverrideSpec{Placement: s.Spec.OverrideSpec.Placement, Policy: s.Spec.OverrideSpec.Policy}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LatestSelectedResources is what the placement's latest resource snapshot holds: the selected
// resources of its master snapshot and then of its sub-snapshots by sub-index, the order the work
// generator reads them in (pkg/utils/controller, FetchAllResourceSnapshotsAlongWithMaster), with
// the index; "" and nil before the hub agent cut a snapshot.
func (c *Client) LatestSelectedResources(ctx context.Context, key PlacementKey) ([][]byte, string, error) {
	meta, err := c.ResourceSnapshotsAt(ctx, key)
	if err != nil {
		return nil, "", err
	}
	index := LatestResourceSnapshotIndex(meta)
	if index == "" {
		return nil, "", nil
	}
	snaps, err := listIn[placementv1.ClusterResourceSnapshot](ctx, c, resourceSnapshotKind, key.Namespace,
		labels.Set{placementv1beta1.PlacementTrackingLabel: key.Name, placementv1beta1.ResourceIndexLabel: index})
	if err != nil {
		return nil, "", err
	}
	sub := func(s *placementv1.ClusterResourceSnapshot) int {
		n, err := strconv.Atoi(s.Annotations[placementv1beta1.SubindexOfResourceSnapshotAnnotation])
		if err != nil {
			return -1 // the master
		}
		return n
	}
	sort.SliceStable(snaps, func(i, j int) bool { return sub(&snaps[i]) < sub(&snaps[j]) })
	var out [][]byte
	for _, s := range snaps {
		for _, r := range s.Spec.SelectedResources {
			out = append(out, r.Raw)
		}
	}
	return out, index, nil
}
