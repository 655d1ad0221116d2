package conformance

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
)

// The staged comparison itself is checked without a hub: a run recorded the way v0.18.9 records it
// agrees with its plan, and every kind of disagreement is caught.
func TestStagedCompareCatchesMismatches(t *testing.T) {
	const failure = "cannot continue the updateRun: failed to validate the updateRun: failed to process the request due to a client error: cluster `b` appears in more than one stages"
	plan := func() staged.Plan {
		return staged.Plan{
			Stages: []staged.Stage{
				{Name: "canary", Clusters: []string{"m-10", "m-2"}, Tasks: []staged.Task{
					{Type: placementv1.StageTaskTypeTimedWait, WaitTime: metav1.Duration{}},
					{Type: placementv1.StageTaskTypeApproval, ApprovalRequest: "run-canary"}}},
				{Name: "empty"},
			},
			Deletion: []string{"m-3"},
		}
	}
	run := func() *placementv1.ClusterStagedUpdateRun {
		return &placementv1.ClusterStagedUpdateRun{Status: placementv1.UpdateRunStatus{
			Conditions: []metav1.Condition{{Type: initializedCondition, Status: metav1.ConditionTrue, Message: "The UpdateRun initialized successfully"}},
			StagesStatus: []placementv1.StageUpdatingStatus{
				{StageName: "canary", Clusters: []placementv1.ClusterUpdatingStatus{{ClusterName: "m-10"}, {ClusterName: "m-2"}},
					AfterStageTaskStatus: []placementv1.StageTaskStatus{{Type: placementv1.StageTaskTypeTimedWait}, {Type: placementv1.StageTaskTypeApproval, ApprovalRequestName: "run-canary"}}},
				{StageName: "empty", Clusters: []placementv1.ClusterUpdatingStatus{}},
			},
			DeletionStageStatus: &placementv1.StageUpdatingStatus{StageName: placementv1beta1.UpdateRunDeleteStageName, Clusters: []placementv1.ClusterUpdatingStatus{{ClusterName: "m-3"}}},
		}}
	}
	failed := func(msg string) func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
		return func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
			p.Stages, p.Deletion, p.Failure = nil, nil, failure
			p.OtherFailures = []string{strings.Replace(failure, "`b`", "`c`", 1)}
			r.Status.StagesStatus, r.Status.DeletionStageStatus = nil, nil
			r.Status.Conditions[0].Status, r.Status.Conditions[0].Message = metav1.ConditionFalse, msg
		}
	}
	if m := compareStaged(plan(), run()); len(m) != 0 {
		t.Fatalf("an equal run is reported: %v", m)
	}
	for _, ok := range []string{failure, strings.Replace(failure, "`b`", "`c`", 1)} {
		p, r := plan(), run()
		failed(ok)(&p, r)
		if m := compareStaged(p, r); len(m) != 0 {
			t.Fatalf("a failure the engine allows is reported: %v", m)
		}
	}
	cases := map[string]func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun){
		"clusters in another order": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) {
			p.Stages[0].Clusters = []string{"m-2", "m-10"}
		},
		"a cluster in another stage": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) {
			p.Stages[0].Clusters, p.Stages[1].Clusters = []string{"m-10"}, []string{"m-2"}
		},
		"a stage missing": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) { p.Stages = p.Stages[:1] },
		"stage renamed":   func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) { p.Stages[1].Name = "other" },
		"approval request name": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) {
			p.Stages[0].Tasks[1].ApprovalRequest = "run-2-canary"
		},
		"task type": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) {
			p.Stages[0].Tasks = p.Stages[0].Tasks[1:]
		},
		"deletion stage": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) { p.Deletion = nil },
		"no deletion stage recorded": func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
			p.Deletion, r.Status.DeletionStageStatus = nil, nil
		},
		"engine fails, controller initializes": func(p *staged.Plan, _ *placementv1.ClusterStagedUpdateRun) { p.Failure = failure },
		"engine initializes, controller fails": func(_ *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
			failed(failure)(&staged.Plan{}, r)
		},
		"another failure message": func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
			failed(strings.Replace(failure, "`b`", "`d`", 1))(p, r)
		},
		"stages recorded on a failure": func(p *staged.Plan, r *placementv1.ClusterStagedUpdateRun) {
			st := r.Status.StagesStatus
			failed(failure)(p, r)
			r.Status.StagesStatus = st
		},
		"no Initialized condition": func(_ *staged.Plan, r *placementv1.ClusterStagedUpdateRun) { r.Status.Conditions = nil },
	}
	for name, mutate := range cases {
		p, r := plan(), run()
		mutate(&p, r)
		if m := compareStaged(p, r); len(m) == 0 {
			t.Errorf("%s: not caught", name)
		} else {
			t.Logf("%s: %s", name, strings.Join(m, "; "))
		}
	}
}
