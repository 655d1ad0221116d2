package scheduling

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

const (
	// heartbeatTimeout and healthTimeout are the checker's defaults, which the hub agent uses
	// (cmd/hubagent/workload/setup.go calls clustereligibilitychecker.New() with no options).
	//
	// v0.18.9: both are fixed at five minutes, as in v0.14.0; the cluster's
	// spec.heartbeatPeriodSeconds plays no part in eligibility (it only paces the member agent).
	heartbeatTimeout = 5 * time.Minute
	healthTimeout    = 5 * time.Minute
)

// eligibility reports whether a cluster can receive placements and, if not, why
// (pkg/scheduler/clustereligibilitychecker/checker.go: IsEligible, with time.Since replaced by now).
func eligibility(cluster *clusterv1.MemberCluster, now time.Time) (bool, string) {
	if !cluster.GetDeletionTimestamp().IsZero() {
		return false, "cluster has left the fleet"
	}
	agent := memberAgentStatus(cluster)
	if agent == nil {
		return false, "cluster is not connected to the fleet: member agent not online yet"
	}
	sinceHeartbeat := now.Sub(agent.LastReceivedHeartbeat.Time)
	if sinceHeartbeat > heartbeatTimeout {
		return false, fmt.Sprintf("cluster is not connected to the fleet: no recent heartbeat signals (last received %.2f minutes ago)", sinceHeartbeat.Minutes())
	}
	joined := findCondition(agent.Conditions, string(clusterv1.AgentJoined))
	if joined == nil || joined.Status != metav1.ConditionTrue {
		return false, "cluster is not connected to the fleet: member agent not joined yet"
	}
	healthy := findCondition(agent.Conditions, string(clusterv1.AgentHealthy))
	if healthy == nil {
		return false, "cluster is not connected to the fleet: health condition from member agent is not available"
	}
	sinceTransition := now.Sub(healthy.LastTransitionTime.Time)
	if healthy.Status != metav1.ConditionTrue && sinceTransition > healthTimeout {
		return false, fmt.Sprintf("cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned %.2f minutes ago)", sinceTransition.Minutes())
	}
	return true, ""
}

// memberAgentStatus is MemberCluster.GetAgentStatus(MemberAgent) without the copy
// (apis/cluster/v1beta1/membercluster_types.go).
func memberAgentStatus(cluster *clusterv1.MemberCluster) *clusterv1.AgentStatus {
	for i := range cluster.Status.AgentStatus {
		if cluster.Status.AgentStatus[i].Type == clusterv1.MemberAgent {
			return &cluster.Status.AgentStatus[i]
		}
	}
	return nil
}

// findCondition is meta.FindStatusCondition (k8s.io/apimachinery: pkg/api/meta/conditions.go).
func findCondition(conditions []metav1.Condition, conditionType string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			return &conditions[i]
		}
	}
	return nil
}

// Eligible reports whether the hub's scheduler would consider the cluster at
// all, and if not, why — the member's health as the scheduler sees it.
func Eligible(cluster *clusterv1.MemberCluster, now time.Time) (bool, string) {
	return eligibility(cluster, now)
}
