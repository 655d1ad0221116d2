package scheduling

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// outcome is what upstream's scheduler integration tests assert (test/scheduler/actuals_test.go):
// picked clusters with their binding scores, clusters the final cycle scored but did not pick
// (with scores; a nil score marks a cluster the topology spread filter removed in that cycle) and
// clusters filtered out before scoring.
type outcome struct {
	picked    []string
	scores    map[string]*Score
	notPicked []string
	filtered  []string
	fulfilled bool
}

func sc(affinity, topology int32) *Score {
	return &Score{AffinityScore: affinity, TopologySpreadScore: topology}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// check compares a result with an expected outcome.
func (w outcome) check(t *testing.T, res Result) {
	t.Helper()
	var picked []string
	for _, p := range res.Selected {
		picked = append(picked, p.Cluster)
		want := w.scores[p.Cluster]
		if want == nil {
			want = &Score{}
		}
		if p.AffinityScore != want.AffinityScore || p.TopologySpreadScore != want.TopologySpreadScore {
			t.Errorf("%s picked with score %d/%d; want %d/%d", p.Cluster, p.AffinityScore, p.TopologySpreadScore, want.AffinityScore, want.TopologySpreadScore)
		}
	}
	if fmt.Sprint(sortedCopy(picked)) != fmt.Sprint(sortedCopy(w.picked)) {
		t.Errorf("picked %v; want %v", picked, w.picked)
	}
	reasons := map[string]string{}
	for _, e := range res.Excluded {
		reasons[e.Cluster] = e.Reason
	}
	want := append(append([]string(nil), w.notPicked...), w.filtered...)
	if len(reasons) != len(want) {
		t.Errorf("excluded %v; want %v", res.Excluded, want)
	}
	for _, name := range w.notPicked {
		r, ok := reasons[name]
		switch s := w.scores[name]; {
		case !ok:
			t.Errorf("%s not excluded", name)
		case s == nil && !strings.HasPrefix(r, "ClusterUnschedulable, violated doNotSchedule topology spread constraint"):
			t.Errorf("%s excluded with %q; want a topology spread violation", name, r)
		case s != nil && r != fmt.Sprintf(notPickedByScoreReasonTemplate, name, s.AffinityScore, s.TopologySpreadScore):
			t.Errorf("%s excluded with %q; want scores %d/%d", name, r, s.AffinityScore, s.TopologySpreadScore)
		}
	}
	for _, name := range w.filtered {
		if r := reasons[name]; !strings.HasPrefix(r, "ClusterUnschedulable, ") {
			t.Errorf("%s excluded with %q; want a filter reason", name, r)
		}
	}
	if res.Fulfilled != w.fulfilled {
		t.Errorf("fulfilled = %t (%s); want %t", res.Fulfilled, res.Message, w.fulfilled)
	}
}

func pickN(n int32) *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: &n}
}

func regionEnvSelector(region string, envOp metav1.LabelSelectorOperator, env ...string) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"region": region}}
	if len(env) > 0 {
		ls.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: envOp, Values: env}}
	}
	return ls
}

func withRequired(p *placementv1.PlacementPolicy, terms ...placementv1.ClusterSelectorTerm) *placementv1.PlacementPolicy {
	if p.Affinity == nil {
		p.Affinity = &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{}}
	}
	p.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &placementv1.ClusterSelector{ClusterSelectorTerms: terms}
	return p
}

func withPreferred(p *placementv1.PlacementPolicy, prefs ...placementv1.PreferredClusterSelector) *placementv1.PlacementPolicy {
	if p.Affinity == nil {
		p.Affinity = &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{}}
	}
	p.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution = prefs
	return p
}

func withTSC(p *placementv1.PlacementPolicy, c ...placementv1.TopologySpreadConstraint) *placementv1.PlacementPolicy {
	p.TopologySpreadConstraints = c
	return p
}

func schedule(t *testing.T, in Input) Result {
	t.Helper()
	if in.Now.IsZero() {
		in.Now = testNow
	}
	res, err := Schedule(in)
	if err != nil {
		t.Fatalf("Schedule() error: %v", err)
	}
	return res
}

// TestPickNIntegration ports test/scheduler/pickn_integration_test.go (each row names its Context).
func TestPickNIntegration(t *testing.T) {
	const dns, sa = placementv1.DoNotSchedule, placementv1.ScheduleAnyway
	unhealthy := []string{mc8, mc9}
	cases := []struct {
		name   string
		policy *placementv1.PlacementPolicy
		want   outcome
	}{
		{name: "pick N clusters with no affinities/topology spread constraints specified", policy: pickN(3),
			want: outcome{picked: []string{mc5, mc6, mc7}, notPicked: []string{mc1, mc2, mc3, mc4}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0)}}},
		{name: "not enough clusters to pick", policy: pickN(10),
			want: outcome{picked: []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7}, filtered: unhealthy}},
		{name: "pick with required affinity",
			policy: withRequired(pickN(2), placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("east", metav1.LabelSelectorOpIn, "prod")}),
			want:   outcome{picked: []string{mc1, mc2}, filtered: []string{mc3, mc4, mc5, mc6, mc7, mc8, mc9}, fulfilled: true}},
		{name: "pick with required affinity, multiple terms",
			policy: withRequired(pickN(4),
				placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("east", metav1.LabelSelectorOpIn, "prod")},
				placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("west", metav1.LabelSelectorOpNotIn, "prod")}),
			want: outcome{picked: []string{mc1, mc2, mc7}, filtered: []string{mc3, mc4, mc5, mc6, mc8, mc9}}},
		{name: "pick with preferred affinity",
			policy: withPreferred(pickN(4), placementv1.PreferredClusterSelector{Weight: 10,
				Preference: placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("central", metav1.LabelSelectorOpIn, "prod")}}),
			want: outcome{picked: []string{mc4, mc5, mc7, mc6}, notPicked: []string{mc1, mc2, mc3}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(10, 0), mc5: sc(10, 0)}}},
		{name: "pick with preferred affinity, multiple terms",
			policy: withPreferred(pickN(4),
				placementv1.PreferredClusterSelector{Weight: 10, Preference: placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("central", metav1.LabelSelectorOpIn, "prod")}},
				placementv1.PreferredClusterSelector{Weight: 20, Preference: placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("east", metav1.LabelSelectorOpIn, "canary")}}),
			want: outcome{picked: []string{mc4, mc5, mc3, mc7}, notPicked: []string{mc1, mc2, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(20, 0), mc4: sc(10, 0), mc5: sc(10, 0), mc6: sc(0, 0)}}},
		{name: "pick with required topology spread constraints",
			policy: withTSC(pickN(2), tsc("region", 1, dns)),
			want: outcome{picked: []string{mc7, mc5}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0), mc5: sc(0, 0), mc6: nil, mc7: sc(0, -1)}}},
		{name: "pick with required topology spread constraints, multiple terms",
			policy: withTSC(pickN(2), tsc("region", 1, dns), tsc("env", 1, dns)),
			want: outcome{picked: []string{mc7, mc5}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 1), mc2: sc(0, 1), mc3: nil, mc4: sc(0, 1), mc5: sc(0, 1), mc6: nil, mc7: sc(0, -2)}}},
		{name: "pick with preferred topology spread constraints",
			policy: withTSC(pickN(2), tsc("region", 1, sa)),
			want: outcome{picked: []string{mc7, mc5}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0), mc5: sc(0, 0), mc6: sc(0, -1000), mc7: sc(0, -1)}}},
		{name: "pick with preferred topology spread constraints, multiple terms",
			policy: withTSC(pickN(2), tsc("region", 1, sa), tsc("env", 1, sa)),
			want: outcome{picked: []string{mc7, mc5}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 1), mc2: sc(0, 1), mc3: sc(0, -1000), mc4: sc(0, 1), mc5: sc(0, 1), mc6: sc(0, -999), mc7: sc(0, -2)}}},
		{name: "pick with mixed affinities and topology spread constraints, required only",
			policy: withTSC(withRequired(pickN(2), placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "region", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"west"}}}}}), tsc("region", 1, dns)),
			want: outcome{picked: []string{mc3, mc5}, notPicked: []string{mc1, mc2, mc4}, filtered: []string{mc6, mc7, mc8, mc9}, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: nil, mc5: sc(0, -1)}}},
		{name: "pick with mixed affinities and topology spread constraints, preferred only",
			policy: withTSC(withPreferred(pickN(6), placementv1.PreferredClusterSelector{Weight: 30, Preference: labelTerm("region", "east")}), tsc("env", 1, sa)),
			want: outcome{picked: []string{mc3, mc2, mc1, mc7, mc6, mc5}, notPicked: []string{mc4}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(30, -1), mc2: sc(30, 1), mc3: sc(30, -1), mc4: sc(0, -1000), mc5: sc(0, -1000), mc6: sc(0, -1), mc7: sc(0, 1)}}},
		{name: "pick with mixed affinities and topology spread constraints, mixed",
			policy: withTSC(withRequired(withPreferred(pickN(3), placementv1.PreferredClusterSelector{Weight: 40, Preference: labelTerm("region", "east")}),
				labelTerm("env", "prod")), tsc("env", 2, sa), tsc("region", 1, dns)),
			want: outcome{picked: []string{mc2, mc6, mc5}, notPicked: []string{mc4}, filtered: []string{mc1, mc3, mc7, mc8, mc9},
				fulfilled: true,
				scores:    map[string]*Score{mc2: sc(40, -2), mc4: sc(0, -999), mc5: sc(0, -999), mc6: sc(0, -1)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := schedule(t, Input{Policy: tc.policy, Clusters: integrationFleet()})
			tc.want.check(t, res)
		})
	}
}

// TestPickNIntegrationOrder checks the pick order the scheduler's cycles produce (upstream lists
// picks in that order where it matters): topology spread first, then name descending.
func TestPickNIntegrationOrder(t *testing.T) {
	res := schedule(t, Input{Policy: withTSC(withPreferred(pickN(6), placementv1.PreferredClusterSelector{Weight: 30, Preference: labelTerm("region", "east")}),
		tsc("env", 1, placementv1.ScheduleAnyway)), Clusters: integrationFleet()})
	var got []string
	for _, p := range res.Selected {
		got = append(got, p.Cluster)
	}
	if want := []string{mc3, mc2, mc1, mc7, mc6, mc5}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pick order %v; want %v", got, want)
	}
	if res.Cycles != 6 {
		t.Errorf("cycles = %d; want 6 (one pick per cycle under topology spread constraints)", res.Cycles)
	}
}

// TestPickNIntegrationRescheduling ports the pickn_integration_test.go contexts that change an
// existing placement: "upscaling", "downscaling", "affinities and topology spread constraints
// updated".
func TestPickNIntegrationRescheduling(t *testing.T) {
	fleet := integrationFleet()
	unhealthy := []string{mc8, mc9}

	t.Run("upscaling", func(t *testing.T) {
		before := schedule(t, Input{Policy: pickN(1), Clusters: fleet})
		if len(before.Selected) != 1 || before.Selected[0].Cluster != mc7 {
			t.Fatalf("before: %+v; want %s", before.Selected, mc7)
		}
		after := schedule(t, Input{Policy: pickN(3), Clusters: fleet, Bindings: scheduledBindings(before)})
		outcome{picked: []string{mc5, mc6, mc7}, notPicked: []string{mc1, mc2, mc3, mc4}, filtered: unhealthy, fulfilled: true,
			scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0)}}.check(t, after)
		assertChanges(t, after, map[string]Change{mc7: ChangeKept, mc6: ChangeAdded, mc5: ChangeAdded})
	})

	t.Run("downscaling", func(t *testing.T) {
		before := schedule(t, Input{Policy: pickN(3), Clusters: fleet})
		after := schedule(t, Input{Policy: pickN(1), Clusters: fleet, Bindings: scheduledBindings(before)})
		if len(after.Selected) != 1 || after.Selected[0].Cluster != mc7 {
			t.Errorf("after: %+v; want %s", after.Selected, mc7)
		}
		if fmt.Sprint(after.Trimmed) != fmt.Sprint([]string{mc5, mc6}) {
			t.Errorf("trimmed %v; want [%s %s] (equal scores: smaller names first)", after.Trimmed, mc5, mc6)
		}
		if !after.Fulfilled || after.Message != "found all cluster needed as specified by the scheduling policy, found 1 cluster(s)" {
			t.Errorf("condition %t %q", after.Fulfilled, after.Message)
		}
	})

	t.Run("affinities and topology spread constraints updated", func(t *testing.T) {
		policy := withTSC(withRequired(withPreferred(pickN(3), placementv1.PreferredClusterSelector{Weight: 40, Preference: labelTerm("region", "east")}),
			labelTerm("env", "prod")), tsc("env", 2, placementv1.ScheduleAnyway), tsc("region", 1, placementv1.DoNotSchedule))
		before := schedule(t, Input{Policy: policy, Clusters: fleet})
		outcome{picked: []string{mc2, mc6, mc5}, notPicked: []string{mc4}, filtered: []string{mc1, mc3, mc7, mc8, mc9}, fulfilled: true,
			scores: map[string]*Score{mc2: sc(40, -2), mc4: sc(0, -999), mc5: sc(0, -999), mc6: sc(0, -1)}}.check(t, before)

		updated := withTSC(withPreferred(pickN(3), placementv1.PreferredClusterSelector{Weight: 50, Preference: labelTerm("region", "central")}),
			tsc("env", 2, placementv1.ScheduleAnyway))
		if !NeedsNewSnapshot(policy, updated) {
			t.Fatal("NeedsNewSnapshot() = false for an affinity change")
		}
		after := schedule(t, Input{Policy: updated, Clusters: fleet, Bindings: scheduledBindings(before), PolicyChanged: true})
		outcome{picked: []string{mc5, mc7, mc4}, notPicked: []string{mc1, mc2, mc3, mc6}, filtered: unhealthy, fulfilled: true,
			scores: map[string]*Score{mc1: sc(0, -1), mc2: sc(0, -1), mc3: sc(0, -1), mc4: sc(50, -1), mc5: sc(50, -1), mc6: sc(0, -1), mc7: sc(0, 1)}}.check(t, after)
		assertChanges(t, after, map[string]Change{mc5: ChangeKept, mc7: ChangeAdded, mc4: ChangeAdded})
		if fmt.Sprint(after.Trimmed) != fmt.Sprint([]string{mc2, mc6}) {
			t.Errorf("trimmed %v; want [%s %s]", after.Trimmed, mc2, mc6)
		}
		if got := selectedNames(after); fmt.Sprint(got) != fmt.Sprint([]string{mc5, mc7, mc4}) {
			t.Errorf("pick order %v", got)
		}
	})
}

// assertRankOrder checks that picks made in one cycle come best first, ties to the larger name.
func assertRankOrder(t *testing.T, res Result) {
	t.Helper()
	for i := 1; i < len(res.Selected); i++ {
		a, b := res.Selected[i-1], res.Selected[i]
		sa := clusterScore{topologySpread: int(a.TopologySpreadScore), affinity: int(a.AffinityScore)}
		sb := clusterScore{topologySpread: int(b.TopologySpreadScore), affinity: int(b.AffinityScore)}
		if ranksAbove(sb, b.Cluster, sa, a.Cluster) {
			t.Errorf("%s (%v) listed after %s (%v)", b.Cluster, sb, a.Cluster, sa)
		}
	}
}

// TestPickZeroIntegration ports pickn_integration_test.go: "pick 0 clusters". The scheduler runs
// no cycle and lists no decision; the preview words every cluster as not needed.
func TestPickZeroIntegration(t *testing.T) {
	res := schedule(t, Input{Policy: pickN(0), Clusters: integrationFleet()})
	if len(res.Selected) != 0 || !res.Fulfilled || res.Message != "found all cluster needed as specified by the scheduling policy, found 0 cluster(s)" {
		t.Errorf("selected %v, condition %t %q", res.Selected, res.Fulfilled, res.Message)
	}
	reasons := map[string]string{}
	for _, e := range res.Excluded {
		reasons[e.Cluster] = e.Reason
	}
	if got, want := reasons[mc7], fmt.Sprintf(notNeededReasonTemplate, mc7, 0, 0, 0); got != want {
		t.Errorf("%s: %q; want %q", mc7, got, want)
	}
	if got := reasons[mc9]; got != "ClusterUnschedulable, cluster has left the fleet" {
		t.Errorf("%s: %q", mc9, got)
	}
	if len(reasons) != 9 {
		t.Errorf("excluded %d clusters; want 9", len(reasons))
	}
}

func scheduledBindings(res Result) []Binding {
	out := make([]Binding, 0, len(res.Selected))
	for _, p := range res.Selected {
		out = append(out, Binding{Cluster: p.Cluster, State: placementv1.BindingStateScheduled,
			Score: &Score{AffinityScore: p.AffinityScore, TopologySpreadScore: p.TopologySpreadScore}, Current: true})
	}
	return out
}

func selectedNames(res Result) []string {
	var out []string
	for _, p := range res.Selected {
		out = append(out, p.Cluster)
	}
	return out
}

func assertChanges(t *testing.T, res Result, want map[string]Change) {
	t.Helper()
	for _, p := range res.Selected {
		if w, ok := want[p.Cluster]; ok && p.Change != w {
			t.Errorf("%s change = %s; want %s", p.Cluster, p.Change, w)
		}
	}
}

// TestPropertyBasedIntegration ports test/scheduler/property_based_scheduling_integration_test.go.
// The sorters' extremes span every member cluster, unhealthy and leaving ones included: cluster 8
// (1 node, 0 available CPU) sets the minimum here.
func TestPropertyBasedIntegration(t *testing.T) {
	const (
		ge = placementv1.PropertySelectorGreaterThanOrEqualTo
		gt = placementv1.PropertySelectorGreaterThan
		lt = placementv1.PropertySelectorLessThan
		le = placementv1.PropertySelectorLessThanOrEqualTo
		eq = placementv1.PropertySelectorEqualTo
		ne = placementv1.PropertySelectorNotEqualTo
	)
	pickAll := func() *placementv1.PlacementPolicy {
		return &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
	}
	sorter := func(w int32, labels *metav1.LabelSelector, name string, order placementv1.PropertySortOrder) placementv1.PreferredClusterSelector {
		return placementv1.PreferredClusterSelector{Weight: w, Preference: sorterTerm(labels, name, order)}
	}
	unhealthy := []string{mc8, mc9}
	cases := []struct {
		name   string
		fleet  func([]clusterv1.MemberCluster) []clusterv1.MemberCluster
		policy *placementv1.PlacementPolicy
		want   outcome
	}{
		// PickAll.
		{name: "pick clusters with specific properties (single term, multiple expressions)",
			policy: withRequired(pickAll(), propTerm(nil, expr(NodeCountProperty, ge, "4"), expr(energyRating, lt, "45"),
				expr("resources.kubernetes-fleet.io/allocatable-cpu", ne, "14"), expr("resources.kubernetes-fleet.io/available-memory", gt, "4Gi"))),
			want: outcome{picked: []string{mc3}, filtered: []string{mc1, mc2, mc4, mc5, mc6, mc7, mc8, mc9}, fulfilled: true}},
		{name: "pick clusters with specific properties (multiple terms, single expression)",
			policy: withRequired(pickAll(), propTerm(nil, expr(NodeCountProperty, ge, "8")), propTerm(nil, expr(energyRating, gt, "99")),
				propTerm(nil, expr("resources.kubernetes-fleet.io/total-cpu", eq, "12")), propTerm(nil, expr("resources.kubernetes-fleet.io/total-memory", le, "4Gi"))),
			want: outcome{picked: []string{mc1, mc3, mc4, mc5, mc7}, filtered: []string{mc2, mc6, mc8, mc9}, fulfilled: true}},
		{name: "pick clusters with both label and property selectors (single term)",
			policy: withRequired(pickAll(), propTerm(map[string]string{"region": "east"}, expr(NodeCountProperty, ge, "4"))),
			want:   outcome{picked: []string{mc2, mc3}, filtered: []string{mc1, mc4, mc5, mc6, mc7, mc8, mc9}, fulfilled: true}},
		{name: "pick clusters with both label and property selectors (multiple terms)",
			policy: withRequired(pickAll(), propTerm(map[string]string{"env": "prod"}, expr(energyRating, ge, "40"), expr("resources.kubernetes-fleet.io/total-cpu", gt, "12")),
				propTerm(map[string]string{"region": "west"}, expr(energyRating, ge, "40"))),
			want: outcome{picked: []string{mc5, mc6}, filtered: []string{mc1, mc2, mc3, mc4, mc7, mc8, mc9}, fulfilled: true}},
		{name: "no matching clusters",
			policy: withRequired(pickAll(), propTerm(nil, expr(energyRating, le, "0"))),
			want:   outcome{filtered: suiteOrder, fulfilled: true}},
		{name: "cluster properties refreshed (before)",
			policy: withRequired(pickAll(), propTerm(nil, expr(availableCPU, ge, "6"))),
			want:   outcome{picked: []string{mc3, mc5}, filtered: []string{mc1, mc2, mc4, mc6, mc7, mc8, mc9}, fulfilled: true}},
		// PickN.
		{name: "pick clusters with specific properties (single sorter, ascending)",
			policy: withPreferred(pickN(3), sorter(100, nil, NodeCountProperty, placementv1.Ascending)),
			want: outcome{picked: []string{mc1, mc4, mc6}, notPicked: []string{mc2, mc3, mc5, mc7}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(86, 0), mc2: sc(57, 0), mc3: sc(29, 0), mc4: sc(86, 0), mc5: sc(0, 0), mc6: sc(86, 0), mc7: sc(0, 0)}}},
		{name: "pick clusters with specific properties (single sorter, descending)",
			policy: withPreferred(pickN(3), sorter(100, nil, NodeCountProperty, placementv1.Descending)),
			want: outcome{picked: []string{mc7, mc5, mc3}, notPicked: []string{mc1, mc2, mc4, mc6}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(14, 0), mc2: sc(43, 0), mc3: sc(71, 0), mc4: sc(14, 0), mc5: sc(100, 0), mc6: sc(14, 0), mc7: sc(100, 0)}}},
		{name: "pick clusters with specific properties (single sorter, same property value across the board)",
			fleet: func(cs []clusterv1.MemberCluster) []clusterv1.MemberCluster {
				for i := range cs {
					cs[i] = withProperties(cs[i], "non-existent-cluster-property", "0")
				}
				return cs
			},
			policy: withPreferred(pickN(3), sorter(100, nil, "non-existent-cluster-property", placementv1.Ascending)),
			want: outcome{picked: []string{mc5, mc6, mc7}, notPicked: []string{mc1, mc2, mc3, mc4}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0)}}},
		{name: "pick clusters with specific properties (single sorter, non-existent property)",
			policy: withPreferred(pickN(3), sorter(100, nil, "non-existent-cluster-property", placementv1.Ascending)),
			want: outcome{picked: []string{mc5, mc6, mc7}, notPicked: []string{mc1, mc2, mc3, mc4}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0)}}},
		{name: "pick clusters with specific properties (multiple sorters)",
			policy: withPreferred(pickN(3), sorter(100, nil, NodeCountProperty, placementv1.Ascending), sorter(80, nil, energyRating, placementv1.Descending),
				sorter(60, nil, "resources.kubernetes-fleet.io/allocatable-memory", placementv1.Descending)),
			want: outcome{picked: []string{mc1, mc4, mc6}, notPicked: []string{mc2, mc3, mc5, mc7}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(168, 0), mc2: sc(108, 0), mc3: sc(68, 0), mc4: sc(146, 0), mc5: sc(46, 0), mc6: sc(135, 0), mc7: sc(60, 0)}}},
		{name: "pick clusters with both label selector and property sorter (single preferred term)",
			policy: withPreferred(pickN(4), sorter(100, &metav1.LabelSelector{MatchLabels: map[string]string{"env": "canary"}}, availableCPU, placementv1.Descending)),
			want: outcome{picked: []string{mc3, mc7, mc6, mc5}, notPicked: []string{mc1, mc2, mc4}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(75, 0), mc4: sc(0, 0), mc7: sc(50, 0)}}},
		{name: "pick clusters with both label selectors and property sorters (multiple preferred terms)",
			policy: withPreferred(pickN(4), sorter(100, &metav1.LabelSelector{MatchLabels: map[string]string{"env": "canary"}}, availableCPU, placementv1.Descending),
				sorter(100, &metav1.LabelSelector{MatchLabels: map[string]string{"region": "east"}}, energyRating, placementv1.Descending)),
			want: outcome{picked: []string{mc3, mc1, mc7, mc2}, notPicked: []string{mc6, mc4, mc5}, filtered: unhealthy, fulfilled: true,
				scores: map[string]*Score{mc1: sc(100, 0), mc2: sc(50, 0), mc3: sc(100, 0), mc4: sc(0, 0), mc5: sc(0, 0), mc6: sc(0, 0), mc7: sc(50, 0)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fleet := integrationFleet()
			if tc.fleet != nil {
				fleet = tc.fleet(fleet)
			}
			res := schedule(t, Input{Policy: tc.policy, Clusters: fleet})
			tc.want.check(t, res)
			if tc.policy.PlacementType == placementv1.PickNPlacementType {
				assertRankOrder(t, res)
			}
		})
	}
}

// TestPropertySelectorUpdatedIntegration ports property_based_scheduling_integration_test.go:
// "property selector updated" — a PickAll policy edit keeps bound and scheduled bindings that
// still match, adds the new matches and unschedules the rest.
func TestPropertySelectorUpdatedIntegration(t *testing.T) {
	fleet := integrationFleet()
	policy1 := withRequired(&placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType},
		propTerm(nil, expr(NodeCountProperty, placementv1.PropertySelectorLessThanOrEqualTo, "6"), expr(NodeCountProperty, placementv1.PropertySelectorGreaterThanOrEqualTo, "2")))
	first := schedule(t, Input{Policy: policy1, Clusters: fleet})
	if got := sortedCopy(selectedNames(first)); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc2, mc3, mc4, mc6}) {
		t.Fatalf("first picks %v", got)
	}
	var bindings []Binding
	for _, name := range selectedNames(first) {
		state := placementv1.BindingStateScheduled
		if name == mc1 || name == mc2 || name == mc4 {
			state = placementv1.BindingStateBound
		}
		bindings = append(bindings, Binding{Cluster: name, State: state, Current: true, Score: &Score{}})
	}
	policy2 := withRequired(&placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType},
		propTerm(nil, expr(NodeCountProperty, placementv1.PropertySelectorLessThanOrEqualTo, "8"), expr(NodeCountProperty, placementv1.PropertySelectorGreaterThanOrEqualTo, "4")))
	res := schedule(t, Input{Policy: policy2, Clusters: fleet, Bindings: bindings, PolicyChanged: NeedsNewSnapshot(policy1, policy2)})
	outcome{picked: []string{mc2, mc3, mc5, mc7}, filtered: []string{mc1, mc4, mc6, mc8, mc9}, fulfilled: true}.check(t, res)
	assertChanges(t, res, map[string]Change{mc2: ChangeKept, mc3: ChangeKept, mc5: ChangeAdded, mc7: ChangeAdded})
	if fmt.Sprint(res.Trimmed) != fmt.Sprint([]string{mc1, mc4, mc6}) {
		t.Errorf("trimmed %v; want [%s %s %s]", res.Trimmed, mc1, mc4, mc6)
	}
	if res.Message != "found all cluster needed as specified by the scheduling policy, found 4 cluster(s)" {
		t.Errorf("message %q", res.Message)
	}
}

// TestPickAllIntegration ports test/scheduler/pickall_integration_test.go.
func TestPickAllIntegration(t *testing.T) {
	pickAll := func() *placementv1.PlacementPolicy {
		return &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
	}
	healthy := []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7}
	notEastCentral := placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "region", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"east", "central"}}}}}
	cases := []struct {
		name   string
		policy *placementv1.PlacementPolicy
		want   outcome
	}{
		{name: "scheduling CRPs with no scheduling policy specified: pick all valid clusters",
			want: outcome{picked: healthy, filtered: []string{mc8, mc9}, fulfilled: true}},
		{name: "pick all valid clusters", policy: pickAll(),
			want: outcome{picked: healthy, filtered: []string{mc8, mc9}, fulfilled: true}},
		{name: "pick clusters with specific affinities (single term, multiple selectors)",
			policy: withRequired(pickAll(), placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"east", "west"}}}}}),
			want: outcome{picked: []string{mc1, mc2, mc6}, filtered: []string{mc3, mc4, mc5, mc7, mc8, mc9}, fulfilled: true}},
		{name: "pick clusters with specific affinities (multiple terms, single selector)",
			policy: withRequired(pickAll(), labelTerm("env", "canary"), notEastCentral),
			want:   outcome{picked: []string{mc3, mc6, mc7}, filtered: []string{mc1, mc2, mc4, mc5, mc8, mc9}, fulfilled: true}},
		{name: "no matching clusters",
			policy: withRequired(pickAll(), labelTerm("env", "wonderland"), placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "region", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"east", "central", "west"}}}}}),
			want: outcome{filtered: suiteOrder, fulfilled: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := schedule(t, Input{Policy: tc.policy, Clusters: integrationFleet()})
			tc.want.check(t, res)
			if want := fmt.Sprintf(fullyScheduledMessage, len(tc.want.picked)); res.Message != want || res.Reason != ReasonFulfilled {
				t.Errorf("condition %s %q; want %q", res.Reason, res.Message, want)
			}
		})
	}

	t.Run("affinities updated", func(t *testing.T) {
		fleet := integrationFleet()
		policy1 := withRequired(pickAll(), placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "canary"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"east", "west"}}}}})
		first := schedule(t, Input{Policy: policy1, Clusters: fleet})
		if got := sortedCopy(selectedNames(first)); fmt.Sprint(got) != fmt.Sprint([]string{mc3, mc7}) {
			t.Fatalf("first picks %v", got)
		}
		bindings := []Binding{
			{Cluster: mc3, State: placementv1.BindingStateBound, Current: true},
			{Cluster: mc7, State: placementv1.BindingStateScheduled, Current: true},
		}
		policy2 := withRequired(pickAll(), labelTerm("env", "canary"), notEastCentral)
		res := schedule(t, Input{Policy: policy2, Clusters: fleet, Bindings: bindings, PolicyChanged: NeedsNewSnapshot(policy1, policy2)})
		outcome{picked: []string{mc3, mc6, mc7}, filtered: []string{mc1, mc2, mc4, mc5, mc8, mc9}, fulfilled: true}.check(t, res)
		assertChanges(t, res, map[string]Change{mc3: ChangeKept, mc7: ChangeKept, mc6: ChangeAdded})
	})
}

// TestPickFixedIntegration ports test/scheduler/pickfixed_integration_test.go.
func TestPickFixedIntegration(t *testing.T) {
	fixed := func(names ...string) *placementv1.PlacementPolicy {
		return &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: names}
	}
	fleet := integrationFleet()

	t.Run("with valid target clusters", func(t *testing.T) {
		res := schedule(t, Input{Policy: fixed(mc1, mc4, mc6), Clusters: fleet})
		if got := selectedNames(res); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc4, mc6}) {
			t.Errorf("selected %v", got)
		}
		if !res.Fulfilled || res.Message != "found all cluster needed as specified by the scheduling policy, found 3 cluster(s)" {
			t.Errorf("condition %t %q", res.Fulfilled, res.Message)
		}
	})

	t.Run("with both valid and invalid/non-existent target clusters", func(t *testing.T) {
		res := schedule(t, Input{Policy: fixed(mc1, mc2, mc4, mc5, mc6, mc8, mc9, mcX), Clusters: fleet})
		if got := selectedNames(res); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc2, mc4, mc5, mc6}) {
			t.Errorf("selected %v", got)
		}
		if res.Fulfilled || res.Reason != ReasonUnfulfilled || res.Message != "could not find all clusters needed as specified by the scheduling policy, found 5 cluster(s) instead" {
			t.Errorf("condition %t %s %q", res.Fulfilled, res.Reason, res.Message)
		}
		want := []Exclusion{
			{Cluster: mc8, Reason: `Cluster "unhealthy-cluster-east-prod" is not eligible for resource placement yet: cluster is not connected to the fleet: no recent heartbeat signals (last received 1500.00 minutes ago)`, Class: ClassNoHeartbeat},
			{Cluster: mc9, Reason: `Cluster "left-cluster-central-prod" is not eligible for resource placement yet: cluster has left the fleet`, Class: ClassLeft},
			{Cluster: mcX, Reason: `Specified cluster "non-existent-cluster" is not found`, Class: ClassNotFound},
			{Cluster: mc3, Reason: fmt.Sprintf(notListedReasonTemplate, mc3), Class: ClassNotListed},
			{Cluster: mc7, Reason: fmt.Sprintf(notListedReasonTemplate, mc7), Class: ClassNotListed},
		}
		if fmt.Sprint(res.Excluded) != fmt.Sprint(want) {
			t.Errorf("excluded:\n%v\nwant:\n%v", res.Excluded, want)
		}
	})

	t.Run("policy snapshot refresh with added clusters", func(t *testing.T) {
		bindings := []Binding{
			{Cluster: mc1, State: placementv1.BindingStateBound, Current: true},
			{Cluster: mc2, State: placementv1.BindingStateBound, Current: true},
			{Cluster: mc4, State: placementv1.BindingStateScheduled, Current: true},
		}
		old, updated := fixed(mc1, mc2, mc4), fixed(mc1, mc2, mc4, mc5, mc6)
		res := schedule(t, Input{Policy: updated, Clusters: fleet, Bindings: bindings, PolicyChanged: NeedsNewSnapshot(old, updated)})
		if got := selectedNames(res); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc2, mc4, mc5, mc6}) {
			t.Errorf("selected %v", got)
		}
		assertChanges(t, res, map[string]Change{mc1: ChangeKept, mc2: ChangeKept, mc4: ChangeKept, mc5: ChangeAdded, mc6: ChangeAdded})
		if len(res.Trimmed) != 0 {
			t.Errorf("trimmed %v", res.Trimmed)
		}
	})

	t.Run("policy snapshot refresh with removed clusters", func(t *testing.T) {
		bindings := []Binding{
			{Cluster: mc1, State: placementv1.BindingStateBound, Current: true},
			{Cluster: mc2, State: placementv1.BindingStateBound, Current: true},
			{Cluster: mc4, State: placementv1.BindingStateScheduled, Current: true},
		}
		old, updated := fixed(mc1, mc2, mc4), fixed(mc5, mc6)
		res := schedule(t, Input{Policy: updated, Clusters: fleet, Bindings: bindings, PolicyChanged: NeedsNewSnapshot(old, updated)})
		if got := selectedNames(res); fmt.Sprint(got) != fmt.Sprint([]string{mc5, mc6}) {
			t.Errorf("selected %v", got)
		}
		if fmt.Sprint(res.Trimmed) != fmt.Sprint([]string{mc1, mc2, mc4}) {
			t.Errorf("trimmed %v", res.Trimmed)
		}
	})
}

// TestTaintTolerationIntegration ports test/scheduler/tainttoleration_integration_test.go. Taints
// and tolerations are built as upstream's buildTaints/buildTolerations do: key = region,
// value = env.
func TestTaintTolerationIntegration(t *testing.T) {
	taintFor := func(name string) clusterv1.Taint {
		l, ok := suiteLabels[name]
		if !ok {
			l = [2]string{"unknown", "unknown"}
		}
		return clusterv1.Taint{Key: l[0], Value: l[1], Effect: corev1.TaintEffectNoSchedule}
	}
	tolerationsFor := func(names ...string) []placementv1.Toleration {
		var out []placementv1.Toleration
		for _, n := range names {
			tt := taintFor(n)
			out = append(out, placementv1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: corev1.TaintEffectNoSchedule})
		}
		return out
	}
	tainted := func(names ...string) []clusterv1.MemberCluster {
		fleet := integrationFleet()
		for i := range fleet {
			for _, n := range names {
				if fleet[i].Name == n {
					fleet[i].Spec.Taints = []clusterv1.Taint{taintFor(n)}
				}
			}
		}
		return fleet
	}
	const provisional = "provisional-cluster-1"
	newCluster := func(fleet []clusterv1.MemberCluster) []clusterv1.MemberCluster {
		c := healthyCluster(provisional, map[string]string{"region": "north", "env": "prod"})
		c.Spec.Taints = []clusterv1.Taint{taintFor(provisional)}
		return append(fleet, c)
	}

	t.Run("pickFixed, valid target clusters with taints", func(t *testing.T) {
		res := schedule(t, Input{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{mc1, mc4, mc6}},
			Clusters: tainted(mc1, mc4, mc6)})
		if got := selectedNames(res); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc4, mc6}) || !res.Fulfilled {
			t.Errorf("selected %v, fulfilled %t", got, res.Fulfilled)
		}
	})

	t.Run("pick all valid cluster with no taints, ignore valid cluster with taints, CRP with no matching toleration", func(t *testing.T) {
		res := schedule(t, Input{Clusters: tainted(mc1, mc4, mc7)})
		outcome{picked: []string{mc2, mc3, mc5, mc6}, filtered: []string{mc1, mc4, mc7, mc8, mc9}, fulfilled: true}.check(t, res)
		want := map[string]string{
			mc1: "ClusterUnschedulable, taint &{Key:east Value:prod Effect:NoSchedule} cannot be tolerated",
			mc7: "ClusterUnschedulable, taint &{Key:west Value:canary Effect:NoSchedule} cannot be tolerated",
		}
		for _, e := range res.Excluded {
			if w, ok := want[e.Cluster]; ok && e.Reason != w {
				t.Errorf("%s: %q; want %q", e.Cluster, e.Reason, w)
			}
		}
	})

	t.Run("then remove taints after which CRP selects all clusters", func(t *testing.T) {
		before := schedule(t, Input{Clusters: tainted(mc1, mc4, mc7)})
		res := schedule(t, Input{Clusters: integrationFleet(), Bindings: scheduledBindings(before)})
		outcome{picked: []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7}, filtered: []string{mc8, mc9}, fulfilled: true}.check(t, res)
	})

	t.Run("pick all valid cluster with tolerated taints, ignore valid clusters with taints, CRP has some matching tolerations on creation", func(t *testing.T) {
		policy := withRequired(&placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType, Tolerations: tolerationsFor(mc1, mc2)},
			placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"east", "west"}}}}})
		res := schedule(t, Input{Policy: policy, Clusters: tainted(mc1, mc2, mc6)})
		outcome{picked: []string{mc1, mc2}, filtered: []string{mc3, mc4, mc5, mc6, mc7, mc8, mc9}, fulfilled: true}.check(t, res)
	})

	t.Run("pickAll valid cluster without taints, add a taint to a cluster that's already picked", func(t *testing.T) {
		policy := &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
		before := schedule(t, Input{Policy: policy, Clusters: integrationFleet()})
		res := schedule(t, Input{Policy: policy, Clusters: tainted(mc1, mc2), Bindings: scheduledBindings(before)})
		// Taints never evict: the picks stay.
		if got := sortedCopy(selectedNames(res)); fmt.Sprint(got) != fmt.Sprint([]string{mc1, mc2, mc3, mc4, mc5, mc6, mc7}) || len(res.Trimmed) != 0 {
			t.Errorf("selected %v, trimmed %v", got, res.Trimmed)
		}
	})

	t.Run("pick N clusters with affinity specified, ignore valid clusters with taints, CRP has some matching tolerations after update", func(t *testing.T) {
		base := func(tol []placementv1.Toleration) *placementv1.PlacementPolicy {
			p := withRequired(pickN(2), placementv1.ClusterSelectorTerm{LabelSelector: regionEnvSelector("east", metav1.LabelSelectorOpIn, "prod")})
			p.Tolerations = tol
			return p
		}
		fleet := tainted(mc1, mc2)
		before := schedule(t, Input{Policy: base(nil), Clusters: fleet})
		outcome{filtered: suiteOrder}.check(t, before)
		if before.Message != "could not find all clusters needed as specified by the scheduling policy, found 0 cluster(s) instead" {
			t.Errorf("message %q", before.Message)
		}
		after := base(tolerationsFor(mc1, mc2))
		if issues := ImmutableChanges(base(nil), after); len(issues) != 0 {
			t.Errorf("adding tolerations: %v", issues)
		}
		res := schedule(t, Input{Policy: after, Clusters: fleet, PolicyChanged: NeedsNewSnapshot(base(nil), after)})
		outcome{picked: []string{mc1, mc2}, filtered: []string{mc3, mc4, mc5, mc6, mc7, mc8, mc9}, fulfilled: true}.check(t, res)
	})

	t.Run("pickAll, add a new healthy cluster with taint", func(t *testing.T) {
		res := schedule(t, Input{Clusters: newCluster(integrationFleet())})
		outcome{picked: []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7}, filtered: []string{mc8, mc9, provisional}, fulfilled: true}.check(t, res)
	})

	t.Run("pickAll, add a new healthy cluster with taint and matching toleration", func(t *testing.T) {
		res := schedule(t, Input{Policy: &placementv1.PlacementPolicy{Tolerations: tolerationsFor(provisional)}, Clusters: newCluster(integrationFleet())})
		outcome{picked: []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7, provisional}, filtered: []string{mc8, mc9}, fulfilled: true}.check(t, res)
	})

	tscPolicy := func(n int32, tol []placementv1.Toleration) *placementv1.PlacementPolicy {
		p := withTSC(pickN(n), tsc("region", 1, placementv1.DoNotSchedule))
		p.Tolerations = tol
		return p
	}
	t.Run("pickN with required topology spread constraints, add new cluster with taint, upscaling doesn't pick new cluster", func(t *testing.T) {
		before := schedule(t, Input{Policy: tscPolicy(2, nil), Clusters: integrationFleet()})
		outcome{picked: []string{mc7, mc5}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: []string{mc8, mc9}, fulfilled: true,
			scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: sc(0, 0), mc5: sc(0, 0), mc6: nil, mc7: sc(0, -1)}}.check(t, before)
		res := schedule(t, Input{Policy: tscPolicy(3, nil), Clusters: newCluster(integrationFleet()), Bindings: scheduledBindings(before)})
		outcome{picked: []string{mc7, mc5, mc3}, notPicked: []string{mc1, mc2, mc4, mc6}, filtered: []string{mc8, mc9, provisional}, fulfilled: true,
			scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: nil, mc5: sc(0, 0), mc6: nil, mc7: sc(0, -1)}}.check(t, res)
	})

	t.Run("pickN with required topology spread constraints, add new cluster with taint, upscaling picks new cluster with tolerated taint", func(t *testing.T) {
		tol := tolerationsFor(provisional)
		before := schedule(t, Input{Policy: tscPolicy(2, tol), Clusters: integrationFleet()})
		res := schedule(t, Input{Policy: tscPolicy(3, tol), Clusters: newCluster(integrationFleet()), Bindings: scheduledBindings(before)})
		outcome{picked: []string{mc7, mc5, provisional}, notPicked: []string{mc1, mc2, mc3, mc4, mc6}, filtered: []string{mc8, mc9}, fulfilled: true,
			scores: map[string]*Score{mc1: sc(0, 0), mc2: sc(0, 0), mc3: sc(0, 0), mc4: nil, mc5: sc(0, 0), mc6: nil, mc7: sc(0, -1), provisional: sc(0, 0)}}.check(t, res)
	})
}
