package scheduling

import (
	"fmt"
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Names used by upstream's clusteraffinity tests.
const (
	perGBMemoryCost = "kubernetes.azure.com/per-gb-memory-cost"
	perCPUCoreCost  = "kubernetes.azure.com/per-cpu-core-cost"
	availableCPU    = "resources.kubernetes-fleet.io/available-cpu"
	nonExistent     = "non-existent-property"
	invalidValued   = "invalid-property"
)

// upstreamAffinityCluster is the cluster most of clusteraffinity/types_test.go evaluates.
func upstreamAffinityCluster() *clusterv1.MemberCluster {
	return &clusterv1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-1", Labels: map[string]string{"env": "prod", "region": "eastus"}},
		Status: clusterv1.MemberClusterStatus{
			ResourceUsage: clusterv1.ResourceUsage{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10"), corev1.ResourceMemory: resource.MustParse("40Gi")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("36Gi")},
				Available:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			},
			Properties: map[clusterv1.PropertyName]clusterv1.PropertyValue{
				NodeCountProperty: {Value: "4"},
				invalidValued:     {Value: "invalid"},
			},
		},
	}
}

func qty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func sameQuantity(a, b *resource.Quantity) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Cmp(*b) == 0
}

// TestResourceUsage ports clusteraffinity/types_test.go: TestRetrieveResourceUsageFrom.
func TestResourceUsage(t *testing.T) {
	c := upstreamAffinityCluster()
	cases := []struct {
		name    string
		prop    string
		want    *resource.Quantity
		wantErr bool
	}{
		{name: "invalid property name (multiple segments)", prop: "resources.kubernetes-fleet.io/allocatable-cpu", wantErr: true},
		{name: "invalid property name (no capacity type)", prop: "-cpu", wantErr: true},
		{name: "invalid property name (no resource name)", prop: "allocatable-", wantErr: true},
		{name: "invalid property name (not a known capacity type)", prop: "additional-", wantErr: true},
		{name: "resource not available", prop: "allocatable-gpu"},
		{name: "total capacity usage", prop: "total-cpu", want: qty("10")},
		{name: "allocatable capacity usage", prop: "allocatable-memory", want: qty("36Gi")},
		{name: "available capacity usage", prop: "available-cpu", want: qty("2")},
		// The scheduler splits on every "-" (the webhook only once).
		{name: "ephemeral storage cannot be resolved", prop: "available-ephemeral-storage", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := resourceUsage(c, tc.prop)
			if (err != nil) != tc.wantErr || !sameQuantity(q, tc.want) {
				t.Errorf("resourceUsage(%q) = %v, %v; want %v, error %t", tc.prop, q, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestPropertyValue ports clusteraffinity/types_test.go: TestRetrievePropertyValueFrom.
func TestPropertyValue(t *testing.T) {
	c := upstreamAffinityCluster()
	cases := []struct {
		name    string
		prop    string
		want    *resource.Quantity
		wantErr bool
	}{
		{name: "invalid resource property (name format error)", prop: "resources.kubernetes-fleet.io/allocatable", wantErr: true},
		{name: "resource property retrieval", prop: "resources.kubernetes-fleet.io/available-memory", want: qty("4Gi")},
		{name: "absent non-resource property", prop: nonExistent},
		{name: "invalid non-resource property (value format error)", prop: invalidValued, wantErr: true},
		{name: "non-resource property retrieval", prop: NodeCountProperty, want: qty("4")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := propertyValue(c, tc.prop)
			if (err != nil) != tc.wantErr || !sameQuantity(q, tc.want) {
				t.Errorf("propertyValue(%q) = %v, %v; want %v, error %t", tc.prop, q, err, tc.want, tc.wantErr)
			}
		})
	}
}

func propTerm(labels map[string]string, exprs ...placementv1.PropertySelectorRequirement) placementv1.ClusterSelectorTerm {
	t := placementv1.ClusterSelectorTerm{}
	if labels != nil {
		t.LabelSelector = &metav1.LabelSelector{MatchLabels: labels}
	}
	if exprs != nil {
		t.PropertySelector = &placementv1.PropertySelector{MatchExpressions: exprs}
	}
	return t
}

func expr(name string, op placementv1.PropertySelectorOperator, values ...string) placementv1.PropertySelectorRequirement {
	return placementv1.PropertySelectorRequirement{Name: name, Operator: op, Values: values}
}

var invalidLabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
	{Key: "region", Operator: metav1.LabelSelectorOperator("invalid"), Values: []string{"eastus"}},
}}

// TestTermMatches ports clusteraffinity/types_test.go: TestClusterRequirementMatches.
func TestTermMatches(t *testing.T) {
	c := upstreamAffinityCluster()
	const (
		eq = placementv1.PropertySelectorEqualTo
		ne = placementv1.PropertySelectorNotEqualTo
		gt = placementv1.PropertySelectorGreaterThan
		ge = placementv1.PropertySelectorGreaterThanOrEqualTo
		lt = placementv1.PropertySelectorLessThan
		le = placementv1.PropertySelectorLessThanOrEqualTo
	)
	cases := []struct {
		name    string
		term    placementv1.ClusterSelectorTerm
		want    bool
		wantErr bool
	}{
		{name: "invalid label selector", term: placementv1.ClusterSelectorTerm{LabelSelector: invalidLabelSelector}, wantErr: true},
		{name: "label selector mismatches", term: propTerm(map[string]string{"env": "canary"})},
		{name: "label selector matches, no property selector", term: propTerm(map[string]string{"env": "prod"}), want: true},
		{name: "label selector matches, no expressions in the property selector", term: propTerm(map[string]string{"env": "prod"}, []placementv1.PropertySelectorRequirement{}...), want: true},
		{name: "invalid resource property name", term: propTerm(nil, expr("resources.kubernetes-fleet.io/cpu", eq, "2")), wantErr: true},
		{name: "property not found", term: propTerm(nil, expr(nonExistent, eq, "0"))},
		{name: "multiple value options", term: propTerm(nil, expr(NodeCountProperty, eq, "1", "2")), wantErr: true},
		{name: "invalid property value", term: propTerm(nil, expr(invalidValued, eq, "1")), wantErr: true},
		{name: "invalid value option", term: propTerm(nil, expr(NodeCountProperty, eq, "invalid")), wantErr: true},
		{name: "invalid operator", term: propTerm(nil, expr(NodeCountProperty, "invalid", "1")), wantErr: true},
		{name: "op =, matched", term: propTerm(nil, expr(NodeCountProperty, eq, "4")), want: true},
		{name: "op =, not matched", term: propTerm(nil, expr(NodeCountProperty, eq, "8"))},
		{name: "op !=, matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/total-cpu", ne, "11")), want: true},
		{name: "op !=, not matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/total-cpu", ne, "10"))},
		{name: "op >, matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-memory", gt, "30Gi")), want: true},
		{name: "op >, not matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-memory", gt, "40Gi"))},
		{name: "op <, matched", term: propTerm(nil, expr(availableCPU, lt, "4")), want: true},
		{name: "op <, not matched", term: propTerm(nil, expr(availableCPU, lt, "1"))},
		{name: "op >=, matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/total-memory", ge, "40Gi")), want: true},
		{name: "op >=, not matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/total-memory", ge, "41Gi"))},
		{name: "op <=, matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-cpu", le, "8")), want: true},
		{name: "op <=, not matched", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-cpu", le, "7"))},
		// Quantity equality, not string equality (reference §1).
		{name: "Eq compares quantities (8 == 8000m)", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-cpu", eq, "8000m")), want: true},
		{name: "Eq 36Gi != 36G", term: propTerm(nil, expr("resources.kubernetes-fleet.io/allocatable-memory", eq, "36G"))},
		{name: "a missing property fails the term even under Ne", term: propTerm(nil, expr(nonExistent, ne, "1"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := compileTerm(&tc.term)
			got, err := st.matches(c)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("matches() = %t, %v; want %t, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func requiredPolicy(terms ...placementv1.ClusterSelectorTerm) *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: terms},
	}}}
}

// TestFilterAffinity ports clusteraffinity/filtering_test.go: TestPreFilter (skips) and TestFilter.
func TestFilterAffinity(t *testing.T) {
	withCosts := func(labels map[string]string) *clusterv1.MemberCluster {
		c := &clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster-1", Labels: labels}}
		*c = withProperties(*c, perGBMemoryCost, "0.16", perCPUCoreCost, "0.06")
		return c
	}
	withNodes := func(labels map[string]string, nodes string, availCPU string) *clusterv1.MemberCluster {
		c := &clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster-1", Labels: labels}}
		*c = withProperties(*c, NodeCountProperty, nodes)
		if availCPU != "" {
			c.Status.ResourceUsage.Available = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(availCPU)}
		}
		return c
	}
	envIn := func(values ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: values}}}
	}
	east, west := map[string]string{"region": "eastus"}, map[string]string{"region": "westus"}
	const (
		eq = placementv1.PropertySelectorEqualTo
		ne = placementv1.PropertySelectorNotEqualTo
		gt = placementv1.PropertySelectorGreaterThan
		ge = placementv1.PropertySelectorGreaterThanOrEqualTo
		lt = placementv1.PropertySelectorLessThan
		le = placementv1.PropertySelectorLessThanOrEqualTo
	)
	cases := []struct {
		name    string
		policy  *placementv1.PlacementPolicy
		cluster *clusterv1.MemberCluster
		want    string
	}{
		// TestPreFilter: no required terms skips the filter.
		{name: "has no scheduling policy", cluster: withCosts(east)},
		{name: "has no affinity", policy: &placementv1.PlacementPolicy{}, cluster: withCosts(east)},
		{name: "has no cluster selectors", policy: requiredPolicy(), cluster: withCosts(east)},
		// TestFilter.
		{name: "single cluster selector term, matched",
			policy: requiredPolicy(propTerm(east, expr(NodeCountProperty, ge, "3"))), cluster: withNodes(east, "4", "")},
		{name: "single cluster cost based term, matched",
			policy: requiredPolicy(propTerm(east, expr(perGBMemoryCost, lt, "0.2"), expr(perCPUCoreCost, eq, "0.06"))), cluster: withCosts(east)},
		{name: "single cluster cost based term, less than not matched",
			policy: requiredPolicy(propTerm(east, expr(perGBMemoryCost, lt, "0.12"), expr(perCPUCoreCost, eq, "0.06"))), cluster: withCosts(east),
			want: affinityMismatchReason},
		{name: "multiple cluster cost based term, less than not matched, but one cluster selector term matched",
			policy: requiredPolicy(propTerm(east, expr(perGBMemoryCost, lt, "0.12")), propTerm(nil, expr(perCPUCoreCost, eq, "0.06"))), cluster: withCosts(east)},
		{name: "multiple cluster selector terms, matched",
			policy: requiredPolicy(propTerm(east, expr(NodeCountProperty, lt, "3")),
				placementv1.ClusterSelectorTerm{LabelSelector: envIn("prod"), PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{expr(availableCPU, gt, "10")}}}),
			cluster: withNodes(map[string]string{"region": "westus", "env": "prod"}, "4", "15")},
		{name: "single cluster selector term, not matched (neither)",
			policy: requiredPolicy(propTerm(west, expr(NodeCountProperty, eq, "3"))), cluster: withNodes(east, "4", ""), want: affinityMismatchReason},
		{name: "single cluster selector term, not matched (label selector)",
			policy: requiredPolicy(propTerm(west, expr(NodeCountProperty, eq, "3"))), cluster: withNodes(east, "3", ""), want: affinityMismatchReason},
		{name: "single cluster selector term, not matched (property selector)",
			policy: requiredPolicy(propTerm(west, expr(NodeCountProperty, eq, "3"))), cluster: withNodes(west, "4", ""), want: affinityMismatchReason},
		{name: "multiple cluster selector terms, not matched",
			policy: requiredPolicy(propTerm(east, expr(NodeCountProperty, ne, "3")),
				placementv1.ClusterSelectorTerm{LabelSelector: envIn("prod"), PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{expr(availableCPU, le, "10")}}}),
			cluster: withNodes(map[string]string{"region": "westus", "env": "prod"}, "3", "15"), want: affinityMismatchReason},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := filterAffinity(requiredTerms(tc.policy), tc.cluster)
			if err != nil || got != tc.want {
				t.Errorf("filterAffinity() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestFilterAffinityErrors: a cluster the filter cannot evaluate aborts the cycle (reference §0.7).
func TestFilterAffinityErrors(t *testing.T) {
	c := upstreamAffinityCluster()
	*c = withProperties(*c, "k8s.io/k8s-version", "v1.29.4")
	policy := requiredPolicy(propTerm(nil, expr("k8s.io/k8s-version", placementv1.PropertySelectorGreaterThan, "1")))
	_, err := filterAffinity(requiredTerms(policy), c)
	want := `plugin ClusterAffinity returned an error InternalError, value v1.29.4 of property k8s.io/k8s-version from cluster cluster-1 is not a valid quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', failed to match the cluster against a required affinity term`
	if err == nil || err.Error() != want {
		t.Errorf("filterAffinity() error = %v; want %s", err, want)
	}
	// A term whose label selector rejects the cluster never reads the property.
	policy = requiredPolicy(propTerm(map[string]string{"env": "dev"}, expr("k8s.io/k8s-version", placementv1.PropertySelectorGreaterThan, "1")))
	if got, err := filterAffinity(requiredTerms(policy), c); err != nil || got != affinityMismatchReason {
		t.Errorf("filterAffinity() = %q, %v; want a plain mismatch", got, err)
	}
}

func sorterTerm(labels *metav1.LabelSelector, name string, order placementv1.PropertySortOrder) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{LabelSelector: labels, PropertySorter: &placementv1.PropertySorter{Name: name, SortOrder: order}}
}

// preferenceWith builds a preferred term with hand-set extremes, as upstream's tests write the
// plugin state directly.
func preferenceWith(weight int32, term placementv1.ClusterSelectorTerm, state map[string]extremes) preference {
	p := preference{weight: weight, labels: compileTerm(&term), sorter: term.PropertySorter}
	if p.sorter != nil {
		if ex, ok := state[p.sorter.Name]; ok {
			p.prop = &sortedProperty{ext: ex}
		}
	}
	return p
}

// TestPreferenceScore ports clusteraffinity/types_test.go: TestClusterPreferenceScores.
func TestPreferenceScore(t *testing.T) {
	c := upstreamAffinityCluster()
	envLabels := func(v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"env": v}}
	}
	cases := []struct {
		name    string
		term    placementv1.ClusterSelectorTerm
		state   map[string]extremes
		want    int32
		wantErr bool
	}{
		{name: "invalid label selector", term: placementv1.ClusterSelectorTerm{LabelSelector: invalidLabelSelector}, wantErr: true},
		{name: "label selector mismatches", term: sorterTerm(envLabels("canary"), NodeCountProperty, placementv1.Ascending), want: 0},
		{name: "label selector matches, no property sorter", term: placementv1.ClusterSelectorTerm{LabelSelector: envLabels("prod")}, want: 100},
		{name: "weight interpolation fails", term: sorterTerm(envLabels("canary"), NodeCountProperty, placementv1.Ascending), state: map[string]extremes{}, want: 0},
		{name: "weight interpolation succeeds", term: sorterTerm(envLabels("prod"), NodeCountProperty, placementv1.Ascending),
			state: map[string]extremes{NodeCountProperty: {min: qty("2"), max: qty("6")}}, want: 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := preferenceWith(100, tc.term, tc.state)
			got, err := p.score(c, -1)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("score() = %d, %v; want %d, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestInterpolateWeight ports clusteraffinity/types_test.go: TestInterpolateWeightFor (node count 4).
func TestInterpolateWeight(t *testing.T) {
	c := upstreamAffinityCluster()
	huge := fmt.Sprintf("%f", math.MaxFloat64) + "0"
	ex := func(lo, hi string) map[string]extremes {
		e := extremes{}
		if lo != "" {
			e.min = qty(lo)
		}
		if hi != "" {
			e.max = qty(hi)
		}
		return map[string]extremes{NodeCountProperty: e}
	}
	cases := []struct {
		name    string
		prop    string
		order   placementv1.PropertySortOrder
		weight  int32
		state   map[string]extremes
		want    int32
		wantErr bool
	}{
		{name: "invalid resource property name", prop: "resources.kubernetes-fleet.io/available-", wantErr: true},
		{name: "invalid non-resource property value", prop: invalidValued, wantErr: true},
		{name: "property not found", prop: nonExistent, want: 0},
		{name: "extremums not registered in state", prop: NodeCountProperty, state: map[string]extremes{}, wantErr: true},
		{name: "no minimum value", prop: NodeCountProperty, state: ex("", "4"), wantErr: true},
		{name: "no maximum value", prop: NodeCountProperty, state: ex("4", ""), wantErr: true},
		{name: "min value = inf", prop: NodeCountProperty, state: ex(huge, huge), wantErr: true},
		{name: "max value = inf", prop: NodeCountProperty, state: ex("0", huge), wantErr: true},
		{name: "min value > max value", prop: NodeCountProperty, state: ex("4", "0"), wantErr: true},
		{name: "min value == max value", prop: NodeCountProperty, state: ex("4", "4"), want: 0},
		{name: "observation out of range, < min", prop: NodeCountProperty, state: ex("8", "16"), wantErr: true},
		{name: "observation out of range, > max", prop: NodeCountProperty, state: ex("1", "2"), wantErr: true},
		{name: "invalid sort order", prop: NodeCountProperty, order: "invalid", state: ex("2", "6"), wantErr: true},
		{name: "descending, left bound", prop: NodeCountProperty, order: placementv1.Descending, weight: 100, state: ex("4", "8"), want: 0},
		{name: "descending, right bound", prop: NodeCountProperty, order: placementv1.Descending, weight: 100, state: ex("2", "4"), want: 100},
		{name: "descending, round up", prop: NodeCountProperty, order: placementv1.Descending, weight: 7, state: ex("2", "7"), want: 3},
		{name: "descending, round down", prop: NodeCountProperty, order: placementv1.Descending, weight: 8, state: ex("2", "7"), want: 3},
		{name: "ascending, left bound", prop: NodeCountProperty, order: placementv1.Ascending, weight: 100, state: ex("4", "8"), want: 100},
		{name: "ascending, right bound", prop: NodeCountProperty, order: placementv1.Ascending, weight: 100, state: ex("2", "4"), want: 0},
		{name: "ascending, round up", prop: NodeCountProperty, order: placementv1.Ascending, weight: 8, state: ex("2", "7"), want: 5},
		{name: "ascending, round down", prop: NodeCountProperty, order: placementv1.Ascending, weight: 7, state: ex("2", "7"), want: 4},
		// Negative weights interpolate too; math.Round rounds half away from zero.
		{name: "negative weight, descending", prop: NodeCountProperty, order: placementv1.Descending, weight: -50, state: ex("2", "6"), want: -25},
		{name: "half rounds away from zero", prop: NodeCountProperty, order: placementv1.Descending, weight: 5, state: ex("2", "6"), want: 3},
		{name: "negative half rounds away from zero", prop: NodeCountProperty, order: placementv1.Descending, weight: -5, state: ex("2", "6"), want: -3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := preferenceWith(tc.weight, sorterTerm(nil, tc.prop, tc.order), tc.state)
			got, err := p.score(c, -1)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("score() = %d, %v; want %d, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func preferredPolicy(prefs ...placementv1.PreferredClusterSelector) *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: prefs,
	}}}
}

// TestPrepareSortedProperties ports clusteraffinity/scoring_test.go: TestPreScore.
func TestPrepareSortedProperties(t *testing.T) {
	mk := func(name, nodes, cpu string) clusterv1.MemberCluster {
		c := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c = withProperties(c, NodeCountProperty, nodes)
		if cpu != "" {
			c.Status.ResourceUsage.Available = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
		return c
	}
	cases := []struct {
		name     string
		clusters []clusterv1.MemberCluster
		policy   *placementv1.PlacementPolicy
		want     map[string]extremes
	}{
		{name: "no scheduling policy", want: map[string]extremes{}},
		{name: "single preferred term which does not require sorting", clusters: []clusterv1.MemberCluster{mk("cluster-1", "10", "")},
			policy: preferredPolicy(placementv1.PreferredClusterSelector{Weight: 100, Preference: labelTerm("region", "eastus")}), want: map[string]extremes{}},
		{name: "single preferred term which requires sorting", clusters: []clusterv1.MemberCluster{mk("cluster-1", "10", "")},
			policy: preferredPolicy(placementv1.PreferredClusterSelector{Weight: 100, Preference: sorterTerm(nil, NodeCountProperty, "")}),
			want:   map[string]extremes{NodeCountProperty: {min: qty("10"), max: qty("10")}}},
		{name: "multiple preferred terms which require sorting",
			clusters: []clusterv1.MemberCluster{mk("cluster-1", "10", "10"), mk("cluster-2", "20", "12"), mk("cluster-2", "15", "7")},
			policy: preferredPolicy(
				placementv1.PreferredClusterSelector{Weight: 100, Preference: sorterTerm(nil, NodeCountProperty, "")},
				placementv1.PreferredClusterSelector{Weight: 100, Preference: sorterTerm(nil, availableCPU, "")}),
			want: map[string]extremes{NodeCountProperty: {min: qty("10"), max: qty("20")}, availableCPU: {min: qty("7"), max: qty("12")}}},
		// Weight-0 terms are read too, and clusters lacking the property are skipped.
		{name: "weight 0 and missing readings",
			clusters: []clusterv1.MemberCluster{mk("cluster-1", "10", ""), mk("cluster-2", "20", "12")},
			policy:   preferredPolicy(placementv1.PreferredClusterSelector{Weight: 0, Preference: sorterTerm(nil, availableCPU, "")}),
			want:     map[string]extremes{availableCPU: {min: qty("12"), max: qty("12")}}},
		{name: "no cluster reports the property",
			clusters: []clusterv1.MemberCluster{mk("cluster-1", "10", "")},
			policy:   preferredPolicy(placementv1.PreferredClusterSelector{Weight: 10, Preference: sorterTerm(nil, availableCPU, "")}),
			want:     map[string]extremes{availableCPU: {}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := prepareSortedProperties(preferredTerms(tc.policy), tc.clusters)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("prepareSortedProperties() has %d properties; want %d", len(got), len(tc.want))
			}
			for name, w := range tc.want {
				g := got[name]
				if g == nil || !sameQuantity(g.ext.min, w.min) || !sameQuantity(g.ext.max, w.max) {
					t.Errorf("extremes of %s = %+v; want %+v", name, g, w)
				}
			}
		})
	}
	// A non-Quantity reading on any cluster aborts PreScore.
	bad := []clusterv1.MemberCluster{mk("cluster-1", "10", ""), withProperties(mk("cluster-2", "x", ""))}
	if _, err := prepareSortedProperties(preferredPolicy(placementv1.PreferredClusterSelector{Weight: 0, Preference: sorterTerm(nil, NodeCountProperty, "")}).Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution, bad); err == nil {
		t.Error("prepareSortedProperties() accepted a non-Quantity reading")
	}
}

// TestAffinityScore ports clusteraffinity/scoring_test.go: TestScore.
func TestAffinityScore(t *testing.T) {
	mk := func(labels map[string]string, nodes, cpu string) *clusterv1.MemberCluster {
		c := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster-1", Labels: labels}}
		if nodes != "" {
			c = withProperties(c, NodeCountProperty, nodes)
		}
		if cpu != "" {
			c.Status.ResourceUsage.Available = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
		return &c
	}
	east, west := map[string]string{"region": "eastus"}, map[string]string{"region": "westus"}
	westLabels := &metav1.LabelSelector{MatchLabels: west}
	envProd := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}}
	nodes1020 := map[string]extremes{NodeCountProperty: {min: qty("10"), max: qty("20")}}
	cases := []struct {
		name    string
		prefs   []placementv1.PreferredClusterSelector
		state   map[string]extremes
		cluster *clusterv1.MemberCluster
		want    int
	}{
		{name: "single preferred term which features only label selector, matched",
			prefs: []placementv1.PreferredClusterSelector{{Weight: 50, Preference: labelTerm("region", "eastus")}}, cluster: mk(east, "", ""), want: 50},
		{name: "single preferred term which features only label selector, not matched",
			prefs: []placementv1.PreferredClusterSelector{{Weight: 50, Preference: labelTerm("region", "eastus")}}, cluster: mk(west, "", ""), want: 0},
		{name: "single preferred term which requires sorting", state: nodes1020,
			prefs: []placementv1.PreferredClusterSelector{{Weight: 50, Preference: sorterTerm(nil, NodeCountProperty, placementv1.Ascending)}}, cluster: mk(nil, "15", ""), want: 25},
		{name: "single preferred term which features label selector and requires sorting", state: nodes1020,
			prefs: []placementv1.PreferredClusterSelector{{Weight: 50, Preference: sorterTerm(westLabels, NodeCountProperty, placementv1.Descending)}}, cluster: mk(west, "12", ""), want: 10},
		{name: "single preferred term which features label selector and requires sorting (cannot be sorted, no data available)", state: nodes1020,
			prefs: []placementv1.PreferredClusterSelector{{Weight: 50, Preference: sorterTerm(westLabels, NodeCountProperty, placementv1.Descending)}}, cluster: mk(west, "", ""), want: 0},
		{name: "multiple preferred terms", state: map[string]extremes{NodeCountProperty: {min: qty("10"), max: qty("20")}, availableCPU: {min: qty("7"), max: qty("25")}},
			prefs: []placementv1.PreferredClusterSelector{
				{Weight: 50, Preference: sorterTerm(westLabels, NodeCountProperty, placementv1.Descending)},
				{Weight: 20, Preference: sorterTerm(envProd, availableCPU, placementv1.Ascending)},
			}, cluster: mk(map[string]string{"region": "westus", "env": "prod"}, "12", "10"), want: 27},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var prefs []preference
			for _, p := range tc.prefs {
				if p.Weight != 0 {
					prefs = append(prefs, preferenceWith(p.Weight, p.Preference, tc.state))
				}
			}
			got, err := affinityScore(prefs, tc.cluster, -1)
			if err != nil || got != tc.want {
				t.Errorf("affinityScore() = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
