package facts

import (
	"encoding/json"
	"strings"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

func testOverrideFacts() *Snapshot {
	f := testPlacementFacts()
	f.Overrides = []SelectedResources{{Placement: "web", Index: "3", Resources: []json.RawMessage{
		json.RawMessage(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"web"}}`),
		json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"web"}}`),
	}}}
	f.OverrideSnapshots = []OverrideSnapshots{
		{Snapshots: []hub.OverrideSnapshot{{Name: "tier-0", Override: "tier", Spec: placementv1.ClusterResourceOverrideSpec{
			Policy: &placementv1.OverridePolicy{OverrideRules: []placementv1.OverrideRule{{OverrideType: placementv1.DeleteOverrideType}}}}}}},
		{Namespace: "web"},
	}
	return f
}

// Moved names a new resource snapshot and overrides whose latest snapshot appeared, went or
// changed; nothing when nothing did.
func TestMovedOverrides(t *testing.T) {
	planned, now := testOverrideFacts(), testOverrideFacts()
	if m := Moved(planned, now); len(m) != 0 {
		t.Fatalf("nothing moved: %v", m)
	}
	now.Overrides[0].Index = "4"
	now.Overrides[0].Resources = now.Overrides[0].Resources[:1]
	now.OverrideSnapshots[0].Snapshots[0].Name = "tier-1"
	now.OverrideSnapshots[1].Snapshots = []hub.OverrideSnapshot{{Namespace: "web", Name: "settings-0", Override: "settings"}}
	got := strings.Join(Moved(planned, now), "\n")
	for _, want := range []string{
		"selected resources: placement web: latest resource snapshot 3 (2 resources) → 4 (1 resources)",
		"override snapshots: ClusterResourceOverrides: latest snapshots tier: tier-0 → tier-1",
		"override snapshots: ResourceOverrides in web: latest snapshots web/settings: added settings-0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("moved lacks %q:\n%s", want, got)
		}
	}
}
