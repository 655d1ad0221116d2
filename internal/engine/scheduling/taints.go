package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
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
