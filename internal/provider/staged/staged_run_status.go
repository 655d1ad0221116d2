package staged

import (
	"context"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// The run's preview and status, as fleet_staged_update_run shows them.

type stagedRunPreviewModel struct {
	ResourceSnapshotIndex types.String         `tfsdk:"resource_snapshot_index"`
	Stages                []stagedStagePreview `tfsdk:"stages"`
	DeletionCount         int64                `tfsdk:"deletion_count"`
	Deletion              []string             `tfsdk:"deletion"`
	DeletionOmitted       int64                `tfsdk:"deletion_omitted"`
	Failure               types.String         `tfsdk:"failure"`
}

func stagedRunPreview(p staged.Plan, ns, index string, listLimit int) (types.Object, diag.Diagnostics) {
	deletion, omitted := preview.CapList(p.Deletion, listLimit)
	m := stagedRunPreviewModel{
		ResourceSnapshotIndex: shared.StringOrNull(index), Stages: preview.NullIfEmpty(stagedStagePreviews(p.Stages, listLimit, ns)),
		DeletionCount: int64(len(p.Deletion)), Deletion: preview.NullIfEmpty(deletion), DeletionOmitted: omitted,
		Failure: stagedProblem(p.Failure, p.Duplicated, p.Unstaged),
	}
	return types.ObjectValueFrom(context.Background(), stagedRunPreviewType.AttrTypes, m)
}

type stagedRunStatusModel struct {
	State            types.String        `tfsdk:"state"`
	IndexUsed        types.String        `tfsdk:"resource_snapshot_index_used"`
	Message          types.String        `tfsdk:"message"`
	Conditions       []stagedCondition   `tfsdk:"conditions"`
	Stages           []stagedStageStatus `tfsdk:"stages"`
	ApprovalsWaiting map[string]string   `tfsdk:"approvals_waiting"`
}

type stagedCondition struct {
	Type               string `tfsdk:"type"`
	Status             string `tfsdk:"status"`
	Reason             string `tfsdk:"reason"`
	Message            string `tfsdk:"message"`
	LastTransitionTime string `tfsdk:"last_transition_time"`
}

type stagedStageStatus struct {
	Name            string                       `tfsdk:"name"`
	State           string                       `tfsdk:"state"`
	StartedAt       types.String                 `tfsdk:"started_at"`
	FinishedAt      types.String                 `tfsdk:"finished_at"`
	Message         types.String                 `tfsdk:"message"`
	ClusterCount    int64                        `tfsdk:"cluster_count"`
	SucceededCount  int64                        `tfsdk:"succeeded_count"`
	Clusters        map[string]stagedClusterStep `tfsdk:"clusters"`
	ClustersOmitted int64                        `tfsdk:"clusters_omitted"`
}

type stagedClusterStep struct {
	State      string       `tfsdk:"state"`
	StartedAt  types.String `tfsdk:"started_at"`
	FinishedAt types.String `tfsdk:"finished_at"`
	Message    types.String `tfsdk:"message"`
}

// stagedRunStatus is the run's status, its per-cluster detail bounded: failed clusters first, then
// updating ones, then those still to update, then updated ones, each in update order.
func stagedRunStatus(run *placementv1.ClusterStagedUpdateRun, reqs []placementv1.ClusterApprovalRequest, listLimit int, diags *diag.Diagnostics) types.Object {
	state, msg := staged.RunState(run)
	m := stagedRunStatusModel{State: types.StringValue(string(state)), Message: shared.StringOrNull(msg), IndexUsed: shared.StringOrNull(run.Status.ResourceSnapshotIndexUsed)}
	for _, c := range run.Status.Conditions {
		m.Conditions = append(m.Conditions, stagedCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.UTC().Format(time.RFC3339)})
	}
	type entry struct {
		stage, pos, rank int
		step             staged.Step
	}
	var entries []entry
	stages := staged.AllStages(run)
	for i, s := range stages {
		st := staged.StageStep(s, run.Generation)
		ss := stagedStageStatus{Name: s.StageName, State: st.State, StartedAt: optTime(st.Started), FinishedAt: optTime(st.Finished), Message: shared.StringOrNull(st.Message), ClusterCount: int64(len(s.Clusters))}
		for j := range s.Clusters {
			cs := staged.ClusterStep(&s.Clusters[j], run.Generation)
			if cs.State == staged.StepSucceeded {
				ss.SucceededCount++
			}
			rank := map[string]int{staged.StepFailed: 0, staged.StepUpdating: 1, staged.StepNotStarted: 2, staged.StepSucceeded: 3}[cs.State]
			entries = append(entries, entry{i, j, rank, cs})
		}
		m.Stages = append(m.Stages, ss)
	}
	taken := preview.FirstToRead(len(entries), listLimit, func(a, b int) bool {
		ea, eb := entries[a], entries[b]
		if ea.rank != eb.rank {
			return ea.rank < eb.rank
		}
		if ea.stage != eb.stage {
			return ea.stage < eb.stage
		}
		return ea.pos < eb.pos
	})
	for k, e := range entries {
		ss := &m.Stages[e.stage]
		if !taken[k] {
			ss.ClustersOmitted++
			continue
		}
		if ss.Clusters == nil {
			ss.Clusters = map[string]stagedClusterStep{}
		}
		ss.Clusters[stages[e.stage].Clusters[e.pos].ClusterName] = stagedClusterStep{State: e.step.State, StartedAt: optTime(e.step.Started), FinishedAt: optTime(e.step.Finished), Message: shared.StringOrNull(e.step.Message)}
	}
	for _, req := range staged.WaitingApprovals(run, reqs) {
		if m.ApprovalsWaiting == nil {
			m.ApprovalsWaiting = map[string]string{}
		}
		m.ApprovalsWaiting[req.Name] = stagedApprovalWhat(&req)
	}
	obj, d := types.ObjectValueFrom(context.Background(), stagedRunStatusType.AttrTypes, m)
	diags.Append(d...)
	return obj
}

func optTime(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}
