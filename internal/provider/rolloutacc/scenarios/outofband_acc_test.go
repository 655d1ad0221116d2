package scenarios

import (
	"context"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// outOfBand starts or stops a run through the Fleet API, as az CLI or the portal would.
func outOfBand(t *testing.T, run string, start bool) {
	t.Helper()
	c := acctest.FleetAPI(t)
	var err error
	if start {
		var p *runtime.Poller[fleetapi.UpdateRun]
		if p, err = c.BeginStartUpdateRun(context.Background(), fleet, run, nil); err == nil {
			_, err = p.PollUntilDone(context.Background(), nil)
		}
	} else {
		var p *runtime.Poller[fleetapi.UpdateRun]
		if p, err = c.BeginStopUpdateRun(context.Background(), fleet, run, nil); err == nil {
			_, err = p.PollUntilDone(context.Background(), nil)
		}
	}
	if err != nil {
		t.Fatalf("start=%v %s: %v", start, run, err)
	}
}

// A run started outside Terraform while the configuration says NotStarted is
// reported and planned (a warning, never a plan error); one stopped outside
// Terraform is started again by a plan that says so; wait_for = "started"
// returns once the run is past NotStarted.
func TestAccUpdateRun_startedAndStoppedOutsideTerraform(t *testing.T) {
	cfg := func(state, waitFor string) string {
		return `
resource "fleet_update_run" "r" {
  name     = "oob-run"
  state    = "` + state + `"
  wait_for = "` + waitFor + `"
  # The after-stage gate is never approved: the run stays Running however fast the clock runs.
  stages   = [{ name = "ob", groups = [{ name = "ob" }], after_stage_wait_in_seconds = 43200, after_gates = [{ type = "Approval" }] }]
  managed_cluster_update = { upgrade = { type = "NodeImageOnly" } }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg("NotStarted", "none"),
		}, {
			PreConfig:          func() { outOfBand(t, "oob-run", true) },
			Config:             cfg("NotStarted", "none"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true, // planned (the warning says apply leaves the started run alone), not an error
		}, {
			Config: cfg("Stopped", "none"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("state"), knownvalue.StringExact("Stopped")),
			},
		}, {
			Config: cfg("Running", "started"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionUpdate),
			}},
			Check: func(*terraform.State) error {
				run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "oob-run")
				if err != nil {
					return err
				}
				if s := run.Properties.Status.Status.State; s == fleetapi.UpdateStateNotStarted || s == fleetapi.UpdateStateStopped {
					return fmt.Errorf("wait_for = started returned while the run is %s", s)
				}
				return nil
			},
		}, {
			PreConfig:          func() { outOfBand(t, "oob-run", false) },
			Config:             cfg("Running", "started"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true, // stopped outside: the plan starts it again, and says so
		}},
	})
}
