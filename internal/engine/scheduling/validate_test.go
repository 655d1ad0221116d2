package scheduling

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

func errorsOf(issues []Issue) []Issue {
	var out []Issue
	for _, i := range issues {
		if i.Severity == SeverityError {
			out = append(out, i)
		}
	}
	return out
}

func hasIssue(issues []Issue, severity Severity, path, msg string) bool {
	for _, i := range issues {
		if i.Severity == severity && strings.Contains(i.Message, msg) && (path == "" || i.Path.String() == path) {
			return true
		}
	}
	return false
}

var (
	two           = int32p(2)
	minusOne      = int32p(-1)
	emptyInValues = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "test-key", Operator: metav1.LabelSelectorOpIn}}}
	testLabels    = &metav1.LabelSelector{MatchLabels: map[string]string{"test-key1": "test-value1"}}
)

func required(terms ...placementv1.ClusterSelectorTerm) *placementv1.Affinity {
	return &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: terms}}}
}

func preferred(terms ...placementv1.PreferredClusterSelector) *placementv1.Affinity {
	return &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
}

func selectorTermWith(ls *metav1.LabelSelector, exprs ...placementv1.PropertySelectorRequirement) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{LabelSelector: ls, PropertySelector: &placementv1.PropertySelector{MatchExpressions: exprs}}
}

// TestValidate ports pkg/utils/validator/placement_test.go (v0.18.9):
// TestValidateClusterResourcePlacement_{PickFixed,PickAll,PickN}PlacementPolicy (want: "" means no
// error; otherwise an error containing the message at the path).
func TestValidate(t *testing.T) {
	const fixed, all, n = placementv1.PickFixedPlacementType, placementv1.PickAllPlacementType, placementv1.PickNPlacementType
	tolerations := []placementv1.Toleration{
		{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoSchedule},
		{Key: "key2", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Operator: corev1.TolerationOpExists},
	}
	cases := []struct {
		name   string
		policy *placementv1.PlacementPolicy
		path   string
		want   string
	}{
		// PickFixed.
		{name: "valid placement policy - PickFixed with non-empty cluster names", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster"}}},
		{name: "valid placement policy - PickFixed with empty cluster names (v0.18.9)", policy: &placementv1.PlacementPolicy{PlacementType: fixed}},
		{name: "invalid placement policy - PickFixed with invalid cluster name", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster", "test@,cluster1"}},
			path: "clusterNames[1]", want: "PickFixed cluster name test@,cluster1 is not a valid member name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"},
		{name: "invalid placement policy - PickFixed with too long cluster name", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"this-is-a-very-long-cluster-name-that-exceeds-the-maximum-allowed-length-for-dns-labels"}},
			path: "clusterNames[0]", want: "PickFixed cluster name this-is-a-very-long-cluster-name-that-exceeds-the-maximum-allowed-length-for-dns-labels cannot have length exceeding 63"},
		{name: "invalid placement policy - PickFixed with non-unique cluster names", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster1", "test-cluster1", "test-cluster2", "test-cluster2"}},
			path: "clusterNames[1]", want: "cluster names must be unique for policy type PickFixed"},
		{name: "invalid placement policy - PickFixed with non nil number of clusters", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster"}, NumberOfClusters: two},
			path: "numberOfClusters", want: "number of clusters must be nil for policy type PickFixed, only valid for PickN placement policy type"},
		{name: "invalid placement policy - PickFixed with non nil affinity", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster"},
			Affinity: required(placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"test-key": "test-value"}}})},
			path: "affinity", want: "affinity must be nil for policy type PickFixed, only valid for PickAll/PickN placement policy types"},
		{name: "invalid placement policy - PickFixed with non empty topology constraints", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster"},
			TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{{TopologyKey: "test-key"}}},
			path: "topologySpreadConstraints", want: "topology spread constraints needs to be empty for policy type PickFixed, only valid for PickN policy type"},
		{name: "valid placement policy, PickFixed placementType, empty toleration, nil error", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"test-cluster"}}},
		{name: "invalid placement policy - PickFixed placementType, non empty valid tolerations, error", policy: &placementv1.PlacementPolicy{PlacementType: fixed, ClusterNames: []string{"c"}, Tolerations: tolerations},
			path: "tolerations", want: "tolerations needs to be empty for policy type PickFixed, only valid for PickAll/PickN"},
		// PickAll.
		{name: "invalid placement policy - PickAll with non-empty cluster names", policy: &placementv1.PlacementPolicy{PlacementType: all, ClusterNames: []string{"test-cluster"}},
			path: "clusterNames", want: "cluster names needs to be empty for policy type PickAll, only valid for PickFixed policy type"},
		{name: "invalid placement policy - PickAll with non nil number of clusters", policy: &placementv1.PlacementPolicy{PlacementType: all, NumberOfClusters: two},
			path: "numberOfClusters", want: "number of clusters must be nil for policy type PickAll, only valid for PickN placement policy type"},
		{name: "invalid placement policy - PickAll with invalid label selector terms in RequiredDuringSchedulingIgnoredDuringExecution in affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(placementv1.ClusterSelectorTerm{LabelSelector: emptyInValues})},
			path:   "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].labelSelector", want: "for 'in', 'notin' operators, values set can't be empty"},
		{name: "invalid placement policy - PickAll with non empty PreferredDuringSchedulingIgnoredDuringExecution",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: preferred(placementv1.PreferredClusterSelector{Weight: 1, Preference: labelTerm("test-key", "test-value")})},
			path:   "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution", want: "PreferredDuringSchedulingIgnoredDuringExecution will be ignored for placement policy type PickAll"},
		{name: "invalid placement policy - PickAll with non empty topology constraints", policy: &placementv1.PlacementPolicy{PlacementType: all, TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{{TopologyKey: "test-key"}}},
			path: "topologySpreadConstraints", want: "topology spread constraints needs to be empty for policy type PickAll, only valid for PickN policy type"},
		{name: "valid placement policy - PickAll with non nil affinity", policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(labelTerm("test-key", "test-value"))}},
		{name: "valid placement policy - PickAll placementType, empty tolerations, nil error", policy: &placementv1.PlacementPolicy{PlacementType: all}},
		{name: "invalid placement policy - PickAll placementType, non empty invalid tolerations, error",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Tolerations: []placementv1.Toleration{{Key: "key1", Operator: corev1.TolerationOpExists, Value: "value1", Effect: corev1.TaintEffectNoSchedule}}},
			path:   "tolerations[0].value", want: "toleration value needs to be empty, when operator is Exists"},
		{name: "valid placement policy - PickAll with property selector in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(selectorTermWith(testLabels,
				expr("version", placementv1.PropertySelectorGreaterThanOrEqualTo, "1"), expr("cpu", placementv1.PropertySelectorGreaterThan, "500m")))}},
		{name: "invalid placement policy - PickAll with invalid property selector in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(selectorTermWith(testLabels, expr("version", placementv1.PropertySelectorEqualTo, "1", "2")))},
			path:   "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].values", want: "operator Eq requires exactly one value, got 2"},
		{name: "invalid placement policy - PickAll with invalid property selector name, invalid capacity type",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(selectorTermWith(testLabels, expr("resources.kubernetes-fleet.io/node-count", placementv1.PropertySelectorEqualTo, "2")))},
			path:   "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].name",
			want:   "invalid capacity type in resource property name resources.kubernetes-fleet.io/node-count, supported values are [allocatable available total]"},
		{name: "invalid placement policy - PickAll with invalid property selector name, no segments",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(selectorTermWith(testLabels, expr("resources.kubernetes-fleet.io/totalcpu", placementv1.PropertySelectorEqualTo, "2")))},
			want:   "invalid resource property name resources.kubernetes-fleet.io/totalcpu, expected format is [PREFIX]/[CAPACITY_TYPE]-[RESOURCE_NAME]"},
		{name: "valid placement policy - PickAll with valid property selector name",
			policy: &placementv1.PlacementPolicy{PlacementType: all, Affinity: required(selectorTermWith(testLabels, expr("resources.kubernetes-fleet.io/allocatable-memory", placementv1.PropertySelectorEqualTo, "2")))}},
		// PickN.
		{name: "invalid placement policy - PickN with non-empty cluster names", policy: &placementv1.PlacementPolicy{PlacementType: n, ClusterNames: []string{"test-cluster"}, NumberOfClusters: two},
			path: "clusterNames", want: "cluster names needs to be empty for policy type PickN, only valid for PickFixed policy type"},
		{name: "invalid placement policy - PickN with nil number of clusters", policy: &placementv1.PlacementPolicy{PlacementType: n},
			path: "numberOfClusters", want: "number of cluster cannot be nil for policy type PickN"},
		{name: "invalid placement policy - PickN with negative number of clusters", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: minusOne},
			path: "numberOfClusters", want: "number of clusters cannot be -1 for policy type PickN"},
		{name: "invalid placement policy - PickN with invalid label selector terms in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(placementv1.ClusterSelectorTerm{LabelSelector: emptyInValues})},
			want:   "for 'in', 'notin' operators, values set can't be empty"},
		{name: "invalid placement policy - PickN with non-nil property sorter in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(placementv1.ClusterSelectorTerm{LabelSelector: testLabels,
				PropertySorter: &placementv1.PropertySorter{Name: "Name", SortOrder: placementv1.Descending}})},
			path: "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySorter", want: "PropertySorter is not allowed for RequiredDuringSchedulingIgnoredDuringExecution affinity"},
		{name: "invalid placement policy - PickN with invalid property selector in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("version", placementv1.PropertySelectorEqualTo, "1", "2")))},
			want:   "operator Eq requires exactly one value, got 2"},
		{name: "valid placement policy - PickN with property selector in RequiredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels,
				expr("version", placementv1.PropertySelectorGreaterThanOrEqualTo, "1"), expr("cpu", placementv1.PropertySelectorGreaterThan, "500m")))}},
		{name: "invalid placement policy - PickN with invalid label selector terms in PreferredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: preferred(placementv1.PreferredClusterSelector{Preference: placementv1.ClusterSelectorTerm{LabelSelector: emptyInValues}})},
			path:   "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.labelSelector", want: "for 'in', 'notin' operators, values set can't be empty"},
		{name: "invalid placement policy - PickN with non-nil property selector in PreferredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: preferred(placementv1.PreferredClusterSelector{
				Preference: selectorTermWith(testLabels, expr("version", placementv1.PropertySelectorEqualTo, "1"))})},
			path: "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.propertySelector", want: "PropertySelector is not allowed for PreferredDuringSchedulingIgnoredDuringExecution affinity"},
		{name: "invalid placement policy - PickN with invalid property sorter in PreferredDuringSchedulingIgnoredDuringExecution affinity",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: preferred(placementv1.PreferredClusterSelector{
				Preference: sorterTerm(testLabels, "resources.kubernetes-fleet.io/total-cpu", "random-order")})},
			path: "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.propertySorter.sortOrder", want: "invalid property sort order random-order"},
		{name: "invalid placement policy - PickN with invalid topology constraint with unknown unsatisfiable type",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{{TopologyKey: "test-key", WhenUnsatisfiable: "random-type"}}},
			path:   "topologySpreadConstraints[0].whenUnsatisfiable", want: "unknown unsatisfiable type random-type"},
		{name: "valid placement policy - PickN with non nil affinity, non empty topology constraints",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two,
				Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{labelTerm("test-key1", "test-value1")}},
					PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{{Preference: labelTerm("test-key2", "test-value2")}},
				}},
				TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{{TopologyKey: "test-key"}}}},
		{name: "valid placement policy - PickN placementType, empty tolerations, nil error", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two}},
		{name: "invalid placement policy - PickN placementType, non empty invalid tolerations, error",
			policy: &placementv1.PlacementPolicy{PlacementType: all, NumberOfClusters: two, Tolerations: []placementv1.Toleration{{Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoSchedule}}},
			path:   "tolerations[0].key", want: "toleration key cannot be empty, when operator is Equal"},
		{name: "invalid placement policy - PickN with invalid property selector name, invalid label name",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("resources.kubernetes-fleet.io/total-nospecialchars%^=@", placementv1.PropertySelectorEqualTo, "2")))},
			want:   "property name resources.kubernetes-fleet.io/total-nospecialchars%^=@ is not valid"},
		{name: "invalid placement policy - PickN with an invalid first segment of a property name",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("St@ndard_D8s_v3/count", placementv1.PropertySelectorEqualTo, "2")))},
			path:   "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].name",
			want:   "invalid property name St@ndard_D8s_v3/count: property name first segment St@ndard_D8s_v3 is not valid"},
		{name: "invalid placement policy - PickN with an invalid later segment of a property name",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("Standard_D8s_v3/count/$", placementv1.PropertySelectorEqualTo, "2")))},
			want:   "property name segment $ is not valid"},
		{name: "valid placement policy - PickN with a multi-segment property name",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("kubernetes.azure.com/vm-sizes/Standard_D8s_v3/capacity", placementv1.PropertySelectorGreaterThanOrEqualTo, "2")))}},
		{name: "invalid placement policy - PickN with an unsupported operator",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(nil, expr("n", "In", "1")))},
			path:   "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].operator",
			want:   "invalid requirement on property n: unsupported operator In"},
		{name: "valid placement policy - PickN with valid property selector name",
			policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(testLabels, expr("resources.kubernetes-fleet.io/total-allocatable-cpu", placementv1.PropertySelectorEqualTo, "2")))}},
		// The CRD's schema (v1beta1).
		{name: "schema: unknown placement type", policy: &placementv1.PlacementPolicy{PlacementType: "PickSome"},
			path: "placementType", want: `Unsupported value: "PickSome": supported values: "PickAll", "PickN", "PickFixed"`},
		{name: "schema: weight above 100", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: preferred(placementv1.PreferredClusterSelector{Weight: 101, Preference: labelTerm("a", "b")})},
			path: "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", want: "Invalid value: 101: should be less than or equal to 100"},
		{name: "schema: weight below -100", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: preferred(placementv1.PreferredClusterSelector{Weight: -101, Preference: labelTerm("a", "b")})},
			path: "affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", want: "Invalid value: -101: should be greater than or equal to -100"},
		{name: "schema: more than one value", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(nil, expr("version", placementv1.PropertySelectorEqualTo, "1", "2")))},
			path: "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].values", want: "Too many: 2: must have at most 1 items"},
		{name: "schema: maxSkew 0", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{{TopologyKey: "k", MaxSkew: int32p(0)}}},
			path: "topologySpreadConstraints[0].maxSkew", want: "Invalid value: 0: should be greater than or equal to 1"},
		{name: "schema: numberOfClusters below 0", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: minusOne},
			path: "numberOfClusters", want: "Invalid value: -1: should be greater than or equal to 0"},
		{name: "schema: toleration effect", policy: &placementv1.PlacementPolicy{Tolerations: []placementv1.Toleration{{Key: "k", Effect: corev1.TaintEffectNoExecute}}},
			path: "tolerations[0].effect", want: `Unsupported value: "NoExecute": supported values: "NoSchedule"`},
		{name: "schema: too many terms", policy: &placementv1.PlacementPolicy{Affinity: required(make([]placementv1.ClusterSelectorTerm, 11)...)},
			path: "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms", want: "Too many: 11: must have at most 10 items"},
		{name: "property value not a quantity", policy: &placementv1.PlacementPolicy{PlacementType: n, NumberOfClusters: two, Affinity: required(selectorTermWith(nil, expr("version", placementv1.PropertySelectorGreaterThan, "v1.29")))},
			path: "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].values",
			want: `invalid requirement on property version: value "v1.29" is not a valid resource.Quantity`},
		{name: "nil policy (PickAll)"},
		{name: "defaults: empty placement type is PickAll, so numberOfClusters is rejected", policy: &placementv1.PlacementPolicy{NumberOfClusters: two},
			path: "numberOfClusters", want: "number of clusters must be nil for policy type PickAll"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			issues := Validate(tc.policy)
			if tc.want == "" {
				if errs := errorsOf(issues); len(errs) != 0 {
					t.Errorf("Validate() = %+v; want no error", errs)
				}
				return
			}
			if !hasIssue(issues, SeverityError, tc.path, tc.want) {
				t.Errorf("Validate() = %+v; want an error at %q containing %q", issues, tc.path, tc.want)
			}
		})
	}
}

// TestValidateTolerations ports clusterresourceplacement_test.go: TestValidateTolerations.
func TestValidateTolerations(t *testing.T) {
	eq, ex, ns := corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TaintEffectNoSchedule
	cases := []struct {
		name        string
		tolerations []placementv1.Toleration
		want        string
	}{
		{name: "valid tolerations", tolerations: []placementv1.Toleration{{Key: "key1", Operator: eq, Value: "value1", Effect: ns}, {Key: "key2", Operator: ex, Effect: ns}, {Operator: ex}}},
		{name: "valid toleration, value is empty, operator is Equal", tolerations: []placementv1.Toleration{{Key: "key1", Operator: eq, Effect: ns}}},
		{name: "invalid toleration, key is empty, operator is Equal", tolerations: []placementv1.Toleration{{Operator: eq, Value: "value1", Effect: ns}},
			want: "toleration key cannot be empty, when operator is Equal"},
		{name: "invalid toleration, key is invalid, operator is Equal", tolerations: []placementv1.Toleration{{Key: "key:123*", Operator: eq, Value: "value1", Effect: ns}},
			want: "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"},
		{name: "invalid toleration, value is invalid, operator is Equal", tolerations: []placementv1.Toleration{{Key: "key1", Operator: eq, Value: "val#%/-123", Effect: ns}},
			want: "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"},
		{name: "invalid toleration, key is invalid, operator is Exists", tolerations: []placementv1.Toleration{{Key: "key:123*", Operator: ex, Effect: ns}},
			want: "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"},
		{name: "invalid toleration, value is not empty, operator is Exists", tolerations: []placementv1.Toleration{{Key: "key1", Operator: ex, Value: "value1", Effect: ns}},
			want: "toleration value needs to be empty, when operator is Exists"},
		{name: "invalid toleration, non-unique toleration",
			tolerations: []placementv1.Toleration{{Key: "key1", Operator: eq, Value: "value1", Effect: ns}, {Key: "key2", Operator: ex, Effect: ns}, {Key: "key1", Operator: eq, Value: "value1", Effect: ns}},
			want:        "toleration {Key:key1 Operator:Equal Value:value1 Effect:NoSchedule} already exists, tolerations must be unique"},
		// The CRD defaults the operator to Equal before the webhook sees it.
		{name: "defaulted operator", tolerations: []placementv1.Toleration{{Value: "v"}}, want: "toleration key cannot be empty, when operator is Equal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			issues := Validate(&placementv1.PlacementPolicy{Tolerations: tc.tolerations})
			if tc.want == "" {
				if errs := errorsOf(issues); len(errs) != 0 {
					t.Errorf("Validate() = %+v", errs)
				}
				return
			}
			if !hasIssue(issues, SeverityError, "", tc.want) {
				t.Errorf("Validate() = %+v; want %q", issues, tc.want)
			}
		})
	}
}

// TestValidateWarnings: what v0.18.9 accepts but cannot schedule.
func TestValidateWarnings(t *testing.T) {
	const term0 = "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector"
	for _, tc := range []struct {
		name   string
		policy *placementv1.PlacementPolicy
		path   string
		want   string
	}{
		{name: "resource name the scheduler cannot split",
			policy: &placementv1.PlacementPolicy{Affinity: required(selectorTermWith(nil, expr("resources.kubernetes-fleet.io/available-ephemeral-storage", placementv1.PropertySelectorGreaterThan, "1Gi")))},
			path:   term0 + ".matchExpressions[0].name", want: "cannot be resolved by the scheduler"},
		{name: "PickFixed without cluster names", policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType},
			path: "clusterNames", want: "its scheduler skips every scheduling cycle of this placement"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			issues := Validate(tc.policy)
			if errs := errorsOf(issues); len(errs) != 0 {
				t.Errorf("errors %+v; want warnings only", errs)
			}
			if !hasIssue(issues, SeverityWarning, tc.path, tc.want) {
				t.Errorf("Validate() = %+v; want a warning containing %q", issues, tc.want)
			}
		})
	}
}

// TestValidateRequirementsConsistency ports pkg/utils/validator/placement_test.go (v0.18.9):
// TestValidateRequirementsConsistency, through Validate: requirements on one property that no
// value meets are an error at the property's first expression (v0.14.0 accepted them).
func TestValidateRequirementsConsistency(t *testing.T) {
	const (
		gt = placementv1.PropertySelectorGreaterThan
		ge = placementv1.PropertySelectorGreaterThanOrEqualTo
		lt = placementv1.PropertySelectorLessThan
		le = placementv1.PropertySelectorLessThanOrEqualTo
		eq = placementv1.PropertySelectorEqualTo
		ne = placementv1.PropertySelectorNotEqualTo
	)
	r := func(op placementv1.PropertySelectorOperator, v string) placementv1.PropertySelectorRequirement {
		return expr("p", op, v)
	}
	rs := func(x ...placementv1.PropertySelectorRequirement) []placementv1.PropertySelectorRequirement { return x }
	for _, tc := range []struct {
		name string
		reqs []placementv1.PropertySelectorRequirement
		want string // "" for none
	}{
		{name: "single requirement", reqs: rs(r(eq, "5"))},
		{name: "two compatible Eq with same value", reqs: rs(r(eq, "5"), r(eq, "5"))},
		{name: "Eq + Ne with different values", reqs: rs(r(eq, "5"), r(ne, "10"))},
		{name: "two Ne", reqs: rs(r(ne, "5"), r(ne, "10"))},
		{name: "Gt + Lt with non-empty interval", reqs: rs(r(gt, "5"), r(lt, "10"))},
		{name: "Gte x + Lte x pinpoints x", reqs: rs(r(ge, "10"), r(le, "10"))},
		{name: "Eq inside bounds", reqs: rs(r(ge, "5"), r(eq, "7"), r(le, "10"))},
		{name: "redundant lower bounds keep the most restrictive", reqs: rs(r(gt, "5"), r(gt, "10"), r(lt, "20"))},
		{name: "value with units", reqs: rs(r(ge, "100Mi"), r(lt, "1Gi"))},
		{name: "two Eq with different values", reqs: rs(r(eq, "5"), r(eq, "10")), want: "inconsistent requirements on property p: conflicting Eq values 5 and 10"},
		{name: "Eq + Ne with same value", reqs: rs(r(eq, "5"), r(ne, "5")), want: "conflicting Eq and Ne on same value 5"},
		{name: "Gt 10 + Lt 5", reqs: rs(r(gt, "10"), r(lt, "5")), want: "lower bound (10) and upper bound (5) exclude all values"},
		{name: "Gt x + Lt x boundary", reqs: rs(r(gt, "10"), r(lt, "10")), want: "exclude all values"},
		{name: "Gt x + Lte x boundary", reqs: rs(r(gt, "10"), r(le, "10")), want: "exclude all values"},
		{name: "Gte x + Lt x boundary", reqs: rs(r(ge, "10"), r(lt, "10")), want: "exclude all values"},
		{name: "least-restrictive lower hides the contradiction", reqs: rs(r(gt, "10"), r(gt, "5"), r(lt, "7")), want: "exclude all values"},
		{name: "Eq below lower bound", reqs: rs(r(ge, "10"), r(eq, "5")), want: "eq value 5 violates lower bound 10"},
		{name: "Eq above upper bound", reqs: rs(r(le, "10"), r(eq, "20")), want: "eq value 20 violates upper bound 10"},
		{name: "Eq equals strict lower bound", reqs: rs(r(gt, "10"), r(eq, "10")), want: "violates lower bound"},
		{name: "Eq equals strict upper bound", reqs: rs(r(lt, "10"), r(eq, "10")), want: "violates upper bound"},
		{name: "malformed value is left to the value check", reqs: rs(r(eq, "not-a-number"), r(eq, "5"))},
		{name: "Eq + Ne, one canonical value in two formats", reqs: rs(r(eq, "1000m"), r(ne, "1")), want: "conflicting Eq and Ne"},
		{name: "Eq + Lt, one canonical value in two formats", reqs: rs(r(lt, "1024"), r(eq, "1Ki")), want: "violates upper bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exprs := append([]placementv1.PropertySelectorRequirement{expr("other", gt, "1")}, tc.reqs...)
			issues := Validate(&placementv1.PlacementPolicy{Affinity: required(selectorTermWith(nil, exprs...))})
			var got []Issue
			for _, is := range errorsOf(issues) {
				if strings.Contains(is.Message, "inconsistent requirements") {
					got = append(got, is)
				}
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("Validate() = %+v; want no inconsistency", got)
				}
				return
			}
			const first = "affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[1]"
			if len(got) != 1 || !strings.Contains(got[0].Message, tc.want) || got[0].Path.String() != first {
				t.Errorf("Validate() = %+v; want one error at %s containing %q", issues, first, tc.want)
			}
		})
	}
}

// TestImmutableChanges ports placement_test.go (v0.18.9): TestIsPlacementPolicyUpdateValid and
// TestIsTolerationsUpdatedOrDeleted, and checks the CRD's rule against removing a policy.
func TestImmutableChanges(t *testing.T) {
	pt := func(t placementv1.PlacementType) *placementv1.PlacementPolicy {
		return &placementv1.PlacementPolicy{PlacementType: t}
	}
	const all, n, fixed = placementv1.PickAllPlacementType, placementv1.PickNPlacementType, placementv1.PickFixedPlacementType
	typeCases := []struct {
		name     string
		old, new *placementv1.PlacementPolicy
		want     bool
	}{
		{name: "old policy is nil, current policy is nil"},
		{name: "old policy nil, current policy non nil, current placement type is PickAll", new: pt(all)},
		{name: "old policy nil, current policy non nil, current placement type is PickN", new: pt(n), want: true},
		{name: "old policy is non nil, current policy is nil, old placement type is PickAll", old: pt(all)},
		{name: "old policy is non nil, current policy is nil, old placement type is PickFixed", old: pt(fixed), want: true},
		{name: "old policy is non nil, current policy is non nil, placement type changed", old: pt(fixed), new: pt(n), want: true},
		{name: "old policy is not nil, current policy is non nil, placement type unchanged", old: pt(n), new: pt(n)},
		{name: "empty placement type is PickAll", old: pt(""), new: pt(all)},
	}
	for _, tc := range typeCases {
		t.Run(tc.name, func(t *testing.T) {
			got := hasIssue(ImmutableChanges(tc.old, tc.new), SeverityError, "placementType", "placement type is immutable")
			if got != tc.want {
				t.Errorf("placement type change flagged %t; want %t", got, tc.want)
			}
		})
	}
	t1 := placementv1.Toleration{Key: "key1", Operator: corev1.TolerationOpEqual, Value: "value1", Effect: corev1.TaintEffectNoSchedule}
	t2 := placementv1.Toleration{Key: "key2", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tol := func(ts ...placementv1.Toleration) *placementv1.PlacementPolicy {
		return &placementv1.PlacementPolicy{Tolerations: ts}
	}
	tolCases := []struct {
		name     string
		old, new *placementv1.PlacementPolicy
		want     bool
	}{
		{name: "old tolerations is nil", old: tol(), new: tol(t1, t2)},
		{name: "new tolerations is nil", old: tol(t1, t2), new: tol(), want: true},
		{name: "one toleration was updated in new tolerations", old: tol(t1, t2), new: tol(t1, placementv1.Toleration{Key: "key2", Operator: corev1.TolerationOpExists}), want: true},
		{name: "one toleration was deleted in new tolerations", old: tol(t1, t2), new: tol(t2), want: true},
		{name: "old tolerations, new tolerations are same", old: tol(t1, t2), new: tol(t2, t1)},
		{name: "a toleration was added to new tolerations", old: tol(t1), new: tol(t1, t2)},
		{name: "spelling out the defaulted operator is no change", old: tol(placementv1.Toleration{Key: "k", Value: "v"}), new: tol(placementv1.Toleration{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v"})},
		{name: "removing the policy drops its tolerations", old: tol(t1), new: nil, want: true},
	}
	for _, tc := range []struct {
		name     string
		old, new *placementv1.PlacementPolicy
		want     bool
	}{
		{name: "no policy before or after"},
		{name: "a policy added", new: pt(all)},
		{name: "a PickAll policy removed", old: pt(all), want: true},
		{name: "a policy kept", old: pt(n), new: pt(n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hasIssue(ImmutableChanges(tc.old, tc.new), SeverityError, "", "policy cannot be removed once set")
			if got != tc.want {
				t.Errorf("policy removal flagged %t; want %t", got, tc.want)
			}
		})
	}
	for _, tc := range tolCases {
		t.Run(tc.name, func(t *testing.T) {
			got := hasIssue(ImmutableChanges(tc.old, tc.new), SeverityError, "tolerations", "tolerations have been updated/deleted, only additions to tolerations are allowed")
			if got != tc.want {
				t.Errorf("tolerations change flagged %t; want %t", got, tc.want)
			}
		})
	}
}

func TestPathString(t *testing.T) {
	p := Path{}.Child("affinity").Child("terms").Index(3).Child("name")
	if got := p.String(); got != "affinity.terms[3].name" {
		t.Errorf("Path.String() = %q", got)
	}
}
