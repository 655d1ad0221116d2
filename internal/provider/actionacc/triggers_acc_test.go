package actionacc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Terraform 1.16's action triggers on destroy and their on_failure modes (make test runs v1.16.0):
// a run held at a gate is stopped by a before_destroy trigger, its progress shown, before Terraform
// deletes it; a run that already completed refuses the stop, and on_failure = continue turns that
// refusal into a warning so the destroy goes on; with the default (halt) the same refusal stops the
// destroy and keeps the run in state.
const destroyTriggersConfig = `
resource "fleet_update_run" "held" {
  name                   = "held-run"
  stages                 = [{ name = "canary", groups = [{ name = "canary" }], after_gates = [{ type = "Approval", display_name = "hold" }] }, { name = "prod", groups = [{ name = "prod" }] }]
  wait_for               = "none"
  managed_cluster_update = { upgrade = { type = "Full", kubernetes_version = "1.33.1" } }
  lifecycle {
    action_trigger {
      events  = [before_destroy]
      actions = [action.fleet_update_run_stop.held]
    }
  }
}

action "fleet_update_run_stop" "held" {
  config {
    update_run = "held-run"
  }
}

resource "fleet_update_run" "done" {
  name                   = "done-run"
  stages                 = [{ name = "canary", groups = [{ name = "canary" }] }]
  wait_for               = "completed"
  managed_cluster_update = { upgrade = { type = "Full", kubernetes_version = "1.33.1" } }
  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.fleet_update_run_stop.done]
      on_failure = %s
    }
  }
}

action "fleet_update_run_stop" "done" {
  config {
    update_run = "done-run"
  }
}
`

func TestAccActions_destroyTriggers(t *testing.T) {
	ctx := context.Background()
	fc := acctest.FleetAPI(t)
	w := acctest.NewWorkdir(t, fmt.Sprintf(destroyTriggersConfig, "halt"))
	w.Must("apply", "-auto-approve", "-input=false")
	if err := acctest.Eventually(30*time.Second, "held-run waits at its gate", func() (bool, string) {
		r, err := fc.GetUpdateRun(ctx, actionsFleet, "held-run")
		if err != nil {
			return false, err.Error()
		}
		gates := r.Properties.Status.Stages[0].AfterGates
		return len(gates) == 1 && gates[0].Status.State == fleetapi.UpdateStatePending, fmt_(r)
	}); err != nil {
		t.Fatal(err)
	}

	// halt (the default): the completed run refuses the stop, and its destroy stops there.
	out, err := w.Run("destroy", "-auto-approve", "-input=false", "-target=fleet_update_run.done")
	if err == nil {
		t.Fatalf("destroy with on_failure = halt succeeded although done-run refuses the stop:\n%s", out)
	}
	acctest.Lines(t, out, `Error: Update run cannot be stopped`)
	if _, ok := w.State()["fleet_update_run.done"]; !ok {
		t.Fatalf("halt: done-run left the state although the destroy halted:\n%s", out)
	}

	// continue: the refusal is a warning, the held run is stopped before it is deleted, both go.
	w.Write("main.tf", fmt.Sprintf(destroyTriggersConfig, "continue"))
	out = w.Must("destroy", "-auto-approve", "-input=false")
	acctest.Lines(t, out,
		`action.fleet_update_run_stop.held \(triggered by fleet_update_run.held\): (stopping update run held-run \(Pending\)|update run held-run is already Stopped; nothing to stop)`,
		`Destroy complete! Resources: 2 destroyed.`)
	acctest.Lines(t, out, `Warning: Update run cannot be stopped`)
	for _, name := range []string{"held-run", "done-run"} {
		if err := acctest.Eventually(30*time.Second, name+" is deleted", func() (bool, string) {
			_, err := fc.GetUpdateRun(ctx, actionsFleet, name)
			return fleetapi.IsNotFound(err), "still there"
		}); err != nil {
			t.Fatal(err)
		}
	}
}
