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
	FailureCount              types.Int64           `tfsdk:"failure_count"`
	Stages                    []runStageStatusModel `tfsdk:"stages"`
}

type runStageStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Gates               []gateStatusModel     `tfsdk:"gates"`
	AfterStageWaitState types.String          `tfsdk:"after_stage_wait_state"`
	FailureCount        types.Int64           `tfsdk:"failure_count"`
	MaxAllowedFailures  types.Int64           `tfsdk:"max_allowed_failures"`
	Groups              []runGroupStatusModel `tfsdk:"groups"`
}

type runGroupStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Gates              []gateStatusModel      `tfsdk:"gates"`
	FailureCount       types.Int64            `tfsdk:"failure_count"`
	MaxAllowedFailures types.Int64            `tfsdk:"max_allowed_failures"`
	Members            []runMemberStatusModel `tfsdk:"members"`
}

type runMemberStatusModel struct {
	Name string `tfsdk:"name"`
	statusTimesModel
	Message     types.String `tfsdk:"message"`
	OperationID types.String `tfsdk:"operation_id"`
}

type gateStatusModel struct {
	Timing      string       `tfsdk:"timing"`
	Type        types.String `tfsdk:"type"`
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

// gateStatuses are a stage's or group's gates of one timing; cfg are their configurations in the
// run's strategy, in the same order (the status does not say a gate's type).
func gateStatuses(timing string, gs []fleetapi.UpdateRunGateStatus, cfg []fleetapi.GateConfiguration) []gateStatusModel {
	var out []gateStatusModel
	for i, g := range gs {
		st := statusFields(g.Status)
		typ := types.StringNull()
		if i < len(cfg) {
			typ = types.StringValue(string(cfg[i].Type))
		}
		out = append(out, gateStatusModel{Timing: timing, Type: typ, DisplayName: shared.StringOrNull(g.DisplayName), GateID: shared.StringOrNull(g.GateID), State: st.State})
	}
	return out
}

// strategyStage and strategyGroup are a run's stage and group configurations by name (zero when absent).
func strategyStage(run *fleetapi.UpdateRun, name string) fleetapi.UpdateStage {
	if run.Properties != nil && run.Properties.Strategy != nil {
		for _, st := range run.Properties.Strategy.Stages {
			if st.Name == name {
				return st
			}
		}
	}
	return fleetapi.UpdateStage{}
}

func strategyGroup(st fleetapi.UpdateStage, name string) fleetapi.UpdateGroup {
	for _, g := range st.Groups {
		if g.Name == name {
			return g
		}
	}
	return fleetapi.UpdateGroup{}
}

func runStatusFrom(run *fleetapi.UpdateRun) runStatusModel {
	out := runStatusModel{SelectedNodeImageVersions: []string{}, Stages: []runStageStatusModel{}, FailureCount: types.Int64Null()}
	var rs *fleetapi.UpdateRunStatus
	if run != nil && run.Properties != nil {
		rs = run.Properties.Status
	}
	if rs == nil {
		out.statusTimesModel = statusFields(&fleetapi.UpdateStatus{State: fleetapi.UpdateStateNotStarted})
		return out
	}
	out.statusTimesModel = statusFields(rs.Status)
	out.FailureCount = int32OrNull(rs.FailureCount)
	if rs.NodeImageSelection != nil {
		for _, v := range rs.NodeImageSelection.SelectedNodeImageVersions {
			out.SelectedNodeImageVersions = append(out.SelectedNodeImageVersions, v.Version)
		}
	}
	for _, st := range rs.Stages {
		cfg := strategyStage(run, st.Name)
		sm := runStageStatusModel{Name: st.Name, statusTimesModel: statusFields(st.Status), AfterStageWaitState: types.StringNull(),
			Gates: append(gateStatuses("Before", st.BeforeGates, cfg.BeforeGates), gateStatuses("After", st.AfterGates, cfg.AfterGates)...), Groups: []runGroupStatusModel{},
			FailureCount: int32OrNull(st.FailureCount), MaxAllowedFailures: int32OrNull(st.MaxAllowedFailures)}
		if sm.Gates == nil {
			sm.Gates = []gateStatusModel{}
		}
		if st.AfterStageWaitStatus != nil {
			sm.AfterStageWaitState = statusFields(st.AfterStageWaitStatus.Status).State
		}
		for _, g := range st.Groups {
			gcfg := strategyGroup(cfg, g.Name)
			gm := runGroupStatusModel{Name: g.Name, statusTimesModel: statusFields(g.Status),
				Gates: append(gateStatuses("Before", g.BeforeGates, gcfg.BeforeGates), gateStatuses("After", g.AfterGates, gcfg.AfterGates)...), Members: []runMemberStatusModel{},
				FailureCount: int32OrNull(g.FailureCount), MaxAllowedFailures: int32OrNull(g.MaxAllowedFailures)}
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

// int32OrNull is a count the preview API reports, null when absent (the stable API has none).
func int32OrNull(n *int32) types.Int64 {
	if n == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*n))
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
