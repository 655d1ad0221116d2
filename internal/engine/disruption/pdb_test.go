package disruption

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// pdbPool is four empty-looking nodes, each running one pod of app web (nodes 0-1), db (2) or
// cache (3) in namespace apps; consolidation is on, so unheld nodes with only DaemonSet pods would
// be Empty candidates, and every node is drifted.
func pdbPool(t *testing.T, now time.Time) (*karpv1.NodePool, []karpv1.NodeClaim, []corev1.Node, []corev1.Pod) {
	t.Helper()
	claims, nodes := pool("default", 4)
	np := nodePool(karpv1.Budget{Nodes: "100%"})
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
	for i := range claims {
		claims[i].Status.Conditions = []status.Condition{
			{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue},
			{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, LastTransitionTime: metav1.Time{Time: now.Add(-time.Hour)}},
			{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue},
		}
	}
	var pods []corev1.Pod
	for i, app := range []string{"web", "web", "db", "cache"} {
		pods = append(pods, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: app + "-" + string(rune('a'+i)), Labels: map[string]string{"app": app}},
			Spec:       corev1.PodSpec{NodeName: nodes[i].Name},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-time.Hour)},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	return np, claims, nodes, pods
}

func pdbFor(name, app string, allowed int32) policyv1.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	return policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// TestBuildPreviewPDBs: a PDB allowing no disruption holds both nodes of its pods (one PDB, several
// nodes); one that allows a disruption holds nothing; a not-Ready pod under AlwaysAllow is not
// held; the held nodes are listed with the PDB, counted, and leave the candidates.
func TestBuildPreviewPDBs(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	np, claims, nodes, pods := pdbPool(t, now)
	pods[3].Status.Conditions[0].Status = corev1.ConditionFalse
	always := policyv1.AlwaysAllow
	cache := pdbFor("cache", "cache", 0)
	cache.Spec.UnhealthyPodEvictionPolicy = &always
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Pods: pods, Now: now,
		PDBs: PDBs{Items: []policyv1.PodDisruptionBudget{pdbFor("web", "web", 0), pdbFor("db", "db", 1), cache}}})
	var blocked []string
	for _, b := range p.Blocked {
		blocked = append(blocked, b.Node+": "+b.Why)
	}
	want := []string{"node-default-0: PodDisruptionBudget apps/web allows no disruption of one of its pods now", "node-default-1: PodDisruptionBudget apps/web allows no disruption of one of its pods now"}
	if !slices.Equal(blocked, want) {
		t.Fatalf("blocked %q", blocked)
	}
	if got := p.Candidates[karpv1.DisruptionReasonDrifted]; !slices.Equal(got, []string{"node-default-2", "node-default-3"}) {
		t.Errorf("drifted candidates %v", got)
	}
	if !strings.Contains(p.Summary, "; 2 nodes held by PodDisruptionBudgets.") {
		t.Errorf("summary %q", p.Summary)
	}
}

// TestBuildPreviewMalformedPDB: a PDB the decoder refused is one warning naming it, and counts as
// blocking every pod of its namespace (the safe side); a selector Karpenter cannot parse likewise.
func TestBuildPreviewMalformedPDB(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	np, claims, nodes, pods := pdbPool(t, now)
	bad := pdbFor("bad-selector", "db", 5)
	bad.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Pods: pods, Now: now,
		PDBs: PDBs{Items: []policyv1.PodDisruptionBudget{bad}, Malformed: []PDBRef{{Namespace: "apps", Name: "weird"}}}})
	if len(p.Blocked) != 4 || p.Blocked[0].Kind != BlockedByPDB {
		t.Fatalf("blocked %+v, want all four nodes held", p.Blocked)
	}
	var n int
	for _, w := range p.Warnings {
		if strings.Contains(w, "unexpected shape") {
			n++
			if !strings.Contains(w, "apps/weird, apps/bad-selector") {
				t.Errorf("warning %q does not name both", w)
			}
		}
	}
	if n != 1 || len(p.PDBWarnings) != 1 {
		t.Fatalf("%d warnings about the shape in %q", n, p.Warnings)
	}
}

// TestBuildPreviewPDBsUnverified: PDBs that could not be listed leave the candidates as they are,
// with one warning and a summary that says they are unverified.
func TestBuildPreviewPDBsUnverified(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	np, claims, nodes, pods := pdbPool(t, now)
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Pods: pods, Now: now,
		PDBs: PDBs{Unverified: errors.New("poddisruptionbudgets.policy is forbidden")}})
	if len(p.Candidates[karpv1.DisruptionReasonDrifted]) != 4 || len(p.PDBWarnings) != 1 ||
		!strings.Contains(p.PDBWarnings[0], "forbidden): the candidates are unverified") ||
		!strings.HasSuffix(p.Summary, "; candidates unverified (PodDisruptionBudgets could not be listed).") {
		t.Fatalf("candidates %v, warnings %q, summary %q", p.Candidates, p.PDBWarnings, p.Summary)
	}
}

// TestBuildPreviewMalformedPDBWithoutNamespace: a malformed PDB whose namespace could not be read
// blocks the pods of every namespace, and is named once.
func TestBuildPreviewMalformedPDBWithoutNamespace(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	np, claims, nodes, pods := pdbPool(t, now)
	pods[0].Namespace = "other"
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Pods: pods, Now: now,
		PDBs: PDBs{Malformed: []PDBRef{{Name: "(item 3 of a list page)"}}}})
	if len(p.Blocked) != 4 || len(p.PDBWarnings) != 1 || !strings.Contains(p.PDBWarnings[0], "1 PodDisruptionBudget object (/(item 3 of a list page))") {
		t.Fatalf("blocked %+v, warnings %q", p.Blocked, p.PDBWarnings)
	}
}
