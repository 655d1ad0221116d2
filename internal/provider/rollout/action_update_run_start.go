package rollout

import (
	"fmt"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// updateRunStartAction is fleet_update_run_start: POST updateRuns/{name}/start.
type updateRunStartAction = runTransitionAction[startTransition]

type startTransition struct{}

func (startTransition) transition() runTransition {
	return runTransition{verb: "start", gerund: "starting", check: rollout.StartCheck, begin: (*fleetapi.Client).BeginStartUpdateRun,
		description: "Starts an update run (or restarts a Stopped or Failed one) and reports its progress: stages, groups, " +
			"the members being updated, gates waited on, members done of the total. A run that is already Running or Pending " +
			"is left as it is; a Completed, Skipped or Stopping run is refused before any request, with its state. " +
			"Invoke it with `terraform apply -invoke=action.fleet_update_run_start.<name>`, or after a `fleet_update_run` " +
			"created with `state = \"NotStarted\"` through `action_trigger`. Requires Terraform 1.14 or later.",
		waitDefault: "started", waitEarly: "started", waitFollow: "completed", early: "update run %s started",
		until:       func(s rollout.State) bool { return s.Finished() || s == rollout.Failed || s == rollout.Stopped },
		waitSummary: "Waiting for the update run",
		end: func(run *fleetapi.UpdateRun, name string, progress shared.Progress) (string, string) {
			if s := rollout.State(runState(run)); !s.Finished() {
				return fmt.Sprintf("Update run %s", s), fmt.Sprintf("Update run %q ended %s.\n\n%s", name, s, runFailureDetail(run))
			}
			progress("update run %s completed", name)
			return "", ""
		},
	}
}
