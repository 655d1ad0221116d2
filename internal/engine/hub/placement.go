package hub

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/retry"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Placements of both scopes: a ClusterResourcePlacement (cluster-scoped) and a ResourcePlacement
// (namespaced, placement.kubernetes-fleet.io/v1 since KubeFleet v0.17.9), the one field of them that
// KubeFleet v0.14.0's Go types lack, and the resource snapshot indices a placement's clusters run.
// Both kinds share PlacementSpec and PlacementStatus (apis/placement/v1/clusterresourceplacement_types.go),
// and their snapshots and bindings share their cluster-scoped twins' spec and status
// (policysnapshot_types.go, resourcesnapshot_types.go, binding_types.go): one implementation serves
// both, keyed by PlacementKey, with the cluster-scoped Go types holding either kind's objects.

// ResourcePlacementKind is the namespaced placement's kind.
const ResourcePlacementKind = "ResourcePlacement"

// PlacementKey names a placement: Namespace "" for a ClusterResourcePlacement, else a
// ResourcePlacement in that namespace.
type PlacementKey struct {
	Namespace, Name string
}

// ClusterPlacement is the key of the ClusterResourcePlacement name.
func ClusterPlacement(name string) PlacementKey { return PlacementKey{Name: name} }

// String is the key as the hub agent writes it: name, or namespace/name
// (pkg/utils/controller/placement_resolver.go, GetObjectKeyFromNamespaceName).
func (k PlacementKey) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Kind is the placement's kind.
func (k PlacementKey) Kind() string {
	if k.Namespace == "" {
		return placementv1beta1.ClusterResourcePlacementKind
	}
	return ResourcePlacementKind
}

// SelectionScopeField is resourceSelectors[].selectionScope, which newer KubeFleet has and
// v0.14.0's types (and CRD) lack.
const SelectionScopeField = "selectionScope"

// Placement is a ClusterResourcePlacement, or a ResourcePlacement (Namespace set: the two kinds
// have the same spec and status), with the fields v0.14.0's Go type lacks.
type Placement struct {
	placementv1.ClusterResourcePlacement
	// SelectionScopes[i] is spec.resourceSelectors[i].selectionScope ("" when unset; the slice may
	// be shorter than the selectors).
	SelectionScopes []string
}

// SelectionScope is resourceSelectors[i].selectionScope, "" when unset.
func (p *Placement) SelectionScope(i int) string {
	if i < len(p.SelectionScopes) {
		return p.SelectionScopes[i]
	}
	return ""
}

// Key is the placement's key.
func (p *Placement) Key() PlacementKey { return PlacementKey{Namespace: p.Namespace, Name: p.Name} }

// placementFromUnstructured decodes the typed placement and the selection scopes.
func placementFromUnstructured(u *unstructured.Unstructured) (*Placement, error) {
	crp, err := decode[placementv1.ClusterResourcePlacement](u)
	if err != nil {
		return nil, err
	}
	p := &Placement{ClusterResourcePlacement: *crp}
	selectors, _, _ := unstructured.NestedSlice(u.Object, "spec", "resourceSelectors")
	for i, s := range selectors {
		sm, _ := s.(map[string]any)
		if scope, _ := sm[SelectionScopeField].(string); scope != "" {
			for len(p.SelectionScopes) <= i {
				p.SelectionScopes = append(p.SelectionScopes, "")
			}
			p.SelectionScopes[i] = scope
		}
	}
	return p, nil
}

// unstructured encodes the placement without status, with its selection scopes.
func (p *Placement) unstructured() (*unstructured.Unstructured, error) {
	crp := p.DeepCopy() // the typed placement's copy
	crp.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: p.Key().Kind()}
	u, err := encode(crp)
	if err != nil {
		return nil, err
	}
	if len(p.SelectionScopes) == 0 {
		return u, nil
	}
	selectors, _, _ := unstructured.NestedSlice(u.Object, "spec", "resourceSelectors")
	for i, s := range selectors {
		if sm, ok := s.(map[string]any); ok && p.SelectionScope(i) != "" {
			sm[SelectionScopeField] = p.SelectionScope(i)
		}
	}
	if err := unstructured.SetNestedSlice(u.Object, selectors, "spec", "resourceSelectors"); err != nil {
		return nil, fmt.Errorf("encoding the resource selectors: %w", err)
	}
	return u, nil
}

// managedSpecFields are the spec fields the provider owns; managedStrategyFields those of
// spec.strategy (applyStrategy and the rest stay as the hub has them).
var (
	managedSpecFields     = []string{"resourceSelectors", "policy", "revisionHistoryLimit"}
	managedStrategyFields = []string{"type", "rollingUpdate"}
)

// mergeManagedSpec writes the fields the provider manages from desired into the hub's current
// object, leaving the rest (applyStrategy, fields newer KubeFleet adds, metadata the hub agent
// owns) as they are.
func mergeManagedSpec(current, desired *unstructured.Unstructured) {
	spec, _, _ := unstructured.NestedMap(current.Object, "spec")
	if spec == nil {
		spec = map[string]any{}
	}
	want, _, _ := unstructured.NestedMap(desired.Object, "spec")
	for _, f := range managedSpecFields {
		if v, ok := want[f]; ok {
			spec[f] = v
		} else {
			delete(spec, f)
		}
	}
	strategy, _ := spec["strategy"].(map[string]any)
	if strategy == nil {
		strategy = map[string]any{}
	}
	wantStrategy, _ := want["strategy"].(map[string]any)
	for _, f := range managedStrategyFields {
		if v, ok := wantStrategy[f]; ok {
			strategy[f] = v
		} else {
			delete(strategy, f)
		}
	}
	spec["strategy"] = strategy
	_ = unstructured.SetNestedMap(current.Object, spec, "spec")
}

// placementFor encodes p for the placement API version the hub serves.
func (c *Client) placementFor(ctx context.Context, p *Placement) (dynamic.ResourceInterface, *unstructured.Unstructured, error) {
	gvr, err := c.resolve(ctx, placementKind.gvr(p.Namespace))
	if err != nil {
		return nil, nil, err
	}
	u, err := p.unstructured()
	if err != nil {
		return nil, nil, err
	}
	u.SetAPIVersion(gvr.GroupVersion().String())
	r := dynamic.ResourceInterface(c.dyn.Resource(gvr))
	if ns := p.Namespace; ns != "" {
		r = c.dyn.Resource(gvr).Namespace(ns)
	}
	return r, u, nil
}

// Placement reads a ClusterResourcePlacement.
func (c *Client) Placement(ctx context.Context, name string) (*Placement, error) {
	return c.PlacementAt(ctx, ClusterPlacement(name))
}

// PlacementAt reads the placement key names, of either scope.
func (c *Client) PlacementAt(ctx context.Context, key PlacementKey) (*Placement, error) {
	r, _, err := c.in(ctx, placementKind, key.Namespace)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return placementFromUnstructured(u)
}

// CreatePlacement creates p (a ResourcePlacement when p.Namespace is set) under the provider's
// field manager.
func (c *Client) CreatePlacement(ctx context.Context, p *Placement) (*Placement, error) {
	r, u, err := c.placementFor(ctx, p)
	if err != nil {
		return nil, err
	}
	got, err := r.Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, err
	}
	return placementFromUnstructured(got)
}

// UpdatePlacementSpec writes the fields of p's spec the provider manages (resource selectors with
// their selection scopes, policy, revision history limit, strategy type and rolling update) over
// the hub's current placement, keeping every other field. The hub agent writes the placement too
// (finalizers, defaults): conflicts are retried on a fresh read.
func (c *Client) UpdatePlacementSpec(ctx context.Context, p *Placement) (*Placement, error) {
	r, desired, err := c.placementFor(ctx, p)
	if err != nil {
		return nil, err
	}
	var updated *unstructured.Unstructured
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		current, err := r.Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mergeManagedSpec(current, desired)
		updated, err = r.Update(ctx, current, metav1.UpdateOptions{FieldManager: FieldManager})
		return err
	})
	if err != nil {
		return nil, err
	}
	return placementFromUnstructured(updated)
}

// DeletePlacement deletes a ClusterResourcePlacement; a missing one is not an error. The hub
// agent's finalizers then remove the placed resources from the clusters (WaitPlacementGone).
func (c *Client) DeletePlacement(ctx context.Context, name string) error {
	return c.DeletePlacementAt(ctx, ClusterPlacement(name))
}

// DeletePlacementAt deletes the placement key names; a missing one is not an error.
func (c *Client) DeletePlacementAt(ctx context.Context, key PlacementKey) error {
	r, _, err := c.in(ctx, placementKind, key.Namespace)
	if err != nil {
		return err
	}
	err = r.Delete(ctx, key.Name, metav1.DeleteOptions{})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// PlacementExists reports whether the hub has a ClusterResourcePlacement of that name.
func (c *Client) PlacementExists(ctx context.Context, name string) (bool, error) {
	return c.PlacementExistsAt(ctx, ClusterPlacement(name))
}

// PlacementExistsAt reports whether the hub has the placement key names.
func (c *Client) PlacementExistsAt(ctx context.Context, key PlacementKey) (bool, error) {
	_, err := c.PlacementAt(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	default:
		return false, err
	}
}

// WaitPlacementGone polls every interval until the hub has removed the ClusterResourcePlacement,
// or ctx ends.
func (c *Client) WaitPlacementGone(ctx context.Context, name string, every time.Duration) error {
	return c.WaitPlacementGoneAt(ctx, ClusterPlacement(name), every)
}

// WaitPlacementGoneAt polls every interval until the hub has removed the placement, or ctx ends.
func (c *Client) WaitPlacementGoneAt(ctx context.Context, key PlacementKey, every time.Duration) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		there, err := c.PlacementExistsAt(ctx, key)
		if err == nil && !there {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %q is still on the hub (%v): the hub agent has not finished removing it", key.Kind(), key.String(), ctx.Err())
		case <-tick.C:
		}
	}
}

// SupportsSelectionScope reports whether the hub's ClusterResourcePlacement CRD knows
// resourceSelectors[].selectionScope (KubeFleet v0.14.0 does not: the API server would drop it).
func (c *Client) SupportsSelectionScope(ctx context.Context) (bool, error) {
	gvr, err := c.resolve(ctx, PlacementGVR)
	if err != nil {
		return false, err
	}
	crd, err := c.dyn.Resource(CRDGVR).Get(ctx, PlacementGVR.GroupResource().String(), metav1.GetOptions{})
	if err != nil {
		if IsNotFound(err) {
			return false, fmt.Errorf("the hub has no ClusterResourcePlacement API (CRD %s): is it a KubeFleet hub?", PlacementGVR.GroupResource())
		}
		return false, err
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok || vm["name"] != gvr.Version {
			continue
		}
		_, found, _ := unstructured.NestedFieldNoCopy(vm, "schema", "openAPIV3Schema", "properties", "spec", "properties",
			"resourceSelectors", "items", "properties", SelectionScopeField)
		return found, nil
	}
	return false, nil
}

// ResourceSnapshot is one version of a placement's selected resources: the master
// ClusterResourceSnapshot of an index.
type ResourceSnapshot struct {
	// Index is the resource index label, as KubeFleet writes it ("0", "1", ...).
	Index     string
	CreatedAt time.Time
}

// ResourceVersions are the versions of a placement's selected resources and which one each
// cluster runs.
type ResourceVersions struct {
	// Latest is the index of the snapshot labelled latest (the highest index when none is); ""
	// before the hub agent has cut one.
	Latest string
	// Snapshots are the indices the hub keeps (at most revisionHistoryLimit), ordered by index.
	Snapshots []ResourceSnapshot
	// ByCluster is, per target cluster, the index its binding points to; a cluster whose binding
	// names no snapshot yet (an External placement before any update run) is absent.
	ByCluster map[string]string
}

// ResourceVersions reads the ClusterResourcePlacement's resource snapshots (their metadata: the
// selected resources they hold can be megabytes per index) and bindings.
func (c *Client) ResourceVersions(ctx context.Context, placement string) (ResourceVersions, error) {
	return c.ResourceVersionsAt(ctx, ClusterPlacement(placement))
}

// ResourceVersionsAt is ResourceVersions of a placement of either scope.
func (c *Client) ResourceVersionsAt(ctx context.Context, key PlacementKey) (ResourceVersions, error) {
	snaps, err := c.resourceSnapshotsMetadata(ctx, key)
	if err != nil {
		return ResourceVersions{}, err
	}
	bindings, err := c.BindingsAt(ctx, key)
	if err != nil {
		return ResourceVersions{}, err
	}
	return resourceVersionsOf(key.Name, snaps, bindings), nil
}

// resourceSnapshotsMetadata lists the placement's resource snapshots with their metadata only.
// The hub agent labels a placement's objects with its name and, for a ResourcePlacement, puts
// them in its namespace (pkg/utils/controller/resource_snapshot_resolver.go).
func (c *Client) resourceSnapshotsMetadata(ctx context.Context, key PlacementKey) ([]placementv1.ClusterResourceSnapshot, error) {
	sel := labels.Set{placementv1beta1.PlacementTrackingLabel: key.Name}
	if c.meta == nil {
		l, err := listIn[placementv1.ClusterResourceSnapshot](ctx, c, resourceSnapshotKind, key.Namespace, sel)
		if err != nil {
			return nil, fmt.Errorf("listing the resource snapshots of placement %s: %w", key, err)
		}
		return l, nil
	}
	m, err := c.metaRes(ctx, resourceSnapshotKind.gvr(key.Namespace))
	if err != nil {
		return nil, err
	}
	r := metadata.ResourceInterface(m)
	if key.Namespace != "" {
		r = m.Namespace(key.Namespace)
	}
	l, err := r.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("listing the resource snapshots of placement %s: %w", key, err)
	}
	out := make([]placementv1.ClusterResourceSnapshot, 0, len(l.Items))
	for _, it := range l.Items {
		out = append(out, placementv1.ClusterResourceSnapshot{ObjectMeta: it.ObjectMeta})
	}
	return out, nil
}

// resourceVersionsOf derives ResourceVersions from the placement's snapshots (every index, master
// and sub-snapshots) and bindings.
func resourceVersionsOf(placement string, snaps []placementv1.ClusterResourceSnapshot, bindings []placementv1.ClusterResourceBinding) ResourceVersions {
	out := ResourceVersions{ByCluster: map[string]string{}}
	indexOf := map[string]string{} // any snapshot's name → its index
	latest, highest := -1, -1
	for i := range snaps {
		s := &snaps[i]
		n := SnapshotIndex(s)
		if n < 0 {
			continue
		}
		idx := strconv.Itoa(n)
		indexOf[s.Name] = idx
		if !IsMasterSnapshot(s) {
			continue
		}
		out.Snapshots = append(out.Snapshots, ResourceSnapshot{Index: idx, CreatedAt: s.CreationTimestamp.UTC()})
		highest = max(highest, n)
		if s.Labels[placementv1beta1.IsLatestSnapshotLabel] == strconv.FormatBool(true) {
			latest = max(latest, n)
		}
	}
	sort.SliceStable(out.Snapshots, func(i, j int) bool {
		a, _ := strconv.Atoi(out.Snapshots[i].Index)
		b, _ := strconv.Atoi(out.Snapshots[j].Index)
		return a < b
	})
	if latest < 0 {
		latest = highest
	}
	if latest >= 0 {
		out.Latest = strconv.Itoa(latest)
	}
	// A cluster may have two bindings for a moment (one being unscheduled or deleted): the live one counts.
	rank := func(b *placementv1.ClusterResourceBinding) int {
		switch {
		case b.DeletionTimestamp != nil:
			return 0
		case b.Spec.State == placementv1.BindingStateUnscheduled:
			return 1
		default:
			return 2
		}
	}
	best := map[string]*placementv1.ClusterResourceBinding{}
	for i := range bindings {
		b := &bindings[i]
		if b.Spec.TargetCluster == "" {
			continue
		}
		if cur := best[b.Spec.TargetCluster]; cur == nil || rank(b) > rank(cur) {
			best[b.Spec.TargetCluster] = b
		}
	}
	for cluster, b := range best {
		if idx := snapshotIndexOfName(placement, b.Spec.ResourceSnapshotName, indexOf); idx != "" {
			out.ByCluster[cluster] = idx
		}
	}
	return out
}

// snapshotIndexOfName is the index of the named snapshot: its label, or, for a snapshot the hub
// has already removed (beyond revisionHistoryLimit), the index in its name
// ({placement}-{index}-snapshot: resourcesnapshot_types.go's ResourceSnapshotNameFmt).
func snapshotIndexOfName(placement, name string, indexOf map[string]string) string {
	if name == "" {
		return ""
	}
	if idx, ok := indexOf[name]; ok {
		return idx
	}
	rest, ok := strings.CutPrefix(name, placement+"-")
	if !ok {
		return ""
	}
	rest, ok = strings.CutSuffix(rest, "-snapshot")
	if n, err := strconv.Atoi(rest); ok && err == nil && n >= 0 {
		return strconv.Itoa(n)
	}
	return ""
}
