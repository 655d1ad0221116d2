package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	enginehub "github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The staged fleet and strategies: change the seed and the whole run changes, reproducibly.
const (
	stagedSeed           = 20261124
	stagedStrategyCount  = 14
	holdFinalizer        = "conformance.fleetops.dev/hold"
	initializedCondition = string(placementv1.StagedUpdateRunConditionInitialized)
)

// stagedReasons are the controller's initialization outcomes (v0.18.9 updaterun/initialization.go),
// by a part of their message; the test reports which it saw.
var stagedReasons = []string{
	"initialized",
	"parent placement not found",
	"does not have an external rollout strategy",
	"multiple active policy snapshots",
	"no latest policy snapshot",
	"does not have a policy index label",
	"valid cluster count annotation",
	"not fully scheduled yet",
	"no scheduled or to-be-deleted",
	"the number of selected bindings",
	"referenced updateStrategy not found",
	"the before stage tasks are invalid",
	"the after stage tasks are invalid",
	"the stage label selector is invalid",
	"appears in more than one stages",
	"the sorting label",
	"not placed in any stage",
	"invalid resource snapshot index",
	"no resourceSnapshots with index",
	"no master resourceSnapshot",
}

func stagedReason(failed bool, message string) string {
	if !failed {
		return "initialized"
	}
	for _, r := range stagedReasons[1:] {
		if strings.Contains(message, r) {
			return r
		}
	}
	return "other: " + message
}

// TestStagedUpdateRunConformance compares, for generated placements and strategies in both
// scopes, the staged engine's initialization of a ClusterStagedUpdateRun or a namespaced
// StagedUpdateRun of a ResourcePlacement (staged.Initialize over what hub.RunInputs reads, as the
// provider's preview does) with what KubeFleet v0.18.9's staged update run controller records on
// a local hub: whether it initializes, status.stagesStatus (stage names, clusters in order, their
// maxConcurrency batches, before- and after-stage tasks and approval request names), the deletion
// stage, and its failure message. Runs are created with spec.state Initialize, so none of them
// changes a binding. Agreement must be 100 %.
func TestStagedUpdateRunConformance(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	f := GenerateStagedFleet(stagedSeed)
	path := filepath.Join(t.TempDir(), "staged-fleet.yaml")
	if err := WriteFleet(f, path); err != nil {
		t.Fatal(err)
	}
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	lf, err := acctest.Start(root, path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Stop()
	h := connect(t, lf.Env)
	if err := h.waitFleetSettled(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := h.ensureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	s := &stagedSuite{t: t, ctx: ctx, h: h, hc: hubClient(t, lf.Env), fleet: f, seen: map[string]int{}, guards: map[string]string{}}
	t.Logf("staged fleet of %d members settled in %s", len(f.Members), time.Since(start).Round(time.Millisecond))

	// Strategies: the generated ones, one that holds a run at an approval (for a placement whose
	// run would otherwise go straight to its deletion stage), and one with invalid tasks.
	strategies := StagedStrategies(stagedSeed, stagedStrategyCount)
	hold := StagedStrategy{Name: "st-hold", Shape: "hold", Spec: placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{
		{Name: "hold", AfterStageTasks: []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}}}}}}
	badTasks := StagedStrategy{Name: "st-badtasks", Shape: "invalidtasks", Spec: placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{
		{Name: "waits", LabelSelector: &metav1.LabelSelector{}, AfterStageTasks: []placementv1.StageTask{
			{Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Minute}},
			{Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Hour}}}}}}}
	// everything takes every cluster in one stage and holds at an approval: it initializes on any
	// placement, so the resource snapshot checks after the stages are reached.
	everything := StagedStrategy{Name: "st-everything", Shape: "everything", Spec: placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{
		{Name: "all", LabelSelector: &metav1.LabelSelector{}, AfterStageTasks: []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}}}}}}
	special := []StagedStrategy{hold, badTasks, everything}
	// Invalid selectors, each worded by apimachinery's validation.
	for i, sel := range []*metav1.LabelSelector{
		exprs(expr(LabelRing, metav1.LabelSelectorOpIn)),
		exprs(expr(LabelRing, metav1.LabelSelectorOpNotIn)),
		exprs(expr(LabelOrder, metav1.LabelSelectorOpExists, "1", "2")),
		exprs(expr("a/b/c", metav1.LabelSelectorOpExists)),
		exprs(expr("bad key", metav1.LabelSelectorOpDoesNotExist)),
		labels(LabelRing, "-late-"),
		exprs(expr(LabelRing, "Gt", "1")),
	} {
		special = append(special, StagedStrategy{Name: fmt.Sprintf("st-badselector-%d", i), Shape: "invalidselector", Spec: placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{
			{Name: "first", LabelSelector: &metav1.LabelSelector{}}, {Name: "bad", LabelSelector: sel}}}})
	}
	for _, st := range append(slices.Clone(strategies), special...) {
		if _, err := s.hc.CreateStrategy(ctx, &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: st.Name}, Spec: st.Spec}); err != nil {
			t.Fatalf("strategy %s: %v", st.Name, err)
		}
	}

	// Placements: staged ones the strategies run over, ones whose policy changed (bindings left
	// unscheduled for a deletion stage), and ones the controller refuses.
	eligible := eligibleStaged(f)
	all := pickAll(required(term(labels(LabelStaged, "yes"))))
	nowhere := pickAll(required(term(labels(LabelRing, "nowhere"))))
	external := placementv1.ExternalRolloutStrategyType
	phase := time.Now()
	s.placement("sp-all", all, external)
	s.placement("sp-pickn", pickN(5, required(term(labels(LabelStaged, "yes")))), external)
	s.placement("sp-fixed", pickFixed(eligible[0], eligible[3], eligible[5], eligible[8]), external)
	s.placement("sp-deletion", all, external)
	s.placement("sp-gone", all, external)
	s.placement("sp-fixed-missing", pickFixed(eligible[1], "m-gone"), external)
	s.placement("sp-short", pickN(40, required(term(labels(LabelStaged, "yes")))), external)
	s.placement("sp-empty", nowhere, external)
	s.placement("sp-rolling", nowhere, placementv1.RollingUpdateRolloutStrategyType)
	s.setPolicy("sp-deletion", pickAll(required(term(exprs(expr(LabelRing, metav1.LabelSelectorOpIn, "canary", "early"))))))
	s.setPolicy("sp-gone", nowhere)
	t.Logf("placements scheduled in %s", time.Since(phase).Round(time.Millisecond))

	phase = time.Now()
	for _, p := range []string{"sp-all", "sp-pickn", "sp-fixed", "sp-deletion"} {
		for _, st := range strategies {
			s.compare(p, st.Name, "", st.Shape)
		}
	}
	// A run of a placement with no scheduled clusters goes straight to its deletion stage once
	// initialized: the runs that fail first, then one held at an approval.
	s.compare("sp-gone", badTasks.Name, "", badTasks.Shape)
	s.compare("sp-gone", "st-missing", "", "missing strategy")
	s.compare("sp-gone", hold.Name, "9", "missing resource snapshot index")
	s.compare("sp-gone", hold.Name, "", hold.Shape)
	s.compare("sp-all", badTasks.Name, "", badTasks.Shape)
	s.compare("sp-all", "st-missing", "", "missing strategy")
	for _, p := range []string{"sp-all", "sp-pickn", "sp-fixed", "sp-deletion"} {
		s.compare(p, everything.Name, "", everything.Shape)
	}
	for _, st := range special[3:] {
		s.compare("sp-pickn", st.Name, "", st.Shape)
	}
	s.compare("sp-all", everything.Name, "1", "missing resource snapshot index")
	s.compare("sp-pickn", everything.Name, "abc", "invalid resource snapshot index")
	s.compare("sp-deletion", everything.Name, "-1", "negative resource snapshot index")
	s.compare("sp-missing", strategies[0].Name, "0", "missing placement")
	s.compare("sp-rolling", strategies[0].Name, "0", "rolling update placement")
	s.compare("sp-empty", strategies[0].Name, "", "no bindings")
	s.compare("sp-short", strategies[0].Name, "", "PickN with too few clusters")
	s.compare("sp-fixed-missing", strategies[0].Name, "", "PickFixed naming a missing cluster")
	s.noMasterSnapshot("sp-fixed", everything.Name)
	s.heldPlacement(strategies[0].Name)

	// The namespaced scope: ResourcePlacements of a ConfigMap in stagedNamespace, the same
	// strategies as StagedUpdateStrategies there, StagedUpdateRuns.
	s.namespace()
	for _, st := range append(slices.Clone(strategies), hold, everything) {
		if _, err := s.hc.CreateStrategy(ctx, &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: st.Name, Namespace: stagedNamespace}, Spec: st.Spec}); err != nil {
			t.Fatalf("namespaced strategy %s: %v", st.Name, err)
		}
	}
	nsKey := func(n string) string { return stagedNamespace + "/" + n }
	s.resourcePlacement("rp-all", all, external)
	s.resourcePlacement("rp-pickn", pickN(4, required(term(labels(LabelStaged, "yes")))), external)
	s.resourcePlacement("rp-fixed", pickFixed(eligible[2], eligible[4], eligible[6]), external)
	s.resourcePlacement("rp-rolling", nowhere, placementv1.RollingUpdateRolloutStrategyType)
	for _, p := range []string{"rp-all", "rp-pickn", "rp-fixed"} {
		for _, st := range strategies {
			s.compare(nsKey(p), st.Name, "", st.Shape)
		}
		s.compare(nsKey(p), everything.Name, "", everything.Shape)
	}
	s.compare(nsKey("rp-all"), everything.Name, "0", "namespaced: resource snapshot taken by an earlier run")
	s.compare(nsKey("rp-all"), everything.Name, "7", "namespaced: missing resource snapshot index")
	s.compare(nsKey("rp-all"), "st-missing", "", "namespaced: missing strategy")
	s.compare(nsKey("rp-missing"), hold.Name, "", "namespaced: missing placement")
	s.compare(nsKey("rp-rolling"), hold.Name, "", "namespaced: rolling update placement")
	s.compare(nsKey("sp-all"), hold.Name, "", "namespaced: a cluster-scoped placement's name")
	t.Logf("%d runs (%d namespaced) in %s", s.runs, s.namespaced, time.Since(phase).Round(time.Millisecond))

	// Executed runs: the controller runs them to Succeeded; the clusters' Started times must follow
	// the engine's update order and batches.
	phase = time.Now()
	execStages := func(mc intstr.IntOrString) placementv1.UpdateStrategySpec {
		return placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{
			{Name: "canary", LabelSelector: labels(LabelRing, "canary"), MaxConcurrency: &mc},
			{Name: "rest", LabelSelector: exprs(expr(LabelRing, metav1.LabelSelectorOpNotIn, "canary")), SortingLabelKey: nil, MaxConcurrency: &mc}}}
	}
	for _, st := range []struct {
		ns, name string
		spec     placementv1.UpdateStrategySpec
	}{{"", "st-exec", execStages(intstr.FromInt32(3))}, {stagedNamespace, "st-exec", execStages(intstr.FromString("50%"))}} {
		if _, err := s.hc.CreateStrategy(ctx, &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: st.name, Namespace: st.ns}, Spec: st.spec}); err != nil {
			t.Fatalf("strategy %s: %v", st.name, err)
		}
	}
	fixed := pickFixed(eligible[0], eligible[1], eligible[2], eligible[3], eligible[4], eligible[5], eligible[6])
	s.placement("sp-exec", fixed, external)
	s.resourcePlacement("rp-exec", fixed, external)
	s.execute("sp-exec", "st-exec")
	s.execute(nsKey("rp-exec"), "st-exec")
	t.Logf("%d executed runs in %s: %d order or concurrency mismatches; %d of %d clusters after a batch's first started with it (the others a reconcile later)",
		s.executed, time.Since(phase).Round(time.Millisecond), s.batchMismatches, s.batchClusters-s.deferred, s.batchClusters)
	if s.batchMismatches > 0 {
		t.Errorf("the controller updated clusters out of the engine's order or batches in %d runs", s.batchMismatches)
	}

	var covered []string
	for _, r := range stagedReasons {
		if s.seen[r] > 0 {
			covered = append(covered, fmt.Sprintf("%s (%d)", r, s.seen[r]))
		}
	}
	for r, n := range s.seen {
		if !slices.Contains(stagedReasons, r) {
			covered = append(covered, fmt.Sprintf("%s (%d)", r, n))
		}
	}
	t.Logf("outcomes covered: %d of %d: %s", len(covered), len(stagedReasons), strings.Join(covered, "; "))
	t.Logf("compared %d staged update run initializations (%d cluster-scoped, %d namespaced) in %s: %d mismatches",
		s.runs, s.runs-s.namespaced, s.namespaced, time.Since(start).Round(time.Millisecond), s.mismatches)
	if s.runs < 100 {
		t.Errorf("only %d runs compared; the conformance promises at least 100", s.runs)
	}
	if s.mismatches > 0 {
		for _, m := range f.Members {
			t.Logf("member %s: labels %v, healthy %v, taints %v", m.Name, m.Labels, m.IsHealthy(), m.Taints)
		}
		t.Errorf("the staged engine disagrees with the controller on %d runs; 100 %% agreement required", s.mismatches)
	}
}

func hubClient(t *testing.T, env map[string]string) *enginehub.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBE_CONFIG_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kube.NewClient(cfg, "staged-conformance")
	if err != nil {
		t.Fatal(err)
	}
	return enginehub.New(kc)
}

// eligibleStaged are the staged members the scheduler can pick, in fleet file order.
func eligibleStaged(f *fleetfile.File) []string {
	var out []string
	for _, m := range f.Members {
		if m.Labels[LabelStaged] == "yes" && m.IsHealthy() && len(m.Taints) == 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

type stagedSuite struct {
	t     *testing.T
	ctx   context.Context
	h     *hub
	hc    *enginehub.Client
	fleet *fleetfile.File

	runs, namespaced, mismatches int
	executed, batchMismatches    int
	batchClusters, deferred      int
	seen                         map[string]int
	// guards are the placements' bindings as set up (cluster, policy snapshot, unscheduled or
	// not): a run that got as far as its deletion stage would change them under later runs.
	guards map[string]string
}

// placement creates a placement of the app namespace and waits until it is scheduled. v0.18.9's
// placement controller cuts no resource snapshot for an External placement ("Using external
// rollout strategy, skipping resource snapshot creation", pkg/controllers/placement/controller.go):
// a run without a resource snapshot index snapshots the resources itself.
func (s *stagedSuite) placement(name string, policy *placementv1.PlacementPolicy, strategy placementv1.RolloutStrategyType, finalizers ...string) {
	s.t.Helper()
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: appNamespace}},
			Policy:            policy.DeepCopy(),
			Strategy:          placementv1.RolloutStrategy{Type: strategy},
		},
	}
	if err := s.h.c.Create(s.ctx, crp); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = s.h.deletePlacement(context.Background(), name) })
	s.settle(name)
}

func (s *stagedSuite) setPolicy(name string, policy *placementv1.PlacementPolicy) {
	s.t.Helper()
	if err := s.h.setPolicy(s.ctx, name, policy); err != nil {
		s.t.Fatal(err)
	}
	s.settle(name)
}

func (s *stagedSuite) settle(name string) {
	s.t.Helper()
	if _, err := s.h.waitScheduled(s.ctx, name, nil); err != nil {
		s.t.Fatal(err)
	}
	bs, err := s.hc.Bindings(s.ctx, name)
	if err != nil {
		s.t.Fatal(err)
	}
	s.guards[name] = bindingGuard(bs)
}

func bindingGuard(bs []placementv1.ClusterResourceBinding) string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%s/%s/%v", b.Spec.TargetCluster, b.Spec.SchedulingPolicySnapshotName, b.Spec.State == placementv1.BindingStateUnscheduled))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// compare reads the inputs as the provider does, creates a run of placement with strategy at
// index ("": the run snapshots the placement's resources itself), waits until the controller has
// initialized it or refused to, compares, and deletes the run. A placement "ns/name" is a
// ResourcePlacement and its run a namespaced StagedUpdateRun.
func (s *stagedSuite) compare(placement, strategy, index, what string) {
	s.t.Helper()
	ns, placementName := splitKey(placement)
	if guard, ok := s.guards[placement]; ok {
		in, err := s.hc.RunInputs(s.ctx, ns, placementName, strategy)
		if err != nil {
			s.t.Fatal(err)
		}
		if got := bindingGuard(in.Bindings); got != guard {
			s.t.Fatalf("placement %s: its bindings changed under the test (a run went on past its stages?):\n    set up: %s\n    now:    %s", placement, guard, got)
		}
	}
	in, err := s.hc.RunInputs(s.ctx, ns, placementName, strategy)
	if err != nil {
		s.t.Fatal(err)
	}
	if in.MemberClusters, err = s.hc.MemberClusters(s.ctx); err != nil {
		s.t.Fatal(err)
	}
	s.runs++
	if ns != "" {
		s.namespaced++
	}
	name := fmt.Sprintf("sr-%03d", s.runs)
	plan := staged.Initialize(staged.Inputs{
		RunName: name, Namespace: ns, Placement: in.Placement, PlacementName: placementName,
		LatestPolicySnapshots: in.PolicySnapshots, Bindings: in.Bindings,
		StrategyName: strategy, Strategy: in.Strategy, MemberClusters: in.MemberClusters,
		ResourceSnapshotIndex: index, ResourceSnapshots: in.ResourceSnapshots,
	})
	if plan.Retry != "" {
		s.t.Fatalf("run %s: the engine expects the controller to retry (%s): the test's placements are settled", name, plan.Retry)
	}
	run := &placementv1.ClusterStagedUpdateRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: placementv1.UpdateRunSpec{PlacementName: placementName, ResourceSnapshotIndex: index, StagedUpdateStrategyName: strategy,
			State: placementv1.StateInitialize},
	}
	if _, err := s.hc.CreateRun(s.ctx, run); err != nil {
		s.t.Fatalf("run %s: %v", name, err)
	}
	var got *placementv1.ClusterStagedUpdateRun
	err = wait.PollUntilContextTimeout(s.ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		r, err := s.hc.Run(ctx, ns, name)
		if err != nil {
			return false, err
		}
		got = r
		return meta.FindStatusCondition(r.Status.Conditions, initializedCondition) != nil, nil
	})
	if err != nil {
		s.t.Fatalf("run %s (%s, %s): the controller did not initialize it: %v", name, placement, strategy, err)
	}
	if err := s.hc.DeleteRun(s.ctx, ns, name); err != nil {
		s.t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(s.ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		ok, err := s.hc.RunExists(ctx, ns, name)
		return !ok, err
	})
	if err != nil {
		s.t.Fatalf("run %s was not deleted: %v", name, err)
	}

	cond := meta.FindStatusCondition(got.Status.Conditions, initializedCondition)
	reason := stagedReason(cond.Status != metav1.ConditionTrue, cond.Message)
	s.seen[reason]++
	mismatches := compareStaged(plan, got)
	s.t.Logf("run %s: %s, %s (%s), index %q: %s; %d mismatches", name, placement, strategy, what, index, reason, len(mismatches))
	if len(mismatches) == 0 {
		return
	}
	s.mismatches++
	var b strings.Builder
	fmt.Fprintf(&b, "run %s of placement %s with strategy %s at resource snapshot index %q (%s):", name, placement, strategy, index, what)
	for _, m := range mismatches {
		b.WriteString("\n  " + m)
	}
	if in.Placement != nil {
		pol, _ := json.Marshal(in.Placement.Spec.Policy)
		fmt.Fprintf(&b, "\n  placement policy: %s (%s)", pol, in.Placement.Spec.Strategy.Type)
	}
	if in.Strategy != nil {
		spec, _ := json.Marshal(in.Strategy.Spec)
		fmt.Fprintf(&b, "\n  strategy: %s", spec)
	}
	var bs []string
	for _, bd := range in.Bindings {
		bs = append(bs, fmt.Sprintf("%s(%s, %s)", bd.Spec.TargetCluster, bd.Spec.State, bd.Spec.SchedulingPolicySnapshotName))
	}
	sort.Strings(bs)
	fmt.Fprintf(&b, "\n  bindings: %s", strings.Join(bs, " "))
	s.t.Error(b.String())
}

// compareStaged lists the differences between the engine's plan and the run the controller
// initialized: its Initialized condition (and on failure, its message: the plan's or one of the
// alternatives it allows), the stages it recorded (names, clusters in order, after-stage tasks and
// approval request names; the controller records them on some failures too) and its deletion
// stage.
func compareStaged(plan staged.Plan, run *placementv1.ClusterStagedUpdateRun) []string {
	var out []string
	cond := meta.FindStatusCondition(run.Status.Conditions, initializedCondition)
	switch {
	case cond == nil:
		out = append(out, "the run has no Initialized condition")
	case plan.Failure == "" && cond.Status != metav1.ConditionTrue:
		out = append(out, fmt.Sprintf("initialized:\n    engine:     yes\n    controller: no: %s", cond.Message))
	case plan.Failure != "" && cond.Status == metav1.ConditionTrue:
		out = append(out, fmt.Sprintf("initialized:\n    engine:     no: %s\n    controller: yes", plan.Failure))
	case plan.Failure != "" && cond.Message != plan.Failure && !slices.Contains(plan.OtherFailures, cond.Message):
		msg := fmt.Sprintf("failure message:\n    engine:     %s\n    controller: %s", plan.Failure, cond.Message)
		if len(plan.OtherFailures) > 0 {
			msg += "\n    (engine alternatives: " + strings.Join(plan.OtherFailures, " | ") + ")"
		}
		out = append(out, msg)
	}

	want, got := planStages(plan.Stages), runStages(run)
	for i := range max(len(want), len(got)) {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			out = append(out, fmt.Sprintf("stage %d:\n    engine:     %s\n    controller: %s", i+1, w, g))
		}
	}

	var gotDeletion []string
	if d := run.Status.DeletionStageStatus; d != nil {
		if d.StageName != placementv1beta1.UpdateRunDeleteStageName {
			out = append(out, fmt.Sprintf("deletion stage named %q", d.StageName))
		}
		for _, c := range d.Clusters {
			gotDeletion = append(gotDeletion, c.ClusterName)
		}
	} else if cond != nil && cond.Status == metav1.ConditionTrue {
		out = append(out, "the initialized run has no deletion stage")
	}
	if w, g := strings.Join(plan.Deletion, ", "), strings.Join(gotDeletion, ", "); w != g {
		out = append(out, fmt.Sprintf("deletion stage:\n    engine:     [%s]\n    controller: [%s]", w, g))
	}
	return out
}

func planStages(stages []staged.Stage) []string {
	out := make([]string, len(stages))
	for i, s := range stages {
		var before, tasks []string
		for _, t := range s.BeforeTasks {
			before = append(before, taskText(t.Type, t.ApprovalRequest))
		}
		for _, t := range s.Tasks {
			tasks = append(tasks, taskText(t.Type, t.ApprovalRequest))
		}
		out[i] = stageText(s.Name, s.Batches(), before, tasks)
	}
	return out
}

// runStages are the stages the controller recorded, each split into batches by the maxConcurrency
// of the strategy snapshot it recorded (updaterun/execution.go calculateMaxConcurrencyValue).
func runStages(run *placementv1.ClusterStagedUpdateRun) []string {
	stages := run.Status.StagesStatus
	out := make([]string, len(stages))
	for i, s := range stages {
		var clusters, before, tasks []string
		for _, c := range s.Clusters {
			clusters = append(clusters, c.ClusterName)
		}
		for _, t := range s.BeforeStageTaskStatus {
			before = append(before, taskText(t.Type, t.ApprovalRequestName))
		}
		for _, t := range s.AfterStageTaskStatus {
			tasks = append(tasks, taskText(t.Type, t.ApprovalRequestName))
		}
		n := 0
		if snap := run.Status.UpdateStrategySnapshot; snap != nil && i < len(snap.Stages) && len(clusters) > 0 {
			var err error
			if n, err = staged.MaxConcurrency(snap.Stages[i].MaxConcurrency, len(clusters)); err != nil {
				n = -1
			}
		}
		out[i] = stageText(s.StageName, staged.Batches(clusters, n), before, tasks)
	}
	return out
}

func stageText(name string, batches [][]string, before, tasks []string) string {
	var bs []string
	for _, b := range batches {
		bs = append(bs, "["+strings.Join(b, ", ")+"]")
	}
	return fmt.Sprintf("%s [%s] before [%s] after [%s]", name, strings.Join(bs, " "), strings.Join(before, ", "), strings.Join(tasks, ", "))
}

// splitKey splits "ns/name" (a namespaced placement) or "name".
func splitKey(key string) (string, string) {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		return ns, name
	}
	return "", key
}

func taskText(typ placementv1.StageTaskType, approval string) string {
	if approval == "" {
		return string(typ)
	}
	return string(typ) + " " + approval
}

// noMasterSnapshot runs a placement at a resource snapshot index that only a sub-snapshot (no
// resource group hash) has.
func (s *stagedSuite) noMasterSnapshot(placement, strategy string) {
	s.t.Helper()
	snap := &placementv1.ClusterResourceSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: placement + "-99-sub", Labels: map[string]string{
			placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.ResourceIndexLabel: "99"}},
		Spec: placementv1.ResourceSnapshotSpec{SelectedResources: []placementv1.ResourceContent{}},
	}
	if err := s.h.c.Create(s.ctx, snap); err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = s.h.c.Delete(context.Background(), snap) }()
	s.compare(placement, strategy, "99", "index with no master resource snapshot")
}

// heldPlacement runs a placement that is being deleted but held by a finalizer: the hub agent has
// deleted its policy snapshots and bindings. Then policy snapshots the test writes itself stand in
// for what the hub agent never writes: one without an index label, a PickN one without its
// cluster count, and two labelled latest.
func (s *stagedSuite) heldPlacement(strategy string) {
	s.t.Helper()
	const name = "sp-held"
	s.placement(name, pickAll(required(term(labels(LabelRing, "nowhere")))), placementv1.ExternalRolloutStrategyType, holdFinalizer)
	delete(s.guards, name)
	defer func() {
		_ = s.h.c.DeleteAllOf(context.Background(), &placementv1.ClusterSchedulingPolicySnapshot{}, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name})
		for range 20 {
			crp, err := s.h.placement(context.Background(), name)
			if err != nil {
				return
			}
			crp.Finalizers = slices.DeleteFunc(crp.Finalizers, func(f string) bool { return f == holdFinalizer })
			if err := s.h.c.Update(context.Background(), crp); !apierrors.IsConflict(err) {
				return
			}
		}
	}()
	if err := s.h.deletePlacement(s.ctx, name); err != nil {
		s.t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(s.ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crp, err := s.h.placement(ctx, name)
		if err != nil {
			return false, err
		}
		var snaps placementv1.ClusterSchedulingPolicySnapshotList
		if err := s.h.c.List(ctx, &snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name}); err != nil {
			return false, err
		}
		return slices.Equal(crp.Finalizers, []string{holdFinalizer}) && len(snaps.Items) == 0, nil
	})
	if err != nil {
		s.t.Fatalf("placement %s: the hub agent did not clean it up: %v", name, err)
	}
	s.compare(name, strategy, "0", "placement being deleted: no policy snapshot")

	fake := func(n string, index string) *placementv1.ClusterSchedulingPolicySnapshot {
		l := map[string]string{placementv1beta1.PlacementTrackingLabel: name, placementv1beta1.IsLatestSnapshotLabel: "true"}
		if index != "" {
			l[placementv1beta1.PolicyIndexLabel] = index
		}
		return &placementv1.ClusterSchedulingPolicySnapshot{
			ObjectMeta: metav1.ObjectMeta{Name: n, Labels: l},
			Spec:       placementv1.SchedulingPolicySnapshotSpec{Policy: pickN(3), PolicyHash: []byte("conformance")},
		}
	}
	first := fake(name+"-0", "")
	if err := s.h.c.Create(s.ctx, first); err != nil {
		s.t.Fatal(err)
	}
	s.compare(name, strategy, "0", "policy snapshot without an index label")
	first.Labels[placementv1beta1.PolicyIndexLabel] = "0"
	if err := s.h.c.Update(s.ctx, first); err != nil {
		s.t.Fatal(err)
	}
	s.compare(name, strategy, "0", "PickN policy snapshot without a cluster count")
	first.Annotations = map[string]string{placementv1beta1.NumberOfClustersAnnotation: "x"}
	if err := s.h.c.Update(s.ctx, first); err != nil {
		s.t.Fatal(err)
	}
	s.compare(name, strategy, "0", "PickN policy snapshot with a cluster count that is not a number")
	if err := s.h.c.Create(s.ctx, fake(name+"-1", "1")); err != nil {
		s.t.Fatal(err)
	}
	s.compare(name, strategy, "0", "two latest policy snapshots")
}

// stagedNamespace holds the namespaced scope's ResourcePlacements, strategies and runs.
const stagedNamespace = "conformance-staged"

// namespace creates stagedNamespace with the ConfigMap its ResourcePlacements select.
func (s *stagedSuite) namespace() {
	s.t.Helper()
	if err := s.h.c.Create(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: stagedNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		s.t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: stagedNamespace}, Data: map[string]string{"k": "v"}}
	if err := s.h.c.Create(s.ctx, cm); err != nil && !apierrors.IsAlreadyExists(err) {
		s.t.Fatal(err)
	}
}

// resourcePlacement creates a ResourcePlacement of the ConfigMap in stagedNamespace and waits until
// the scheduler has bound what its latest policy snapshot selects.
func (s *stagedSuite) resourcePlacement(name string, policy *placementv1.PlacementPolicy, strategy placementv1.RolloutStrategyType) {
	s.t.Helper()
	rp := &placementv1.ResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: stagedNamespace},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "ConfigMap", Name: "app-config"}},
			Policy:            policy.DeepCopy(),
			Strategy:          placementv1.RolloutStrategy{Type: strategy},
		},
	}
	if err := s.h.c.Create(s.ctx, rp); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = s.h.c.Delete(context.Background(), rp) })
	var last string
	var in enginehub.RunInputs
	err := wait.PollUntilContextTimeout(s.ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if in, err = s.hc.RunInputs(ctx, stagedNamespace, name, "none"); err != nil {
			return false, err
		}
		if in.Placement == nil || len(in.PolicySnapshots) != 1 {
			last = "no single latest policy snapshot"
			return false, nil
		}
		snap := in.PolicySnapshots[0]
		c := meta.FindStatusCondition(snap.Status.Conditions, string(placementv1.PolicySnapshotScheduled))
		if c == nil || c.ObservedGeneration != snap.Generation || c.Status == metav1.ConditionUnknown {
			last = "the policy snapshot is not scheduled"
			return false, nil
		}
		selected := 0
		for _, d := range snap.Status.ClusterDecisions {
			if d.Selected {
				selected++
			}
		}
		bound := 0
		for _, b := range in.Bindings {
			if b.Spec.SchedulingPolicySnapshotName == snap.Name && b.Spec.State != placementv1.BindingStateUnscheduled {
				bound++
			}
		}
		last = fmt.Sprintf("%d bindings for %d selected clusters", bound, selected)
		return bound == selected, nil
	})
	if err != nil {
		s.t.Fatalf("resource placement %s/%s: not scheduled (%s): %v", stagedNamespace, name, last, err)
	}
	s.guards[stagedNamespace+"/"+name] = bindingGuard(in.Bindings)
}

// execute runs placement with strategy to Succeeded (state Run) and checks the clusters' Started
// and Succeeded times against the engine's plan: in each stage, clusters start in the engine's
// order (times never decrease along it), never more than its maxConcurrency update at once (a
// cluster starts only when fewer than maxConcurrency clusters before it are still updating), and a
// batch's clusters start together except where the controller retried one (a binding update
// conflict defers a cluster to the next reconcile: counted, not a mismatch).
func (s *stagedSuite) execute(placement, strategy string) {
	s.t.Helper()
	ns, placementName := splitKey(placement)
	in, err := s.hc.RunInputs(s.ctx, ns, placementName, strategy)
	if err != nil {
		s.t.Fatal(err)
	}
	if in.MemberClusters, err = s.hc.MemberClusters(s.ctx); err != nil {
		s.t.Fatal(err)
	}
	s.executed++
	name := fmt.Sprintf("exec-%d", s.executed)
	plan := staged.Initialize(staged.Inputs{
		RunName: name, Namespace: ns, Placement: in.Placement, PlacementName: placementName,
		LatestPolicySnapshots: in.PolicySnapshots, Bindings: in.Bindings,
		StrategyName: strategy, Strategy: in.Strategy, MemberClusters: in.MemberClusters, ResourceSnapshots: in.ResourceSnapshots,
	})
	if plan.Failure != "" {
		s.t.Fatalf("executed run %s: the engine refuses it: %s", name, plan.Failure)
	}
	run := &placementv1.ClusterStagedUpdateRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       placementv1.UpdateRunSpec{PlacementName: placementName, StagedUpdateStrategyName: strategy, State: placementv1.StateRun},
	}
	if _, err := s.hc.CreateRun(s.ctx, run); err != nil {
		s.t.Fatal(err)
	}
	var got *placementv1.ClusterStagedUpdateRun
	err = wait.PollUntilContextTimeout(s.ctx, 500*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		r, err := s.hc.Run(ctx, ns, name)
		if err != nil {
			return false, err
		}
		got = r
		st, _ := staged.RunState(r)
		return st.Ended(), nil
	})
	if err != nil {
		s.t.Fatalf("executed run %s did not end: %v", name, err)
	}
	if st, msg := staged.RunState(got); st != staged.StateSucceeded {
		s.t.Fatalf("executed run %s: %s: %s", name, st, msg)
	}
	var problems []string
	for i, stage := range plan.Stages {
		if i >= len(got.Status.StagesStatus) {
			problems = append(problems, "stage "+stage.Name+" not recorded")
			continue
		}
		started, finished := map[string]time.Time{}, map[string]time.Time{}
		for _, c := range got.Status.StagesStatus[i].Clusters {
			if cond := meta.FindStatusCondition(c.Conditions, string(placementv1.ClusterUpdatingConditionStarted)); cond != nil {
				started[c.ClusterName] = cond.LastTransitionTime.Time
			}
			if cond := meta.FindStatusCondition(c.Conditions, string(placementv1.ClusterUpdatingConditionSucceeded)); cond != nil {
				finished[c.ClusterName] = cond.LastTransitionTime.Time
			}
		}
		batches := stage.Batches()
		var line []string
		for _, b := range batches {
			var ts []string
			for _, c := range b {
				ts = append(ts, c+"@"+started[c].Format("15:04:05"))
			}
			line = append(line, "["+strings.Join(ts, " ")+"]")
		}
		s.t.Logf("executed run %s, stage %s (max %d): %s", name, stage.Name, stage.MaxConcurrency, strings.Join(line, " "))
		// Clusters start in order one at a time; with a larger window a cluster whose binding
		// update conflicts is counted as updating and retried next reconcile while the next one
		// in the window starts (v0.18.9 pkg/controllers/updaterun/execution.go,
		// executeUpdatingStage): only the window, checked below, is a promise then.
		for j := 1; stage.MaxConcurrency == 1 && j < len(stage.Clusters); j++ {
			a, b := stage.Clusters[j-1], stage.Clusters[j]
			if started[b].Before(started[a]) {
				problems = append(problems, fmt.Sprintf("stage %s: %s started before %s", stage.Name, b, a))
			}
		}
		for k, c := range stage.Clusters {
			updating := 0
			for _, d := range stage.Clusters[:k] {
				if finished[d].After(started[c]) {
					updating++
				}
			}
			if updating >= stage.MaxConcurrency {
				problems = append(problems, fmt.Sprintf("stage %s: %s started while %d clusters before it were updating (max %d)", stage.Name, c, updating, stage.MaxConcurrency))
			}
		}
		for _, b := range batches {
			for _, c := range b[1:] {
				s.batchClusters++
				if !started[c].Equal(started[b[0]]) {
					s.deferred++
				}
			}
		}
	}
	if len(problems) > 0 {
		s.batchMismatches++
		s.t.Errorf("executed run %s of %s: %s", name, placement, strings.Join(problems, "; "))
	}
}
