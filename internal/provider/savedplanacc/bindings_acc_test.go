package savedplanacc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Previews that read the bindings of existing placements: fleet_member_cluster_taints (the
// placements bound to the cluster that would not pick it again) and
// fleet_placement_disruption_budget (how many of the placement's clusters may be evicted now).
// The placement is applied first; the saved plan adds the taints or the budget; the placement
// then changes behind Terraform's back (a toleration added, scaled up) before `apply PLANFILE`.

// availableBindings waits until placement has two bindings (prod-east-1 and prod-west-1: the
// tests' placements pick two), each Available for its generation.
func availableBindings(t *testing.T, placement string) {
	t.Helper()
	availableBindingsAt(t, hub.ClusterPlacement(placement))
}

// availableBindingsAt is availableBindings of a placement of either scope.
func availableBindingsAt(t *testing.T, key hub.PlacementKey) {
	t.Helper()
	const want = 2
	h := acctest.NewHubClients(t).Hub
	if err := acctest.Eventually(2*time.Minute, fmt.Sprintf("%d Available bindings of %s", want, key), func() (bool, string) {
		bs, err := h.BindingsAt(context.Background(), key)
		if err != nil {
			return false, err.Error()
		}
		avail := 0
		for i := range bs {
			c := bs[i].GetCondition(string(placementv1.ResourceBindingAvailable))
			if c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == bs[i].Generation && bs[i].DeletionTimestamp == nil {
				avail++
			}
		}
		return len(bs) == want && avail == want, fmt.Sprintf("%d bindings, %d Available", len(bs), avail)
	}); err != nil {
		t.Fatal(err)
	}
}

// workdir is a workdir whose resources are destroyed when the test ends, even when it fails
// midway: a taint left on prod-east-1 would change what the next tests' placements pick. Without
// refresh: the placement tolerates what the configuration does not (tolerate), which KubeFleet
// never lets an update remove.
func workdir(t *testing.T, hcl string) *acctest.Workdir {
	t.Helper()
	w := acctest.NewWorkdir(t, hcl)
	t.Cleanup(func() {
		if out, err := w.Run("destroy", "-auto-approve", "-refresh=false"); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
	})
	return w
}

// tolerate adds a toleration to a placement on the hub, as a change outside Terraform would.
func tolerate(t *testing.T, name string, tol placementv1.Toleration) {
	t.Helper()
	h := acctest.NewHubClients(t).Hub
	p, err := h.Placement(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.Policy == nil {
		p.Spec.Policy = &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
	}
	p.Spec.Policy.Tolerations = append(p.Spec.Policy.Tolerations, tol)
	if _, err := h.UpdatePlacementSpec(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

const taintsHCL = `
resource "fleet_member_cluster_taints" "maintenance" {
  member_cluster = "prod-east-1"
  taint {
    key    = "maintenance"
    value  = "soon"
    effect = "NoSchedule"
  }
  %[2]s
}
`

// taintsConfig: placementHCL's placement (without facts), then the taints.
var taintsConfig = withAdded(fmt.Sprintf(placementHCL, "%[1]s", "", ""), taintsHCL)

// TestAccSavedPlanMemberClusterTaints: a PickAll placement of the env=prod clusters is bound to
// prod-east-1 and prod-west-1; the saved plan taints prod-east-1 with maintenance=soon, which the
// placement does not tolerate (the preview names it). The placement then tolerates the taint
// (a change on the hub), so the preview computed now names nothing. Without facts Terraform
// refuses the apply; with facts it applies, keeps the reviewed preview and warns what moved.
func TestAccSavedPlanMemberClusterTaints(t *testing.T) {
	acctest.NewHubClients(t).CreateNamespace(t, "saved-plan")
	maintenance := placementv1.Toleration{Key: "maintenance", Operator: "Equal", Value: "soon", Effect: "NoSchedule"}
	const addr = "fleet_member_cluster_taints.maintenance"

	t.Run("without facts the apply is refused", func(t *testing.T) {
		w, plan := planAdded(t, taintsConfig, availableBindings, "saved-taints-live", false)
		acctest.Lines(t, plan, `"saved-taints-live" = "maintenance=soon:NoSchedule"`)
		tolerate(t, "saved-taints-live", maintenance)
		applyRefused(t, w, `preview`)
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w, plan := planAdded(t, taintsConfig, availableBindings, "saved-taints-facts", true)
		acctest.Lines(t, plan, `"saved-taints-facts" = "maintenance=soon:NoSchedule"`)
		tolerate(t, "saved-taints-facts", maintenance)
		moved, out := applyMoved(t, w, addr)
		acctest.Lines(t, moved.Detail,
			`placement saved-taints-facts: policy PickAll with affinity → PickAll with 1 toleration\(s\) with affinity`,
			`Computed now, the preview would differ`,
			`preview\.no_longer_picking`)
		if strings.Contains(moved.Detail, "member cluster prod-east-1: taints") {
			t.Errorf("the apply's own taint reported as moved:\n%s", moved.Detail)
		}
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		acctest.Lines(t, w.Must("show"), `"saved-taints-facts" = "maintenance=soon:NoSchedule"`) // the reviewed preview
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		w, plan := planAdded(t, taintsConfig, availableBindings, "saved-taints-still", true)
		acctest.Lines(t, plan, `"saved-taints-still" = "maintenance=soon:NoSchedule"`)
		out := applyUnwarned(t, w)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	})
}

const budgetPlacementHCL = `
data "fleet_facts" "at_plan" {}

resource "fleet_placement" "picked" {
  name               = "%[1]s"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "saved-plan"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
  }
  lifecycle { ignore_changes = [policy] }
}
`

const budgetHCL = `
resource "fleet_placement_disruption_budget" "picked" {
  placement     = fleet_placement.picked.name
  min_available = "50%%"
  %[2]s
}
`

var budgetConfig = withAdded(budgetPlacementHCL, budgetHCL)

// TestAccSavedPlanPlacementDisruptionBudget: a PickN placement of 2 clusters, both Available; the
// saved plan adds a budget of min_available 50 % (1 of 2: one disruption allowed). The placement
// is then scaled to 4 on the hub: 50 % is 2 now, and the new bindings are not Available yet, so
// the preview computed now allows none. Without facts Terraform refuses the apply; with facts it
// applies, keeps the reviewed preview and warns what moved.
func TestAccSavedPlanPlacementDisruptionBudget(t *testing.T) {
	hc := acctest.NewHubClients(t)
	hc.CreateNamespace(t, "saved-plan")
	const addr = "fleet_placement_disruption_budget.picked"

	t.Run("without facts the apply is refused", func(t *testing.T) {
		w, plan := planAdded(t, budgetConfig, availableBindings, "saved-budget-live", false)
		acctest.Lines(t, plan, `disruptions_allowed\s+= 1`)
		hc.ScalePlacement(t, "saved-budget-live", 4)
		applyRefused(t, w, `preview`)
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w, plan := planAdded(t, budgetConfig, availableBindings, "saved-budget-facts", true)
		acctest.Lines(t, plan, `desired_count\s+= 2`, `disruptions_allowed\s+= 1`)
		hc.ScalePlacement(t, "saved-budget-facts", 4)
		moved, out := applyMoved(t, w, addr)
		acctest.Lines(t, moved.Detail,
			`placement saved-budget-facts: policy PickN\(2\) → PickN\(4\)`,
			`Computed now, the preview would differ`,
			`preview\.desired_count: 2 → 4`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		show := w.Must("show")
		acctest.Lines(t, show, `desired_count\s+= 2`, `disruptions_allowed\s+= 1`) // the reviewed preview
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		w, plan := planAdded(t, budgetConfig, availableBindings, "saved-budget-still", true)
		acctest.Lines(t, plan, `disruptions_allowed\s+= 1`)
		out := applyUnwarned(t, w)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	})
}
