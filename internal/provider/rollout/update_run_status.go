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

type runStatusModel struct {
	State                     types.String          `tfsdk:"state"`
	StartTime                 types.String          `tfsdk:"start_time"`
	EndTime                   types.String          `tfsdk:"end_time"`
	Error                     types.String          `tfsdk:"error"`
	SelectedNodeImageVersions []string              `tfsdk:"selected_node_image_versions"`
	Stages                    []runStageStatusModel `tfsdk:"stages"`
}

type runStageStatusModel struct {
	Name                string                `tfsdk:"name"`
	State               types.String          `tfsdk:"state"`
	StartTime           types.String          `tfsdk:"start_time"`
	EndTime             types.String          `tfsdk:"end_time"`
	Error               types.String          `tfsdk:"error"`
	Gates               []gateStatusModel     `tfsdk:"gates"`
	AfterStageWaitState types.String          `tfsdk:"after_stage_wait_state"`
	Groups              []runGroupStatusModel `tfsdk:"groups"`
}

type runGroupStatusModel struct {
	Name      string                 `tfsdk:"name"`
	State     types.String           `tfsdk:"state"`
	StartTime types.String           `tfsdk:"start_time"`
	EndTime   types.String           `tfsdk:"end_time"`
	Error     types.String           `tfsdk:"error"`
	Gates     []gateStatusModel      `tfsdk:"gates"`
	Members   []runMemberStatusModel `tfsdk:"members"`
}

type runMemberStatusModel struct {
	Name        string       `tfsdk:"name"`
	State       types.String `tfsdk:"state"`
	StartTime   types.String `tfsdk:"start_time"`
	EndTime     types.String `tfsdk:"end_time"`
	Error       types.String `tfsdk:"error"`
	Message     types.String `tfsdk:"message"`
	OperationID types.String `tfsdk:"operation_id"`
}

type gateStatusModel struct {
	Timing      string       `tfsdk:"timing"`
	DisplayName types.String `tfsdk:"display_name"`
	GateID      types.String `tfsdk:"gate_id"`
	State       types.String `tfsdk:"state"`
}

type statusTimesModel struct{ state, start, end, err types.String }

func statusFields(s *fleetapi.UpdateStatus) statusTimesModel {
	if s == nil {
		return statusTimesModel{types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()}
	}
	out := statusTimesModel{state: shared.StringOrNull(string(s.State)), start: types.StringNull(), end: types.StringNull(), err: types.StringNull()}
	if s.StartTime != nil {
		out.start = shared.TimeString(*s.StartTime)
	}
	if s.CompletedTime != nil {
		out.end = shared.TimeString(*s.CompletedTime)
	}
	if s.Error != nil && s.Error.Message != "" {
		out.err = types.StringValue(s.Error.Message)
	}
	return out
}

func gateStatuses(timing string, gs []fleetapi.UpdateRunGateStatus) []gateStatusModel {
	var out []gateStatusModel
	for _, g := range gs {
		st := statusFields(g.Status)
		out = append(out, gateStatusModel{Timing: timing, DisplayName: shared.StringOrNull(g.DisplayName), GateID: shared.StringOrNull(g.GateID), State: st.state})
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
		f := statusFields(&fleetapi.UpdateStatus{State: fleetapi.UpdateStateNotStarted})
		out.State, out.StartTime, out.EndTime, out.Error = f.state, f.start, f.end, f.err
		return out
	}
	f := statusFields(rs.Status)
	out.State, out.StartTime, out.EndTime, out.Error = f.state, f.start, f.end, f.err
	if rs.NodeImageSelection != nil {
		for _, v := range rs.NodeImageSelection.SelectedNodeImageVersions {
			out.SelectedNodeImageVersions = append(out.SelectedNodeImageVersions, v.Version)
		}
	}
	for _, st := range rs.Stages {
		f := statusFields(st.Status)
		sm := runStageStatusModel{Name: st.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err, AfterStageWaitState: types.StringNull(),
			Gates: append(gateStatuses("Before", st.BeforeGates), gateStatuses("After", st.AfterGates)...), Groups: []runGroupStatusModel{}}
		if sm.Gates == nil {
			sm.Gates = []gateStatusModel{}
		}
		if st.AfterStageWaitStatus != nil {
			sm.AfterStageWaitState = statusFields(st.AfterStageWaitStatus.Status).state
		}
		for _, g := range st.Groups {
			f := statusFields(g.Status)
			gm := runGroupStatusModel{Name: g.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err,
				Gates: append(gateStatuses("Before", g.BeforeGates), gateStatuses("After", g.AfterGates)...), Members: []runMemberStatusModel{}}
			if gm.Gates == nil {
				gm.Gates = []gateStatusModel{}
			}
			for _, m := range g.Members {
				f := statusFields(m.Status)
				gm.Members = append(gm.Members, runMemberStatusModel{Name: m.Name, State: f.state, StartTime: f.start, EndTime: f.end, Error: f.err,
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
