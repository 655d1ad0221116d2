package staged_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
)

var approveBase = externalPlacement("gated") + approvalStageStrategy("gated") + `

action "fleet_staged_update_run_approve" "all" {
  config {
    update_run = "gated-1"
    stage      = "all"
    approval   = "Before"
  }
}

action "fleet_staged_update_run_approve" "after" {
  config {
    update_run = "gated-1"
    stage      = "all"
  }
}

action "fleet_staged_update_run_approve" "nostage" {
  config {
    update_run = "gated-1"
    stage      = "canary"
  }
}
`

// fleet_staged_update_run_approve through the real CLI on KubeFleet v0.18.9's hub agent: triggered
// after the run is created, it waits for the run's before-stage approval request, approves it and
// the run succeeds; invoked again, it writes nothing; an approval the strategy does not have and a
// stage the run does not have are refused before anything is written.
func TestAccStagedUpdateRunApproveAction(t *testing.T) {
	h, _ := stagedHub(t, "gated")
	ctx := context.Background()
	w := acctest.NewWorkdir(t, approveBase)
	w.Must("apply", "-auto-approve", "-input=false")
	acctest.NewHubClients(t).WaitForBindings(t, "gated", 3)
	w.Write("main.tf", approveBase+`
resource "fleet_staged_update_run" "r" {
  name                        = "gated-1"
  placement_name              = fleet_placement.gated.id
  staged_update_strategy_name = fleet_staged_update_strategy.gated.id
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.fleet_staged_update_run_approve.all]
    }
  }
}
`)
	out := w.Must("apply", "-auto-approve", "-input=false")
	acctest.Lines(t, out,
		`Action started: action.fleet_staged_update_run_approve.all \(triggered by fleet_staged_update_run.r\)`,
		`\(triggered by fleet_staged_update_run.r\): waiting for staged update run gated-1 to request the before-stage approval of stage all — `,
		`\(triggered by fleet_staged_update_run.r\): approving ClusterApprovalRequest gated-1-before-all \(before-stage approval of stage all of staged update run gated-1\)`,
		`\(triggered by fleet_staged_update_run.r\): approved the before-stage approval of stage all of staged update run gated-1`)
	if err := acctest.Eventually(2*time.Minute, "run gated-1 succeeds", func() (bool, string) {
		run, err := h.Run(ctx, "", "gated-1")
		if err != nil {
			return false, err.Error()
		}
		s, msg := staged.RunState(run)
		return s == staged.StateSucceeded, string(s) + " " + msg
	}); err != nil {
		t.Fatal(err)
	}
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_staged_update_run_approve.all")
	acctest.Lines(t, out, `ClusterApprovalRequest gated-1-before-all \(before-stage approval of stage all\) is already approved`)
	for action, want := range map[string]string{
		"after":   `Staged update run "gated-1": stage "all" has no after-stage Approval task.`,
		"nostage": `Staged update run "gated-1": the run has no stage "canary" \(its stages: all\).`,
	} {
		out, err := w.Run("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_staged_update_run_approve."+action)
		if err == nil || !acctest.WrappedRegexp(want).MatchString(out) {
			t.Fatalf("%s: %v\n%s", action, err, out)
		}
	}
}
