package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ action.ActionWithConfigure      = (*gateApproveAction)(nil)
	_ action.ActionWithValidateConfig = (*gateApproveAction)(nil)
)

// gateApproveAction is fleet_gate_approve: PATCH gates/{name} with state Completed.
type gateApproveAction struct{ shared.ActionBase }

func (a *gateApproveAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = runActionSchema(ctx, "Approves an update run's approval gate (a ScheduledStart gate, which completes itself at its time, is refused), named as the gates API names its target: the run, the stage, "+
		"the group (for a group's gate) and the timing (`Before` or `After`) — or by the gate's own name (`gate`), which must "+
		"belong to the run. While the run has not reached the gate yet and is Running or Pending, the action waits for it, "+
		"reporting the run's progress. An approved (Completed) gate is not an error: nothing is sent. A Skipped gate, a gate "+
		"of another run, or a gate not reached by a run that is not under way is refused before any request. "+
		"Requires Terraform 1.14 or later.", map[string]aschema.Attribute{
		"stage": aschema.StringAttribute{Optional: true, Description: "The stage of the gate. Required unless `gate` is set."},
		"group": aschema.StringAttribute{Optional: true, Description: "The group of a group's gate; unset for a stage's gate."},
		"timing": aschema.StringAttribute{Optional: true, Description: "`Before` or `After` the stage or group. Required unless `gate` is set.",
			Validators: []validator.String{stringvalidator.OneOf("Before", "After")}},
		"gate": aschema.StringAttribute{Optional: true, Description: "The gate's name (a fleets/gates resource), instead of stage, group and timing.",
			Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("stage"), path.MatchRoot("group"), path.MatchRoot("timing"))}},
	})
}

type gateApproveModel struct {
	runActionConfig
	Stage  types.String `tfsdk:"stage"`
	Group  types.String `tfsdk:"group"`
	Timing types.String `tfsdk:"timing"`
	Gate   types.String `tfsdk:"gate"`
}

func (a *gateApproveAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m gateApproveModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() || !m.Gate.IsNull() {
		return
	}
	for _, p := range []struct {
		name string
		v    types.String
	}{{"stage", m.Stage}, {"timing", m.Timing}} {
		if p.v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(p.name), "Missing gate position", "Set stage and timing (and group for a group's gate), or gate.")
		}
	}
}

func (a *gateApproveAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	invokeRunAction(ctx, a.Clients, req, resp, func(ctx context.Context, m *gateApproveModel, fc *fleetapi.Client, fleet fleetapi.FleetID, run *fleetapi.UpdateRun, progress shared.Progress) {
		runName := m.UpdateRun.ValueString()
		var names []string
		what := ""
		if !m.Gate.IsNull() {
			gate, err := fc.GetGate(ctx, fleet, m.Gate.ValueString())
			if err != nil {
				backend.AddBackendError(&resp.Diagnostics, "Reading the gate", fmt.Errorf("gate %q: %w", m.Gate.ValueString(), err))
				return
			}
			if owner := gateRun(gate); owner != runName {
				resp.Diagnostics.AddAttributeError(path.Root("gate"), "Gate of another update run",
					fmt.Sprintf("Gate %q belongs to update run %q, not %q; nothing was approved.", gate.Name, owner, runName))
				return
			}
			names, what = []string{gate.Name}, "gate "+gate.Name
		} else {
			where := gatePosition{stage: m.Stage.ValueString(), group: m.Group.ValueString(), timing: m.Timing.ValueString()}
			what = where.String()
			for {
				ids, state, err := where.find(run)
				if err != nil {
					resp.Diagnostics.AddError("Gate not in the update run", fmt.Sprintf("Update run %q: %v.", runName, err))
					return
				}
				if len(ids) > 0 {
					names = ids
					break
				}
				// Not reached yet: only a run under way will reach it.
				if rs := rollout.State(runState(run)); rs != rollout.Running && rs != rollout.Pending {
					resp.Diagnostics.AddError("Gate not reached", fmt.Sprintf("Update run %q has not reached the %s (it is %s there) and is %s, so it will not; "+
						"a gate can be approved once a Running run reaches it. Start the run first (fleet_update_run_start).", runName, what, state, rs))
					return
				}
				progress("waiting for update run %s to reach the %s", runName, what)
				err = shared.PollEvery(ctx, pollInterval(), func(ctx context.Context) (bool, error) {
					got, err := fc.GetUpdateRun(ctx, fleet, runName)
					if err != nil {
						return false, err
					}
					run = got
					ids, _, _ := where.find(run)
					rs := rollout.State(runState(run))
					progress("%s", runProgress(run))
					return len(ids) > 0 || (rs != rollout.Running && rs != rollout.Pending), nil
				})
				if err != nil {
					backend.AddBackendError(&resp.Diagnostics, "Waiting for the gate", fmt.Errorf("update run %q: %w", runName, err))
					return
				}
			}
		}
		// Read every gate first: a ScheduledStart gate is refused before anything is approved, or,
		// beside Approval gates at the same position, left to complete itself.
		type namedGate struct {
			name string
			gate *fleetapi.Gate
		}
		var gates []namedGate
		var refusal error
		for _, name := range names {
			gate, err := fc.GetGate(ctx, fleet, name)
			if err != nil {
				backend.AddBackendError(&resp.Diagnostics, "Reading the gate", fmt.Errorf("gate %q: %w", name, err))
				return
			}
			if err := scheduledStartRefusal(gate); err != nil {
				refusal = fmt.Errorf("gate %s: %w", name, err)
				continue
			}
			gates = append(gates, namedGate{name, gate})
		}
		if len(gates) == 0 && refusal != nil {
			resp.Diagnostics.AddError("Gate cannot be approved", fmt.Sprintf("Update run %q, %s: %v; nothing was approved.", runName, what, refusal))
			return
		}
		approvedNow := 0
		for _, ng := range gates {
			name, gate := ng.name, ng.gate
			state := rollout.NotStarted
			if gate.Properties != nil {
				state = rollout.State(gate.Properties.State)
			}
			done, err := rollout.GateApproveCheck(state)
			if err != nil {
				resp.Diagnostics.AddError("Gate cannot be approved", fmt.Sprintf("Update run %q, %s (gate %s): %v.", runName, what, name, err))
				return
			}
			if done {
				progress("gate %s (%s) is already approved", name, what)
				continue
			}
			progress("approving gate %s (%s) of update run %s", name, what, runName)
			poller, err := fc.BeginApproveGate(ctx, fleet, name, nil)
			if _, err := shared.PollDone(ctx, poller, err); err != nil {
				backend.AddBackendError(&resp.Diagnostics, "Approving the gate", fmt.Errorf("gate %q: %w", name, err))
				return
			}
			approvedNow++
		}
		if refusal != nil {
			progress("left %v to complete itself", refusal)
		}
		progress("%d of %d gates approved now (%s of update run %s)", approvedNow, len(names), what, runName)
	})
}

// scheduledStartRefusal refuses a ScheduledStart gate: fleets.json GateType ScheduledStart "is
// automatically completed when the scheduled time is reached", and this action approves only
// Approval gates (completing a scheduled gate early would start the stage or group before its time).
func scheduledStartRefusal(g *fleetapi.Gate) error {
	if g.Properties == nil || g.Properties.GateType != fleetapi.GateTypeScheduledStart {
		return nil
	}
	when := "at its scheduled time"
	if p := g.Properties.ScheduledStartProperties; p != nil && p.AbsoluteStartTime != nil {
		when = "at " + p.AbsoluteStartTime.UTC().Format(time.RFC3339)
	}
	return fmt.Errorf("it is a ScheduledStart gate, which completes itself %s; only Approval gates are approved", when)
}

// gateRun is the name of the update run a gate belongs to.
func gateRun(g *fleetapi.Gate) string {
	if g.Properties == nil {
		return ""
	}
	id := g.Properties.Target.ID
	return id[strings.LastIndex(id, "/")+1:]
}

// gatePosition is a gate's place in its run, as the gates API's target names it.
type gatePosition struct{ stage, group, timing string }

func (p gatePosition) String() string {
	if p.group != "" {
		return fmt.Sprintf("%s gate of group %s in stage %s", p.timing, p.group, p.stage)
	}
	return fmt.Sprintf("%s gate of stage %s", p.timing, p.stage)
}

// find returns the names of the gates at p the run has reached (their gateId is set), or the state
// of the stage or group there when it has reached none; an error when the run has no gate at p.
func (p gatePosition) find(run *fleetapi.UpdateRun) ([]string, rollout.State, error) {
	if run.Properties == nil || run.Properties.Status == nil {
		return nil, rollout.NotStarted, p.missing()
	}
	pick := func(before, after []fleetapi.UpdateRunGateStatus) []fleetapi.UpdateRunGateStatus {
		if p.timing == "Before" {
			return before
		}
		return after
	}
	for _, s := range run.Properties.Status.Stages {
		if s.Name != p.stage {
			continue
		}
		gates, state := pick(s.BeforeGates, s.AfterGates), stateOf(s.Status)
		if p.group != "" {
			gates = nil
			for _, g := range s.Groups {
				if g.Name == p.group {
					gates, state = pick(g.BeforeGates, g.AfterGates), stateOf(g.Status)
				}
			}
		}
		if len(gates) == 0 {
			break
		}
		var names []string
		for _, g := range gates {
			if g.GateID != "" {
				names = append(names, g.GateID[strings.LastIndex(g.GateID, "/")+1:])
			}
		}
		return names, state, nil
	}
	return nil, "", p.missing()
}

func (p gatePosition) missing() error {
	return fmt.Errorf("its strategy has no %s", p)
}
