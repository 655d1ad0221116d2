package rollout

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ action.ActionWithConfigure = (*updateRunStopAction)(nil)

// updateRunStopAction is fleet_update_run_stop: POST updateRuns/{name}/stop.
type updateRunStopAction struct{ shared.ActionBase }

func (a *updateRunStopAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = aschema.Schema{
		Description: "Stops a Running or Pending update run. Member upgrades already under way are not canceled: the run is " +
			"Stopping until they end, then Stopped; the action reports them while it waits (`wait_for = \"stopped\"`, the default). " +
			"A Stopping or Stopped run is left as it is; a NotStarted, Completed, Skipped or Failed run is refused before any " +
			"request, with its state. Requires Terraform 1.14 or later.",
		Attributes: map[string]aschema.Attribute{
			"fleet_id":   actionFleetIDAttribute(),
			"update_run": actionRunAttribute(),
			"wait_for":   waitForAttribute("stopped", "stopping", "stopped"),
			"timeouts":   actionTimeoutsAttribute(ctx),
		},
	}
}

type updateRunStopModel struct {
	FleetID   types.String   `tfsdk:"fleet_id"`
	UpdateRun types.String   `tfsdk:"update_run"`
	WaitFor   types.String   `tfsdk:"wait_for"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (a *updateRunStopAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m updateRunStopModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := actionContext(ctx, m.Timeouts, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	fc, fleet, ok := shared.FleetClient(a.Clients, m.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	progress := shared.NewProgress(resp)
	name := m.UpdateRun.ValueString()
	run, ok := readRun(ctx, fc, fleet, m.UpdateRun, &resp.Diagnostics)
	if !ok {
		return
	}
	state := rollout.State(runState(run))
	done, err := rollout.StopCheck(state)
	if err != nil {
		resp.Diagnostics.AddAttributeError(pathUpdateRun, "Update run cannot be stopped", fmt.Sprintf("Update run %q: %v.", name, err))
		return
	}
	if done {
		progress("update run %s is already %s; nothing to stop", name, state)
	} else {
		progress("stopping update run %s (%s)", name, state)
		poller, err := fc.BeginStopUpdateRun(ctx, fleet, name, nil)
		if run, err = shared.PollDone(ctx, poller, err); err != nil {
			shared.AddBackendError(&resp.Diagnostics, "Stopping the update run", fmt.Errorf("update run %q: %w", name, err))
			return
		}
		progress("%s", runProgress(run))
	}
	if shared.ActionWaitFor(m.WaitFor, "stopped") == "stopping" {
		return
	}
	run, err = followRun(ctx, fc, fleet, name, progress, func(s rollout.State) bool { return s != rollout.Stopping })
	if err != nil {
		shared.AddBackendError(&resp.Diagnostics, "Waiting for the update run to stop", fmt.Errorf("update run %q: %w", name, err))
		return
	}
	progress("update run %s is %s", name, runState(run))
}
