package staged

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

func cond(t string, s metav1.ConditionStatus, gen int64, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, ObservedGeneration: gen, Message: msg, LastTransitionTime: metav1.NewTime(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))}
}

func TestRunState(t *testing.T) {
	const (
		initialized = string(placementv1.StagedUpdateRunConditionInitialized)
		progressing = string(placementv1.StagedUpdateRunConditionProgressing)
		succeeded   = string(placementv1.StagedUpdateRunConditionSucceeded)
	)
	cases := []struct {
		conds []metav1.Condition
		want  State
	}{
		{nil, StateInitializing},
		{[]metav1.Condition{cond(initialized, metav1.ConditionFalse, 1, "no")}, StateInitializationFailed},
		{[]metav1.Condition{cond(initialized, metav1.ConditionFalse, 0, "old generation")}, StateInitializing},
		{[]metav1.Condition{cond(initialized, metav1.ConditionTrue, 1, ""), cond(progressing, metav1.ConditionTrue, 1, "")}, StateProgressing},
		{[]metav1.Condition{cond(initialized, metav1.ConditionTrue, 1, ""), cond(progressing, metav1.ConditionFalse, 1, "waiting")}, StateWaiting},
		{[]metav1.Condition{cond(initialized, metav1.ConditionTrue, 1, ""), cond(succeeded, metav1.ConditionTrue, 1, "")}, StateSucceeded},
		{[]metav1.Condition{cond(initialized, metav1.ConditionTrue, 1, ""), cond(succeeded, metav1.ConditionFalse, 1, "x failed")}, StateFailed},
	}
	for i, c := range cases {
		run := &placementv1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Generation: 1}, Status: placementv1.UpdateRunStatus{Conditions: c.conds}}
		if got, _ := RunState(run); got != c.want {
			t.Errorf("case %d: state %s, want %s", i, got, c.want)
		}
	}
}

func TestStepsAndFailures(t *testing.T) {
	started := string(placementv1.ClusterUpdatingConditionStarted)
	done := string(placementv1.ClusterUpdatingConditionSucceeded)
	run := &placementv1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Generation: 1}, Status: placementv1.UpdateRunStatus{
		StagesStatus: []placementv1.StageUpdatingStatus{{StageName: "canary", Clusters: []placementv1.ClusterUpdatingStatus{
			{ClusterName: "a", Conditions: []metav1.Condition{cond(started, metav1.ConditionTrue, 1, ""), cond(done, metav1.ConditionTrue, 1, "")}},
			{ClusterName: "b", Conditions: []metav1.Condition{cond(started, metav1.ConditionTrue, 1, ""), cond(done, metav1.ConditionFalse, 1, "apply failed")}},
			{ClusterName: "c", Conditions: []metav1.Condition{cond(started, metav1.ConditionTrue, 1, "")}},
			{ClusterName: "d"},
		}}},
		DeletionStageStatus: &placementv1.StageUpdatingStatus{StageName: placementv1beta1.UpdateRunDeleteStageName, Clusters: []placementv1.ClusterUpdatingStatus{{ClusterName: "z"}}},
	}}
	steps := Steps(run)
	want := map[string]string{"stage canary": StepNotStarted, "cluster a in canary": StepSucceeded, "cluster b in canary": StepFailed,
		"cluster c in canary": StepUpdating, "cluster d in canary": StepNotStarted,
		"stage kubernetes-fleet.io/deleteStage": StepNotStarted, "cluster z in kubernetes-fleet.io/deleteStage": StepNotStarted}
	for k, v := range want {
		if steps[k] != v {
			t.Errorf("%s: %q, want %q", k, steps[k], v)
		}
	}
	if f := FailedClusters(run); !slices.Equal(f, []string{"cluster b (stage canary): apply failed"}) {
		t.Errorf("failed = %q", f)
	}
	reqs := []placementv1.ClusterApprovalRequest{
		{ObjectMeta: metav1.ObjectMeta{Name: "r-canary", Generation: 1}, Spec: placementv1.ApprovalRequestSpec{TargetUpdateRun: "r", TargetStage: "canary"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "r-prod", Generation: 1}, Spec: placementv1.ApprovalRequestSpec{TargetUpdateRun: "r", TargetStage: "prod"},
			Status: placementv1.ApprovalRequestStatus{Conditions: []metav1.Condition{cond(string(placementv1.ApprovalRequestConditionApproved), metav1.ConditionTrue, 1, "")}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other-canary", Generation: 1}, Spec: placementv1.ApprovalRequestSpec{TargetUpdateRun: "other", TargetStage: "canary"}},
	}
	if w := WaitingApprovals(run, reqs); len(w) != 1 || w[0].Name != "r-canary" {
		t.Errorf("waiting approvals = %v, want only r-canary", w)
	}
}
