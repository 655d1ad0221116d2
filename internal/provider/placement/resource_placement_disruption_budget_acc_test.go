package placement_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

func budgetConfig(budget string) string {
	return `
resource "fleet_placement" "guarded" {
  name               = "budgetme"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "budgetme"
  }
  policy {
    placement_type = "PickN"
    number_of_clusters = 3
  }
}

resource "fleet_placement_disruption_budget" "guarded" {
  placement = fleet_placement.guarded.name
  ` + budget + `
}
`
}

// fleet_placement_disruption_budget on KubeFleet v0.18.9's hub agent: for budgets that block and
// budgets that allow, the refreshed preview's verdict and message are compared with the eviction
// controller's own on a real ClusterResourcePlacementEviction of an Available cluster; then
// import, and destroy removes the budget.
func TestAccPlacementDisruptionBudget(t *testing.T) {
	acctest.NewHubClients(t).CreateNamespace(t, "budgetme")
	c := acctest.HubClient(t)
	h := hub.New(acctest.HubKube(t))
	ctx := context.Background()
	const addr = "fleet_placement_disruption_budget.guarded"
	w := acctest.NewWorkdir(t, budgetConfig(`min_available = "3"`))
	out := w.Must("apply", "-auto-approve", "-input=false")
	acctest.Lines(t, out, `Preview after apply`)

	// The bindings an eviction is judged on: the budget counts only Available ones, and a
	// not-yet-Available binding is evicted without it, so every step starts from three Available.
	availableClusters := func() []string {
		var bs placementv1.ClusterResourceBindingList
		if err := c.List(ctx, &bs, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "budgetme"}); err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := range bs.Items {
			cond := bs.Items[i].GetCondition(string(placementv1.ResourceBindingAvailable))
			if cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == bs.Items[i].Generation && bs.Items[i].DeletionTimestamp == nil {
				names = append(names, bs.Items[i].Spec.TargetCluster)
			}
		}
		if len(names) != len(bs.Items) {
			return nil
		}
		return names
	}
	steps := []struct {
		budget      string
		wantAllowed int64
	}{
		{`min_available = "3"`, 0},
		{`min_available = "100%"`, 0}, // ceil(3 × 100 %) = 3
		{`max_unavailable = "0"`, 0},
		{`max_unavailable = "34%"`, 2}, // ceil(3 × 34 %) = 2
		{`min_available = "2"`, 1},
	}
	matches := 0
	for i, step := range steps {
		var avail []string
		if err := acctest.Eventually(2*time.Minute, "three Available bindings", func() (bool, string) {
			avail = availableClusters()
			return len(avail) == 3, fmt.Sprint(avail)
		}); err != nil {
			t.Fatal(err)
		}
		w.Write("main.tf", budgetConfig(step.budget))
		w.Must("apply", "-auto-approve", "-input=false")
		w.Must("apply", "-refresh-only", "-auto-approve", "-input=false")
		preview, _ := w.StateValues(addr)["preview"].(map[string]any)
		if got := preview["disruptions_allowed"]; got != float64(step.wantAllowed) {
			t.Fatalf("step %d (%s): disruptions_allowed %v, want %d; preview %v", i, step.budget, got, step.wantAllowed, preview)
		}
		evName := fmt.Sprintf("budgetme-check-%d", i)
		if _, err := h.CreateEviction(ctx, evName, "budgetme", avail[0]); err != nil {
			t.Fatal(err)
		}
		var executed *metav1.Condition
		if err := acctest.Eventually(time.Minute, "the hub's verdict on "+evName, func() (bool, string) {
			ev, err := h.Eviction(ctx, evName)
			if err != nil {
				return false, err.Error()
			}
			executed = meta.FindStatusCondition(ev.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeExecuted))
			return executed != nil, fmt.Sprint(ev.Status.Conditions)
		}); err != nil {
			t.Fatal(err)
		}
		hubAllowed := executed.Status == metav1.ConditionTrue
		if hubAllowed != preview["eviction_allowed"] || executed.Message != preview["message"] {
			t.Errorf("step %d (%s): hub executed=%v %q; preview eviction_allowed=%v %q", i, step.budget, hubAllowed, executed.Message, preview["eviction_allowed"], preview["message"])
			continue
		}
		matches++
	}
	t.Logf("disruption budget preview vs v0.18.9's eviction controller: %d of %d verdicts and messages equal", matches, len(steps))

	// Import by the placement's name, then nothing to change.
	w.Must("state", "rm", addr)
	w.Must("import", "-input=false", addr, "budgetme")
	if out, err := w.Run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Fatalf("plan after import is not empty: %v\n%s", err, out)
	}
	// Destroy removes the budget (and the placement).
	w.Must("destroy", "-auto-approve", "-input=false")
	if _, err := h.DisruptionBudget(ctx, "budgetme"); !hub.IsNotFound(err) {
		t.Fatalf("budget left on the hub after destroy: %v", err)
	}
}

// Bad budgets: both fields, an out-of-range percentage and count at validate with their paths; a
// placement that does not exist, and max_unavailable for a PickAll placement, at plan.
func TestAccPlacementDisruptionBudget_badInput(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`placement = "x"` + "\n" + `max_unavailable = "1"` + "\n" + `min_available = "1"`, `Both max_unavailable and min_available`},
		{`placement = "x"` + "\n" + `min_available = "150%"`, `must be a count such as "1" or a percentage`},
		{`placement = "x"` + "\n" + `max_unavailable = "-1"`, `must be a count such as "1" or a percentage`},
		{`placement = "x"` + "\n" + `max_unavailable = "3000000000"`, `Count out of range`},
	} {
		acctest.Invalid(t, "resource \"fleet_placement_disruption_budget\" \"bad\" {\n"+tc.body+"\n}\n", tc.want)
	}
	w := acctest.NewWorkdir(t, `
resource "fleet_placement_disruption_budget" "missing" {
  placement     = "no-such-placement"
  min_available = "1"
}
`)
	out, err := w.Run("plan", "-input=false")
	if err == nil || !acctest.WrappedRegexp(`the hub has no ClusterResourcePlacement "no-such-placement"`).MatchString(out) {
		t.Fatalf("plan for a missing placement: %v\n%s", err, out)
	}
	acctest.NewHubClients(t).CreateNamespace(t, "budgetall")
	w = acctest.NewWorkdir(t, `
resource "fleet_placement" "all" {
  name               = "budgetall"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "budgetall"
  }
}
`)
	w.Must("apply", "-auto-approve", "-input=false")
	w.Write("budget.tf", `
resource "fleet_placement_disruption_budget" "all" {
  placement       = fleet_placement.all.name
  max_unavailable = "1"
}
`)
	out, err = w.Run("plan", "-input=false")
	if err == nil || !strings.Contains(strings.Join(strings.Fields(out), " "), "PickAll is not supported with any specified max unavailable") {
		t.Fatalf("plan of max_unavailable for PickAll: %v\n%s", err, out)
	}
	w.Write("budget.tf", "")
	w.Must("destroy", "-auto-approve", "-input=false")
}
