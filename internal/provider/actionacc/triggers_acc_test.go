package actionacc

import (
	"context"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Terraform 1.16's action triggers on destroy (make test runs v1.16.0): a run held at a gate (before
// its first stage, so that members other tests upgraded already do not skip the stage past it) is
// stopped by a before_destroy trigger, its progress shown, before Terraform deletes it; a run that
// already ended (Completed, or Skipped when other tests upgraded its member first) refuses the stop
// with its state. Terraform v1.16.0 reports that refusal and
// destroys the run anyway, with on_failure = halt (the default) as with continue: the destroy of a
// run never hangs on its stop action.
const destroyTriggersConfig = `
resource "fleet_update_run" "held" {
  name                   = "held-run"
  wait_for               = "none"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
    before_gate {
      type         = "Approval"
      display_name = "hold"
    }
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
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
  wait_for               = "completed"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.fleet_update_run_stop.done]
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
	w := acctest.NewWorkdir(t, destroyTriggersConfig)
	w.Must("apply", "-auto-approve", "-input=false")
	if err := acctest.Eventually(30*time.Second, "held-run waits at its gate", func() (bool, string) {
		r, err := fc.GetUpdateRun(ctx, actionsFleet, "held-run")
		if err != nil {
			return false, err.Error()
		}
		gates := r.Properties.Status.Stages[0].BeforeGates
		return len(gates) == 1 && gates[0].Status.State == fleetapi.UpdateStatePending, fmt_(r)
	}); err != nil {
		t.Fatal(err)
	}

	out := w.Must("destroy", "-auto-approve", "-input=false")
	acctest.Lines(t, out, `action.fleet_update_run_stop.held \(triggered by fleet_update_run.held\): stopping update run held-run \(Pending\)`)
	acctest.Lines(t, out,
		`Action failed: action.fleet_update_run_stop.done \(triggered by fleet_update_run.done\) - Update run cannot be stopped: Update run "done-run": the update run is (Completed|Skipped); stop works from Running or Pending.`,
		`Destroy complete! Resources: 2 destroyed. Actions: 2 invoked, 1 failed.`)
	for _, name := range []string{"held-run", "done-run"} {
		if err := acctest.Eventually(30*time.Second, name+" is deleted", func() (bool, string) {
			_, err := fc.GetUpdateRun(ctx, actionsFleet, name)
			return fleetapi.IsNotFound(err), "still there"
		}); err != nil {
			t.Fatal(err)
		}
	}
}
