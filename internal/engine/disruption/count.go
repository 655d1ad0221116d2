package disruption

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Counts is what Karpenter counts for one NodePool before applying its budgets.
type Counts struct {
	// Nodes is the budgets' node count: initialized, managed nodes of the pool whose NodeClaim is not
	// InstanceTerminating.
	Nodes int
	// Disrupting is how many of those already consume budget: NotReady, NodeClaim being deleted, or
	// marked for deletion by Karpenter (seen from outside as the karpenter.sh/disrupted:NoSchedule
	// taint). It is subtracted from every reason's allowance.
	Disrupting int
}

// stateNode is a NodeClaim paired with its Node by provider ID, as Karpenter's cluster state pairs them.
type stateNode struct {
	claim *karpv1.NodeClaim
	node  *corev1.Node
}

// pairByProviderID pairs NodeClaims with Nodes the way cluster state keys them: a NodeClaim by
// status.providerID (none yet: not launched, not tracked), a Node by spec.providerID; a Node without
// one is skipped if it carries the karpenter.sh/nodepool label, else keyed by its name. When two
// objects share a key the later one wins, as the later informer update does upstream. Only pairs
// with a NodeClaim are returned, in NodeClaim order.
// pkg/controllers/state/cluster.go UpdateNodeClaim, UpdateNode.
func pairByProviderID(nodeClaims []karpv1.NodeClaim, nodes []corev1.Node) []stateNode {
	byID := map[string]*corev1.Node{}
	for i := range nodes {
		id := nodes[i].Spec.ProviderID
		if id == "" {
			if nodes[i].Labels[karpv1.NodePoolLabelKey] != "" {
				continue
			}
			id = nodes[i].Name
		}
		byID[id] = &nodes[i]
	}
	claimByID := map[string]int{}
	var ids []string
	for i := range nodeClaims {
		id := nodeClaims[i].Status.ProviderID
		if id == "" {
			continue
		}
		if _, seen := claimByID[id]; !seen {
			ids = append(ids, id)
		}
		claimByID[id] = i
	}
	pairs := make([]stateNode, 0, len(ids))
	for _, id := range ids {
		pairs = append(pairs, stateNode{claim: &nodeClaims[claimByID[id]], node: byID[id]})
	}
	return pairs
}

// initialized: managed (has a NodeClaim) and its Node is labeled karpenter.sh/initialized=true.
// pkg/controllers/state/statenode.go (*StateNode).Initialized.
func (n stateNode) initialized() bool {
	return n.claim != nil && n.node != nil && n.node.Labels[karpv1.NodeInitializedLabelKey] == "true"
}

// registered: the Node is labeled karpenter.sh/registered=true.
// pkg/controllers/state/statenode.go (*StateNode).Registered.
func (n stateNode) registered() bool {
	return n.node != nil && n.node.Labels[karpv1.NodeRegisteredLabelKey] == "true"
}

// nodePool is the karpenter.sh/nodepool label, read from the Node once registered, else from the NodeClaim.
// pkg/controllers/state/statenode.go (*StateNode).Labels.
func (n stateNode) nodePool() string {
	if n.node == nil || !n.registered() {
		return n.claim.Labels[karpv1.NodePoolLabelKey]
	}
	return n.node.Labels[karpv1.NodePoolLabelKey]
}

// instanceTerminating: the NodeClaim's first InstanceTerminating condition is True.
// pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping (StatusConditions().Get(...).IsTrue()).
func instanceTerminating(claim *karpv1.NodeClaim) bool {
	for _, c := range claim.Status.Conditions {
		if c.Type == karpv1.ConditionTypeInstanceTerminating {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// nodeReady: the Node's first Ready condition is True (no condition is not ready).
// pkg/utils/node/node.go GetCondition.
func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// taintedDisrupted: the Node carries karpenter.sh/disrupted with effect NoSchedule, the taint
// Karpenter adds when it marks a node for deletion in memory. pkg/apis/v1/taints.go DisruptedNoScheduleTaint.
func taintedDisrupted(node *corev1.Node) bool {
	return slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool {
		return t.MatchTaint(&karpv1.DisruptedNoScheduleTaint)
	})
}

// markedForDeletion: Karpenter's in-memory mark (proxied by the disrupted taint) or deleted — the
// NodeClaim has a deletion timestamp or is InstanceTerminating — or expired at now: the expiration
// controller deletes an expired NodeClaim on its next reconcile, so by the disruption controller's
// next pass it is deleting. A Node's own deletion timestamp only counts for Nodes without a
// NodeClaim, which are never counted here.
// pkg/controllers/state/statenode.go (*StateNode).MarkedForDeletion, Deleted + pkg/controllers/nodeclaim/expiration/controller.go.
func (n stateNode) markedForDeletion(now time.Time) bool {
	if at, ok := ExpiresAt(*n.claim); ok && Expired(at, now) {
		return true
	}
	return taintedDisrupted(n.node) || n.claim.DeletionTimestamp != nil || instanceTerminating(n.claim)
}

// CountNodes counts the NodePool's nodes as the disruption controller does before each pass: only
// Nodes paired with a NodeClaim (managed) and labeled initialized, skipping InstanceTerminating
// NodeClaims, grouped by the karpenter.sh/nodepool label; a counted node is disrupting when its Ready
// condition is not True or it is marked for deletion (expired at now included).
// pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping.
func CountNodes(nodePool string, nodeClaims []karpv1.NodeClaim, nodes []corev1.Node, now time.Time) Counts {
	var c Counts
	for _, n := range pairByProviderID(nodeClaims, nodes) {
		if !n.initialized() || instanceTerminating(n.claim) || n.nodePool() != nodePool {
			continue
		}
		c.Nodes++
		if !nodeReady(n.node) || n.markedForDeletion(now) {
			c.Disrupting++
		}
	}
	return c
}
