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

var _ action.ActionWithConfigure = (*updateRunStartAction)(nil)

// updateRunStartAction is fleet_update_run_start: POST updateRuns/{name}/start.
type updateRunStartAction struct{ shared.ActionBase }

func (a *updateRunStartAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = aschema.Schema{
		Description: "Starts an update run (or restarts a Stopped or Failed one) and reports its progress: stages, groups, " +
			"the members being updated, gates waited on, members done of the total. A run that is already Running or Pending " +
			"is left as it is; a Completed, Skipped or Stopping run is refused before any request, with its state. " +
			"Invoke it with `terraform apply -invoke=action.fleet_update_run_start.<name>`, or after a `fleet_update_run` " +
			"created with `state = \"NotStarted\"` through `action_trigger`. Requires Terraform 1.14 or later.",
		Attributes: map[string]aschema.Attribute{
			"fleet_id":   actionFleetIDAttribute(),
			"update_run": actionRunAttribute(),
			"wait_for":   waitForAttribute("started", "started", "completed"),
			"timeouts":   actionTimeoutsAttribute(ctx),
		},
	}
}

type updateRunStartModel struct {
	FleetID   types.String   `tfsdk:"fleet_id"`
	UpdateRun types.String   `tfsdk:"update_run"`
	WaitFor   types.String   `tfsdk:"wait_for"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (a *updateRunStartAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m updateRunStartModel
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
	done, err := rollout.StartCheck(state)
	if err != nil {
		resp.Diagnostics.AddAttributeError(pathUpdateRun, "Update run cannot be started", fmt.Sprintf("Update run %q: %v.", name, err))
		return
	}
	if done {
		progress("update run %s is already %s; nothing to start", name, state)
	} else {
		progress("starting update run %s (%s)", name, state)
		poller, err := fc.BeginStartUpdateRun(ctx, fleet, name, nil)
		if run, err = shared.PollDone(ctx, poller, err); err != nil {
			shared.AddBackendError(&resp.Diagnostics, "Starting the update run", fmt.Errorf("update run %q: %w", name, err))
			return
		}
		progress("%s", runProgress(run))
	}
	if shared.ActionWaitFor(m.WaitFor, "started") != "completed" {
		progress("update run %s started", name)
		return
	}
	run, err = followRun(ctx, fc, fleet, name, progress, func(s rollout.State) bool { return s.Finished() || s == rollout.Failed || s == rollout.Stopped })
	if err != nil {
		shared.AddBackendError(&resp.Diagnostics, "Waiting for the update run", fmt.Errorf("update run %q: %w", name, err))
		return
	}
	if s := rollout.State(runState(run)); !s.Finished() {
		detail := ""
		if e := run.Properties.Status.Status.Error; e != nil {
			detail = ": " + e.Message
		}
		resp.Diagnostics.AddError("Update run did not complete", fmt.Sprintf("Update run %q ended %s%s. Fix the cause and start it again.", name, s, detail))
		return
	}
	progress("update run %s completed", name)
}
