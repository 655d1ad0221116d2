package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
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

var _ action.ActionWithConfigure = (*updateRunSkipAction)(nil)

// updateRunSkipAction is fleet_update_run_skip: POST updateRuns/{name}/skip.
type updateRunSkipAction struct{ shared.ActionBase }

func (a *updateRunSkipAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = runActionSchema(ctx, "Skips members, groups, stages or after-stage waits of an update run, as the Fleet API's skip operation "+
		"takes them. Every target is checked against the run's status before any request: a target already Skipped is left "+
		"out (nothing is sent when all are), a member being updated or Completed, a Completed group or stage, or a run that "+
		"is Stopping or finished is refused with its state. Requires Terraform 1.14 or later.", map[string]aschema.Attribute{})
	resp.Schema.Blocks["target"] = aschema.ListNestedBlock{
		Description: "Required. What to skip, in the Fleet API's terms (SkipTarget): one block per target, 1 to 100.",
		Validators:  []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, 100)},
		NestedObject: aschema.NestedBlockObject{Attributes: map[string]aschema.Attribute{
			"type": aschema.StringAttribute{Required: true,
				Description: "`Member`, `Group`, `Stage` (with its gates and after-stage wait) or `AfterStageWait`.",
				Validators:  []validator.String{stringvalidator.OneOf("Member", "Group", "Stage", "AfterStageWait")}},
			"name": aschema.StringAttribute{Required: true,
				Description: "The member's, group's or stage's name; for `AfterStageWait`, the stage's."},
		}},
	}
}

type updateRunSkipModel struct {
	runActionConfig
	Targets []skipTargetModel `tfsdk:"target"`
}

type skipTargetModel struct {
	Type types.String `tfsdk:"type"`
	Name types.String `tfsdk:"name"`
}

func (a *updateRunSkipAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	invokeRunAction(ctx, a.Clients, req, resp, func(ctx context.Context, m *updateRunSkipModel, fc *fleetapi.Client, fleet fleetapi.FleetID, run *fleetapi.UpdateRun, progress shared.Progress) {
		name := m.UpdateRun.ValueString()
		if err := rollout.SkipRunCheck(rollout.State(runState(run))); err != nil {
			resp.Diagnostics.AddAttributeError(pathUpdateRun, "Update run cannot skip", fmt.Sprintf("Update run %q: %v.", name, err))
			return
		}
		var send []fleetapi.SkipTarget
		var already []string
		for i, t := range m.Targets {
			done, err := skipCheck(run, t.Type.ValueString(), t.Name.ValueString())
			if err != nil {
				resp.Diagnostics.AddAttributeError(pathTargets.AtListIndex(i), "Target cannot be skipped", fmt.Sprintf("Update run %q: %v.", name, err))
				continue
			}
			what := strings.ToLower(t.Type.ValueString()) + " " + t.Name.ValueString()
			if done {
				already = append(already, what)
				continue
			}
			send = append(send, fleetapi.SkipTarget{Type: fleetapi.TargetType(t.Type.ValueString()), Name: t.Name.ValueString()})
		}
		if resp.Diagnostics.HasError() {
			return
		}
		if len(already) > 0 {
			progress("already skipped: %s", strings.Join(already, ", "))
		}
		if len(send) == 0 {
			progress("update run %s: nothing to skip", name)
			return
		}
		progress("skipping %d of %d targets in update run %s", len(send), len(m.Targets), name)
		poller, err := fc.BeginSkipUpdateRun(ctx, fleet, name, fleetapi.SkipProperties{Targets: send}, nil)
		if run, err = shared.PollDone(ctx, poller, err); err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Skipping update run targets", fmt.Errorf("update run %q: %w", name, err))
			return
		}
		progress("%s", runProgress(run))
	})
}

var pathTargets = path.Root("target")

// skipCheck finds a target in the run's status and checks it with the engine's rules.
func skipCheck(run *fleetapi.UpdateRun, typ, name string) (bool, error) {
	var stages []fleetapi.UpdateStageStatus
	if run.Properties != nil && run.Properties.Status != nil {
		stages = run.Properties.Status.Stages
	}
	groupMembers := func(g fleetapi.UpdateGroupStatus) map[string]rollout.State {
		out := map[string]rollout.State{}
		for _, m := range g.Members {
			out[m.Name] = stateOf(m.Status)
		}
		return out
	}
	for _, s := range stages {
		switch typ {
		case "Stage":
			if s.Name == name {
				groups, members := map[string]rollout.State{}, map[string]map[string]rollout.State{}
				for _, g := range s.Groups {
					groups[g.Name], members[g.Name] = stateOf(g.Status), groupMembers(g)
				}
				return rollout.SkipStageCheck(name, stateOf(s.Status), groups, members)
			}
		case "AfterStageWait":
			if s.Name == name {
				if s.AfterStageWaitStatus == nil {
					return false, fmt.Errorf("stage %q has no after-stage wait", name)
				}
				ws := stateOf(s.AfterStageWaitStatus.Status)
				return ws.Finished(), nil
			}
		}
		for _, g := range s.Groups {
			if typ == "Group" && g.Name == name {
				return rollout.SkipGroupCheck(name, stateOf(g.Status), groupMembers(g))
			}
			for _, mb := range g.Members {
				if typ == "Member" && mb.Name == name {
					return rollout.SkipMemberCheck(name, stateOf(mb.Status))
				}
			}
		}
	}
	return false, fmt.Errorf("%s %q is not in this update run", strings.ToLower(typ), name)
}
