package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

// The comparison itself is checked without a hub: a hub outcome written the way v0.18.9 writes it
// agrees with its preview, and every kind of disagreement is caught.
func TestCompareCatchesMismatches(t *testing.T) {
	policy := pickN(2, required(term(labels(LabelEnv, "prod")))) // the policy only sets the placement type here
	const unhealthyReason = "ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals (last received %s minutes ago)"
	preview := func() scheduling.Result {
		return scheduling.Result{
			Selected: []scheduling.Pick{
				{Cluster: "a", AffinityScore: 10, Change: scheduling.ChangeAdded},
				{Cluster: "b", AffinityScore: 5, Change: scheduling.ChangeAdded},
			},
			Excluded: []scheduling.Exclusion{
				{Cluster: "c", Reason: `Cluster "c" does not score high enough (affinity score: 3, topology spread score: 0)`},
				{Cluster: "d", Reason: "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"},
				{Cluster: "e", Reason: fmt.Sprintf(unhealthyReason, "10.01")},
			},
			Fulfilled: true,
			Reason:    scheduling.ReasonFulfilled,
			Message:   "found all cluster needed as specified by the scheduling policy, found 2 cluster(s)",
			Cycles:    1,
		}
	}
	selected := func(name string, aff int32) placementv1.ClusterDecision {
		return placementv1.ClusterDecision{
			ClusterName: name, Selected: true,
			ClusterScore: &placementv1.ClusterScore{AffinityScore: ptrTo(aff), TopologySpreadScore: ptrTo(int32(0))},
			Reason:       fmt.Sprintf("Successfully scheduled resources for placement in %q (affinity score: %d, topology spread score: 0): picked by scheduling policy", name, aff),
		}
	}
	hub := func() *observation {
		cond := metav1.Condition{Type: string(placementv1.PolicySnapshotScheduled), Status: metav1.ConditionTrue,
			Reason: scheduling.ReasonFulfilled, Message: "found all cluster needed as specified by the scheduling policy, found 2 cluster(s)"}
		snap := &placementv1.ClusterSchedulingPolicySnapshot{}
		snap.Name = "p-0"
		snap.Status.Conditions = []metav1.Condition{cond}
		snap.Status.ClusterDecisions = []placementv1.ClusterDecision{
			selected("a", 10), selected("b", 5),
			{ClusterName: "c", ClusterScore: &placementv1.ClusterScore{AffinityScore: ptrTo(int32(3)), TopologySpreadScore: ptrTo(int32(0))},
				Reason: `Cluster "c" does not score high enough (affinity score: 3, topology spread score: 0)`},
			{ClusterName: "d", Reason: "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"},
			{ClusterName: "e", Reason: fmt.Sprintf(unhealthyReason, "10.03")}, // the hub's cycle ran a second later
		}
		crp := &placementv1.ClusterResourcePlacement{}
		crpCond := cond
		crpCond.Type = string(placementv1.ClusterResourcePlacementScheduledConditionType)
		crp.Status.Conditions = []metav1.Condition{crpCond}
		var bindings []placementv1.ClusterResourceBinding
		for _, d := range snap.Status.ClusterDecisions[:2] {
			crp.Status.PerClusterPlacementStatuses = append(crp.Status.PerClusterPlacementStatuses, placementv1.PerClusterPlacementStatus{
				ClusterName: d.ClusterName,
				Conditions:  []metav1.Condition{{Type: string(placementv1.PerClusterScheduledConditionType), Status: metav1.ConditionTrue, Message: d.Reason}},
			})
			b := placementv1.ClusterResourceBinding{}
			b.Spec.TargetCluster, b.Spec.State, b.Spec.SchedulingPolicySnapshotName = d.ClusterName, placementv1.BindingStateScheduled, "p-0"
			bindings = append(bindings, b)
		}
		return &observation{crp: crp, snapshot: snap, bindings: bindings}
	}

	if c := compare("agree", policy, preview(), hub(), nil); len(c.mismatches) != 0 || c.decisions != 5 {
		t.Fatalf("a faithful hub outcome: %d decisions compared, mismatches:\n%s", c.decisions, strings.Join(c.mismatches, "\n"))
	}

	for _, tc := range []struct {
		name   string
		mutate func(p *scheduling.Result, o *observation, prev **before)
		want   string
	}{
		{"another score", func(_ *scheduling.Result, o *observation, _ **before) {
			o.snapshot.Status.ClusterDecisions[1] = selected("b", 6)
		}, "cluster b"},
		{"a score in the placement status", func(_ *scheduling.Result, o *observation, _ **before) {
			o.crp.Status.PerClusterPlacementStatuses[0].Conditions[0].Message = selected("a", 11).Reason
		}, "cluster a"},
		{"another pick", func(p *scheduling.Result, _ *observation, _ **before) {
			p.Selected[1].Cluster = "c"
			p.Excluded[0] = scheduling.Exclusion{Cluster: "b", Reason: `Cluster "b" does not score high enough (affinity score: 5, topology spread score: 0)`}
		}, "cluster b"},
		{"another reason", func(_ *scheduling.Result, o *observation, _ **before) {
			o.snapshot.Status.ClusterDecisions[3].Reason = "ClusterUnschedulable, taint &{Key:spot Value:true Effect:NoSchedule} cannot be tolerated"
		}, "cluster d"},
		{"filtered clusters out of name order", func(_ *scheduling.Result, o *observation, _ **before) {
			d := o.snapshot.Status.ClusterDecisions
			d[3], d[4] = d[4], d[3]
		}, "out of name order"},
		{"another filtered cluster listed first", func(p *scheduling.Result, _ *observation, _ **before) {
			p.Excluded = append(p.Excluded, scheduling.Exclusion{Cluster: "cc", Reason: "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"})
			sort.SliceStable(p.Excluded[1:], func(i, j int) bool { return p.Excluded[1+i].Cluster < p.Excluded[1+j].Cluster })
		}, "filtered clusters listed"},
		{"another not-picked order", func(p *scheduling.Result, _ *observation, _ **before) {
			p.Excluded = append([]scheduling.Exclusion{{Cluster: "f", Reason: `Cluster "f" does not score high enough (affinity score: 4, topology spread score: 0)`}}, p.Excluded...)
		}, "not scoring high enough"},
		{"another condition", func(p *scheduling.Result, _ *observation, _ **before) {
			p.Fulfilled, p.Reason = false, scheduling.ReasonUnfulfilled
		}, "Scheduled condition"},
		{"a rank order", func(p *scheduling.Result, _ *observation, _ **before) {
			p.Selected[0], p.Selected[1] = p.Selected[1], p.Selected[0]
		}, "rank order"},
		{"a trimmed binding", func(_ *scheduling.Result, _ *observation, prev **before) {
			b := placementv1.ClusterResourceBinding{}
			b.Spec.TargetCluster, b.Spec.State = "g", placementv1.BindingStateBound
			*prev = &before{bindings: []placementv1.ClusterResourceBinding{b}, present: 1}
		}, "trimmed"},
	} {
		p, o := preview(), hub()
		var prev *before
		tc.mutate(&p, o, &prev)
		c := compare(tc.name, policy, p, o, prev)
		if len(c.mismatches) == 0 || !strings.Contains(strings.Join(c.mismatches, "\n"), tc.want) {
			t.Errorf("%s: want a mismatch about %q, got:\n%s", tc.name, tc.want, strings.Join(c.mismatches, "\n"))
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
