package facts

import (
	"strings"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

func testStagedFacts() *Snapshot {
	f := testFacts()
	b := testBinding("", "web", "c1", true)
	b.Spec.SchedulingPolicySnapshotName = "web-0"
	f.Staged = []StagedInputs{{StagedRun: StagedRun{Placement: "web", Strategy: "rings"}, Inputs: hub.RunInputs{
		Placement:       &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1}},
		Strategy:        &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "rings", Generation: 1}},
		PolicySnapshots: []placementv1.ClusterSchedulingPolicySnapshot{{ObjectMeta: metav1.ObjectMeta{Name: "web-0"}}},
		Bindings:        []placementv1.ClusterResourceBinding{b},
		ResourceSnapshots: []placementv1.ClusterResourceSnapshot{{ObjectMeta: metav1.ObjectMeta{Name: "web-0-snapshot",
			Labels: map[string]string{placementv1beta1.ResourceIndexLabel: "0"}}}},
	}}}
	return f
}

// Moved names a staged run's bindings and snapshots that moved, and nothing when nothing did or
// when only a resource snapshot was added (a run naming no index cuts one itself).
func TestMovedStaged(t *testing.T) {
	if got := Moved(testStagedFacts(), testStagedFacts()); len(got) != 0 {
		t.Fatalf("unmoved: %v", got)
	}
	added := testStagedFacts()
	added.Staged[0].Inputs.ResourceSnapshots = append(added.Staged[0].Inputs.ResourceSnapshots, placementv1.ClusterResourceSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1-snapshot", Labels: map[string]string{placementv1beta1.ResourceIndexLabel: "1"}}})
	if got := Moved(testStagedFacts(), added); len(got) != 0 {
		t.Fatalf("a resource snapshot added: %v", got)
	}
	after := testStagedFacts()
	in := &after.Staged[0].Inputs
	in.PolicySnapshots[0].Name = "web-1"
	in.Bindings[0].Spec.SchedulingPolicySnapshotName = "web-1"
	in.ResourceSnapshots = nil
	want := []string{
		"staged run inputs: placement web with strategy rings: latest policy snapshot: web-0 → web-1",
		"staged run inputs: placement web with strategy rings: bindings c1: Bound for web-0 → Bound for web-1",
		"staged run inputs: placement web with strategy rings: resource snapshot indexes removed 0",
	}
	if got := Moved(testStagedFacts(), after); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Moved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
