package disruption

import (
	"fmt"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// pair makes a NodeClaim and its Node as upstream's ExpectMakeNodesAndNodeClaimsInitializedAndStateUpdated
// leaves them (sigs.k8s.io/karpenter@v1.14.1 pkg/test/expectations/expectations.go): shared provider ID,
// nodepool label on both, Node registered, initialized and Ready.
func pair(pool string, i int) (karpv1.NodeClaim, corev1.Node) {
	id := fmt.Sprintf("fake://%s/%d", pool, i)
	labels := map[string]string{karpv1.NodePoolLabelKey: pool, corev1.LabelInstanceTypeStable: "big"}
	nc := karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", pool, i), Labels: labels},
		Status:     karpv1.NodeClaimStatus{ProviderID: id, NodeName: fmt.Sprintf("node-%s-%d", pool, i)},
	}
	nodeLabels := map[string]string{karpv1.NodeRegisteredLabelKey: "true", karpv1.NodeInitializedLabelKey: "true"}
	for k, v := range labels {
		nodeLabels[k] = v
	}
	n := corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nc.Status.NodeName, Labels: nodeLabels},
		Spec:       corev1.NodeSpec{ProviderID: id},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	return nc, n
}

func pool(name string, n int) ([]karpv1.NodeClaim, []corev1.Node) {
	var claims []karpv1.NodeClaim
	var nodes []corev1.Node
	for i := range n {
		c, node := pair(name, i)
		claims, nodes = append(claims, c), append(nodes, node)
	}
	return claims, nodes
}

var deleted = &metav1.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}

// Describe("BuildDisruptionBudgetMapping") of sigs.k8s.io/karpenter@v1.14.1
// pkg/controllers/disruption/suite_test.go: ten initialized nodes, the value the mapping gives the
// NodePool for every reason.
func TestBuildDisruptionBudgetMappingUpstream(t *testing.T) {
	tests := []struct {
		name   string // the upstream It()
		nodes  string // budgets[0].nodes
		mutate func(claims []karpv1.NodeClaim, nodes []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node)
		want   int
	}{
		{"should not consider nodes that are not managed as part of disruption count", "100%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				unmanaged := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "unmanaged", Labels: map[string]string{karpv1.NodeInitializedLabelKey: "true"}},
					Spec: corev1.NodeSpec{ProviderID: "fake://unmanaged"}}
				return c, append(n, unmanaged)
			}, 10},
		{"should not consider nodes that are not initialized as part of disruption count", "100%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				nc, node := pair("default", 10)
				delete(node.Labels, karpv1.NodeRegisteredLabelKey)
				delete(node.Labels, karpv1.NodeInitializedLabelKey)
				node.Status.Conditions = nil
				node.Spec.Taints = []corev1.Taint{karpv1.UnregisteredNoExecuteTaint}
				return append(c, nc), append(n, node)
			}, 10},
		{"should not consider nodes that have the terminating status condition as part of disruption count", "100%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				nc, node := pair("default", 10)
				nc.Status.Conditions = []status.Condition{{Type: karpv1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue}}
				return append(c, nc), append(n, node)
			}, 10},
		{"should not return a negative disruption value", "10%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				for i := range c {
					c[i].DeletionTimestamp = deleted
					n[i].DeletionTimestamp = deleted
				}
				return c, n
			}, 0},
		{"should consider nodes with a deletion timestamp set and MarkedForDeletion to the disruption count", "100%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				c[0].DeletionTimestamp, n[0].DeletionTimestamp = deleted, deleted
				// cluster.MarkForDeletion is in memory; Karpenter taints the node as it marks it.
				n[1].Spec.Taints = append(n[1].Spec.Taints, karpv1.DisruptedNoScheduleTaint)
				return c, n
			}, 8},
		{"should consider not ready nodes to the disruption count", "100%",
			func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
				for _, i := range []int{0, 1} {
					n[i].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "NotReady"}}
				}
				return c, n
			}, 8},
	}
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, nodes := tt.mutate(pool("default", 10))
			budgets := []karpv1.Budget{{Nodes: tt.nodes}}
			c := CountNodes("default", claims, nodes, time.Time{})
			for _, reason := range DefaultReasons() {
				got := RemainingDisruptions(MustAllowedByReason(budgets, c.Nodes, reason, now), c.Disrupting)
				if got != tt.want {
					t.Errorf("%s: got %d (counts %+v), want %d", reason, got, c, tt.want)
				}
			}
		})
	}
}

// Rules of cluster state that the upstream suite does not spell out.
func TestCountNodes(t *testing.T) {
	tests := []struct {
		name           string
		mutate         func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node)
		wantNodes      int
		wantDisrupting int
	}{
		{"baseline", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) { return c, n }, 3, 0},
		{"other pools are not counted", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			oc, on := pool("other", 4)
			return append(c, oc...), append(n, on...)
		}, 3, 0},
		{"a NodeClaim without a provider ID is not launched", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			c[0].Status.ProviderID = ""
			return c, n
		}, 2, 0},
		{"a managed Node without a provider ID is not tracked", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			n[0].Spec.ProviderID = ""
			return c, n
		}, 2, 0},
		{"a NodeClaim without its Node is not initialized", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			return c, n[1:]
		}, 2, 0},
		{"initialized must be exactly true", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			n[0].Labels[karpv1.NodeInitializedLabelKey] = "True"
			return c, n
		}, 2, 0},
		{"an unregistered node's pool comes from its NodeClaim", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			delete(n[0].Labels, karpv1.NodeRegisteredLabelKey)
			n[0].Labels[karpv1.NodePoolLabelKey] = "other"
			n[1].Labels[karpv1.NodePoolLabelKey] = "other" // registered: the Node's label wins
			return c, n
		}, 2, 0},
		{"no Ready condition is not ready", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			n[0].Status.Conditions = nil
			n[1].Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}
			return c, n
		}, 3, 2},
		{"a Node's own deletion timestamp does not count while its NodeClaim is not deleting", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			n[0].DeletionTimestamp = deleted
			return c, n
		}, 3, 0},
		{"the disrupted taint with another effect is not the mark", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			n[0].Spec.Taints = []corev1.Taint{{Key: karpv1.DisruptedTaintKey, Effect: corev1.TaintEffectNoExecute}}
			n[1].Spec.Taints = []corev1.Taint{{Key: karpv1.DisruptedTaintKey, Value: "x", Effect: corev1.TaintEffectNoSchedule}}
			return c, n
		}, 3, 1},
		{"InstanceTerminating False still counts", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			c[0].Status.Conditions = []status.Condition{{Type: karpv1.ConditionTypeInstanceTerminating, Status: metav1.ConditionFalse}}
			return c, n
		}, 3, 0},
		{"two NodeClaims with one provider ID are one state node", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			dup := c[0]
			dup.Name = "dup"
			return append(c, dup), n
		}, 3, 0},
		{"an unmanaged Node never counts, even NotReady", func(c []karpv1.NodeClaim, n []corev1.Node) ([]karpv1.NodeClaim, []corev1.Node) {
			return c, append(n, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "byo", Labels: map[string]string{karpv1.NodePoolLabelKey: "default"}}, Spec: corev1.NodeSpec{ProviderID: "fake://byo"}})
		}, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, nodes := tt.mutate(pool("default", 3))
			c := CountNodes("default", claims, nodes, time.Time{})
			if c.Nodes != tt.wantNodes || c.Disrupting != tt.wantDisrupting {
				t.Errorf("got %+v, want {Nodes:%d Disrupting:%d}", c, tt.wantNodes, tt.wantDisrupting)
			}
		})
	}
}
