package placement_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

var evictConfig = `
resource "fleet_placement" "evict" {
  name               = "evictme"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "evictme"
  }
` + pickNByNodeCount(2) + `}

action "fleet_placement_evict" "east" {
  config {
    placement = fleet_placement.evict.name
    cluster   = "prod-east-1"
  }
}

action "fleet_placement_evict" "staging" {
  config {
    placement = fleet_placement.evict.name
    cluster   = "staging-west"
  }
}
`

// fleet_placement_evict through the real CLI on KubeFleet v0.18.9's hub agent: blocked by the
// placement's disruption budget, the hub's verdict is the action's error; without the budget the
// hub executes it and the cluster's binding is deleted; a cluster the placement is not on is not
// an error and creates nothing.
func TestAccPlacementEvictAction(t *testing.T) {
	hc := acctest.NewHubClients(t)
	hc.CreateNamespace(t, "evictme")
	c := acctest.HubClient(t)
	ctx := context.Background()
	w := acctest.NewWorkdir(t, evictConfig)
	w.Must("apply", "-auto-approve", "-input=false")
	bindingOf := func(cluster string) *placementv1.ClusterResourceBinding {
		var bs placementv1.ClusterResourceBindingList
		if err := c.List(ctx, &bs, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "evictme"}); err != nil {
			t.Fatal(err)
		}
		for i := range bs.Items {
			if bs.Items[i].Spec.TargetCluster == cluster && bs.Items[i].Spec.State != placementv1.BindingStateUnscheduled {
				return &bs.Items[i]
			}
		}
		return nil
	}
	// The budget is consulted only for a binding that has not failed (v0.18.9
	// clusterresourceplacementeviction: a failed binding is evicted without it), so wait until
	// both bindings are Available before trying the budget.
	if err := acctest.Eventually(time.Minute, "both bindings Available", func() (bool, string) {
		var bs placementv1.ClusterResourceBindingList
		if err := c.List(ctx, &bs, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "evictme"}); err != nil {
			return false, err.Error()
		}
		available := 0
		for i := range bs.Items {
			if cond := bs.Items[i].GetCondition(string(placementv1.ResourceBindingAvailable)); cond != nil && cond.Status == metav1.ConditionTrue &&
				cond.ObservedGeneration == bs.Items[i].Generation {
				available++
			}
		}
		return available == 2, fmt.Sprintf("%d of %d bindings Available", available, len(bs.Items))
	}); err != nil {
		t.Fatal(err)
	}
	dyn := acctest.HubKube(t).Dynamic
	evictionList := func() []unstructured.Unstructured {
		l, err := dyn.Resource(hub.EvictionGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	pdbs := dyn.Resource(placementv1beta1.GroupVersion.WithResource("clusterresourceplacementdisruptionbudgets"))

	// A budget that keeps both clusters: the hub refuses, the action says why.
	pdb := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": placementv1beta1.GroupVersion.String(), "kind": "ClusterResourcePlacementDisruptionBudget",
		"metadata": map[string]any{"name": "evictme"}, "spec": map[string]any{"minAvailable": int64(2)}}}
	if _, err := pdbs.Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := w.Run("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_placement_evict.east")
	if err == nil || !acctest.WrappedRegexp(`Eviction not executed`).MatchString(out) {
		t.Fatalf("evict under a budget of minAvailable 2: %v\n%s", err, out)
	}
	acctest.Lines(t, out, `action.fleet_placement_evict.east \(triggered by CLI\): evicting placement evictme from cluster prod-east-1 \(ClusterResourcePlacementEviction evictme-prod-east-1-\d+; the placement is on 2 clusters\)`)
	if bindingOf("prod-east-1") == nil {
		t.Fatal("the refused eviction removed prod-east-1's binding")
	}

	// Without the budget the hub executes it.
	if err := pdbs.Delete(ctx, "evictme", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := bindingOf("prod-east-1").UID
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_placement_evict.east")
	acctest.Lines(t, out, `action.fleet_placement_evict.east \(triggered by CLI\): evicting placement evictme from cluster prod-east-1`,
		`action.fleet_placement_evict.east \(triggered by CLI\): evicted placement evictme from cluster prod-east-1: `)
	executed := 0
	for _, u := range evictionList() {
		var e placementv1beta1.ClusterResourcePlacementEviction
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &e); err != nil {
			t.Fatal(err)
		}
		if meta.IsStatusConditionTrue(e.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeExecuted)) {
			executed++
		}
	}
	if executed != 1 {
		t.Fatalf("%d executed evictions, want 1", executed)
	}
	if err := acctest.Eventually(time.Minute, "prod-east-1's binding deleted", func() (bool, string) {
		gone := bindingOf("prod-east-1") == nil || bindingOf("prod-east-1").UID != before || bindingOf("prod-east-1").DeletionTimestamp != nil
		return gone, ""
	}); err != nil {
		t.Fatal(err)
	}

	// Not placed there: nothing created.
	n := len(evictionList())
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_placement_evict.staging")
	acctest.Lines(t, out, `placement evictme is not on cluster staging-west \(it is on \d: .*\); nothing to evict`)
	if len(evictionList()) != n {
		t.Fatal("an eviction was created for a cluster the placement is not on")
	}
}
