package view

import (
	"errors"
	"strings"
	"testing"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/placementbudget"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

// The placements survive the encoding, and the pinned view answers the previews' reads from them
// as the hub does (what the taints and budget previews compute comes out the same).
func TestPinnedPlacements(t *testing.T) {
	got := encoded(t, testPlacementFacts())
	v := Pinned(got, Overlay{})
	ctx := t.Context()
	ps, err := v.HubPlacements(ctx)
	if err != nil || len(ps) != 2 || ps[0].Name != "web" || ps[1].Namespace != "team" {
		t.Fatalf("placements: %+v %v", ps, err)
	}
	bs, err := v.HubBindings(ctx)
	if err != nil || len(bs) != 3 {
		t.Fatalf("bindings: %d %v", len(bs), err)
	}
	mc, err := HubMemberCluster(ctx, v, "c1")
	if err != nil || len(mc.Spec.Taints) != 1 {
		t.Fatalf("member cluster: %+v %v", mc, err)
	}
	if _, err := HubMemberCluster(ctx, v, "nope"); !apierrors.IsNotFound(err) {
		t.Fatalf("a member cluster the facts lack: %v", err)
	}
	// The taints preview: c1 would lose both placements to an untolerated NoSchedule taint.
	losses := scheduling.NoLongerPicking(ps, bs, "c1", nil, []clusterv1.Taint{{Key: "x", Effect: "NoSchedule"}})
	if len(losses) != 2 || losses[0].Placement != "web" || losses[1].Placement != "team/app" {
		t.Fatalf("NoLongerPicking from facts: %+v", losses)
	}
	p, err := v.HubPlacement(ctx, hub.ClusterPlacement("web"))
	if err != nil || p.Spec.Policy.PlacementType != placementv1.PickNPlacementType {
		t.Fatalf("placement: %+v %v", p, err)
	}
	pb, err := v.HubPlacementBindings(ctx, hub.ClusterPlacement("web"))
	if err != nil || len(pb) != 2 {
		t.Fatalf("placement bindings: %d %v", len(pb), err)
	}
	// The budget preview: one of two clusters Available.
	verdict := placementbudget.Evaluate(p.Spec.Policy, pb, placementbudget.Spec{MinAvailable: nil, MaxUnavailable: nil})
	if verdict.Total != 2 || verdict.Available != 1 || verdict.Desired != 2 {
		t.Fatalf("budget verdict from facts: %+v", verdict)
	}
	if _, err := v.HubPlacement(ctx, hub.PlacementKey{Namespace: "team", Name: "web"}); !apierrors.IsNotFound(err) {
		t.Fatalf("a placement the facts lack: %v", err)
	}
	if pb, err := v.HubPlacementBindings(ctx, hub.ClusterPlacement("gone")); err != nil || len(pb) != 0 {
		t.Fatalf("bindings of a placement the facts lack: %v %v", pb, err)
	}
	// Snapshot read without placements say so, with why.
	got.PlacementsRead, got.PlacementsErr = false, "listing the placements: forbidden"
	var notRead *facts.NotReadError
	if _, err := v.HubPlacements(ctx); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("placements not read: %v", err)
	}
	if _, err := v.HubPlacement(ctx, hub.ClusterPlacement("web")); !errors.As(err, &notRead) {
		t.Fatalf("placement not read: %v", err)
	}
}
