package staged

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Expected values below are written from upstream's own tests and code
// (pkg/controllers/updaterun/initialization_integration_test.go), not from this package.

func member(name string, labels map[string]string) clusterv1.MemberCluster {
	return clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func ptr[T any](v T) *T { return &v }

type fixture struct{ in Inputs }

func newFixture(scheduled []string, unscheduled []string, members []clusterv1.MemberCluster, stages ...placementv1.StageConfig) *fixture {
	snap := placementv1.ClusterSchedulingPolicySnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: "crp-0", Generation: 1, Labels: map[string]string{placementv1beta1.PolicyIndexLabel: "0"}},
		Status: placementv1.SchedulingPolicySnapshotStatus{Conditions: []metav1.Condition{
			{Type: string(placementv1.PolicySnapshotScheduled), Status: metav1.ConditionTrue, ObservedGeneration: 1}}},
	}
	var bindings []placementv1.ClusterResourceBinding
	for _, c := range scheduled {
		bindings = append(bindings, placementv1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "b-" + c},
			Spec: placementv1.ResourceBindingSpec{TargetCluster: c, State: placementv1.BindingStateScheduled, SchedulingPolicySnapshotName: "crp-0"}})
	}
	for _, c := range unscheduled {
		bindings = append(bindings, placementv1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "b-" + c},
			Spec: placementv1.ResourceBindingSpec{TargetCluster: c, State: placementv1.BindingStateUnscheduled, SchedulingPolicySnapshotName: "crp-old"}})
	}
	return &fixture{in: Inputs{
		RunName:               "run",
		PlacementName:         "crp",
		Placement:             &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "crp"}, Spec: placementv1.PlacementSpec{Strategy: placementv1.RolloutStrategy{Type: placementv1.ExternalRolloutStrategyType}}},
		LatestPolicySnapshots: []placementv1.ClusterSchedulingPolicySnapshot{snap},
		Bindings:              bindings,
		StrategyName:          "strategy",
		Strategy:              &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "strategy"}, Spec: placementv1.UpdateStrategySpec{Stages: stages}},
		MemberClusters:        members,
		ResourceSnapshotIndex: "0",
		ResourceSnapshots: []placementv1.ClusterResourceSnapshot{{ObjectMeta: metav1.ObjectMeta{Name: "crp-0-snapshot",
			Labels:      map[string]string{placementv1beta1.ResourceIndexLabel: "0"},
			Annotations: map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "h"}}}},
	}}
}

func TestInitializeOrdersByIntegerLabelThenName(t *testing.T) {
	members := []clusterv1.MemberCluster{
		member("a", map[string]string{"env": "prod", "order": "10"}),
		member("b", map[string]string{"env": "prod", "order": "9"}),
		member("c", map[string]string{"env": "prod", "order": "9"}),
		member("d", map[string]string{"env": "canary"}),
		member("e", map[string]string{"env": "prod", "order": "1"}), // not scheduled
	}
	f := newFixture([]string{"a", "b", "c", "d"}, []string{"x", "w"}, members,
		placementv1.StageConfig{Name: "canary", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "canary"}},
			AfterStageTasks: []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}, {Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Minute}}}},
		placementv1.StageConfig{Name: "prod", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, SortingLabelKey: ptr("order")},
	)
	p := Initialize(f.in)
	if p.Failure != "" {
		t.Fatalf("failure: %s", p.Failure)
	}
	got := fmt.Sprint(p.Stages[0].Clusters, p.Stages[1].Clusters, p.Deletion)
	if want := "[d] [b c a] [w x]"; got != want {
		t.Errorf("stages = %s, want %s (9 before 10 as integers; ties by name; deletion by name)", got, want)
	}
	if p.Stages[0].Tasks[0].ApprovalRequest != "run-after-canary" || p.Stages[0].Tasks[1].ApprovalRequest != "" {
		t.Errorf("tasks = %+v", p.Stages[0].Tasks)
	}
}

func TestInitializeFailures(t *testing.T) {
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	all := &metav1.LabelSelector{}
	members := []clusterv1.MemberCluster{member("a", map[string]string{"env": "prod"}), member("b", map[string]string{"env": "prod", "order": "x"})}
	cases := []struct {
		name   string
		edit   func(*Inputs)
		stages []placementv1.StageConfig
		want   string
		others int
	}{
		{"placement missing", func(in *Inputs) { in.Placement = nil }, nil, "parent placement not found", 0},
		{"not external", func(in *Inputs) { in.Placement.Spec.Strategy.Type = placementv1.RollingUpdateRolloutStrategyType }, nil,
			"parent placement does not have an external rollout strategy, current strategy: RollingUpdate", 0},
		{"no policy snapshot", func(in *Inputs) { in.LatestPolicySnapshots = nil }, nil, "no latest policy snapshot found for placement /crp", 0},
		{"not scheduled", func(in *Inputs) { in.LatestPolicySnapshots[0].Generation = 2 }, nil, "policy snapshot `crp-0` not fully scheduled yet", 0},
		{"strategy missing", func(in *Inputs) { in.Strategy = nil }, nil, "referenced updateStrategy not found: `/strategy`", 0},
		{"in two stages", nil, []placementv1.StageConfig{{Name: "one", LabelSelector: prod}, {Name: "two", LabelSelector: all}},
			"cluster `a` appears in more than one stages", 1},
		{"in no stage (absent selector selects none)", nil, []placementv1.StageConfig{{Name: "one"}}, "some clusters are not placed in any stage, total 2, showing up to 10: a, b", 0},
		{"sorting label not an integer", nil, []placementv1.StageConfig{{Name: "one", LabelSelector: prod, SortingLabelKey: ptr("order")}},
			"the sorting label `order:` on cluster `a` is not valid: strconv.Atoi: parsing \"\": invalid syntax", 1},
		{"snapshot index missing", func(in *Inputs) { in.ResourceSnapshotIndex = "3" }, []placementv1.StageConfig{{Name: "one", LabelSelector: prod}},
			"no resourceSnapshots with index `3` found for placement `/crp`", 0},
		{"before-stage task not an approval", nil, []placementv1.StageConfig{{Name: "one", LabelSelector: all, BeforeStageTasks: []placementv1.StageTask{
			{Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Minute}}}}},
			"the before stage tasks are invalid, updateStrategy: `/strategy`, stage: one, err: task 0 of type TimedWait is not allowed in beforeStageTasks, allowed type: Approval", 0},
		{"after-stage wait of nil", nil, []placementv1.StageConfig{{Name: "one", LabelSelector: all, AfterStageTasks: []placementv1.StageTask{
			{Type: placementv1.StageTaskTypeTimedWait}}}},
			"the after stage tasks are invalid, updateStrategy: `/strategy`, stage: one, err: task 0 of type TimedWait has wait duration set to nil", 0},
		{"namespaced strategy missing", func(in *Inputs) { in.Strategy, in.Namespace = nil, "apps" }, nil, "referenced updateStrategy not found: `apps/strategy`", 0},
		{"snapshot index invalid", func(in *Inputs) { in.ResourceSnapshotIndex = "-1" }, []placementv1.StageConfig{{Name: "one", LabelSelector: prod}},
			"invalid resource snapshot index `-1` provided, expected an integer >= 0", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture([]string{"a", "b"}, nil, members, tc.stages...)
			if tc.edit != nil {
				tc.edit(&f.in)
			}
			p := Initialize(f.in)
			if !strings.HasPrefix(p.Failure, "cannot continue the updateRun: failed to validate the updateRun: ") || !strings.HasSuffix(p.Failure, tc.want) {
				t.Errorf("failure = %q, want it to end with %q", p.Failure, tc.want)
			}
			if len(p.OtherFailures) != tc.others {
				t.Errorf("other possible failures = %q, want %d", p.OtherFailures, tc.others)
			}
		})
	}
}

func TestInitializeUnstagedKeepsStages(t *testing.T) {
	members := []clusterv1.MemberCluster{member("a", map[string]string{"env": "prod"}), member("b", nil)}
	f := newFixture([]string{"a", "b"}, []string{"z"}, members, placementv1.StageConfig{Name: "one", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}})
	p := Initialize(f.in)
	if p.Failure == "" || len(p.Stages) != 1 || !slices.Equal(p.Stages[0].Clusters, []string{"a"}) || p.Deletion != nil || !slices.Equal(p.Unstaged, []string{"b"}) {
		t.Errorf("plan = %+v: want the stages recorded, no deletion stage, b unstaged", p)
	}
}

// From upstream's TestCalculateMaxConcurrencyValue (pkg/controllers/updaterun/execution_test.go).
func TestMaxConcurrency(t *testing.T) {
	for _, tc := range []struct {
		v        intstr.IntOrString
		clusters int
		want     int
	}{
		{intstr.FromInt32(3), 10, 3}, {intstr.FromInt32(10), 10, 10}, {intstr.FromInt32(15), 10, 15},
		{intstr.FromString("50%"), 10, 5}, {intstr.FromString("10%"), 1, 1}, {intstr.FromString("33%"), 10, 3},
		{intstr.FromString("100%"), 10, 10}, {intstr.FromString("25%"), 7, 1}, {intstr.FromInt32(3), 0, 3},
		{intstr.FromString("50%"), 0, 1},
	} {
		got, err := MaxConcurrency(&tc.v, tc.clusters)
		if err != nil || got != tc.want {
			t.Errorf("MaxConcurrency(%s, %d) = %d, %v; want %d", tc.v.String(), tc.clusters, got, err, tc.want)
		}
	}
	if _, err := MaxConcurrency(ptr(intstr.FromString("50")), 0); err == nil {
		t.Error(`MaxConcurrency("50") without a percent sign: no error`)
	}
	if got, _ := MaxConcurrency(nil, 5); got != 1 {
		t.Errorf("MaxConcurrency(nil) = %d, want the CRD's default 1", got)
	}
}

func TestBatchesAndBeforeTasks(t *testing.T) {
	members := []clusterv1.MemberCluster{member("a", nil), member("b", nil), member("c", nil), member("d", nil), member("e", nil)}
	f := newFixture([]string{"a", "b", "c", "d", "e"}, nil, members, placementv1.StageConfig{Name: "all", LabelSelector: &metav1.LabelSelector{},
		MaxConcurrency: ptr(intstr.FromString("40%")), BeforeStageTasks: []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}}})
	f.in.ResourceSnapshotIndex = ""
	p := Initialize(f.in)
	if p.Failure != "" || !p.NewSnapshot {
		t.Fatalf("plan = %+v: want an initialized run that snapshots the resources itself", p)
	}
	if got := fmt.Sprint(p.Stages[0].Batches()); got != "[[a b] [c d] [e]]" {
		t.Errorf("batches = %s, want [[a b] [c d] [e]] (40%% of 5 = 2)", got)
	}
	if b := p.Stages[0].BeforeTasks; len(b) != 1 || b[0].ApprovalRequest != "run-before-all" {
		t.Errorf("before tasks = %+v, want the approval request run-before-all", b)
	}
}

// Scheduling is true exactly while Initialize would fail with a placement that is still being
// scheduled (no latest policy snapshot yet, or one not scheduled at its generation).
func TestSchedulingWhileThePlacementIsNew(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Inputs)
		want   bool
	}{
		{"scheduled", func(*Inputs) {}, false},
		{"no policy snapshot yet", func(in *Inputs) { in.LatestPolicySnapshots = nil }, true},
		{"snapshot not scheduled at its generation", func(in *Inputs) { in.LatestPolicySnapshots[0].Generation = 2 }, true},
		{"no placement", func(in *Inputs) { in.Placement = nil }, false},
		{"two latest snapshots (a failure, not a wait)", func(in *Inputs) {
			in.LatestPolicySnapshots = append(in.LatestPolicySnapshots, in.LatestPolicySnapshots[0])
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture([]string{"a"}, nil, []clusterv1.MemberCluster{member("a", nil)}, placementv1.StageConfig{Name: "all"})
			tc.change(&f.in)
			if got := Scheduling(f.in); got != tc.want {
				t.Errorf("Scheduling = %t, want %t", got, tc.want)
			}
			if failure := Initialize(f.in).Failure; tc.want && !strings.Contains(failure, "not fully scheduled yet") && !strings.Contains(failure, "no latest policy snapshot") {
				t.Errorf("Initialize failure %q: want the scheduling failure Scheduling waits out", failure)
			}
		})
	}
}

// A missing snapshot index is a refusal for good only under External rollout, where no
// controller but a run takes snapshots; also when an earlier check fails (the policy is not
// scheduled yet), since that does not bring the snapshot.
func TestMissingSnapshotForGood(t *testing.T) {
	const want = "cannot continue the updateRun: failed to validate the updateRun: failed to process the request due to a client error: " +
		"no resourceSnapshots with index `3` found for placement `/crp`"
	cases := []struct {
		name string
		edit func(*Inputs)
		want string
	}{
		{"index exists", nil, ""},
		{"index missing", func(in *Inputs) { in.ResourceSnapshotIndex = "3" }, want},
		{"no snapshot at all (no run yet)", func(in *Inputs) { in.ResourceSnapshotIndex, in.ResourceSnapshots = "0", nil },
			strings.Replace(want, "`3`", "`0`", 1)},
		{"index missing, policy not scheduled yet", func(in *Inputs) { in.ResourceSnapshotIndex, in.LatestPolicySnapshots = "3", nil }, want},
		{"no index: the run snapshots", func(in *Inputs) { in.ResourceSnapshotIndex, in.ResourceSnapshots = "", nil }, ""},
		{"RollingUpdate: the placement controller may snapshot it", func(in *Inputs) {
			in.ResourceSnapshotIndex = "3"
			in.Placement.Spec.Strategy.Type = placementv1.RollingUpdateRolloutStrategyType
		}, ""},
		{"placement absent", func(in *Inputs) { in.ResourceSnapshotIndex, in.Placement = "3", nil }, ""},
		{"namespaced", func(in *Inputs) { in.ResourceSnapshotIndex, in.Namespace = "3", "apps" }, strings.Replace(want, "`/crp`", "`apps/crp`", 1)},
	}
	if got := SnapshotIndexes(Inputs{ResourceSnapshots: []placementv1.ClusterResourceSnapshot{snapAt("10"), snapAt("2"), snapAt("2"), snapAt("x")}}); !slices.Equal(got, []string{"2", "10"}) {
		t.Errorf("SnapshotIndexes = %q, want [2 10]", got)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture([]string{"a"}, nil, []clusterv1.MemberCluster{member("a", nil)}, placementv1.StageConfig{Name: "one", LabelSelector: &metav1.LabelSelector{}})
			if tc.edit != nil {
				tc.edit(&f.in)
			}
			if got := MissingSnapshotForGood(f.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.want != "" && f.in.LatestPolicySnapshots != nil && Initialize(f.in).Failure != tc.want {
				t.Errorf("Initialize fails with %q, want the same refusal", Initialize(f.in).Failure)
			}
		})
	}
}

func snapAt(index string) placementv1.ClusterResourceSnapshot {
	return placementv1.ClusterResourceSnapshot{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{placementv1beta1.ResourceIndexLabel: index}}}
}
