package scenarios

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// max_concurrency on a strategy's stage and group: the preview says the batch
// size, the strategy reads back without a diff (the harness re-plans), and the
// run upgrades the group's three members two at a time (fleets.json
// UpdateGroup.maxConcurrency) as the emulator executes it: two start
// together, the third when one ends.
func TestAccUpdateRun_maxConcurrency(t *testing.T) {
	const cfg = `
resource "fleet_update_strategy" "s" {
  name   = "mc"
  stages = [{ name = "mc", max_concurrency = "100%", groups = [{ name = "mc", max_concurrency = "2" }] }]
}

resource "fleet_update_run" "r" {
  name               = "mc-run"
  stages             = fleet_update_strategy.s.stages
  wait_for           = "completed"
  managed_cluster_update = { upgrade = { type = "Full", kubernetes_version = "1.33.1" } }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// The stage's 100% of 3 members is 3; the group's "2" is its batch size.
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "max_concurrency"), knownvalue.Int64Exact(3)),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "max_concurrency"), knownvalue.Int64Exact(2)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("stages", 0, "groups", 0, "max_concurrency"), knownvalue.StringExact("2")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
			},
			Check: startsInBatches(t, "mc-run", []int{2, 1}),
		}},
	})
}

// startsInBatches checks the members' start times group as sizes says (in order).
func startsInBatches(t *testing.T, run string, sizes []int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		r, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, run)
		if err != nil {
			return err
		}
		var starts []time.Time
		for _, m := range r.Properties.Status.Stages[0].Groups[0].Members {
			if m.Status == nil || m.Status.StartTime == nil {
				return fmt.Errorf("member %s has no start time", m.Name)
			}
			starts = append(starts, *m.Status.StartTime)
		}
		sort.Slice(starts, func(a, b int) bool { return starts[a].Before(starts[b]) })
		var got []int
		for i, s := range starts {
			if i == 0 || !s.Equal(starts[i-1]) {
				got = append(got, 0)
			}
			got[len(got)-1]++
		}
		if fmt.Sprint(got) != fmt.Sprint(sizes) {
			return fmt.Errorf("members started in batches %v, want %v (%v)", got, sizes, starts)
		}
		return nil
	}
}
