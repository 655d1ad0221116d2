package facts

import (
	"fmt"
	"strings"
	"testing"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testBinding(ns, placement, cluster string, available bool) placementv1.ClusterResourceBinding {
	b := placementv1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: placement + "-" + cluster, Namespace: ns, Generation: 2,
		Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement, "other": "dropped"}},
		Spec: placementv1.ResourceBindingSpec{TargetCluster: cluster, State: placementv1.BindingStateBound, ResourceSnapshotName: "dropped"}}
	status := metav1.ConditionFalse
	if available {
		status = metav1.ConditionTrue
	}
	b.Status.Conditions = []metav1.Condition{{Type: string(placementv1.ResourceBindingAvailable), Status: status, ObservedGeneration: 2, Reason: "R", Message: "dropped"}}
	return b
}

func testPlacementFacts() *Snapshot {
	f := testFacts()
	f.Hub[0].Spec.Taints = []clusterv1.Taint{{Key: "a", Value: "b", Effect: "NoSchedule"}}
	placements := []placementv1.ClusterResourcePlacement{
		{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}, Spec: placementv1.PlacementSpec{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: ptr(int32(2))}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "team"}},
	}
	bindings := []placementv1.ClusterResourceBinding{
		testBinding("", "web", "c1", true), testBinding("", "web", "c2", false), testBinding("team", "app", "c1", true),
		testBinding("", "gone", "c1", true), // its placement is gone: left out
	}
	f.PlacementsRead = true
	f.Placements = PlacementsOf(placements, bindings)
	return f
}

func ptr[T any](v T) *T { return &v }

// Moved names what moved of placements: policy, bound clusters, availability; nothing when
// nothing did; and placements are compared only when both reads have them.
func TestMovedPlacements(t *testing.T) {
	before := testPlacementFacts()
	if got := Moved(before, testPlacementFacts()); len(got) != 0 {
		t.Fatalf("unmoved: %v", got)
	}
	after := testPlacementFacts()
	after.Placements = PlacementsOf(
		[]placementv1.ClusterResourcePlacement{
			{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: placementv1.PlacementSpec{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: ptr(int32(3))}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "new"}},
		},
		[]placementv1.ClusterResourceBinding{testBinding("", "web", "c1", false), testBinding("", "web", "c3", true)})
	want := []string{
		"hub placements: placement new: joined the hub",
		"hub placements: placement team/app: left the hub",
		"hub placements: placement web: policy PickN(2) → PickN(3)",
		"hub placements: placement web: bound clusters 2 → 2 (added c3; removed c2)",
		"hub placements: placement web: bindings c1: Bound, available → Bound, not available, c2: Bound, not available removed, c3: added Bound, available",
	}
	got := Moved(before, after)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Moved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	after.PlacementsRead = false
	if got := Moved(before, after); len(got) != 0 {
		t.Fatalf("placements compared though not read now: %v", got)
	}
}

// What the placements add to the facts of a 1,000-member fleet: 20 PickAll placements bound to
// every member (20,000 bindings, a seventeenth of them not Available): 78,328 bytes encoded, about 4
// a binding. DESIGN.md quotes the figure.
func TestPlacementFactsEncodedSize(t *testing.T) {
	var placements []placementv1.ClusterResourcePlacement
	var bindings []placementv1.ClusterResourceBinding
	for p := range 20 {
		name := fmt.Sprintf("placement-%02d", p)
		placements = append(placements, placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}})
		for m := range 1000 {
			b := testBinding("", name, fmt.Sprintf("member-%04d", m), m%17 != 0)
			b.Name = fmt.Sprintf("%s-member-%04d-%08x", name, m, m*2654435761)
			bindings = append(bindings, b)
		}
	}
	f := &Snapshot{PlacementsRead: true, Placements: PlacementsOf(placements, bindings)}
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("20 placements × 1000 members: %d bytes encoded, %d per binding", len(s), len(s)/20000)
	if len(s) > 8*20000 {
		t.Fatalf("placement facts take %d bytes encoded, over 8 a binding", len(s))
	}
}
