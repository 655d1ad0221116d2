package facts

import (
	"encoding/json"
	"errors"
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

// The pinned view answers the override previews' reads from the facts, after the encoding, and
// says what to add when the facts lack a placement or a namespace.
func TestOverrideFactsPinned(t *testing.T) {
	f := testOverrideFacts()
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{}).WithFacts(got)
	ctx := t.Context()
	res, index, err := c.LatestSelectedResources(ctx, hub.ClusterPlacement("web"))
	if err != nil || index != "3" || len(res) != 2 || !strings.Contains(string(res[1]), `"ConfigMap"`) {
		t.Fatalf("resources: %s %q %v", res, index, err)
	}
	if nss := ResourceNamespaces(res); len(nss) != 1 || nss[0] != "web" {
		t.Fatalf("namespaces: %v", nss)
	}
	cros, err := c.LatestOverrideSnapshots(ctx, "")
	if err != nil || len(cros) != 1 || cros[0].Name != "tier-0" || cros[0].Spec.Policy.OverrideRules[0].OverrideType != placementv1.DeleteOverrideType {
		t.Fatalf("cluster resource override snapshots: %+v %v", cros, err)
	}
	cros[0].Spec.Policy.OverrideRules[0].OverrideType = "changed" // a copy: the facts stay as read
	if again, _ := c.LatestOverrideSnapshots(ctx, ""); again[0].Spec.Policy.OverrideRules[0].OverrideType != placementv1.DeleteOverrideType {
		t.Fatal("the pinned view handed out the facts' own snapshots")
	}
	if ros, err := c.LatestOverrideSnapshots(ctx, "web"); err != nil || len(ros) != 0 {
		t.Fatalf("resource override snapshots of web: %+v %v", ros, err)
	}
	if ok, err := c.HubPlacementExists(ctx, hub.ClusterPlacement("web")); err != nil || !ok {
		t.Fatalf("web exists: %v %v", ok, err)
	}
	if ok, err := c.HubPlacementExists(ctx, hub.ClusterPlacement("nope")); err != nil || ok {
		t.Fatalf("nope exists: %v %v", ok, err)
	}
	var notRead *NotReadError
	if _, _, err := c.LatestSelectedResources(ctx, hub.PlacementKey{Namespace: "team", Name: "app"}); !errors.As(err, &notRead) ||
		!strings.Contains(err.Error(), `add "team/app" to override_placements`) {
		t.Fatalf("resources of a placement not named: %v", err)
	}
	if _, err := c.LatestOverrideSnapshots(ctx, "other"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), `namespace "other"`) {
		t.Fatalf("snapshots of a namespace not read: %v", err)
	}
}

// Moved names a new resource snapshot and overrides whose latest snapshot appeared, went or
// changed; nothing when nothing did.
func TestMovedOverrides(t *testing.T) {
	planned, now := testOverrideFacts(), testOverrideFacts()
	if m := movedOverrides(planned, now); len(m) != 0 {
		t.Fatalf("nothing moved: %v", m)
	}
	now.Overrides[0].Index = "4"
	now.Overrides[0].Resources = now.Overrides[0].Resources[:1]
	now.OverrideSnapshots[0].Snapshots[0].Name = "tier-1"
	now.OverrideSnapshots[1].Snapshots = []hub.OverrideSnapshot{{Namespace: "web", Name: "settings-0", Override: "settings"}}
	got := strings.Join(Moved(planned, now), "\n")
	for _, want := range []string{
		"placement web: latest resource snapshot 3 (2 resources) → 4 (1 resources)",
		"ClusterResourceOverrides: latest snapshots tier: tier-0 → tier-1",
		"ResourceOverrides in web: latest snapshots web/settings: added settings-0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("moved lacks %q:\n%s", want, got)
		}
	}
}
