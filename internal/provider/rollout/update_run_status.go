package rollout

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_run's status, refreshed from the run.

// statusTimesModel is what the run, each stage, group and member report alike (statusFields).
type statusTimesModel struct {
	State     types.String `tfsdk:"state"`
	StartTime types.String `tfsdk:"start_time"`
	EndTime   types.String `tfsdk:"end_time"`
	Error     types.String `tfsdk:"error"`
}

type runStatusModel struct {
	statusTimesModel
	SelectedNodeImageVersions []string              `tfsdk:"selected_node_image_versions"`
	Stages                    []runStageStatusModel `tfsdk:"stages"`
}

type runStageStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Gates               []gateStatusModel     `tfsdk:"gates"`
	AfterStageWaitState types.String          `tfsdk:"after_stage_wait_state"`
	Groups              []runGroupStatusModel `tfsdk:"groups"`
}

type runGroupStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Gates   []gateStatusModel      `tfsdk:"gates"`
	Members []runMemberStatusModel `tfsdk:"members"`
}

type runMemberStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Message     types.String `tfsdk:"message"`
	OperationID types.String `tfsdk:"operation_id"`
}

type gateStatusModel struct {
	Timing      string       `tfsdk:"timing"`
	DisplayName types.String `tfsdk:"display_name"`
	GateID      types.String `tfsdk:"gate_id"`
	State       types.String `tfsdk:"state"`
}

func statusFields(s *fleetapi.UpdateStatus) statusTimesModel {
	if s == nil {
		return statusTimesModel{types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()}
	}
	out := statusTimesModel{State: shared.StringOrNull(string(s.State)), StartTime: types.StringNull(), EndTime: types.StringNull(), Error: types.StringNull()}
	if s.StartTime != nil {
		out.StartTime = shared.TimeString(*s.StartTime)
	}
	if s.CompletedTime != nil {
		out.EndTime = shared.TimeString(*s.CompletedTime)
	}
	if s.Error != nil && s.Error.Message != "" {
		out.Error = types.StringValue(s.Error.Message)
	}
	return out
}

func gateStatuses(timing string, gs []fleetapi.UpdateRunGateStatus) []gateStatusModel {
	var out []gateStatusModel
	for _, g := range gs {
		st := statusFields(g.Status)
		out = append(out, gateStatusModel{Timing: timing, DisplayName: shared.StringOrNull(g.DisplayName), GateID: shared.StringOrNull(g.GateID), State: st.State})
	}
	return out
}

func runStatusFrom(run *fleetapi.UpdateRun) runStatusModel {
	out := runStatusModel{SelectedNodeImageVersions: []string{}, Stages: []runStageStatusModel{}}
	var rs *fleetapi.UpdateRunStatus
	if run != nil && run.Properties != nil {
		rs = run.Properties.Status
	}
	if rs == nil {
		out.statusTimesModel = statusFields(&fleetapi.UpdateStatus{State: fleetapi.UpdateStateNotStarted})
		return out
	}
	out.statusTimesModel = statusFields(rs.Status)
	if rs.NodeImageSelection != nil {
		for _, v := range rs.NodeImageSelection.SelectedNodeImageVersions {
			out.SelectedNodeImageVersions = append(out.SelectedNodeImageVersions, v.Version)
		}
	}
	for _, st := range rs.Stages {
		sm := runStageStatusModel{Name: st.Name, statusTimesModel: statusFields(st.Status), AfterStageWaitState: types.StringNull(),
			Gates: append(gateStatuses("Before", st.BeforeGates), gateStatuses("After", st.AfterGates)...), Groups: []runGroupStatusModel{}}
		if sm.Gates == nil {
			sm.Gates = []gateStatusModel{}
		}
		if st.AfterStageWaitStatus != nil {
			sm.AfterStageWaitState = statusFields(st.AfterStageWaitStatus.Status).State
		}
		for _, g := range st.Groups {
			gm := runGroupStatusModel{Name: g.Name, statusTimesModel: statusFields(g.Status),
				Gates: append(gateStatuses("Before", g.BeforeGates), gateStatuses("After", g.AfterGates)...), Members: []runMemberStatusModel{}}
			if gm.Gates == nil {
				gm.Gates = []gateStatusModel{}
			}
			for _, m := range g.Members {
				gm.Members = append(gm.Members, runMemberStatusModel{Name: m.Name, statusTimesModel: statusFields(m.Status),
					Message: shared.StringOrNull(m.Message), OperationID: shared.StringOrNull(m.OperationID)})
			}
			sm.Groups = append(sm.Groups, gm)
		}
		out.Stages = append(out.Stages, sm)
	}
	return out
}

func runStatusObject(ctx context.Context, run *fleetapi.UpdateRun, diags *diag.Diagnostics) types.Object {
	obj, d := types.ObjectValueFrom(ctx, runStatusType.AttrTypes, runStatusFrom(run))
	diags.Append(d...)
	return obj
}

// stableReason drops the simulated start time the rules add to a pending
// member's reason: it moves with the clock between plan and apply, and a
// preview must not change once planned.
func stableReason(r string) string {
	if i := strings.Index(r, "; expected to start at "); i >= 0 {
		rest := r[i+len("; expected to start at "):]
		if j := strings.Index(rest, ";"); j >= 0 {
			return r[:i] + rest[j:]
		}
		return r[:i]
	}
	return r
}
