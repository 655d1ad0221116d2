package rollout

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ action.ActionWithConfigure = (*updateRunStopAction)(nil)

// updateRunStopAction is fleet_update_run_stop: POST updateRuns/{name}/stop.
type updateRunStopAction struct{ shared.ActionBase }

func (a *updateRunStopAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = runActionSchema(ctx, "Stops a Running or Pending update run. Member upgrades already under way are not canceled: the run is "+
		"Stopping until they end, then Stopped; the action reports them while it waits (`wait_for = \"stopped\"`, the default). "+
		"A Stopping or Stopped run is left as it is; a NotStarted, Completed, Skipped or Failed run is refused before any "+
		"request, with its state. Requires Terraform 1.14 or later.", map[string]aschema.Attribute{
		"wait_for": waitForAttribute("stopped", "stopping", "stopped"),
	})
}

func (a *updateRunStopAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	invokeRunTransition(ctx, a.Clients, req, resp, runTransition{verb: "stop", gerund: "stopping", check: rollout.StopCheck, begin: (*fleetapi.Client).BeginStopUpdateRun},
		func(ctx context.Context, m runActionModel, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress) {
			name := m.UpdateRun.ValueString()
			if shared.ActionWaitFor(m.WaitFor, "stopped") == "stopping" {
				return
			}
			run, err := followRun(ctx, fc, fleet, name, progress, func(s rollout.State) bool { return s != rollout.Stopping })
			if err != nil {
				shared.AddBackendError(&resp.Diagnostics, "Waiting for the update run to stop", fmt.Errorf("update run %q: %w", name, err))
				return
			}
			progress("update run %s is %s", name, runState(run))
		})
}
