package localfleet

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// The local hub follows the Fleet API's managed namespaces (emulator.NamespaceHooks): a PUT writes
// the hub's Namespace, its default ResourceQuota and NetworkPolicy (managednamespace.Build) and the
// generated ClusterResourcePlacement (managednamespace.Placement), which KubeFleet's real hub agent
// schedules and the real member agents apply on the members with API servers. A DELETE removes the
// placement as its deletePolicy says:
//
//   - Delete: the placement goes, and KubeFleet takes off the members what it placed (the work
//     applier's foreground deletion of its AppliedWork); then the hub's Namespace goes.
//   - Keep ("Delete the ARM resource but keep the Namespace", fleets.json DeletePolicy): KubeFleet
//     v0.18.9 has no way to delete a placement and leave what it placed. Its v1beta1
//     RolloutStrategy.DeleteStrategy{PropagationPolicy: Abandon} is declared but no controller reads
//     it (go.goms.io/fleet v0.18.9: no reference outside apis/; .github/.copilot/breadcrumbs/
//     2025-01-15-1400-crp-delete-policy.md leaves the controller logic "TODO"), and the work applier
//     deletes every object its AppliedWork owns (workapplier/controller.go garbageCollectAppliedWork,
//     preprocess.go removeOneLeftOverManifest). What it documents is that objects Fleet does not own
//     are not taken away ("if you delete the manifests or even the ClusterResourcePlacement itself
//     from the hub cluster, these pre-existing resources would not be taken away", apis/placement/v1
//     ApplyStrategy.WhenToTakeOver), and that ReportDiff with WhenToTakeOver Never makes it "not
//     touch any resources on the member cluster side" (ApplyStrategy.Type). So Keep is emulated, in
//     those terms: the placement switches to ReportDiff/Never and waits until every real member agent
//     has acted on it (the Work's DiffReported condition at its generation); then the local fleet
//     itself releases KubeFleet's ownership on each member, as Kubernetes' orphan propagation would
//     (the AppliedWork's owner reference removed; the namespace also loses the managed-by-ARM label,
//     which the concepts page says Keep removes); only then is the placement deleted, and the
//     applier's garbage collection finds nothing it owns. The hub's Namespace stays, without the label.
//
// The hub runs no kube-controller-manager, so a deleted hub Namespace is emptied of the objects the
// Fleet API wrote and finalized here, as the namespace controller would.

// namespaceHub implements emulator.NamespaceHooks on the local hub.
type namespaceHub struct {
	hub   client.Client
	hubCS kubernetes.Interface
	// members are the API servers of the members whose Works KubeFleet's real member agent
	// applies: what a placement leaves there on Keep is released there.
	members map[string]dynamic.Interface
}

func newNamespaceHub(hub *apiServer, members map[string]*apiServer, real []*realMemberAgent) (*namespaceHub, error) {
	cs, err := kubernetes.NewForConfig(hub.admin)
	if err != nil {
		return nil, err
	}
	h := &namespaceHub{hub: hub.client, hubCS: cs, members: map[string]dynamic.Interface{}}
	for _, a := range real {
		srv, ok := members[a.name]
		if !ok {
			continue
		}
		if h.members[a.name], err = dynamic.NewForConfig(srv.admin); err != nil {
			return nil, err
		}
	}
	return h, nil
}

var _ emulator.NamespaceHooks = (*namespaceHub)(nil)

func managedByARM(o metav1.Object) bool {
	return o.GetLabels()[managednamespace.ManagedByLabel] == "true"
}

// PlaceNamespace writes the namespace's objects and its placement, the placement last so that its
// first resource snapshot holds them all. A placement of that name the Fleet API did not write, or
// one being deleted, is a conflict, found before anything is written.
func (h *namespaceHub) PlaceNamespace(ctx context.Context, id, name string, props fleetapi.FleetManagedNamespaceProperties) error {
	objs, err := managednamespace.Build(name, props.ManagedNamespaceProperties)
	if err != nil {
		return err
	}
	crp, err := managednamespace.Placement(id, name, &props)
	if err != nil {
		return err
	}
	var cur placementv1.ClusterResourcePlacement
	switch err := h.hub.Get(ctx, client.ObjectKey{Name: name}, &cur); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case !managedByARM(&cur):
		return fmt.Errorf("%w: the hub has a ClusterResourcePlacement %q that the Fleet API did not write", emulator.ErrNamespaceConflict, name)
	case cur.DeletionTimestamp != nil:
		return fmt.Errorf("%w: the hub's ClusterResourcePlacement %q is still being deleted", emulator.ErrNamespaceConflict, name)
	}
	err = upsert(ctx, h.hub, objs.Namespace, func() *corev1.Namespace { return &corev1.Namespace{} }, func(cur *corev1.Namespace) error {
		if cur.DeletionTimestamp != nil {
			return fmt.Errorf("%w: the hub's namespace %q is still being deleted", emulator.ErrNamespaceConflict, name)
		}
		cur.Labels, cur.Annotations = objs.Namespace.Labels, objs.Namespace.Annotations
		return nil
	})
	if err != nil {
		return err
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: managednamespace.QuotaName}}
	if q := objs.ResourceQuota; q != nil {
		err = upsert(ctx, h.hub, q, func() *corev1.ResourceQuota { return &corev1.ResourceQuota{} }, func(cur *corev1.ResourceQuota) error {
			cur.Spec = q.Spec
			return nil
		})
	} else {
		err = client.IgnoreNotFound(h.hub.Delete(ctx, quota))
	}
	if err != nil {
		return err
	}
	netpol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: managednamespace.NetworkPolicyName}}
	if np := objs.NetworkPolicy; np != nil {
		err = upsert(ctx, h.hub, np, func() *networkingv1.NetworkPolicy { return &networkingv1.NetworkPolicy{} }, func(cur *networkingv1.NetworkPolicy) error {
			cur.Spec = np.Spec
			return nil
		})
	} else {
		err = client.IgnoreNotFound(h.hub.Delete(ctx, netpol))
	}
	if err != nil {
		return err
	}
	return upsert(ctx, h.hub, crp, func() *placementv1.ClusterResourcePlacement { return &placementv1.ClusterResourcePlacement{} }, func(cur *placementv1.ClusterResourcePlacement) error {
		if !managedByARM(cur) || cur.DeletionTimestamp != nil {
			return fmt.Errorf("%w: the hub's ClusterResourcePlacement %q changed while it was written", emulator.ErrNamespaceConflict, name)
		}
		cur.Annotations = crp.Annotations
		cur.Spec = crp.Spec
		return nil
	})
}

// upsert creates want, or makes the existing object of its name what set says (set refuses with
// an error), retrying conflicts with the hub agent's writes.
func upsert[T client.Object](ctx context.Context, c client.Client, want T, fresh func() T, set func(cur T) error) error {
	return retryConflicts(ctx, func() error {
		cur := fresh()
		switch err := c.Get(ctx, client.ObjectKeyFromObject(want), cur); {
		case apierrors.IsNotFound(err):
			return c.Create(ctx, want)
		case err != nil:
			return err
		}
		if err := set(cur); err != nil {
			return err
		}
		return c.Update(ctx, cur)
	})
}

// RemoveNamespace advances a deletion; it is done once the placement is gone and, with Delete,
// the hub's Namespace too. A placement of that name the Fleet API did not write is left alone.
func (h *namespaceHub) RemoveNamespace(ctx context.Context, name, deletePolicy string) (bool, error) {
	var crp placementv1.ClusterResourcePlacement
	switch err := h.hub.Get(ctx, client.ObjectKey{Name: name}, &crp); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, err
	case !managedByARM(&crp):
	default:
		if crp.DeletionTimestamp == nil {
			if deletePolicy == fleetapi.DeletePolicyKeep {
				if released, err := h.release(ctx, &crp); err != nil || !released {
					return false, err
				}
			}
			if err := h.hub.Delete(ctx, &crp); client.IgnoreNotFound(err) != nil {
				return false, err
			}
		}
		return false, nil // the hub agent's finalizers run first
	}
	if deletePolicy == fleetapi.DeletePolicyKeep {
		if err := h.unlabelHubNamespace(ctx, name); err != nil {
			return false, err
		}
		return true, nil
	}
	return h.deleteHubNamespace(ctx, name)
}

// release makes KubeFleet let go of what crp placed (Keep, above): it reports true once the work
// appliers have switched to ReportDiff/Never and the placed objects on the members with API servers
// are no longer owned by their AppliedWorks.
func (h *namespaceHub) release(ctx context.Context, crp *placementv1.ClusterResourcePlacement) (bool, error) {
	if as := crp.Spec.Strategy.ApplyStrategy; as == nil || as.Type != placementv1.ApplyStrategyTypeReportDiff || as.WhenToTakeOver != placementv1.WhenToTakeOverTypeNever {
		inert := placementv1.ApplyStrategy{}
		if as != nil {
			inert = *as.DeepCopy()
		}
		inert.Type, inert.WhenToTakeOver = placementv1.ApplyStrategyTypeReportDiff, placementv1.WhenToTakeOverTypeNever
		crp.Spec.Strategy.ApplyStrategy = &inert
		if err := h.hub.Update(ctx, crp); err != nil && !apierrors.IsConflict(err) {
			return false, err
		}
		return false, nil
	}
	type owned struct {
		member string
		work   string
		id     placementv1.WorkResourceIdentifier
	}
	var release []owned
	for member := range h.members {
		var works placementv1.WorkList
		if err := h.hub.List(ctx, &works, client.InNamespace("fleet-member-"+member),
			client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: crp.Name}); err != nil {
			return false, err
		}
		for i := range works.Items {
			w := &works.Items[i]
			as := w.Spec.ApplyStrategy
			if as == nil || as.Type != placementv1.ApplyStrategyTypeReportDiff || as.WhenToTakeOver != placementv1.WhenToTakeOverTypeNever {
				return false, nil // the rollout has not reached this Work yet
			}
			// workapplier/status.go setWorkDiffReportedCondition: the applier has processed this
			// generation in ReportDiff mode, and applies nothing from now on.
			if c := meta.FindStatusCondition(w.Status.Conditions, placementv1beta1.WorkConditionTypeDiffReported); c == nil || c.ObservedGeneration != w.Generation {
				return false, nil
			}
			for _, mc := range w.Status.ManifestConditions {
				release = append(release, owned{member: member, work: w.Name, id: mc.Identifier})
			}
		}
	}
	for _, o := range release {
		if err := disown(ctx, h.members[o.member], o.work, o.id); err != nil {
			return false, fmt.Errorf("member %s: %w", o.member, err)
		}
	}
	return true, nil
}

// disown removes the owner reference of the AppliedWork named work from a placed object, as
// Kubernetes' orphan propagation removes an owner from its dependents, and a namespace's
// managed-by-ARM label.
func disown(ctx context.Context, dyn dynamic.Interface, work string, id placementv1.WorkResourceIdentifier) error {
	gvr := schema.GroupVersionResource{Group: id.Group, Version: id.Version, Resource: id.Resource}
	ri := dyn.Resource(gvr).Namespace(id.Namespace)
	return retryConflicts(ctx, func() error {
		obj, err := ri.Get(ctx, id.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		refs := obj.GetOwnerReferences()
		kept := slices.DeleteFunc(slices.Clone(refs), func(o metav1.OwnerReference) bool {
			return o.Kind == "AppliedWork" && o.Name == work
		})
		changed := len(kept) != len(refs)
		if gvr.Group == "" && gvr.Resource == "namespaces" && managedByARM(obj) {
			labels := obj.GetLabels()
			delete(labels, managednamespace.ManagedByLabel)
			obj.SetLabels(labels)
			changed = true
		}
		if !changed {
			return nil
		}
		obj.SetOwnerReferences(kept)
		_, err = ri.Update(ctx, obj, metav1.UpdateOptions{})
		return err
	})
}

// PlacedMembers lists, sorted, the clusters where the generated placement of the managed namespace
// name is Applied and Available for its current generation (the per-cluster conditions KubeFleet's
// hub agent reports in status.placementStatuses, go.goms.io/fleet v0.18.9 apis/placement/v1
// PerClusterPlacementStatus; the rule of the provider's placed_members, internal/provider/placement
// placedMembers): where the namespace is, as the members' agents last said, not merely scheduled.
// None without a placement of that name the Fleet API wrote.
func (h *namespaceHub) PlacedMembers(ctx context.Context, name string) ([]string, error) {
	var crp placementv1.ClusterResourcePlacement
	switch err := h.hub.Get(ctx, client.ObjectKey{Name: name}, &crp); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	case !managedByARM(&crp):
		return nil, nil
	}
	current := func(ps *placementv1.PerClusterPlacementStatus, t placementv1.PerClusterPlacementConditionType) bool {
		c := meta.FindStatusCondition(ps.Conditions, string(t))
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == crp.Generation
	}
	var out []string
	for i := range crp.Status.PerClusterPlacementStatuses {
		ps := &crp.Status.PerClusterPlacementStatuses[i]
		if ps.ClusterName != "" && current(ps, placementv1.PerClusterAppliedConditionType) && current(ps, placementv1.PerClusterAvailableConditionType) {
			out = append(out, ps.ClusterName)
		}
	}
	slices.Sort(out)
	return out, nil
}

// unlabelHubNamespace leaves the hub's Namespace as Keep does: without the managed-by-ARM label.
func (h *namespaceHub) unlabelHubNamespace(ctx context.Context, name string) error {
	return retryConflicts(ctx, func() error {
		var ns corev1.Namespace
		if err := h.hub.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !managedByARM(&ns) {
			return nil
		}
		delete(ns.Labels, managednamespace.ManagedByLabel)
		return h.hub.Update(ctx, &ns)
	})
}

// deleteHubNamespace deletes the hub's Namespace of a managed namespace, done once it is gone. One
// without the managed-by-ARM label is no longer the Fleet API's and stays.
func (h *namespaceHub) deleteHubNamespace(ctx context.Context, name string) (bool, error) {
	var ns corev1.Namespace
	if err := h.hub.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	if !managedByARM(&ns) {
		return true, nil
	}
	for _, obj := range []client.Object{
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: managednamespace.QuotaName}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: managednamespace.NetworkPolicyName}},
	} {
		if err := h.hub.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return false, err
		}
	}
	if ns.DeletionTimestamp == nil {
		if err := h.hub.Delete(ctx, &ns); client.IgnoreNotFound(err) != nil {
			return false, err
		}
	}
	// The namespace controller's last step: remove the kubernetes finalizer.
	fin := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := h.hubCS.CoreV1().Namespaces().Finalize(ctx, fin, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return false, err
	}
	return false, nil // gone at the next look
}
