package hub

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Staged rollouts in both of KubeFleet v0.18.9's scopes: ClusterStagedUpdateStrategy,
// ClusterStagedUpdateRun and ClusterApprovalRequest for a ClusterResourcePlacement (namespace ""),
// StagedUpdateStrategy, StagedUpdateRun and ApprovalRequest in a namespace for a ResourcePlacement
// there. The two scopes' kinds share their spec and status types (apis/placement/v1/
// stageupdate_types.go), and so do the placements' snapshots and bindings: both are read into the
// cluster-scoped Go types, with ObjectMeta.Namespace telling them apart. One implementation for
// both scopes; only the resource (and kind) differs.

// The namespaced kinds (v1 since KubeFleet v0.17; resolve picks the version the hub serves).
var (
	NamespacedStrategyGVR         = placementv1.GroupVersion.WithResource("stagedupdatestrategies")
	NamespacedRunGVR              = placementv1.GroupVersion.WithResource("stagedupdateruns")
	NamespacedApprovalGVR         = placementv1.GroupVersion.WithResource("approvalrequests")
	ResourcePlacementGVR          = placementv1.GroupVersion.WithResource("resourceplacements")
	NamespacedPolicySnapshotGVR   = placementv1.GroupVersion.WithResource("schedulingpolicysnapshots")
	NamespacedBindingGVR          = placementv1.GroupVersion.WithResource("resourcebindings")
	NamespacedResourceSnapshotGVR = placementv1.GroupVersion.WithResource("resourcesnapshots")
)

// scoped is a kind in both scopes.
type scoped struct {
	cluster, namespaced         schema.GroupVersionResource
	clusterKind, namespacedKind string
}

var (
	strategyKind         = scoped{StrategyGVR, NamespacedStrategyGVR, placementv1beta1.ClusterStagedUpdateStrategyKind, "StagedUpdateStrategy"}
	runKind              = scoped{RunGVR, NamespacedRunGVR, placementv1beta1.ClusterStagedUpdateRunKind, "StagedUpdateRun"}
	approvalKind         = scoped{ApprovalGVR, NamespacedApprovalGVR, "ClusterApprovalRequest", "ApprovalRequest"}
	placementKind        = scoped{PlacementGVR, ResourcePlacementGVR, "ClusterResourcePlacement", "ResourcePlacement"}
	policySnapshotKind   = scoped{PolicySnapshotGVR, NamespacedPolicySnapshotGVR, "ClusterSchedulingPolicySnapshot", "SchedulingPolicySnapshot"}
	bindingKind          = scoped{BindingGVR, NamespacedBindingGVR, "ClusterResourceBinding", "ResourceBinding"}
	resourceSnapshotKind = scoped{ResourceSnapshotGVR, NamespacedResourceSnapshotGVR, "ClusterResourceSnapshot", "ResourceSnapshot"}
)

// Kind names the kind in namespace ns's scope, for messages.
func (k scoped) Kind(ns string) string {
	if ns == "" {
		return k.clusterKind
	}
	return k.namespacedKind
}

// StagedKind names the staged kind (strategy, run or approval request) of a scope, for messages:
// "ClusterStagedUpdateRun" or "StagedUpdateRun".
func StagedKind(what, ns string) string {
	switch what {
	case "strategy":
		return strategyKind.Kind(ns)
	case "approval":
		return approvalKind.Kind(ns)
	}
	return runKind.Kind(ns)
}

// Key is an object's key as messages write it: "name" or "namespace/name".
func Key(ns, name string) string {
	if ns == "" {
		return name
	}
	return k8stypes.NamespacedName{Namespace: ns, Name: name}.String()
}

func (k scoped) gvr(ns string) schema.GroupVersionResource {
	if ns == "" {
		return k.cluster
	}
	return k.namespaced
}

// in is the dynamic client of k's kind in ns's scope, in the version the hub serves.
func (c *Client) in(ctx context.Context, k scoped, ns string) (dynamic.ResourceInterface, schema.GroupVersionResource, error) {
	gvr, err := c.resolve(ctx, k.gvr(ns))
	if err != nil {
		return nil, gvr, err
	}
	r := c.dyn.Resource(gvr)
	if ns == "" {
		return r, gvr, nil
	}
	return r.Namespace(ns), gvr, nil
}

func getIn[T any, P object[T]](ctx context.Context, c *Client, k scoped, ns, name string) (P, error) {
	if ns == "" {
		return get[T, P](ctx, c, k.cluster, name)
	}
	r, _, err := c.in(ctx, k, ns)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return decode[T, P](u)
}

func listIn[T any, P object[T]](ctx context.Context, c *Client, k scoped, ns string, sel labels.Set) ([]T, error) {
	r, _, err := c.in(ctx, k, ns)
	if err != nil {
		return nil, err
	}
	l, err := r.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(l.Items))
	for i := range l.Items {
		p, err := decode[T, P](&l.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return P(&out[i]).GetName() < P(&out[j]).GetName() })
	return out, nil
}

// writeIn creates (replace false) or updates o as k's kind in o's namespace.
func writeIn[T any, P object[T]](ctx context.Context, c *Client, k scoped, o P, replace bool) (P, error) {
	ns := o.GetNamespace()
	if ns == "" {
		o.GetObjectKind().SetGroupVersionKind(k.cluster.GroupVersion().WithKind(k.clusterKind))
		if replace {
			return update(ctx, c, k.cluster, o)
		}
		return create(ctx, c, k.cluster, o)
	}
	r, gvr, err := c.in(ctx, k, ns)
	if err != nil {
		return nil, err
	}
	u, err := encode(o)
	if err != nil {
		return nil, err
	}
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(k.Kind(ns))
	if replace {
		u, err = r.Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	} else {
		u, err = r.Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return nil, err
	}
	return decode[T, P](u)
}

func removeIn(ctx context.Context, c *Client, k scoped, ns, name string) error {
	r, _, err := c.in(ctx, k, ns)
	if err != nil {
		return err
	}
	if err := r.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !IsNotFound(err) {
		return err
	}
	return nil
}

// Strategy reads a ClusterStagedUpdateStrategy (ns "") or a StagedUpdateStrategy in ns.
func (c *Client) Strategy(ctx context.Context, ns, name string) (*placementv1.ClusterStagedUpdateStrategy, error) {
	return getIn[placementv1.ClusterStagedUpdateStrategy](ctx, c, strategyKind, ns, name)
}

// CreateStrategy creates s in its namespace's scope.
func (c *Client) CreateStrategy(ctx context.Context, s *placementv1.ClusterStagedUpdateStrategy) (*placementv1.ClusterStagedUpdateStrategy, error) {
	return writeIn(ctx, c, strategyKind, s, false)
}

// UpdateStrategySpec writes spec over the hub's current strategy, retrying on conflicts.
func (c *Client) UpdateStrategySpec(ctx context.Context, ns, name string, spec placementv1.UpdateStrategySpec) (*placementv1.ClusterStagedUpdateStrategy, error) {
	for {
		cur, err := c.Strategy(ctx, ns, name)
		if err != nil {
			return nil, err
		}
		cur.Spec = spec
		got, err := writeIn(ctx, c, strategyKind, cur, true)
		if IsConflict(err) && ctx.Err() == nil {
			continue
		}
		return got, err
	}
}

// DeleteStrategy deletes a strategy; a missing one is not an error.
func (c *Client) DeleteStrategy(ctx context.Context, ns, name string) error {
	return removeIn(ctx, c, strategyKind, ns, name)
}

// Run reads a ClusterStagedUpdateRun (ns "") or a StagedUpdateRun in ns.
func (c *Client) Run(ctx context.Context, ns, name string) (*placementv1.ClusterStagedUpdateRun, error) {
	return getIn[placementv1.ClusterStagedUpdateRun](ctx, c, runKind, ns, name)
}

// CreateRun creates r in its namespace's scope.
func (c *Client) CreateRun(ctx context.Context, r *placementv1.ClusterStagedUpdateRun) (*placementv1.ClusterStagedUpdateRun, error) {
	return writeIn(ctx, c, runKind, r, false)
}

// SetRunState writes spec.state (Initialize, Run, Stop), retrying on conflicts. The CRD refuses
// Initialize → Stop, Run → Initialize and Stop → Initialize.
func (c *Client) SetRunState(ctx context.Context, ns, name string, state placementv1.State) (*placementv1.ClusterStagedUpdateRun, error) {
	for {
		cur, err := c.Run(ctx, ns, name)
		if err != nil {
			return nil, err
		}
		if cur.Spec.State == state {
			return cur, nil
		}
		cur.Spec.State = state
		got, err := writeIn(ctx, c, runKind, cur, true)
		if IsConflict(err) && ctx.Err() == nil {
			continue
		}
		return got, err
	}
}

// DeleteRun deletes a run (KubeFleet abandons its release); a missing one is not an error.
func (c *Client) DeleteRun(ctx context.Context, ns, name string) error {
	return removeIn(ctx, c, runKind, ns, name)
}

// RunExists reports whether the run is still on the hub (its finalizer keeps it while the
// controller cleans up).
func (c *Client) RunExists(ctx context.Context, ns, name string) (bool, error) {
	_, err := c.Run(ctx, ns, name)
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	}
	return false, err
}

// ApprovalRequests lists the approval requests (before- and after-stage) the controller made for
// a run.
func (c *Client) ApprovalRequests(ctx context.Context, ns, run string) ([]placementv1.ClusterApprovalRequest, error) {
	return listIn[placementv1.ClusterApprovalRequest](ctx, c, approvalKind, ns, labels.Set{placementv1beta1.TargetUpdateRunLabel: run})
}

// Approve sets the Approved condition on an approval request's status, as KubeFleet's docs do it
// (`kubectl patch clusterapprovalrequests <name> --subresource=status --type=merge` with an
// Approved=True condition at the request's generation). Approving twice is harmless.
func (c *Client) Approve(ctx context.Context, req *placementv1.ClusterApprovalRequest, now time.Time, by string) error {
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True","reason":"ApprovedByTerraform","message":%s,"lastTransitionTime":%q,"observedGeneration":%d}]}}`,
		placementv1.ApprovalRequestConditionApproved, strconv.Quote("approved by "+by), now.UTC().Format(time.RFC3339), req.Generation)
	r, _, err := c.in(ctx, approvalKind, req.Namespace)
	if err != nil {
		return err
	}
	_, err = r.Patch(ctx, req.Name, k8stypes.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: FieldManager}, "status")
	return err
}

// StagedPlacement reads the placement a run in ns rolls out: a ClusterResourcePlacement (ns "")
// or a ResourcePlacement in ns, in the cluster-scoped type (their specs are the same).
func (c *Client) StagedPlacement(ctx context.Context, ns, name string) (*placementv1.ClusterResourcePlacement, error) {
	return getIn[placementv1.ClusterResourcePlacement](ctx, c, placementKind, ns, name)
}

// StagedResourceSnapshots lists the resource snapshots of the placement ns/name, ordered by index
// then name (their metadata only for a cluster-scoped one, see ResourceSnapshots).
func (c *Client) StagedResourceSnapshots(ctx context.Context, ns, placement string) ([]placementv1.ClusterResourceSnapshot, error) {
	return c.ResourceSnapshotsAt(ctx, PlacementKey{Namespace: ns, Name: placement})
}

// RunInputs reads what KubeFleet's controller reads when it initializes a run in ns of placement
// with strategy: the placement (nil when missing), its latest policy snapshots, bindings and
// resource snapshots, and the strategy (nil when missing). The member clusters are the caller's
// to add (the provider lists them once per process).
func (c *Client) RunInputs(ctx context.Context, ns, placement, strategy string) (RunInputs, error) {
	var in RunInputs
	var err error
	if in.Placement, err = c.StagedPlacement(ctx, ns, placement); IsNotFound(err) {
		in.Placement = nil
	} else if err != nil {
		return in, fmt.Errorf("reading %s %s: %w", placementKind.Kind(ns), Key(ns, placement), err)
	}
	if in.Strategy, err = c.Strategy(ctx, ns, strategy); IsNotFound(err) {
		in.Strategy = nil
	} else if err != nil {
		return in, fmt.Errorf("reading %s %s: %w", strategyKind.Kind(ns), Key(ns, strategy), err)
	}
	if in.Placement == nil {
		return in, nil
	}
	key := PlacementKey{Namespace: ns, Name: placement}
	if in.PolicySnapshots, err = c.LatestPolicySnapshotsAt(ctx, key); err != nil {
		return in, err
	}
	if in.Bindings, err = c.BindingsAt(ctx, key); err != nil {
		return in, err
	}
	if in.ResourceSnapshots, err = c.StagedResourceSnapshots(ctx, ns, placement); err != nil {
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
