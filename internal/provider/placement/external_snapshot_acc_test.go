package placement_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// v0.18.9's hub agent cuts no resource snapshot for an External-strategy placement
// (pkg/controllers/placement/controller.go: "Using external rollout strategy, skipping resource
// snapshot creation"); a staged update run cuts one when it initializes
// (pkg/controllers/updaterun/initialization.go: getResourceSnapshotObjs, no resourceSnapshotIndex).

// initializeStagedRun creates, on the hub, a one-stage ClusterStagedUpdateStrategy (once) and a
// ClusterStagedUpdateRun of placement in state Initialize, which cuts a snapshot of the selected
// resources and rolls nothing out; both are deleted when the test ends.
func initializeStagedRun(t *testing.T, placement, run string) {
	t.Helper()
	c := acctest.HubClient(t)
	ctx := context.Background()
	strategy := &placementv1.ClusterStagedUpdateStrategy{
		ObjectMeta: metav1.ObjectMeta{Name: placement + "-one-stage"},
		Spec:       placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}}}},
	}
	if err := c.Create(ctx, strategy); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	r := &placementv1.ClusterStagedUpdateRun{
		ObjectMeta: metav1.ObjectMeta{Name: run},
		Spec: placementv1.UpdateRunSpec{
			PlacementName: placement, StagedUpdateStrategyName: strategy.Name, State: placementv1.StateInitialize,
		},
	}
	if err := c.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), r)
		_ = c.Delete(context.Background(), strategy)
	})
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &placementv1.ClusterStagedUpdateRun{}
		if err := c.Get(ctx, client.ObjectKey{Name: run}, got); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, string(placementv1.StagedUpdateRunConditionInitialized))
		if cond == nil {
			last = "no Initialized condition"
			return false, nil
		}
		last = fmt.Sprintf("%s %s: %s", cond.Status, cond.Reason, cond.Message)
		if cond.Status == metav1.ConditionFalse {
			return false, fmt.Errorf("initialization failed: %s", last)
		}
		return cond.Status == metav1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("staged run %s of placement %s: %s: %v", run, placement, last, err)
	}
}

// noResourceSnapshotFor waits until the hub agent has scheduled placement's n clusters, then
// checks that no resource snapshot exists for it (the placement controller cuts the snapshot, when
// it does, in the reconcile that precedes scheduling).
func noResourceSnapshotFor(t *testing.T, placement string, n int) {
	t.Helper()
	waitForPlacementScheduled(t, placement, n)
	var snaps placementv1.ClusterResourceSnapshotList
	if err := acctest.HubClient(t).List(context.Background(), &snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}); err != nil {
		t.Fatal(err)
	}
	if len(snaps.Items) > 0 {
		t.Fatalf("placement %s (External): the hub agent cut %d resource snapshot(s) without a staged run", placement, len(snaps.Items))
	}
}
