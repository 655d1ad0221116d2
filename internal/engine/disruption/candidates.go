package disruption

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	disruptionutils "sigs.k8s.io/karpenter/pkg/utils/disruption"
	podutils "sigs.k8s.io/karpenter/pkg/utils/pod"
)

// ReasonExpired is the key of expired nodes in Candidates and DisruptableNow. Expiry is not a
// disruption reason of the budgets: the expiration controller deletes a NodeClaim once it has lived
// its expireAfter, whatever the budgets and do-not-disrupt say.
const ReasonExpired karpv1.DisruptionReason = "Expired"

// CandidateReasons are the reasons the preview lists candidates for, in order. Underutilized is not
// among them: whether a non-empty node can go depends on Karpenter's scheduling simulation.
func CandidateReasons() []karpv1.DisruptionReason {
	return []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty, karpv1.DisruptionReasonDrifted, ReasonExpired}
}

// BlockKind says what holds a node.
type BlockKind string

const (
	BlockedByPod      BlockKind = "pod"
	BlockedByNode     BlockKind = "node"
	BlockedByTemplate BlockKind = "template"
	// BlockedByPDB: a PodDisruptionBudget stops the eviction of one of the node's pods now.
	BlockedByPDB BlockKind = "pdb"
)

// BlockedNode is a node Karpenter will not disrupt voluntarily now (Empty, Underutilized, and Drifted
// unless only pods hold it and its NodeClaim has a terminationGracePeriod).
type BlockedNode struct {
	Node string
	Kind BlockKind
	// Pods are the blocking pods (namespace/name), for Kind pod, in name order.
	Pods []string
	// PDBs are the blocking PodDisruptionBudgets (namespace/name), for Kind pdb, in name order.
	PDBs []string
	// Why is the plan's one-line explanation.
	Why string
}

// DriftedNode is a NodeClaim Karpenter treats as drifted now.
type DriftedNode struct {
	Node      string
	NodeClaim string
	Why       string
}

// poolNode is one NodeClaim of the pool with its Node and its pods.
type poolNode struct {
	stateNode
	name string
	pods []*corev1.Pod
}

// poolNodes pairs the pool's NodeClaims with their Nodes (as cluster state does) and their pods (by
// spec.nodeName, as Karpenter's GetPods lists them), in node-name order.
// pkg/controllers/state/cluster.go, pkg/utils/node/node.go GetPods.
func poolNodes(nodePool string, claims []karpv1.NodeClaim, nodes []corev1.Node, pods []corev1.Pod) []poolNode {
	byNode := map[string][]*corev1.Pod{}
	for i := range pods {
		if n := pods[i].Spec.NodeName; n != "" {
			byNode[n] = append(byNode[n], &pods[i])
		}
	}
	var out []poolNode
	for _, sn := range pairByProviderID(claims, nodes) {
		if sn.nodePool() != nodePool {
			continue
		}
		pn := poolNode{stateNode: sn, name: sn.claim.Name}
		if sn.node != nil {
			pn.name = sn.node.Name
			pn.pods = byNode[sn.node.Name]
		}
		out = append(out, pn)
	}
	slices.SortFunc(out, func(a, b poolNode) int { return strings.Compare(a.name, b.name) })
	return out
}

// considered: a node Karpenter's disruption controller looks at as a candidate at all — managed, with
// a Node, initialized and not being deleted or marked for deletion (expired NodeClaims are deleted first).
// pkg/controllers/state/statenode.go (*StateNode).ValidateNodeDisruptable (its first checks).
func (n poolNode) considered(now time.Time) bool {
	return n.node != nil && n.initialized() && !n.markedForDeletion(now)
}

// annotations are the node's as cluster state reads them: the Node's once registered, else the
// NodeClaim's. pkg/controllers/state/statenode.go (*StateNode).Annotations.
func (n poolNode) annotations() map[string]string {
	if n.node == nil || !n.registered() {
		return n.claim.Annotations
	}
	return n.node.Annotations
}

// nodeBlocked: the node carries karpenter.sh/do-not-disrupt: "true" (only that value counts).
// pkg/controllers/state/statenode.go (*StateNode).ValidateNodeDisruptable.
func (n poolNode) nodeBlocked() bool {
	return n.annotations()[karpv1.DoNotDisruptAnnotationKey] == "true"
}

// blockingPods are the node's pods whose karpenter.sh/do-not-disrupt is active now ("true", or a
// duration not yet elapsed since the pod started), by Karpenter's own pod rule; terminal and
// terminating pods never block. pkg/controllers/state/statenode.go ValidatePodsDisruptable +
// pkg/utils/pod/scheduling.go IsDisruptable.
func (n poolNode) blockingPods(now time.Time) []string {
	var out []string
	clk := At(now)
	for _, p := range n.pods {
		if !podutils.IsDisruptable(p, clk, nil) {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// empty: no reschedulable pod adds to the node's reschedule cost (1 + the sum of the positive eviction
// costs of its reschedulable pods), so Emptiness, not consolidation, handles it. DaemonSet and
// static pods are not reschedulable. pkg/controllers/disruption/types.go (*Candidate).IsEmpty,
// computeRescheduleDisruptionCost + pkg/utils/pod/scheduling.go IsReschedulable +
// pkg/utils/disruption/disruption.go EvictionCost.
func (n poolNode) empty() bool {
	cost := 1.0
	for _, p := range n.pods {
		if podutils.IsReschedulable(p) {
			cost += max(0, disruptionutils.EvictionCost(context.Background(), p))
		}
	}
	return cost <= 1.0
}

// conditionTrue reports whether the NodeClaim's condition of that type is True.
func conditionTrue(claim *karpv1.NodeClaim, condType string) bool {
	for _, c := range claim.Status.Conditions {
		if c.Type == condType {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// conditionReason is the reason of the NodeClaim's condition of that type.
func conditionReason(claim *karpv1.NodeClaim, condType string) string {
	for _, c := range claim.Status.Conditions {
		if c.Type == condType {
			return c.Reason
		}
	}
	return ""
}

// staleHash reports whether the NodeClaim's karpenter.sh/nodepool-hash no longer matches the
// NodePool's hash (Karpenter's own NodePool.Hash), with hash versions equal — when they differ,
// Karpenter re-stamps the NodeClaim instead of drifting it. Only launched NodeClaims drift.
// pkg/controllers/nodeclaim/disruption/drift.go areStaticFieldsDrifted, Reconcile +
// pkg/controllers/nodepool/hash/controller.go.
func staleHash(claim *karpv1.NodeClaim, poolHash string) (string, bool) {
	h, okH := claim.Annotations[karpv1.NodePoolHashAnnotationKey]
	v, okV := claim.Annotations[karpv1.NodePoolHashVersionAnnotationKey]
	if !okH || !okV || v != karpv1.NodePoolHashVersion || !conditionTrue(claim, karpv1.ConditionTypeLaunched) {
		return h, false
	}
	return h, h != poolHash
}

// Drifted lists the pool's NodeClaims Karpenter treats as drifted now: a Drifted condition that is
// True, or a NodePool hash annotation that no longer matches current's hash (Karpenter's drift
// controller marks those Drifted on its next reconcile). NodeClaims being deleted are left out.
// pkg/controllers/nodeclaim/disruption/drift.go.
func Drifted(current *karpv1.NodePool, claims []karpv1.NodeClaim) []DriftedNode {
	hash := current.Hash()
	var out []DriftedNode
	for i := range claims {
		c := &claims[i]
		if c.Labels[karpv1.NodePoolLabelKey] != current.Name || c.DeletionTimestamp != nil {
			continue
		}
		node := c.Status.NodeName
		if node == "" {
			node = c.Name
		}
		switch h, stale := staleHash(c, hash); {
		case conditionTrue(c, karpv1.ConditionTypeDrifted):
			why := "Drifted condition"
			if r := conditionReason(c, karpv1.ConditionTypeDrifted); r != "" {
				why += " (" + r + ")"
			}
			out = append(out, DriftedNode{Node: node, NodeClaim: c.Name, Why: why})
		case stale:
			out = append(out, DriftedNode{Node: node, NodeClaim: c.Name,
				Why: fmt.Sprintf("NodePool hash %s on the NodeClaim, the NodePool's is now %s (NodePoolDrifted)", h, hash)})
		}
	}
	slices.SortFunc(out, func(a, b DriftedNode) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// Disruption is what the preview shows beyond the budgets: which nodes are held, drifted, and
// eligible now per reason.
type Disruption struct {
	Blocked []BlockedNode
	Drifted []DriftedNode
	// Candidates are the nodes eligible now per reason (Empty, Drifted, Expired), by name.
	Candidates map[karpv1.DisruptionReason][]string
	// EmptyWaiting are empty, unblocked nodes whose consolidateAfter has not elapsed yet.
	EmptyWaiting int
	// ExpiredHeld are expired nodes with do-not-disrupt pods: deleted anyway, but their drain waits.
	ExpiredHeld []string
	// MalformedPDBs are the PDBs counted as blocking because their shape was unexpected.
	MalformedPDBs []PDBRef
}

// Candidates works out which of the pool's nodes Karpenter's disruption methods could take now under
// the planned NodePool (its consolidateAfter), with drift measured against the current NodePool:
//   - Empty: a considered node, not blocked, with no reschedulable pods, consolidation enabled and
//     consolidateAfter elapsed since its last pod event (or its initialization);
//   - Drifted: a considered, drifted node, not blocked (a node annotation always blocks; pods do not
//     when its NodeClaim has a terminationGracePeriod, since drift is an eventual disruption);
//   - Expired: NodeClaims past their expireAfter, not being deleted; nothing blocks expiry.
//
// pkg/controllers/disruption/types.go NewCandidate, emptiness.go and drift.go ShouldDisrupt,
// pkg/utils/disruption/disruption.go IsUnderConsolidateAfter, pkg/controllers/nodeclaim/expiration/controller.go.
func Candidates(planned, current *karpv1.NodePool, claims []karpv1.NodeClaim, nodes []corev1.Node, pods []corev1.Pod, pdbs PDBs, now time.Time) Disruption {
	d := Disruption{Candidates: map[karpv1.DisruptionReason][]string{}}
	limits, bad := PDBLimits(pdbsForPods(pdbs, pods))
	d.MalformedPDBs = append(slices.Clone(pdbs.Malformed), bad...)
	d.Drifted = Drifted(current, claims)
	drifted := map[string]bool{}
	for _, dn := range d.Drifted {
		drifted[dn.NodeClaim] = true
	}
	templateBlocks := current.Spec.Template.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true"
	clk := At(now)
	heldPods := map[string]bool{}
	for _, n := range poolNodes(current.Name, claims, nodes, pods) {
		podsHolding := n.blockingPods(now)
		if len(podsHolding) > 0 {
			heldPods[n.name] = true
		}
		if !n.considered(now) {
			continue
		}
		// Karpenter checks the PDBs only once no pod's do-not-disrupt holds the node.
		var pdbsHolding []string
		if len(podsHolding) == 0 {
			pdbsHolding = pdbBlockers(limits, n.pods, now)
		}
		switch {
		case n.nodeBlocked() && templateBlocks && n.claim.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true":
			d.Blocked = append(d.Blocked, BlockedNode{Node: n.name, Kind: BlockedByTemplate,
				Why: fmt.Sprintf("NodePool template annotation %s: \"true\" (copied to the node at launch)", karpv1.DoNotDisruptAnnotationKey)})
		case n.nodeBlocked():
			d.Blocked = append(d.Blocked, BlockedNode{Node: n.name, Kind: BlockedByNode,
				Why: fmt.Sprintf("node annotation %s: \"true\"", karpv1.DoNotDisruptAnnotationKey)})
		case len(podsHolding) > 0:
			d.Blocked = append(d.Blocked, BlockedNode{Node: n.name, Kind: BlockedByPod, Pods: podsHolding, Why: podsWhy(podsHolding)})
		case len(pdbsHolding) > 0:
			d.Blocked = append(d.Blocked, BlockedNode{Node: n.name, Kind: BlockedByPDB, PDBs: pdbsHolding, Why: pdbsWhy(pdbsHolding)})
		}
		nodeHeld := n.nodeBlocked()
		podsHeld := len(podsHolding) > 0 || len(pdbsHolding) > 0
		if !nodeHeld && !podsHeld && n.empty() && planned.Spec.Replicas == nil && planned.Spec.Disruption.ConsolidateAfter.Duration != nil {
			if conditionTrue(n.claim, karpv1.ConditionTypeInitialized) && !disruptionutils.IsUnderConsolidateAfter(planned, n.claim, clk) {
				d.Candidates[karpv1.DisruptionReasonEmpty] = append(d.Candidates[karpv1.DisruptionReasonEmpty], n.name)
			} else {
				d.EmptyWaiting++
			}
		}
		if drifted[n.claim.Name] && !nodeHeld && (!podsHeld || n.claim.Spec.TerminationGracePeriod != nil) {
			d.Candidates[karpv1.DisruptionReasonDrifted] = append(d.Candidates[karpv1.DisruptionReasonDrifted], n.name)
		}
	}
	for _, e := range ExpiringNodes(current.Name, claims, now, 0) {
		if !e.Expired {
			continue
		}
		d.Candidates[ReasonExpired] = append(d.Candidates[ReasonExpired], e.Node)
		if heldPods[e.Node] {
			d.ExpiredHeld = append(d.ExpiredHeld, e.Node)
		}
	}
	for _, r := range slices.Collect(maps.Keys(d.Candidates)) {
		slices.Sort(d.Candidates[r])
	}
	return d
}

// pdbsWhy is the explanation for a node held by PodDisruptionBudgets.
func pdbsWhy(pdbs []string) string {
	if len(pdbs) > 1 {
		return fmt.Sprintf("PodDisruptionBudgets %s select the same pod (Kubernetes evicts no pod with several PDBs)", strings.Join(pdbs, ", "))
	}
	return fmt.Sprintf("PodDisruptionBudget %s allows no disruption of one of its pods now", pdbs[0])
}

// podsWhy is the explanation for a node held by pods.
func podsWhy(pods []string) string {
	why := fmt.Sprintf("pod %s has %s", pods[0], karpv1.DoNotDisruptAnnotationKey)
	if len(pods) > 1 {
		why += fmt.Sprintf(" (and %d more %s)", len(pods)-1, plural(len(pods)-1, "pod", "pods"))
	}
	return why
}
