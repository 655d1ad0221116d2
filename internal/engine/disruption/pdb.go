package disruption

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/karpenter/pkg/utils/pdb"
)

// PDBRef names a PodDisruptionBudget (namespace/name).
type PDBRef struct{ Namespace, Name string }

func (r PDBRef) String() string { return r.Namespace + "/" + r.Name }

// PDBs is what the preview knows of a cluster's PodDisruptionBudgets.
type PDBs struct {
	// Items are the PDBs as the API server returned them, decoded.
	Items []policyv1.PodDisruptionBudget
	// Malformed are PDBs that came back in a shape the decoder (or Karpenter's selector parsing)
	// refused: each is taken to block every evictable pod of its namespace (the safe side).
	Malformed []PDBRef
	// Unverified says the PDBs could not be listed (e.g. forbidden): candidates are shown as if
	// no PDB held them, and the preview says they are unverified.
	Unverified error
}

// pdbsForPods stands a malformed PDB whose namespace could not be read in for every namespace
// that has pods (Karpenter matches a PDB only to pods of its own namespace), so it still blocks.
func pdbsForPods(in PDBs, pods []corev1.Pod) PDBs {
	out := in
	out.Malformed = nil
	for _, ref := range in.Malformed {
		if ref.Namespace != "" {
			out.Malformed = append(out.Malformed, ref)
			continue
		}
		seen := map[string]bool{}
		for _, p := range pods {
			if !seen[p.Namespace] {
				seen[p.Namespace] = true
				out.Malformed = append(out.Malformed, PDBRef{Namespace: p.Namespace, Name: ref.Name})
			}
		}
	}
	return out
}

// pdbLister is the one call Karpenter's pdb.NewLimits makes on its client: List of
// PodDisruptionBudgets. It lets the preview hand Karpenter the PDBs it already read, without I/O.
type pdbLister struct {
	client.Client
	items []policyv1.PodDisruptionBudget
}

func (l pdbLister) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	pl, ok := list.(*policyv1.PodDisruptionBudgetList)
	if !ok {
		return fmt.Errorf("only PodDisruptionBudgets are listed here, not %T", list)
	}
	pl.Items = slices.Clone(l.items)
	return nil
}

// pdbBlocking is the stand-in for a malformed PDB: it selects every pod of its namespace and allows
// no disruption, so Karpenter's own check counts it as blocking.
func pdbBlocking(ref PDBRef) policyv1.PodDisruptionBudget {
	return policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{}},
	}
}

// PDBLimits builds Karpenter's own PDB limits from the PDBs the preview read: pkg/utils/pdb/pdb.go
// NewLimits (its selector parsing, disruptionsAllowed, unhealthy-pod policy). A PDB whose selector
// Karpenter cannot parse is returned in bad (its NewLimits would fail the whole pass) and stands as
// a blocking PDB of its namespace.
func PDBLimits(in PDBs) (limits pdb.Limits, bad []PDBRef) {
	items := make([]policyv1.PodDisruptionBudget, 0, len(in.Items)+len(in.Malformed))
	for _, p := range in.Items {
		if _, err := pdb.NewLimits(context.Background(), pdbLister{items: []policyv1.PodDisruptionBudget{p}}); err != nil {
			ref := PDBRef{Namespace: p.Namespace, Name: p.Name}
			bad = append(bad, ref)
			items = append(items, pdbBlocking(ref))
			continue
		}
		items = append(items, p)
	}
	for _, ref := range in.Malformed {
		items = append(items, pdbBlocking(ref))
	}
	limits, err := pdb.NewLimits(context.Background(), pdbLister{items: items})
	if err != nil { // every item was checked above; an empty selector always parses
		return nil, bad
	}
	return limits, bad
}

// pdbBlockers are the PDBs (namespace/name, sorted) that stop the eviction of one of the pods now,
// by Karpenter's own check: pkg/utils/pdb/pdb.go (Limits).CanEvictPods as
// pkg/controllers/state/statenode.go ValidatePodsDisruptable calls it (a pod with two PDBs is
// blocked by both; a PDB allowing zero disruptions blocks its evictable pods, unless its
// unhealthyPodEvictionPolicy is AlwaysAllow and the pod is not Ready).
func pdbBlockers(limits pdb.Limits, pods []*corev1.Pod, now time.Time) []string {
	if len(limits) == 0 {
		return nil
	}
	keys, ok := limits.CanEvictPods(pods, At(now), nil)
	if ok {
		return nil
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k.Namespace+"/"+k.Name)
	}
	slices.Sort(out)
	return out
}
