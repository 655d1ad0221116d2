package scheduling

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Every wording the scheduler (and the preview) gives a class of its own.
func TestReasonClassOfEveryWording(t *testing.T) {
	tainted := withTaints(healthyCluster("a", nil), clusterv1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule})
	cases := map[string]string{
		unschedulable("cluster has left the fleet"):                                                                                           ClassLeft,
		unschedulable("cluster is not connected to the fleet: member agent not online yet"):                                                   ClassNotJoined,
		unschedulable("cluster is not connected to the fleet: member agent not joined yet"):                                                   ClassNotJoined,
		unschedulable("cluster is not connected to the fleet: health condition from member agent is not available"):                           ClassNotJoined,
		unschedulable("cluster is not connected to the fleet: no recent heartbeat signals (last received 9.00 minutes ago)"):                  ClassNoHeartbeat,
		unschedulable("cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned 6.00 minutes ago)"): ClassUnhealthy,
		unschedulable(affinityMismatchReason):                                                                                                 ClassSelectorMismatch,
		unschedulable(filterTaints(&tainted, nil)):                                                                                            ClassTaint,
		unschedulable(fmt.Sprintf(doNotScheduleViolationReasonTemplate, "region", 1)):                                                         ClassTopologySpread,
		fmt.Sprintf(notPickedByScoreReasonTemplate, "a", 1, 2):                                                                                ClassNotScored,
		fmt.Sprintf(notNeededReasonTemplate, "a", 3, 1, 2):                                                                                    ClassNotNeeded,
		fmt.Sprintf(notListedReasonTemplate, "a"):                                                                                             ClassNotListed,
		fmt.Sprintf(pickFixedNotFoundClusterReasonTemplate, "a"):                                                                              ClassNotFound,
		fmt.Sprintf(pickFixedInvalidClusterReasonTemplate, "a", "cluster has left the fleet"):                                                 ClassLeft,
		fmt.Sprintf(notEvaluatedReasonTemplate, "a", "boom"):                                                                                  ClassNotEvaluated,
		"something new upstream": ClassOther,
	}
	for reason, want := range cases {
		if got := ReasonClass(reason); got != want {
			t.Errorf("ReasonClass(%q) = %q, want %q", reason, got, want)
		}
	}
}

// Schedule classifies every exclusion, and tells a missing property from a value that does not
// match although the scheduler words both alike.
func TestScheduleClassifiesExclusions(t *testing.T) {
	stale := healthyCluster("stale", map[string]string{"env": "prod"})
	stale.Status.AgentStatus[0].LastReceivedHeartbeat = metav1.NewTime(testNow.Add(-10 * time.Minute))
	clusters := []clusterv1.MemberCluster{
		withProperties(healthyCluster("cheap", map[string]string{"env": "prod"}), "cost", "1"),
		withProperties(healthyCluster("dear", map[string]string{"env": "prod"}), "cost", "9"),
		healthyCluster("no-cost", map[string]string{"env": "prod"}),
		withProperties(healthyCluster("dev", map[string]string{"env": "dev"}), "cost", "1"),
		withTaints(withProperties(healthyCluster("gpu", map[string]string{"env": "prod"}), "cost", "1"),
			clusterv1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}),
		withProperties(stale, "cost", "1"),
	}
	term := labelTerm("env", "prod")
	term.PropertySelector = &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{
		{Name: "cost", Operator: placementv1.PropertySelectorLessThan, Values: []string{"5"}},
	}}
	policy := &placementv1.PlacementPolicy{
		PlacementType: placementv1.PickAllPlacementType,
		Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{term}},
		}},
	}
	res, err := Schedule(Input{Policy: policy, Clusters: clusters, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.Excluded {
		got[e.Cluster] = e.Class
	}
	want := map[string]string{
		"dear": ClassSelectorMismatch, "no-cost": ClassPropertyMissing, "dev": ClassSelectorMismatch,
		"gpu": ClassTaint, "stale": ClassNoHeartbeat,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("classes %v, want %v", got, want)
	}
}
