package disruption

import (
	"cmp"
	"slices"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// DefaultExpiryLookahead is how far ahead the preview lists expiring nodes.
const DefaultExpiryLookahead = 24 * time.Hour

// ExpiringNode is a node whose NodeClaim expires soon. Expiry is forceful: budgets do not limit it.
type ExpiringNode struct {
	Node      string // the Node's name (status.nodeName), or the NodeClaim's name before it has a Node
	NodeClaim string
	ExpiresAt time.Time
	Expired   bool // ExpiresAt <= now: Karpenter deletes the NodeClaim on its next reconcile
}

// ExpiresAt is when the expiration controller deletes a NodeClaim: its creation time plus its own
// spec.expireAfter (copied from the NodePool when it was launched); ok is false for expireAfter Never
// (nil). pkg/controllers/nodeclaim/expiration/controller.go Reconcile.
func ExpiresAt(nc karpv1.NodeClaim) (t time.Time, ok bool) {
	if nc.Spec.ExpireAfter.Duration == nil {
		return time.Time{}, false
	}
	return nc.CreationTimestamp.Add(*nc.Spec.ExpireAfter.Duration).UTC(), true
}

// Expired is the controller's test: not before the expiration time.
// pkg/controllers/nodeclaim/expiration/controller.go Reconcile.
func Expired(expiresAt, now time.Time) bool {
	return !now.Before(expiresAt)
}

// ExpiringNodes lists the NodePool's NodeClaims (karpenter.sh/nodepool label) that expire at or
// before now+within, already-expired ones included, soonest first. NodeClaims already being deleted
// are left out: the expiration controller skips them. pkg/controllers/nodeclaim/expiration/controller.go Reconcile.
func ExpiringNodes(nodePool string, nodeClaims []karpv1.NodeClaim, now time.Time, within time.Duration) []ExpiringNode {
	var out []ExpiringNode
	horizon := now.Add(within)
	for _, nc := range nodeClaims {
		if nc.Labels[karpv1.NodePoolLabelKey] != nodePool || nc.DeletionTimestamp != nil {
			continue
		}
		at, ok := ExpiresAt(nc)
		if !ok || at.After(horizon) {
			continue
		}
		name := nc.Status.NodeName
		if name == "" {
			name = nc.Name
		}
		out = append(out, ExpiringNode{Node: name, NodeClaim: nc.Name, ExpiresAt: at, Expired: Expired(at, now)})
	}
	slices.SortStableFunc(out, func(a, b ExpiringNode) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.Node, b.Node))
	})
	return out
}
