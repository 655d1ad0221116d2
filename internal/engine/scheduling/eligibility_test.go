package scheduling

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// agent builds a MemberAgent status with a heartbeat `ago` before testNow and the given conditions.
func agent(ago time.Duration, conds ...metav1.Condition) []clusterv1.AgentStatus {
	return []clusterv1.AgentStatus{{
		Type:                  clusterv1.MemberAgent,
		Conditions:            conds,
		LastReceivedHeartbeat: metav1.NewTime(testNow.Add(-ago)),
	}}
}

func cond(t clusterv1.AgentConditionType, s metav1.ConditionStatus, transitionedAgo time.Duration) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, LastTransitionTime: metav1.NewTime(testNow.Add(-transitionedAgo))}
}

// TestEligibility ports pkg/scheduler/clustereligibilitychecker/checker_test.go (TestIsClusterEligible)
// with full reasons; upstream's test runs the checker with 15-minute timeouts, the hub agent uses
// the 5-minute defaults, which the boundary rows pin down.
func TestEligibility(t *testing.T) {
	deleted := metav1.NewTime(testNow.Add(-time.Minute))
	joined := cond(clusterv1.AgentJoined, metav1.ConditionTrue, time.Hour)
	cases := []struct {
		name         string
		meta         metav1.ObjectMeta
		agents       []clusterv1.AgentStatus
		wantEligible bool
		wantReason   string
	}{
		// upstream: "cluster left"
		{name: "cluster left", meta: metav1.ObjectMeta{DeletionTimestamp: &deleted}, wantReason: "cluster has left the fleet"},
		// upstream: "no member agent status"
		{name: "no member agent status", wantReason: "cluster is not connected to the fleet: member agent not online yet"},
		// upstream: "no member agent joined condition"
		{name: "no member agent joined condition", agents: agent(0), wantReason: "cluster is not connected to the fleet: member agent not joined yet"},
		// upstream: "joined condition is false"
		{name: "joined condition is false", agents: agent(0, cond(clusterv1.AgentJoined, metav1.ConditionFalse, 0)),
			wantReason: "cluster is not connected to the fleet: member agent not joined yet"},
		// upstream: "no recent heartbeat signals"
		{name: "no recent heartbeat signals", agents: agent(20*time.Minute, joined),
			wantReason: "cluster is not connected to the fleet: no recent heartbeat signals (last received 20.00 minutes ago)"},
		// upstream: "no health check signals"
		{name: "no health check signals", agents: agent(0, joined),
			wantReason: "cluster is not connected to the fleet: health condition from member agent is not available"},
		// upstream: "health check fails for a long period"
		{name: "health check fails for a long period", agents: agent(0, joined, cond(clusterv1.AgentHealthy, metav1.ConditionFalse, 20*time.Minute)),
			wantReason: "cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned 20.00 minutes ago)"},
		// upstream: "recent health check failure"
		{name: "recent health check failure", agents: agent(0, joined, cond(clusterv1.AgentHealthy, metav1.ConditionFalse, time.Minute)), wantEligible: true},
		// upstream: "normal cluster"
		{name: "normal cluster", agents: agent(0, joined, cond(clusterv1.AgentHealthy, metav1.ConditionFalse, 0)), wantEligible: true},
		// The 5-minute defaults: strictly greater than five minutes is too old.
		{name: "heartbeat exactly 5m old", agents: agent(5*time.Minute, joined, cond(clusterv1.AgentHealthy, metav1.ConditionTrue, time.Hour)), wantEligible: true},
		{name: "heartbeat 5m30s old", agents: agent(5*time.Minute+30*time.Second, joined, cond(clusterv1.AgentHealthy, metav1.ConditionTrue, time.Hour)),
			wantReason: "cluster is not connected to the fleet: no recent heartbeat signals (last received 5.50 minutes ago)"},
		{name: "unhealthy exactly 5m", agents: agent(0, joined, cond(clusterv1.AgentHealthy, metav1.ConditionFalse, 5*time.Minute)), wantEligible: true},
		{name: "unhealthy 6m", agents: agent(0, joined, cond(clusterv1.AgentHealthy, metav1.ConditionUnknown, 6*time.Minute)),
			wantReason: "cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned 6.00 minutes ago)"},
		// heartbeatPeriodSeconds plays no part in v0.14.0's checker.
		{name: "long heartbeat period does not extend the timeout", agents: agent(6*time.Minute, joined, cond(clusterv1.AgentHealthy, metav1.ConditionTrue, time.Hour)),
			wantReason: "cluster is not connected to the fleet: no recent heartbeat signals (last received 6.00 minutes ago)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clusterv1.MemberCluster{ObjectMeta: tc.meta, Spec: clusterv1.MemberClusterSpec{HeartbeatPeriodSeconds: 600}}
			c.Name = "member-1"
			c.Status.AgentStatus = tc.agents
			ok, reason := eligibility(&c, testNow)
			if ok != tc.wantEligible || reason != tc.wantReason {
				t.Errorf("eligibility() = %t, %q; want %t, %q", ok, reason, tc.wantEligible, tc.wantReason)
			}
		})
	}
}
