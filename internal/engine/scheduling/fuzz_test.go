package scheduling

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// FuzzPlacementPolicy feeds label selectors and property expressions as
// users write them (keys, operators, values, quantities) and property values
// as member clusters report them to Validate and, when it accepts the policy,
// to Schedule: no panic; every issue has a path and a message; an accepted
// policy either schedules or fails the cycle with a message, as the hub agent
// would retry it (never silently).
func FuzzPlacementPolicy(f *testing.F) {
	f.Add(uint8(1), int8(2), "env", "In", "prod", "kubernetes-fleet.io/node-count", "Gt", "3", "5", int32(50), "Descending")
	f.Add(uint8(0), int8(0), "region", "Exists", "", "resources.kubernetes-fleet.io/available-cpu", "Ge", "250m", "1.5", int32(-1), "Ascending")
	f.Add(uint8(2), int8(-1), "bad key!", "Foo", "x", "kubernetes.azure.com/per-cpu-core-cost", "Eq", "0.05", "not-a-quantity", int32(101), "Sideways")
	f.Add(uint8(1), int8(3), "a/b/c", "NotIn", "", "", "Lt", "1e308", "1Ei", int32(0), "")
	f.Add(uint8(1), int8(1), "env", "DoesNotExist", "v", "x", "Ne", "-5", "", int32(100), "Descending")
	f.Fuzz(func(t *testing.T, kind uint8, n int8, key, op, value, prop, pop, pvalue, reported string, weight int32, order string) {
		types := []placementv1.PlacementType{placementv1.PickAllPlacementType, placementv1.PickNPlacementType, placementv1.PickFixedPlacementType}
		policy := &placementv1.PlacementPolicy{PlacementType: types[int(kind)%len(types)]}
		if policy.PlacementType == placementv1.PickFixedPlacementType {
			policy.ClusterNames = []string{key, value}
		} else {
			var values []string
			if value != "" {
				values = strings.Split(value, ",")
			}
			term := placementv1.ClusterSelectorTerm{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: values},
				}},
				PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{
					{Name: prop, Operator: placementv1.PropertySelectorOperator(pop), Values: []string{pvalue}},
				}},
			}
			policy.Affinity = &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{term}},
				PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{{
					Weight:     weight,
					Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{Name: prop, SortOrder: placementv1.PropertySortOrder(order)}},
				}},
			}}
		}
		if policy.PlacementType == placementv1.PickNPlacementType {
			count := int32(n)
			policy.NumberOfClusters = &count
		}
		issues := Validate(policy)
		rejected := false
		for _, is := range issues {
			if strings.TrimSpace(is.Message) == "" || is.Path.String() == "" {
				t.Fatalf("issue without a path or message: %+v", is)
			}
			rejected = rejected || is.Severity == SeverityError
		}
		if rejected {
			return
		}
		clusters := []clusterv1.MemberCluster{
			withProperties(healthyCluster("a", map[string]string{key: value}), prop, reported),
			withProperties(healthyCluster("b", map[string]string{"env": "prod"}), prop, pvalue),
			healthyCluster("c", nil),
		}
		res, err := Schedule(Input{Policy: policy, Clusters: clusters, Now: testNow})
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("a scheduling failure without a message")
			}
			return
		}
		// Every cluster is picked or excluded with a reason, once.
		seen := map[string]bool{}
		for _, p := range res.Selected {
			seen[p.Cluster] = true
		}
		for _, e := range res.Excluded {
			if seen[e.Cluster] || strings.TrimSpace(e.Reason) == "" {
				t.Fatalf("cluster %s excluded twice or without a reason: %+v", e.Cluster, res)
			}
			seen[e.Cluster] = true
		}
		if policy.PlacementType == placementv1.PickNPlacementType && len(res.Selected) > int(max(0, n)) {
			t.Fatalf("PickN %d selected %d clusters", n, len(res.Selected))
		}
	})
}
