package scheduling

import (
	"reflect"
	"strings"
	"testing"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

func propertyTerm(name string) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{{
		Name: name, Operator: placementv1.PropertySelectorGreaterThanOrEqualTo, Values: []string{"3"},
	}}}}
}

// The example of Fleet Manager's property-based scheduling article: kubernetes.azure.com/node-count,
// which no cluster reports; members report kubernetes-fleet.io/node-count.
func TestUnknownPropertiesNamesTheClosestReported(t *testing.T) {
	clusters := []clusterv1.MemberCluster{
		withAvailable(withProperties(healthyCluster("a", nil), NodeCountProperty, "3", "kubernetes.azure.com/per-cpu-core-cost", "0.06"), "8", "32Gi"),
		withProperties(healthyCluster("b", nil), NodeCountProperty, "5", "kubernetes.azure.com/per-gb-memory-cost", "0.01"),
	}
	policy := &placementv1.PlacementPolicy{
		PlacementType: placementv1.PickNPlacementType,
		Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{
				propertyTerm("kubernetes.azure.com/node-count"),
				propertyTerm(NodeCountProperty),                                        // reported
				propertyTerm("kubernetes.azure.com/vm-sizes/Standard_D4s_v3/capacity"), // Fleet Manager's property checker answers it
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{
				{Weight: 10, Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{
					Name: "resources.kubernetes-fleet.io/available-cpus", SortOrder: placementv1.Descending}}},
				{Weight: 10, Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{
					Name: "kubernetes.azure.com/node-count", SortOrder: placementv1.Ascending}}},
			},
		}},
	}
	got := UnknownProperties(policy, clusters)
	want := []UnknownProperty{
		{
			Name: "kubernetes.azure.com/node-count", Uses: []string{"required term 0", "preferred term 1 (sorter)"},
			Paths: []Path{
				pathRequired.Index(0).Child("propertySelector").Child("matchExpressions").Index(0).Child("name"),
				pathPreferred.Index(1).Child("preference").Child("propertySorter").Child("name"),
			},
			Closest: []string{NodeCountProperty},
		},
		{
			Name: "resources.kubernetes-fleet.io/available-cpus", Uses: []string{"preferred term 0 (sorter)"},
			Paths:   []Path{pathPreferred.Index(0).Child("preference").Child("propertySorter").Child("name")},
			Closest: []string{"resources.kubernetes-fleet.io/available-cpu"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("UnknownProperties:\n got %+v\nwant %+v", got, want)
	}
	if p := got[0].Paths[0].String(); p != "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].name" {
		t.Errorf("path %s", p)
	}

	// One warning for the plan, however many members and unknown properties.
	w := UnknownPropertiesWarning(policy, clusters)
	if len(w) != 1 {
		t.Fatalf("want one warning, got %d: %q", len(w), w)
	}
	for _, s := range []string{`"kubernetes.azure.com/node-count" (required term 0, preferred term 1 (sorter)): the closest reported: "kubernetes-fleet.io/node-count"`,
		`"resources.kubernetes-fleet.io/available-cpus" (preferred term 0 (sorter)): the closest reported: "resources.kubernetes-fleet.io/available-cpu"`} {
		if !strings.Contains(w[0], s) {
			t.Errorf("warning %q lacks %q", w[0], s)
		}
	}
}

func TestUnknownPropertiesNoneOrNothingReported(t *testing.T) {
	clusters := []clusterv1.MemberCluster{withProperties(healthyCluster("a", nil), NodeCountProperty, "3")}
	for name, policy := range map[string]*placementv1.PlacementPolicy{
		"nil policy":    nil,
		"no affinity":   {PlacementType: placementv1.PickAllPlacementType},
		"labels only":   {Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{labelTerm("env", "prod")}}}}},
		"reported only": {Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{propertyTerm(NodeCountProperty)}}}}},
	} {
		if got := UnknownPropertiesWarning(policy, clusters); got != nil {
			t.Errorf("%s: want no warning, got %q", name, got)
		}
	}
	policy := &placementv1.PlacementPolicy{Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{propertyTerm(NodeCountProperty)}}}}}
	w := UnknownPropertiesWarning(policy, nil)
	if len(w) != 1 || !strings.Contains(w[0], "members report no properties") {
		t.Errorf("a fleet reporting nothing: %q", w)
	}
}

// Runners-up as close as the best are named too, at most maxClosestProperties of them.
func TestClosestNamesTiesAndCap(t *testing.T) {
	reported := []string{"x/aaab", "x/aaac", "x/aaad", "x/aaae", "x/zzzz", "y/aaab"}
	if got, want := closestNames("q/aaaa", reported), []string{"x/aaab", "x/aaac", "x/aaad"}; !reflect.DeepEqual(got, want) {
		t.Errorf("closestNames = %v, want %v", got, want)
	}
	if got, want := closestNames("y/aaaa", reported), []string{"y/aaab", "x/aaab", "x/aaac"}; !reflect.DeepEqual(got, want) {
		t.Errorf("closestNames = %v, want %v (the whole name breaks the tie)", got, want)
	}
	if got := closestNames("q/aaaa", nil); len(got) != 0 {
		t.Errorf("nothing reported: %v", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"cpus", "cpu", 1}, {"node-count", "node-count", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
