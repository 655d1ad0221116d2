package staged

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// At fleet scale a run's status lists 20 clusters, failed and updating ones first, with exact counts.
func TestStagedRunStatusBounded(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	ok := []metav1.Condition{{Type: "Started", Status: "True", ObservedGeneration: 1, LastTransitionTime: at}, {Type: "Succeeded", Status: "True", ObservedGeneration: 1, LastTransitionTime: at}}
	var clusters []placementv1.ClusterUpdatingStatus
	for i := range 30 {
		c := placementv1.ClusterUpdatingStatus{ClusterName: fmt.Sprintf("m%02d", i)}
		switch {
		case i < 25:
			c.Conditions = ok
		case i == 25:
			c.Conditions = []metav1.Condition{{Type: "Started", Status: "True", ObservedGeneration: 1, LastTransitionTime: at}, {Type: "Succeeded", Status: "False", ObservedGeneration: 1, LastTransitionTime: at, Message: "boom"}}
		}
		clusters = append(clusters, c)
	}
	run := &placementv1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Generation: 1}, Status: placementv1.UpdateRunStatus{
		StagesStatus: []placementv1.StageUpdatingStatus{{StageName: "all", Clusters: clusters}},
	}}
	var diags diag.Diagnostics
	obj := stagedRunStatus(run, nil, 20, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var m stagedRunStatusModel
	if d := obj.As(context.Background(), &m, shared.ObjectAsOptions); d.HasError() {
		t.Fatal(d)
	}
	s := m.Stages[0]
	if s.ClusterCount != 30 || s.SucceededCount != 25 || len(s.Clusters) != 20 || s.ClustersOmitted != 10 {
		t.Fatalf("counts: %d clusters, %d succeeded, %d listed, %d omitted", s.ClusterCount, s.SucceededCount, len(s.Clusters), s.ClustersOmitted)
	}
	if c, ok := s.Clusters["m25"]; !ok || c.State != staged.StepFailed || c.Message.ValueString() != "boom" {
		t.Errorf("the failed cluster is not listed first: %+v", s.Clusters["m25"])
	}
	if _, ok := s.Clusters["m29"]; !ok {
		t.Errorf("not-started clusters come before further succeeded ones")
	}
	if m.State.ValueString() != string(staged.StateInitializing) {
		t.Errorf("state %s", m.State.ValueString())
	}
}

// A wait that ends before the run says where the run is and, for a stuck one, what the controller
// says it waits for (the UpdateRunStuck message as Microsoft's "Troubleshoot ClusterStagedUpdateRun
// and StagedUpdateRun stuck errors" shows it), then the approvals it lacks.
func TestStagedStoppedWaiting(t *testing.T) {
	const stuck = "The updateRun is stuck waiting for member2 cluster(s) in stage staging to finish updating, please check placement status for potential errors"
	got := stagedStoppedWaiting("rollout", staged.StateWaiting, stuck, context.DeadlineExceeded, "")
	want := `Run "rollout" is Waiting: The updateRun is stuck waiting for member2 cluster(s) in stage staging to finish updating, please check placement status for potential errors (context deadline exceeded).`
	if got != want {
		t.Errorf("stuck:\n got %s\nwant %s", got, want)
	}
	if got := stagedStoppedWaiting("rollout", staged.StateProgressing, "", context.DeadlineExceeded, "; it waits for approval requests …"); got !=
		`Run "rollout" is Progressing (context deadline exceeded); it waits for approval requests ….` {
		t.Errorf("no message: %s", got)
	}
}
