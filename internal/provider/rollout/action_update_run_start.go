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

var _ action.ActionWithConfigure = (*updateRunStartAction)(nil)

// updateRunStartAction is fleet_update_run_start: POST updateRuns/{name}/start.
type updateRunStartAction struct{ shared.ActionBase }

func (a *updateRunStartAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = runActionSchema(ctx, "Starts an update run (or restarts a Stopped or Failed one) and reports its progress: stages, groups, "+
		"the members being updated, gates waited on, members done of the total. A run that is already Running or Pending "+
		"is left as it is; a Completed, Skipped or Stopping run is refused before any request, with its state. "+
		"Invoke it with `terraform apply -invoke=action.fleet_update_run_start.<name>`, or after a `fleet_update_run` "+
		"created with `state = \"NotStarted\"` through `action_trigger`. Requires Terraform 1.14 or later.", map[string]aschema.Attribute{
		"wait_for": waitForAttribute("started", "started", "completed"),
	})
}

func (a *updateRunStartAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	invokeRunTransition(ctx, a.Clients, req, resp, runTransition{verb: "start", gerund: "starting", check: rollout.StartCheck, begin: (*fleetapi.Client).BeginStartUpdateRun},
		func(ctx context.Context, m runActionModel, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress) {
			name := m.UpdateRun.ValueString()
			if shared.ActionWaitFor(m.WaitFor, "started") != "completed" {
				progress("update run %s started", name)
				return
			}
			run, err := followRun(ctx, fc, fleet, name, progress, func(s rollout.State) bool { return s.Finished() || s == rollout.Failed || s == rollout.Stopped })
			if err != nil {
				shared.AddBackendError(&resp.Diagnostics, "Waiting for the update run", fmt.Errorf("update run %q: %w", name, err))
				return
			}
			if s := rollout.State(runState(run)); !s.Finished() {
				resp.Diagnostics.AddError(fmt.Sprintf("Update run %s", s), fmt.Sprintf("Update run %q ended %s.\n\n%s", name, s, runFailureDetail(run)))
				return
			}
			progress("update run %s completed", name)
		})
}
