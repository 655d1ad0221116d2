package scheduling

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

func fleetOf(specs ...string) []clusterv1.MemberCluster {
	out := clustersWithLabels(specs...)
	for i := range out {
		h := healthyCluster(out[i].Name, out[i].Labels)
		out[i] = h
	}
	return out
}

func bound(name string, aff int32) Binding {
	return Binding{Cluster: name, State: placementv1.BindingStateBound, Current: true, Score: sc(aff, 0)}
}

func scheduledB(name string, aff, tsc int32) Binding {
	return Binding{Cluster: name, State: placementv1.BindingStateScheduled, Current: true, Score: sc(aff, tsc)}
}

func exclusionReason(res Result, cluster string) string {
	for _, e := range res.Excluded {
		if e.Cluster == cluster {
			return e.Reason
		}
	}
	return ""
}

// Reference §0.1: ties go to the lexicographically largest name (score_test.go: cluster-4 before
// cluster-3), whatever the upstream comment says.
func TestTieBreakLargestName(t *testing.T) {
	res := schedule(t, Input{Policy: pickN(1), Clusters: fleetOf("alpha", "charlie", "bravo")})
	if got := selectedNames(res); fmt.Sprint(got) != "[charlie]" {
		t.Errorf("picked %v; want [charlie]", got)
	}
	if got := exclusionReason(res, "bravo"); got != `Cluster "bravo" does not score high enough (affinity score: 0, topology spread score: 0)` {
		t.Errorf("bravo: %q", got)
	}
	// Excluded lists the final cycle's candidates in rank order.
	if res.Excluded[0].Cluster != "bravo" || res.Excluded[1].Cluster != "alpha" {
		t.Errorf("excluded order %v", res.Excluded)
	}
}

// Reference §0.3: a cluster lacking the topology key scores 0 and beats the -1 every keyed cluster
// gets while the domains are balanced.
func TestKeylessClusterBeatsBalancedDomains(t *testing.T) {
	policy := withTSC(pickN(1), tsc("region", 1, placementv1.DoNotSchedule))
	res := schedule(t, Input{Policy: policy, Clusters: fleetOf("a-keyless", "z-east region=east", "y-west region=west")})
	if got := res.Selected; len(got) != 1 || got[0].Cluster != "a-keyless" || got[0].TopologySpreadScore != 0 {
		t.Errorf("picked %+v; want a-keyless with topology score 0", got)
	}
	if got := exclusionReason(res, "z-east"); got != `Cluster "z-east" does not score high enough (affinity score: 0, topology spread score: -1)` {
		t.Errorf("z-east: %q", got)
	}
}

// Reference §0.3/§2: a domain whose clusters are all filtered out still counts (at 0); once the
// skew exceeds maxSkew every keyed cluster violates, so the placement stays short.
func TestFilteredDomainBlocksSpread(t *testing.T) {
	policy := withTSC(withRequired(pickN(4), labelTerm("env", "prod")), tsc("region", 1, placementv1.DoNotSchedule))
	clusters := fleetOf("e1 region=east env=prod", "e2 region=east env=prod", "c1 region=central env=prod", "c2 region=central env=prod", "w1 region=west env=dev")
	res := schedule(t, Input{Policy: policy, Clusters: clusters})
	if got := selectedNames(res); fmt.Sprint(got) != "[e2 c2]" {
		t.Errorf("picked %v; want [e2 c2]", got)
	}
	if res.Fulfilled || res.Message != "could not find all clusters needed as specified by the scheduling policy, found 2 cluster(s) instead" || res.Reason != ReasonUnfulfilled {
		t.Errorf("condition %t %s %q", res.Fulfilled, res.Reason, res.Message)
	}
	for _, name := range []string{"e1", "c1"} {
		if got := exclusionReason(res, name); got != `ClusterUnschedulable, violated doNotSchedule topology spread constraint "region" (max skew 1)` {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := exclusionReason(res, "w1"); got != "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms" {
		t.Errorf("w1: %q", got)
	}
	if res.Cycles != 3 {
		t.Errorf("cycles = %d; want 3 (two picks, then a cycle that finds none)", res.Cycles)
	}
}

// Reference §0.5: under the same policy snapshot, placed clusters are never re-evaluated.
func TestKeptPicksAreNotReevaluated(t *testing.T) {
	policy := withRequired(pickN(2), labelTerm("env", "prod"))
	clusters := fleetOf("a env=dev", "b env=prod", "c env=prod")
	// "a" was picked when it was prod; since then its label, health and taints changed.
	clusters[0].Spec.Taints = []clusterv1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	clusters[0].Status.AgentStatus[0].LastReceivedHeartbeat = metav1.NewTime(testNow.Add(-time.Hour))
	res := schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: []Binding{bound("a", 7)}})
	if got := res.Selected; len(got) != 2 || got[0] != (Pick{Cluster: "a", AffinityScore: 7, Change: ChangeKept}) || got[1].Cluster != "c" || got[1].Change != ChangeAdded {
		t.Errorf("selected %+v", got)
	}
	if len(res.Trimmed) != 0 {
		t.Errorf("trimmed %v", res.Trimmed)
	}
	// Exactly enough picks: no cycle, no change, even though "c" would now score the same as "b".
	res = schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: []Binding{bound("a", 7), bound("b", 0)}})
	if got := selectedNames(res); fmt.Sprint(got) != "[a b]" || res.Cycles != 1 || !res.Fulfilled {
		t.Errorf("selected %v in %d cycles, fulfilled %t", got, res.Cycles, res.Fulfilled)
	}
	if got := exclusionReason(res, "c"); got != fmt.Sprintf(notNeededReasonTemplate, "c", 2, 0, 0) {
		t.Errorf("c: %q", got)
	}
}

// Reference §0.5: a binding on a deleted or leaving cluster is dangling: unscheduled, then PickN
// refills.
func TestDanglingBindingsAreRefilled(t *testing.T) {
	clusters := fleetOf("a", "b", "c")
	leaving := metav1.NewTime(testNow)
	clusters[1].DeletionTimestamp = &leaving
	res := schedule(t, Input{Policy: pickN(2), Clusters: clusters, Bindings: []Binding{bound("b", 0), bound("gone", 0), bound("c", 0)}})
	if got := selectedNames(res); fmt.Sprint(got) != "[c a]" {
		t.Errorf("selected %v; want [c a]", got)
	}
	if fmt.Sprint(res.Trimmed) != "[b gone]" {
		t.Errorf("trimmed %v; want [b gone]", res.Trimmed)
	}
	if got := exclusionReason(res, "b"); got != "ClusterUnschedulable, cluster has left the fleet" {
		t.Errorf("b: %q", got)
	}
}

// Reference §0.6: scale-in trims scheduled bindings before bound ones, lowest recorded score first
// (not today's score), ties to the smaller name; scale-out only adds.
func TestScaleInByRecordedScores(t *testing.T) {
	clusters := fleetOf("a env=prod", "b env=prod", "c env=prod", "d env=prod", "e env=prod")
	bindings := []Binding{bound("a", 90), bound("b", 10), scheduledB("c", 50, 0), scheduledB("d", 50, 0), bound("e", 10)}
	cases := []struct {
		n       int32
		trimmed string
	}{
		{4, "[c]"},
		{3, "[c d]"},
		{2, "[c d b]"},
		{1, "[c d b e]"},
		{0, "[c d b e a]"},
	}
	for _, tc := range cases {
		policy := withPreferred(pickN(tc.n), placementv1.PreferredClusterSelector{Weight: 100, Preference: labelTerm("env", "prod")})
		res := schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: bindings})
		if fmt.Sprint(res.Trimmed) != tc.trimmed || !res.Fulfilled || len(res.Selected) != int(tc.n) {
			t.Errorf("N=%d: trimmed %v, selected %v, fulfilled %t; want trimmed %s", tc.n, res.Trimmed, selectedNames(res), res.Fulfilled, tc.trimmed)
		}
	}
	// Scale out: the five stay (kept, recorded scores), two are added.
	more := append(clusters, fleetOf("f env=prod", "g env=dev")...)
	policy := withPreferred(pickN(7), placementv1.PreferredClusterSelector{Weight: 100, Preference: labelTerm("env", "prod")})
	res := schedule(t, Input{Policy: policy, Clusters: more, Bindings: bindings})
	want := []Pick{
		{Cluster: "a", AffinityScore: 90, Change: ChangeKept}, {Cluster: "d", AffinityScore: 50, Change: ChangeKept}, {Cluster: "c", AffinityScore: 50, Change: ChangeKept},
		{Cluster: "e", AffinityScore: 10, Change: ChangeKept}, {Cluster: "b", AffinityScore: 10, Change: ChangeKept},
		{Cluster: "f", AffinityScore: 100, Change: ChangeAdded}, {Cluster: "g", AffinityScore: 0, Change: ChangeAdded},
	}
	if fmt.Sprint(res.Selected) != fmt.Sprint(want) {
		t.Errorf("selected\n%v\nwant\n%v", res.Selected, want)
	}
}

// Reference §0.6: a numberOfClusters change keeps the snapshot; anything else cuts a new one.
func TestNeedsNewSnapshot(t *testing.T) {
	base := func() *placementv1.PlacementPolicy {
		return withTSC(withPreferred(pickN(3), placementv1.PreferredClusterSelector{Weight: 10, Preference: labelTerm("env", "prod")}),
			placementv1.TopologySpreadConstraint{TopologyKey: "region"})
	}
	scaled := base()
	scaled.NumberOfClusters = int32p(5)
	if NeedsNewSnapshot(base(), scaled) {
		t.Error("numberOfClusters alone cuts a new snapshot")
	}
	defaulted := base()
	defaulted.TopologySpreadConstraints[0].MaxSkew = int32p(1)
	if NeedsNewSnapshot(base(), defaulted) {
		t.Error("spelling out a CRD default cuts a new snapshot")
	}
	reweighted := base()
	reweighted.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 20
	if !NeedsNewSnapshot(base(), reweighted) {
		t.Error("a weight change keeps the snapshot")
	}
	if !NeedsNewSnapshot(nil, &placementv1.PlacementPolicy{}) {
		t.Error("setting a PickAll policy where there was none keeps the snapshot (the hash differs upstream)")
	}
	if NeedsNewSnapshot(nil, nil) {
		t.Error("nil → nil cuts a new snapshot")
	}
}

// Reference §0.6: after a policy change every binding is obsolete; a cluster that still fits
// keeps its placement by the +1 bonus when scores tie, and is patched (kept).
func TestPolicyChangeObsoleteBonus(t *testing.T) {
	clusters := fleetOf("a env=prod", "b env=prod", "c env=dev")
	old := []Binding{bound("a", 0), bound("c", 0)}
	res := schedule(t, Input{Policy: withRequired(pickN(1), labelTerm("env", "prod")), Clusters: clusters, Bindings: old, PolicyChanged: true})
	// "b" would win the name tie-break; "a" holds an obsolete binding and wins by the bonus.
	if got := res.Selected; len(got) != 1 || got[0].Cluster != "a" || got[0].Change != ChangeKept {
		t.Errorf("selected %+v; want a (kept)", got)
	}
	if fmt.Sprint(res.Trimmed) != "[c]" {
		t.Errorf("trimmed %v; want [c]", res.Trimmed)
	}
	// Without the policy change, the same bindings are current: nothing to do for N=2.
	res = schedule(t, Input{Policy: withRequired(pickN(2), labelTerm("env", "prod")), Clusters: clusters, Bindings: old})
	if got := sortedCopy(selectedNames(res)); fmt.Sprint(got) != "[a c]" || len(res.Trimmed) != 0 {
		t.Errorf("selected %v, trimmed %v", got, res.Trimmed)
	}
}

// Reference §0.6: with topology spread constraints, obsolete bindings not picked in cycle one are
// unscheduled and lose the bonus for the later cycles.
func TestPolicyChangeWithSpreadLosesBonusAfterFirstCycle(t *testing.T) {
	clusters := fleetOf("a region=east", "b region=east", "c region=west", "d region=west")
	old := []Binding{bound("a", 0), bound("c", 0)}
	policy := withTSC(pickN(2), tsc("region", 2, placementv1.DoNotSchedule))
	res := schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: old, PolicyChanged: true})
	// Cycle 1: all -1; the bonus picks c (larger name than a). Cycle 2: east is the smallest
	// domain (+1): a and b tie, a has lost its bonus, b wins on name.
	if got := selectedNames(res); fmt.Sprint(got) != "[c b]" {
		t.Errorf("selected %v; want [c b]", got)
	}
	assertChanges(t, res, map[string]Change{"c": ChangeKept, "b": ChangeAdded})
	if fmt.Sprint(res.Trimmed) != "[a]" {
		t.Errorf("trimmed %v; want [a]", res.Trimmed)
	}
}

// Reference §0.7: a non-Quantity property value aborts the whole cycle.
func TestNonQuantityPropertyAbortsCycle(t *testing.T) {
	clusters := fleetOf("a", "b")
	clusters[1] = withProperties(clusters[1], "k8s.io/k8s-version", "v1.29.4")
	var ce *CycleError
	// In a selector: Filter fails.
	_, err := Schedule(Input{Policy: withRequired(pickN(1), propTerm(nil, expr("k8s.io/k8s-version", placementv1.PropertySelectorGreaterThan, "1"))), Clusters: clusters, Now: testNow})
	if !errors.As(err, &ce) || ce.Plugin != "ClusterAffinity" {
		t.Errorf("selector: error %v", err)
	}
	// In a sorter (even of weight 0): PreScore fails.
	_, err = Schedule(Input{Policy: withPreferred(pickN(1), placementv1.PreferredClusterSelector{Weight: 0, Preference: sorterTerm(nil, "k8s.io/k8s-version", placementv1.Ascending)}), Clusters: clusters, Now: testNow})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "failed to prepare plugin state") {
		t.Errorf("sorter: error %v", err)
	}
	// A PickN placement that already has its clusters runs no cycle, so nothing fails.
	res, err := Schedule(Input{Policy: withPreferred(pickN(1), placementv1.PreferredClusterSelector{Weight: 10, Preference: sorterTerm(nil, "k8s.io/k8s-version", placementv1.Ascending)}),
		Clusters: clusters, Bindings: []Binding{bound("a", 0)}, Now: testNow})
	if err != nil || !res.Fulfilled {
		t.Errorf("no cycle: %v, %+v", err, res)
	}
	if got := exclusionReason(res, "b"); !strings.Contains(got, "could not evaluate it") {
		t.Errorf("b: %q", got)
	}
	// Resource names the scheduler cannot split abort too.
	_, err = Schedule(Input{Policy: withPreferred(pickN(1), placementv1.PreferredClusterSelector{Weight: 10, Preference: sorterTerm(nil, "resources.kubernetes-fleet.io/available-ephemeral-storage", placementv1.Ascending)}), Clusters: clusters, Now: testNow})
	if !errors.As(err, &ce) {
		t.Errorf("ephemeral storage: error %v", err)
	}
}

// Reference §0.8: PickFixed runs no plugins — affinity and taints are not consulted — and
// unschedules an obsolete binding on a listed cluster that is not eligible.
func TestPickFixedRunsNoPlugins(t *testing.T) {
	clusters := fleetOf("a env=dev", "b", "c")
	clusters[0].Spec.Taints = []clusterv1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	clusters[2].Status.AgentStatus = nil
	policy := &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{"a", "c"}}
	res := schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: []Binding{bound("c", 0)}, PolicyChanged: true})
	if got := selectedNames(res); fmt.Sprint(got) != "[a]" || fmt.Sprint(res.Trimmed) != "[c]" {
		t.Errorf("selected %v, trimmed %v", got, res.Trimmed)
	}
	if got := exclusionReason(res, "c"); got != `Cluster "c" is not eligible for resource placement yet: cluster is not connected to the fleet: member agent not online yet` {
		t.Errorf("c: %q", got)
	}
	// Under the same snapshot, a listed cluster that turned ineligible keeps its binding.
	res = schedule(t, Input{Policy: policy, Clusters: clusters, Bindings: []Binding{bound("c", 0)}})
	if got := selectedNames(res); fmt.Sprint(got) != "[a c]" || len(res.Trimmed) != 0 || res.Fulfilled {
		t.Errorf("selected %v, trimmed %v, fulfilled %t", got, res.Trimmed, res.Fulfilled)
	}
	// v0.14.0 rejects an empty list, but the CRD admits it with the webhook off: no cycle runs.
	res = schedule(t, Input{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType}, Clusters: clusters})
	if res.Reason != ReasonPending || res.Message != "Scheduling has not completed" || len(res.Selected) != 0 {
		t.Errorf("empty clusterNames: %+v", res)
	}
}

// PickAll with no matching cluster is still fulfilled (framework.go: PickAll's condition).
func TestPickAllAlwaysFulfilled(t *testing.T) {
	res := schedule(t, Input{Policy: withRequired(&placementv1.PlacementPolicy{}, labelTerm("env", "none")), Clusters: fleetOf("a", "b")})
	if !res.Fulfilled || res.Message != "found all cluster needed as specified by the scheduling policy, found 0 cluster(s)" {
		t.Errorf("condition %t %q", res.Fulfilled, res.Message)
	}
	// Topology spread constraints on PickAll (rejected by the webhook, accepted by the CRD) filter.
	p := withTSC(&placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}, tsc("region", 1, placementv1.DoNotSchedule))
	res = schedule(t, Input{Policy: p, Clusters: fleetOf("a region=east", "b region=west", "c region=west"), Bindings: []Binding{bound("b", 0), bound("c", 0)}})
	if got := selectedNames(res); fmt.Sprint(got) != "[a b c]" {
		t.Errorf("selected %v", got)
	}
}

func TestPickNErrors(t *testing.T) {
	if _, err := Schedule(Input{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType}, Now: testNow}); err == nil {
		t.Error("PickN without numberOfClusters scheduled")
	}
	if _, err := Schedule(Input{Policy: &placementv1.PlacementPolicy{PlacementType: "PickSome"}, Now: testNow}); err == nil {
		t.Error("an unknown placement type scheduled")
	}
}

// TestBindingsFromAPI ports pkg/scheduler/framework/framework_test.go: TestClassifyBindings through
// the API conversion.
func TestBindingsFromAPI(t *testing.T) {
	const policyName, altPolicyName = "policy-1", "policy-2"
	deleteTime := metav1.NewTime(testNow)
	clusters := fleetOf("cluster-1", "cluster-2", "cluster-3")
	clusters[2].DeletionTimestamp = &deleteTime
	mk := func(name string, state placementv1.BindingState, cluster, snapshot string) placementv1.ClusterResourceBinding {
		return placementv1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: placementv1.ResourceBindingSpec{State: state, TargetCluster: cluster, SchedulingPolicySnapshotName: snapshot}}
	}
	deleting := mk("binding-2", placementv1.BindingStateUnscheduled, "", "")
	deleting.DeletionTimestamp = &deleteTime
	unscheduled := mk("binding-3", placementv1.BindingStateUnscheduled, "cluster-2", policyName)
	unscheduled.Annotations = map[string]string{placementv1beta1.PreviousBindingStateAnnotation: "Bound"}
	boundB := mk("binding-7", placementv1.BindingStateBound, "cluster-1", policyName)
	aff, tsc := int32(3), int32(-1)
	boundB.Spec.ClusterDecision.ClusterScore = &placementv1.ClusterScore{AffinityScore: &aff, TopologySpreadScore: &tsc}
	api := []placementv1.ClusterResourceBinding{
		deleting, unscheduled,
		mk("binding-4", placementv1.BindingStateBound, "cluster-3", altPolicyName),  // leaving cluster: dangling
		mk("binding-5", placementv1.BindingStateScheduled, "cluster-4", policyName), // disappeared cluster: dangling
		mk("binding-6", placementv1.BindingStateBound, "cluster-1", altPolicyName),  // obsolete
		boundB, // bound
		mk("binding-8", placementv1.BindingStateScheduled, "cluster-2", policyName), // scheduled
	}
	got := BindingsFromAPI(api, policyName)
	if !got[0].Deleting || got[1].PreviousState != placementv1.BindingStateBound || got[4].Current || !got[5].Current || *got[5].Score != *sc(3, -1) {
		t.Errorf("BindingsFromAPI() = %+v", got)
	}
	r := newRun(Input{Clusters: clusters, Bindings: got, Now: testNow}, nil)
	if !r.selected[0] || !r.boundState[0] || !r.selected[1] || r.boundState[1] || !r.obsolete[0] || r.selected[2] {
		t.Errorf("classification: selected %v bound %v obsolete %v", r.selected, r.boundState, r.obsolete)
	}
	if fmt.Sprint(r.trimEvents) != "[cluster-3 cluster-4]" {
		t.Errorf("dangling %v", r.trimEvents)
	}
	if !r.unscheduled["cluster-2"] {
		t.Errorf("unscheduled %v", r.unscheduled)
	}
}
