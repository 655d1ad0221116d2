package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	fleethub "github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
)

// Staged update runs: for generated placements and strategies, the provider's preview of a run
// (staged.Initialize over what hub.RunInputs reads, as the provider does at plan) is compared with
// how KubeFleet's real staged update run controller initializes the run on the local hub: the
// Initialized condition, status.stagesStatus (stage order, clusters and their order, after-stage
// tasks and approval request names), status.deletionStageStatus and the failure message.

const stagedCases = 72

type stagedCase struct {
	name string
	// policy of the placement; shrinkTo, when set, binds every scheduled cluster and then narrows
	// a PickFixed policy to these clusters, so the others' bindings become Unscheduled (the run's
	// deletion stage).
	policy   *placementv1beta1.PlacementPolicy
	shrinkTo []string
	rolling  bool // the placement rolls out by itself (RollingUpdate): runs of it fail
	strategy *placementv1beta1.StagedUpdateStrategySpec
	index    string
	what     string // a reader's summary of the case
}

func TestStagedUpdateRunConformance(t *testing.T) {
	if fleetEnv == nil {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	h := connect(t, fleetEnv)
	if err := h.waitFleetSettled(ctx, fleet); err != nil {
		t.Fatal(err)
	}
	if err := h.ensureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", fleetEnv["KUBE_CONFIG_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kube.NewClient(cfg, "staged-conformance")
	if err != nil {
		t.Fatal(err)
	}
	hc := fleethub.New(kc)
	members, err := h.members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := generateStagedCases(rand.New(rand.NewPCG(seed, 0x5ca1ab1e)), eligibleNames(members), stagedCases)
	var compared, mismatched int
	reasons := map[string]int{}
	for _, c := range cases {
		msgs, reason, err := runStagedCase(ctx, h, hc, c)
		if err != nil {
			t.Fatalf("%s (%s): %v", c.name, c.what, err)
		}
		compared++
		reasons[reason]++
		if len(msgs) > 0 {
			mismatched++
			t.Errorf("%s (%s): %d mismatches:\n  %s", c.name, c.what, len(msgs), strings.Join(msgs, "\n  "))
		}
	}
	var seen []string
	for r, n := range reasons {
		seen = append(seen, fmt.Sprintf("%s %d", r, n))
	}
	slices.Sort(seen)
	t.Logf("staged update runs: %d compared with the hub agent's controller, %d equal (%.0f %%), in %s; outcomes: %s",
		compared, compared-mismatched, 100*float64(compared-mismatched)/float64(compared), time.Since(start).Round(time.Second), strings.Join(seen, ", "))
	// Every reason the provider previews must have been seen at least once.
	for _, want := range []string{"initialized", "in more than one stages", "not placed in any stage", "sorting label", "not found", "external rollout strategy", "resource snapshot", "deletion stage"} {
		if reasons[want] == 0 {
			t.Errorf("no case covered %q", want)
		}
	}
}

func eligibleNames(ms []clusterv1beta1.MemberCluster) []string {
	var out []string
	for _, m := range ms {
		healthy := false
		for _, a := range m.Status.AgentStatus {
			if c := meta.FindStatusCondition(a.Conditions, string(clusterv1beta1.AgentHealthy)); c != nil && c.Status == metav1.ConditionTrue {
				healthy = true
			}
		}
		if healthy && len(m.Spec.Taints) == 0 {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// generateStagedCases draws n cases: placements of a few clusters (PickFixed, PickN, a narrowed
// PickFixed with a deletion stage, a RollingUpdate one) with strategies that partition them by a
// label (the runs that start), plus overlapping stages, stages that miss clusters, absent
// selectors, sorting by an integer label some clusters lack, bad tasks, missing strategies and
// resource snapshots.
func generateStagedCases(rng *rand.Rand, eligible []string, n int) []stagedCase {
	pickSome := func(k int) []string {
		idx := rng.Perm(len(eligible))[:k]
		out := make([]string, k)
		for i, j := range idx {
			out[i] = eligible[j]
		}
		slices.Sort(out)
		return out
	}
	partitions := []struct {
		key  string
		vals []string
	}{{LabelEnv, []string{"prod"}}, {LabelEnv, []string{"staging", "canary"}}, {LabelTier, []string{"gold"}}, {LabelTeam, []string{"web", "ml"}}, {LabelRack, []string{"r1", "r2"}}}
	var cases []stagedCase
	for i := range n {
		c := stagedCase{name: fmt.Sprintf("staged-%02d", i), index: "0"}
		var what []string
		switch i % 8 {
		case 0, 1, 2, 3:
			c.policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: pickSome(3 + rng.IntN(6))}
			what = append(what, fmt.Sprintf("PickFixed %d", len(c.policy.ClusterNames)))
		case 4:
			n := int32(2 + rng.IntN(4))
			c.policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: &n}
			what = append(what, fmt.Sprintf("PickN %d", n))
		case 5, 6:
			all := pickSome(5 + rng.IntN(4))
			c.policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: all}
			c.shrinkTo = all[:2+rng.IntN(2)]
			what = append(what, fmt.Sprintf("PickFixed %d narrowed to %d", len(all), len(c.shrinkTo)))
		case 7:
			c.policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: pickSome(3)}
			if i%16 == 7 {
				c.rolling = true
				what = append(what, "RollingUpdate placement")
			} else {
				what = append(what, "PickFixed 3")
			}
		}
		p := partitions[rng.IntN(len(partitions))]
		in := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: p.key, Operator: metav1.LabelSelectorOpIn, Values: p.vals}}}
		out := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: p.key, Operator: metav1.LabelSelectorOpNotIn, Values: p.vals}}}
		spec := placementv1beta1.StagedUpdateStrategySpec{Stages: []placementv1beta1.StageConfig{
			{Name: "first", LabelSelector: in},
			{Name: "second", LabelSelector: out},
		}}
		what = append(what, fmt.Sprintf("stages %s in/not in %v", p.key, p.vals))
		switch r := rng.IntN(12); {
		case r < 5: // a clean partition
		case r == 5:
			spec.Stages = append(spec.Stages, placementv1beta1.StageConfig{Name: "all", LabelSelector: &metav1.LabelSelector{}})
			what = append(what, "+ a stage of every cluster")
		case r == 6:
			spec.Stages = spec.Stages[:1]
			what = append(what, "only the first stage")
		case r == 7:
			spec.Stages[1].LabelSelector = nil
			what = append(what, "second stage without a selector")
		case r == 8:
			spec.Stages = append([]placementv1beta1.StageConfig{{Name: "gold", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelTier: "gold"}}}}, spec.Stages...)
			what = append(what, "+ a gold stage first")
		case r == 9:
			spec.Stages[0].AfterStageTasks = []placementv1beta1.AfterStageTask{{Type: placementv1beta1.AfterStageTaskTypeApproval}, {Type: placementv1beta1.AfterStageTaskTypeApproval}}
			what = append(what, "two approvals")
		case r == 10:
			c.index = []string{"7", "-1", "x"}[rng.IntN(3)]
			what = append(what, "resource snapshot "+c.index)
		case r == 11:
			what = append(what, "no strategy")
		}
		if rng.IntN(2) == 0 {
			key := LabelOrder
			spec.Stages[len(spec.Stages)-1].SortingLabelKey = &key
			what = append(what, "sorted by "+key)
		}
		if rng.IntN(3) == 0 && len(spec.Stages[0].AfterStageTasks) < 2 {
			spec.Stages[0].AfterStageTasks = append(spec.Stages[0].AfterStageTasks, placementv1beta1.AfterStageTask{Type: placementv1beta1.AfterStageTaskTypeTimedWait, WaitTime: metav1.Duration{Duration: time.Hour}})
		}
		if what[len(what)-1] != "no strategy" {
			c.strategy = &spec
		}
		c.what = strings.Join(what, "; ")
		cases = append(cases, c)
	}
	return cases
}

// runStagedCase sets the case up on the hub, previews the run from what the provider reads, creates
// it, waits for the controller to initialize it and compares; it returns the mismatches and the
// outcome's class.
func runStagedCase(ctx context.Context, h *hub, hc *fleethub.Client, c stagedCase) ([]string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	defer func() {
		cleanup := context.WithoutCancel(ctx)
		_ = hc.DeleteRun(cleanup, c.name)
		_ = hc.DeleteStrategy(cleanup, c.name)
		_ = h.deletePlacementAndWait(cleanup, c.name)
	}()
	if c.rolling {
		crp := &placementv1beta1.ClusterResourcePlacement{
			ObjectMeta: metav1.ObjectMeta{Name: c.name},
			Spec: placementv1beta1.ClusterResourcePlacementSpec{
				ResourceSelectors: []placementv1beta1.ClusterResourceSelector{{Version: "v1", Kind: "Namespace", Name: appNamespace}},
				Policy:            c.policy.DeepCopy(),
				Strategy:          placementv1beta1.RolloutStrategy{Type: placementv1beta1.RollingUpdateRolloutStrategyType},
			},
		}
		if err := h.c.Create(ctx, crp); err != nil {
			return nil, "", err
		}
	} else if err := h.createPlacement(ctx, c.name, c.policy); err != nil {
		return nil, "", err
	}
	if err := waitStagedScheduled(ctx, h, c.name, c.name+"-0"); err != nil {
		return nil, "", err
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		snaps, err := hc.ResourceSnapshots(ctx, c.name)
		return err == nil && fleethub.LatestResourceSnapshotIndex(snaps) == "0", nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("waiting for resource snapshot 0: %w", err)
	}
	if c.shrinkTo != nil {
		if err := h.bind(ctx, c.name, c.policy.ClusterNames); err != nil {
			return nil, "", err
		}
		if err := h.setPolicy(ctx, c.name, &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: c.shrinkTo}); err != nil {
			return nil, "", err
		}
		if err := waitStagedScheduled(ctx, h, c.name, c.name+"-1"); err != nil {
			return nil, "", err
		}
	}
	if c.strategy != nil {
		if _, err := hc.CreateStrategy(ctx, &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: c.name}, Spec: *c.strategy}); err != nil {
			return nil, "", err
		}
	}
	in, err := hc.RunInputs(ctx, c.name, c.name)
	if err != nil {
		return nil, "", err
	}
	plan := staged.Initialize(staged.Inputs{
		RunName: c.name, Placement: in.Placement, PlacementName: c.name, LatestPolicySnapshots: in.PolicySnapshots, Bindings: in.Bindings,
		StrategyName: c.name, Strategy: in.Strategy, MemberClusters: in.MemberClusters, ResourceSnapshotIndex: c.index, ResourceSnapshots: in.ResourceSnapshots,
	})
	if _, err := hc.CreateRun(ctx, &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: c.name},
		Spec: placementv1beta1.StagedUpdateRunSpec{PlacementName: c.name, ResourceSnapshotIndex: c.index, StagedUpdateStrategyName: c.name}}); err != nil {
		return nil, "", err
	}
	var run *placementv1beta1.ClusterStagedUpdateRun
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := hc.Run(ctx, c.name)
		if err != nil {
			return false, err
		}
		run = got
		cond := meta.FindStatusCondition(got.Status.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized))
		return cond != nil && cond.ObservedGeneration == got.Generation && cond.Status != metav1.ConditionUnknown, nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("waiting for the controller to initialize the run: %w", err)
	}
	return compareStaged(plan, run), outcomeClass(plan), nil
}

// waitStagedScheduled waits until the placement's latest policy snapshot is snapshot, scheduled at
// its generation, and every binding the scheduler decided on exists.
func waitStagedScheduled(ctx context.Context, h *hub, name, snapshot string) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		snap, err := h.latestPolicySnapshot(ctx, name)
		switch {
		case errors.Is(err, errNoLatestSnapshot):
			return false, nil // the scheduler has not made it yet
		case err != nil:
			return false, err
		case snap.Name != snapshot:
			return false, nil
		}
		cond := meta.FindStatusCondition(snap.Status.Conditions, string(placementv1beta1.PolicySnapshotScheduled))
		if cond == nil || cond.ObservedGeneration != snap.Generation || cond.Status != metav1.ConditionTrue {
			return false, nil
		}
		bs, err := h.bindings(ctx, name)
		if err != nil {
			return false, err
		}
		current := 0
		for _, b := range bs {
			if b.Spec.SchedulingPolicySnapshotName == snap.Name {
				current++
			} else if b.Spec.State != placementv1beta1.BindingStateUnscheduled {
				return false, nil // the scheduler has not finished with the old decisions
			}
		}
		selected := 0
		for _, d := range snap.Status.ClusterDecisions {
			if d.Selected {
				selected++
			}
		}
		return current == selected, nil
	})
}

func outcomeClass(p staged.Plan) string {
	if p.Failure == "" {
		if len(p.Deletion) > 0 {
			return "deletion stage"
		}
		return "initialized"
	}
	for _, k := range []string{"in more than one stages", "not placed in any stage", "sorting label", "not found", "external rollout strategy", "resource snapshot", "afterStageTasks"} {
		if strings.Contains(strings.ToLower(p.Failure), strings.ToLower(k)) {
			return k
		}
	}
	return "other failure"
}

// compareStaged lists how the controller's initialization differs from the plan.
func compareStaged(p staged.Plan, run *placementv1beta1.ClusterStagedUpdateRun) []string {
	var out []string
	cond := meta.FindStatusCondition(run.Status.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized))
	if cond == nil {
		return []string{"the run has no Initialized condition"}
	}
	switch {
	case p.Failure == "" && cond.Status != metav1.ConditionTrue:
		out = append(out, fmt.Sprintf("preview: initializes; hub: %q", cond.Message))
	case p.Failure != "" && cond.Status == metav1.ConditionTrue:
		out = append(out, fmt.Sprintf("preview: fails (%q); hub: initialized", p.Failure))
	case p.Failure != "" && cond.Message != p.Failure && !slices.Contains(p.OtherFailures, cond.Message):
		out = append(out, fmt.Sprintf("failure: preview %q (or %d others); hub %q", p.Failure, len(p.OtherFailures), cond.Message))
	}
	if len(p.Stages) != len(run.Status.StagesStatus) {
		out = append(out, fmt.Sprintf("stages: preview %d, hub %d", len(p.Stages), len(run.Status.StagesStatus)))
	} else {
		for i, s := range p.Stages {
			hs := run.Status.StagesStatus[i]
			var hubClusters []string
			for _, c := range hs.Clusters {
				hubClusters = append(hubClusters, c.ClusterName)
			}
			if s.Name != hs.StageName || !slices.Equal(s.Clusters, hubClusters) {
				out = append(out, fmt.Sprintf("stage %d: preview %s %v, hub %s %v", i, s.Name, s.Clusters, hs.StageName, hubClusters))
			}
			var pt, ht []string
			for _, t := range s.Tasks {
				pt = append(pt, string(t.Type)+"/"+t.ApprovalRequest)
			}
			for _, t := range hs.AfterStageTaskStatus {
				ht = append(ht, string(t.Type)+"/"+t.ApprovalRequestName)
			}
			if !slices.Equal(pt, ht) {
				out = append(out, fmt.Sprintf("stage %s tasks: preview %v, hub %v", s.Name, pt, ht))
			}
		}
	}
	var hubDeletion []string
	if d := run.Status.DeletionStageStatus; d != nil {
		for _, c := range d.Clusters {
			hubDeletion = append(hubDeletion, c.ClusterName)
		}
	}
	if !slices.Equal(p.Deletion, hubDeletion) {
		out = append(out, fmt.Sprintf("deletion stage: preview %v, hub %v", p.Deletion, hubDeletion))
	}
	return out
}
