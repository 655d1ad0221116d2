package view

import (
	"errors"
	"strings"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// The pinned view answers the override previews' reads from the facts, after the encoding, and
// says what to add when the facts lack a placement or a namespace.
func TestPinnedOverrides(t *testing.T) {
	v := Pinned(encoded(t, testOverrideFacts()), Overlay{})
	ctx := t.Context()
	res, index, err := v.LatestSelectedResources(ctx, hub.ClusterPlacement("web"))
	if err != nil || index != "3" || len(res) != 2 || !strings.Contains(string(res[1]), `"ConfigMap"`) {
		t.Fatalf("resources: %s %q %v", res, index, err)
	}
	if nss := facts.ResourceNamespaces(res); len(nss) != 1 || nss[0] != "web" {
		t.Fatalf("namespaces: %v", nss)
	}
	cros, err := v.LatestOverrideSnapshots(ctx, "")
	if err != nil || len(cros) != 1 || cros[0].Name != "tier-0" || cros[0].Spec.Policy.OverrideRules[0].OverrideType != placementv1.DeleteOverrideType {
		t.Fatalf("cluster resource override snapshots: %+v %v", cros, err)
	}
	cros[0].Spec.Policy.OverrideRules[0].OverrideType = "changed" // a copy: the facts stay as read
	if again, _ := v.LatestOverrideSnapshots(ctx, ""); again[0].Spec.Policy.OverrideRules[0].OverrideType != placementv1.DeleteOverrideType {
		t.Fatal("the pinned view handed out the facts' own snapshots")
	}
	if ros, err := v.LatestOverrideSnapshots(ctx, "web"); err != nil || len(ros) != 0 {
		t.Fatalf("resource override snapshots of web: %+v %v", ros, err)
	}
	if ok, err := HubPlacementExists(ctx, v, hub.ClusterPlacement("web")); err != nil || !ok {
		t.Fatalf("web exists: %v %v", ok, err)
	}
	if ok, err := HubPlacementExists(ctx, v, hub.ClusterPlacement("nope")); err != nil || ok {
		t.Fatalf("nope exists: %v %v", ok, err)
	}
	var notRead *facts.NotReadError
	if _, _, err := v.LatestSelectedResources(ctx, hub.PlacementKey{Namespace: "team", Name: "app"}); !errors.As(err, &notRead) ||
		!strings.Contains(err.Error(), `add "team/app" to override_placements`) {
		t.Fatalf("resources of a placement not named: %v", err)
	}
	if _, err := v.LatestOverrideSnapshots(ctx, "other"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), `namespace "other"`) {
		t.Fatalf("snapshots of a namespace not read: %v", err)
	}
}
