package rollout

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What fleet_update_run_start and fleet_update_run_stop share: read the run,
// check its state allows the transition (before any request), ask the Fleet
// API for it unless the run is there already, then report progress.

// runActionModel is the configuration of the start and stop actions.
type runActionModel struct {
	runActionConfig
	WaitFor types.String `tfsdk:"wait_for"`
}

// runTransition is one of the run's transitions, as an action performs it.
type runTransition struct {
	verb, gerund string // "start", "starting"
	// check says whether the run is there already, or why its state refuses the transition.
	check func(rollout.State) (bool, error)
	begin func(fc *fleetapi.Client, ctx context.Context, fleet fleetapi.FleetID, name string, pre *fleetapi.Precondition) (*runtime.Poller[fleetapi.UpdateRun], error)
	// description is the action's; wait_for is waitEarly (the action ends once the transition is
	// asked for, saying early when set) or waitFollow (it follows the run until until holds, and
	// end says how the run ended: an error's summary and detail, or "").
	description                        string
	waitDefault, waitEarly, waitFollow string
	early                              string
	until                              func(rollout.State) bool
	waitSummary                        string
	end                                func(run *fleetapi.UpdateRun, name string, progress shared.Progress) (summary, detail string)
}

// runTransitionAction is the action that performs K's transition: fleet_update_run_start and
// fleet_update_run_stop.
type runTransitionAction[K interface{ transition() runTransition }] struct{ shared.ActionBase }

var (
	_ action.ActionWithConfigure = (*updateRunStartAction)(nil)
	_ action.ActionWithConfigure = (*updateRunStopAction)(nil)
)

func (a *runTransitionAction[K]) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	var k K
	t := k.transition()
	resp.Schema = runActionSchema(ctx, t.description, map[string]aschema.Attribute{
		"wait_for": waitForAttribute(t.waitDefault, t.waitEarly, t.waitFollow),
	})
}

func (a *runTransitionAction[K]) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var k K
	t := k.transition()
	invokeRunTransition(ctx, a.Clients, req, resp, t, func(ctx context.Context, m runActionModel, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress) {
		name := m.UpdateRun.ValueString()
		if actionWaitFor(m.WaitFor, t.waitDefault) != t.waitFollow {
			if t.early != "" {
				progress(t.early, name)
			}
			return
		}
		run, err := followRun(ctx, fc, fleet, name, progress, t.until)
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, t.waitSummary, fmt.Errorf("update run %q: %w", name, err))
			return
		}
		if summary, detail := t.end(run, name, progress); summary != "" {
			resp.Diagnostics.AddError(summary, detail)
		}
	})
}

// invokeRunTransition performs t, then lets wait follow the run as the
// action's wait_for says.
func invokeRunTransition(ctx context.Context, clients *session.Session, req action.InvokeRequest, resp *action.InvokeResponse, t runTransition,
	wait func(ctx context.Context, m runActionModel, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress)) {
	invokeRunAction(ctx, clients, req, resp, func(ctx context.Context, m *runActionModel, fc *fleetapi.Client, fleet fleetapi.FleetID, run *fleetapi.UpdateRun, progress shared.Progress) {
		name := m.UpdateRun.ValueString()
		state := rollout.State(runState(run))
		done, err := t.check(state)
		if err != nil {
			resp.Diagnostics.AddAttributeError(pathUpdateRun, fmt.Sprintf("Update run cannot be %s", pastTense(t.verb)), fmt.Sprintf("Update run %q: %v.", name, err))
			return
		}
		if done {
			progress("update run %s is already %s; nothing to %s", name, state, t.verb)
		} else {
			progress("%s update run %s (%s)", t.gerund, name, state)
			poller, beginErr := t.begin(fc, ctx, fleet, name, nil)
			if run, err = shared.PollDone(ctx, poller, beginErr); err != nil {
				backend.AddBackendError(&resp.Diagnostics, fmt.Sprintf("%s the update run", capitalize(t.gerund)), fmt.Errorf("update run %q: %w", name, err))
				return
			}
			progress("%s", runProgress(run))
		}
		wait(ctx, *m, fc, fleet, progress)
	})
}

func pastTense(verb string) string {
	if verb == "stop" {
		return "stopped"
	}
	return verb + "ed"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// actionWaitFor is an action's wait_for: "none" returns once the request is accepted.
func actionWaitFor(v types.String, def string) string {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueString()
}
