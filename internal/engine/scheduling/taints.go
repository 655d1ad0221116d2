package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// policyTolerations is ClusterSchedulingPolicySnapshot.Tolerations()
// (apis/placement/v1beta1/policysnapshot_types.go).
func policyTolerations(policy *placementv1.PlacementPolicy) []placementv1.Toleration {
	if policy == nil {
		return nil
	}
	return policy.Tolerations
}

// filterTaints rejects a cluster with a taint no toleration tolerates; "" means it passes
// (pkg/scheduler/framework/plugins/tainttoleration/filtering.go: Filter).
func filterTaints(cluster *clusterv1.MemberCluster, tolerations []placementv1.Toleration) string {
	if taint := untoleratedTaint(cluster.Spec.Taints, tolerations); taint != nil {
		return fmt.Sprintf("taint %+v cannot be tolerated", taint)
	}
	return ""
}

// untoleratedTaint returns the first taint no toleration tolerates
// (pkg/scheduler/framework/plugins/tainttoleration/filtering.go: findUntoleratedTaint).
func untoleratedTaint(taints []clusterv1.Taint, tolerations []placementv1.Toleration) *clusterv1.Taint {
	for i := range taints {
		tolerated := false
		for j := range tolerations {
			if tolerates(taints[i], tolerations[j]) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			taint := taints[i]
			return &taint
		}
	}
	return nil
}

// tolerates: Exists matches any value of the key (or every key when the key is empty), Equal
// needs key and value; an empty effect matches every effect
// (pkg/scheduler/framework/plugins/tainttoleration/filtering.go: canTolerationTolerateTaint).
func tolerates(taint clusterv1.Taint, toleration placementv1.Toleration) bool {
	effectOK := toleration.Effect == taint.Effect || toleration.Effect == ""
	switch toleration.Operator {
	case corev1.TolerationOpExists:
		return (toleration.Key == "" || toleration.Key == taint.Key) && effectOK
	case corev1.TolerationOpEqual:
		return toleration.Key == taint.Key && toleration.Value == taint.Value && effectOK
	}
	return false
}

// TaintLoss is a placement that picks a cluster now but would not pick it again once the
// cluster's taints change: the first taint of the new ones it does not tolerate.
type TaintLoss struct {
	Placement string // "name", or "namespace/name" for a ResourcePlacement
	Taint     clusterv1.Taint
}

// NoLongerPicking lists, in the placements' order, those with a binding to cluster (Scheduled or
// Bound, not being deleted) whose tolerations tolerate every taint of before but not every taint
// of after: their next scheduling cycle (a new policy snapshot, a PickN re-pick) filters the
// cluster out (pkg/scheduler/framework/plugins/tainttoleration/filtering.go: Filter). What is bound
// stays: the scheduler never deselects a cluster for a taint (pkg/scheduler/watchers/membercluster/
// watcher.go: "CRPs which have already selected this cluster ... cannot deselect it"). PickFixed
// placements ignore taints (the same file: "taints are not honored for PickFixed CRPs").
func NoLongerPicking(placements []placementv1.ClusterResourcePlacement, bindings []placementv1.ClusterResourceBinding, cluster string, before, after []clusterv1.Taint) []TaintLoss {
	bound := map[string]bool{}
	for i := range bindings {
		b := &bindings[i]
		if b.Spec.TargetCluster != cluster || b.DeletionTimestamp != nil || b.Spec.State == placementv1.BindingStateUnscheduled {
			continue
		}
		bound[placementKey(b.Namespace, b.Labels[placementv1beta1.PlacementTrackingLabel])] = true
	}
	var out []TaintLoss
	for i := range placements {
		p := &placements[i]
		key := placementKey(p.Namespace, p.Name)
		if !bound[key] || (p.Spec.Policy != nil && p.Spec.Policy.PlacementType == placementv1.PickFixedPlacementType) {
			continue
		}
		tolerations := policyTolerations(p.Spec.Policy)
		if untoleratedTaint(before, tolerations) != nil {
			continue // it would already leave the cluster out
		}
		if t := untoleratedTaint(after, tolerations); t != nil {
			out = append(out, TaintLoss{Placement: key, Taint: *t})
		}
	}
	return out
}

func placementKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
