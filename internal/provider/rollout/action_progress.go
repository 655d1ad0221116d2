package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What the update-run actions share: their common attributes, the progress line a run's
// status makes, and the wait on a run.

// actionInvokeTimeout is how long an action may run unless timeouts.invoke says otherwise.
const actionInvokeTimeout = 2 * time.Hour

var pathUpdateRun = path.Root("update_run")

func waitForAttribute(def string, values ...string) aschema.StringAttribute {
	return aschema.StringAttribute{Optional: true,
		Description: fmt.Sprintf("What to wait for before the action ends: `%s`. Default `%s`.", strings.Join(values, "`, `"), def),
		Validators:  []validator.String{stringvalidator.OneOf(values...)}}
}

// fleetActionConfig is the configuration every Fleet API action has; its model embeds it.
type fleetActionConfig struct {
	FleetID types.String `tfsdk:"fleet_id"`
	shared.ActionTimeouts
}

func (c *fleetActionConfig) fleetAction() *fleetActionConfig { return c }

type fleetActionModel[M any] interface {
	shared.ActionModel[M]
	fleetAction() *fleetActionConfig
}

// fleetActionSchema is a Fleet API action's schema: fleet_id, the timeouts block and its own attributes.
func fleetActionSchema(ctx context.Context, description string, attrs map[string]aschema.Attribute) aschema.Schema {
	attrs["fleet_id"] = aschema.StringAttribute{Optional: true,
		Description: "The fleet's ARM resource ID. Default: the provider's fleet (`azure.resource_group_name` and `azure.fleet_name`)."}
	return aschema.Schema{Description: description, Attributes: attrs, Blocks: map[string]aschema.Block{
		"timeouts": shared.ActionTimeoutsBlock(ctx, "run", actionInvokeTimeout),
	}}
}

// invokeFleetAction is shared.InvokeAction for a Fleet API action: do gets its fleet and client.
func invokeFleetAction[M any, P fleetActionModel[M]](ctx context.Context, clients *session.Session, req action.InvokeRequest, resp *action.InvokeResponse,
	do func(ctx context.Context, m *M, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress)) {
	shared.InvokeAction[M, P](ctx, req, resp, actionInvokeTimeout, func(ctx context.Context, m *M, progress shared.Progress) {
		fc, fleet, ok := backend.FleetClient(clients, P(m).fleetAction().FleetID, &resp.Diagnostics)
		if !ok {
			return
		}
		do(ctx, m, fc, fleet, progress)
	})
}

// runActionConfig is the configuration every action on an update run has; its model embeds it.
type runActionConfig struct {
	fleetActionConfig
	UpdateRun types.String `tfsdk:"update_run"`
}

func (c *runActionConfig) runAction() *runActionConfig { return c }

// runActionSchema is fleetActionSchema for an action on an update run, with update_run.
func runActionSchema(ctx context.Context, description string, attrs map[string]aschema.Attribute) aschema.Schema {
	attrs["update_run"] = aschema.StringAttribute{Required: true, Description: "The update run's name (`fleet_update_run.<name>.name`).",
		Validators: childNameValidators()}
	return fleetActionSchema(ctx, description, attrs)
}

// invokeRunAction is invokeFleetAction for an action on an update run: do gets the run, read first.
func invokeRunAction[M any, P interface {
	fleetActionModel[M]
	runAction() *runActionConfig
}](ctx context.Context, clients *session.Session, req action.InvokeRequest, resp *action.InvokeResponse,
	do func(ctx context.Context, m *M, fc *fleetapi.Client, fleet fleetapi.FleetID, run *fleetapi.UpdateRun, progress shared.Progress)) {
	invokeFleetAction[M, P](ctx, clients, req, resp, func(ctx context.Context, m *M, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress) {
		run, ok := readRun(ctx, fc, fleet, P(m).runAction().UpdateRun, &resp.Diagnostics)
		if !ok {
			return
		}
		do(ctx, m, fc, fleet, run, progress)
	})
}

func stateOf(s *fleetapi.UpdateStatus) rollout.State {
	if s == nil || s.State == "" {
		return rollout.NotStarted
	}
	return rollout.State(s.State)
}

// runProgress is the line a run's status makes: its state, the stage and groups under way with
// the members being updated, what it waits for, and members done of the total.
func runProgress(run *fleetapi.UpdateRun) string {
	if run.Properties == nil || run.Properties.Status == nil {
		return fmt.Sprintf("update run %s: NotStarted", run.Name)
	}
	st := run.Properties.Status
	done, total := 0, 0
	var where []string
	for _, s := range st.Stages {
		var groups []string
		for _, g := range s.Groups {
			var updating []string
			for _, m := range g.Members {
				total++
				switch ms := stateOf(m.Status); {
				case ms.Finished():
					done++
				case ms.InFlight() || ms == rollout.Pending:
					updating = append(updating, fmt.Sprintf("%s %s", m.Name, ms))
				}
			}
			if gs := stateOf(g.Status); gs == rollout.Running || gs == rollout.Pending || gs == rollout.Stopping {
				line := fmt.Sprintf("group %s %s", g.Name, gs)
				if len(updating) > 0 {
					line += " (" + strings.Join(updating, ", ") + ")"
				}
				groups = append(groups, line)
			}
			groups = append(groups, gatesWaiting("group "+g.Name, g.BeforeGates, g.AfterGates)...)
		}
		waits := gatesWaiting("stage "+s.Name, s.BeforeGates, s.AfterGates)
		if w := s.AfterStageWaitStatus; w != nil && stateOf(w.Status) == rollout.Running {
			waits = append(waits, fmt.Sprintf("after-stage wait of %ds running", w.WaitDurationInSeconds))
		}
		if ss := stateOf(s.Status); ss == rollout.Running || ss == rollout.Pending || ss == rollout.Stopping || len(waits) > 0 {
			where = append(where, fmt.Sprintf("stage %s %s", s.Name, ss)+prefixed(": ", strings.Join(append(groups, waits...), "; ")))
		}
	}
	return fmt.Sprintf("update run %s %s", run.Name, stateOf(st.Status)) + prefixed(", ", strings.Join(where, ", ")) +
		fmt.Sprintf(" — members %d/%d done", done, total)
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// gatesWaiting names the Pending gates of a stage or group.
func gatesWaiting(what string, before, after []fleetapi.UpdateRunGateStatus) []string {
	var out []string
	for i, gs := range [][]fleetapi.UpdateRunGateStatus{before, after} {
		timing := [...]string{"Before", "After"}[i]
		for _, g := range gs {
			if stateOf(g.Status) == rollout.Pending {
				out = append(out, fmt.Sprintf("waiting for approval of the %s gate %q of %s", timing, g.DisplayName, what))
			}
		}
	}
	return out
}

// followRun reads the run every poll interval, sending its progress line when it changes, until
// until says it is where the action wanted it.
func followRun(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, name string, progress shared.Progress, until func(rollout.State) bool) (*fleetapi.UpdateRun, error) {
	var last *fleetapi.UpdateRun
	err := shared.PollEvery(ctx, pollInterval(), func(ctx context.Context) (bool, error) {
		run, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			return false, err
		}
		last = run
		progress("%s", runProgress(run))
		return until(rollout.State(runState(run))), nil
	})
	return last, err
}

// readRun reads the run the action names, or reports why it cannot.
func readRun(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, name types.String, diags *diag.Diagnostics) (*fleetapi.UpdateRun, bool) {
	run, err := fc.GetUpdateRun(ctx, fleet, name.ValueString())
	if err != nil {
		if fleetapi.IsNotFound(err) {
			diags.AddAttributeError(pathUpdateRun, "Update run not found", fmt.Sprintf("The fleet has no update run %q.", name.ValueString()))
			return nil, false
		}
		backend.AddBackendError(diags, "Reading the update run", err)
		return nil, false
	}
	return run, true
}
