package view

import (
	"errors"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

// A staged run's inputs survive the encoding; the pinned view answers RunInputs from them, with
// the facts' member clusters, and says when the facts lack the run.
func TestPinnedStaged(t *testing.T) {
	v := Pinned(encoded(t, testStagedFacts()), Overlay{})
	in, err := v.RunInputs(t.Context(), "", "web", "rings")
	if err != nil || in.Placement.Name != "web" || in.Strategy.Name != "rings" || len(in.Bindings) != 1 ||
		in.Bindings[0].Spec.SchedulingPolicySnapshotName != "web-0" || len(in.MemberClusters) != 1 {
		t.Fatalf("run inputs: %+v %v", in, err)
	}
	in.Bindings[0].Spec.TargetCluster = "changed" // a copy: the facts stay as read
	if again, _ := v.RunInputs(t.Context(), "", "web", "rings"); again.Bindings[0].Spec.TargetCluster != "c1" {
		t.Fatalf("RunInputs handed out the facts themselves")
	}
	var notRead *facts.NotReadError
	if _, err := v.RunInputs(t.Context(), "", "web", "other"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "staged_run block") {
		t.Fatalf("a run the facts lack: %v", err)
	}
}
