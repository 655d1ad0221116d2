package rollout

import (
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// updateRunStopAction is fleet_update_run_stop: POST updateRuns/{name}/stop.
type updateRunStopAction = runTransitionAction[stopTransition]

type stopTransition struct{}

func (stopTransition) transition() runTransition {
	return runTransition{verb: "stop", gerund: "stopping", check: rollout.StopCheck, begin: (*fleetapi.Client).BeginStopUpdateRun,
		description: "Stops a Running or Pending update run. Member upgrades already under way are not canceled: the run is " +
			"Stopping until they end, then Stopped; the action reports them while it waits (`wait_for = \"stopped\"`, the default). " +
			"A Stopping or Stopped run is left as it is; a NotStarted, Completed, Skipped or Failed run is refused before any " +
			"request, with its state. Requires Terraform 1.14 or later.",
		waitDefault: "stopped", waitEarly: "stopping", waitFollow: "stopped",
		until:       func(s rollout.State) bool { return s != rollout.Stopping },
		waitSummary: "Waiting for the update run to stop",
		end: func(run *fleetapi.UpdateRun, name string, progress shared.Progress) (string, string) {
			progress("update run %s is %s", name, runState(run))
			return "", ""
		},
	}
}
