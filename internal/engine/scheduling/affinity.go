package scheduling

import (
	"errors"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

const affinityMismatchReason = "cluster does not match with any of the required cluster affinity terms"

// selectorTerm is a ClusterSelectorTerm with its label selector parsed once (upstream parses it
// for every cluster; the result, error included, is the same).
type selectorTerm struct {
	term        *placementv1.ClusterSelectorTerm
	selector    labels.Selector
	selectorErr error
}

func compileTerm(t *placementv1.ClusterSelectorTerm) selectorTerm {
	st := selectorTerm{term: t}
	if t.LabelSelector != nil {
		st.selector, st.selectorErr = metav1.LabelSelectorAsSelector(t.LabelSelector)
	}
	return st
}

// labelsMatch applies the term's label selector; a term without one matches every cluster.
func (t *selectorTerm) labelsMatch(cluster *clusterv1.MemberCluster) (bool, error) {
	if t.term.LabelSelector == nil {
		return true, nil
	}
	if t.selectorErr != nil {
		return false, fmt.Errorf("failed to parse label selector: %w", t.selectorErr)
	}
	return t.selector.Matches(labels.Set(cluster.Labels)), nil
}

// matches checks a cluster against a required term: labels, then every property expression in
// order; a property the cluster does not report fails the term
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: clusterRequirement.Matches).
func (t *selectorTerm) matches(cluster *clusterv1.MemberCluster) (bool, error) {
	if ok, err := t.labelsMatch(cluster); err != nil || !ok {
		return false, err
	}
	if t.term.PropertySelector == nil {
		return true, nil
	}
	for _, exp := range t.term.PropertySelector.MatchExpressions {
		q, err := propertyValue(cluster, exp.Name)
		if err != nil {
			return false, err
		}
		if q == nil {
			return false, nil
		}
		ok, err := compareProperty(*q, exp.Operator, exp.Values)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// compareProperty applies one property operator: Eq/Ne by Quantity.Equal ("1" == "1000m",
// "1Gi" != "1G"), the others by Quantity.Cmp
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: clusterRequirement.Matches).
func compareProperty(observed resource.Quantity, op placementv1.PropertySelectorOperator, values []string) (bool, error) {
	if len(values) != 1 {
		return false, errors.New("more than one value in the property selector expression")
	}
	expected, err := resource.ParseQuantity(values[0])
	if err != nil {
		return false, fmt.Errorf("value specified in property selector %s is not a valid resource quantity: %w", values[0], err)
	}
	switch op {
	case placementv1.PropertySelectorEqualTo:
		return observed.Equal(expected), nil
	case placementv1.PropertySelectorNotEqualTo:
		return !observed.Equal(expected), nil
	case placementv1.PropertySelectorGreaterThan:
		return observed.Cmp(expected) > 0, nil
	case placementv1.PropertySelectorGreaterThanOrEqualTo:
		return observed.Cmp(expected) >= 0, nil
	case placementv1.PropertySelectorLessThan:
		return observed.Cmp(expected) < 0, nil
	case placementv1.PropertySelectorLessThanOrEqualTo:
		return observed.Cmp(expected) <= 0, nil
	default:
		return false, fmt.Errorf("invalid operator: %s", op)
	}
}

// requiredTerms returns the policy's required terms, nil when the ClusterAffinity filter is skipped
// (pkg/scheduler/framework/plugins/clusteraffinity/filtering.go: PreFilter).
func requiredTerms(policy *placementv1.PlacementPolicy) []selectorTerm {
	if policy == nil || policy.Affinity == nil || policy.Affinity.ClusterAffinity == nil ||
		policy.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	src := policy.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms
	if len(src) == 0 {
		return nil
	}
	terms := make([]selectorTerm, len(src))
	for i := range src {
		terms[i] = compileTerm(&src[i])
	}
	return terms
}

// filterAffinity passes a cluster that matches any required term (ORed); "" means it passes
// (pkg/scheduler/framework/plugins/clusteraffinity/filtering.go: Filter).
func filterAffinity(terms []selectorTerm, cluster *clusterv1.MemberCluster) (reason string, err error) {
	if len(terms) == 0 {
		return "", nil
	}
	for i := range terms {
		ok, err := terms[i].matches(cluster)
		if err != nil {
			return "", pluginError("ClusterAffinity", err, "failed to match the cluster against a required affinity term")
		}
		if ok {
			return "", nil
		}
	}
	return affinityMismatchReason, nil
}

// extremes are a property's observed minimum and maximum over every member cluster
// (pkg/scheduler/framework/plugins/clusteraffinity/state.go: observedMinMaxValues).
type extremes struct {
	min, max *resource.Quantity
}

// sortValue caches one cluster's reading of a sorted property (PreScore reads every cluster).
type sortValue struct {
	present bool
	f       float64
}

// sortedProperty is the PreScore state for one property named by a property sorter.
type sortedProperty struct {
	ext    extremes
	values []sortValue // by cluster index; nil when built by hand in tests
}

// preference is a preferred term ready to score clusters.
type preference struct {
	weight int32
	labels selectorTerm
	sorter *placementv1.PropertySorter
	prop   *sortedProperty
}

// preferredTerms returns the preferred terms, nil when the ClusterAffinity scorer is skipped
// (pkg/scheduler/framework/plugins/clusteraffinity/scoring.go: PreScore).
func preferredTerms(policy *placementv1.PlacementPolicy) []placementv1.PreferredClusterSelector {
	if policy == nil || policy.Affinity == nil || policy.Affinity.ClusterAffinity == nil {
		return nil
	}
	return policy.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution
}

// prepareSortedProperties reads every sorted property from every member cluster and records its
// extremes; a non-Quantity reading on any cluster aborts the cycle. Terms of weight 0 are read too
// (pkg/scheduler/framework/plugins/clusteraffinity/state.go: preparePluginState).
func prepareSortedProperties(terms []placementv1.PreferredClusterSelector, clusters []clusterv1.MemberCluster) (map[string]*sortedProperty, error) {
	props := make(map[string]*sortedProperty)
	for ti := range terms {
		sorter := terms[ti].Preference.PropertySorter
		if sorter == nil {
			continue
		}
		sp := &sortedProperty{values: make([]sortValue, len(clusters))}
		for ci := range clusters {
			q, err := propertyValue(&clusters[ci], sorter.Name)
			if err != nil {
				return nil, pluginError("ClusterAffinity", err, "failed to prepare plugin state")
			}
			if q == nil {
				continue
			}
			sp.values[ci] = sortValue{present: true, f: q.AsApproximateFloat64()}
			if sp.ext.min == nil || q.Cmp(*sp.ext.min) < 0 {
				sp.ext.min = q
			}
			if sp.ext.max == nil || q.Cmp(*sp.ext.max) > 0 {
				sp.ext.max = q
			}
		}
		props[sorter.Name] = sp
	}
	return props, nil
}

// compilePreferences pairs the preferred terms of non-zero weight with their prepared state; the
// scorer skips weight-0 terms (pkg/scheduler/framework/plugins/clusteraffinity/scoring.go: Score).
func compilePreferences(terms []placementv1.PreferredClusterSelector, props map[string]*sortedProperty) []preference {
	prefs := make([]preference, 0, len(terms))
	for i := range terms {
		t := &terms[i]
		if t.Weight == 0 {
			continue
		}
		p := preference{weight: t.Weight, labels: compileTerm(&t.Preference), sorter: t.Preference.PropertySorter}
		if p.sorter != nil {
			p.prop = props[p.sorter.Name]
		}
		prefs = append(prefs, p)
	}
	return prefs
}

// affinityScore sums the preferred terms' scores for one cluster (idx is its index in the cluster
// list PreScore read, or -1) (pkg/scheduler/framework/plugins/clusteraffinity/scoring.go: Score).
func affinityScore(prefs []preference, cluster *clusterv1.MemberCluster, idx int) (int, error) {
	total := 0
	for i := range prefs {
		s, err := prefs[i].score(cluster, idx)
		if err != nil {
			return 0, pluginError("ClusterAffinity", fmt.Errorf("failed to calculate score for cluster %s: %w", cluster.Name, err))
		}
		total += int(s)
	}
	return total, nil
}

// score is one preferred term's score: the full weight if the labels match and there is no
// sorter, 0 if they do not match, else the weight interpolated by the sorted property
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: clusterPreference.Scores).
func (p *preference) score(cluster *clusterv1.MemberCluster, idx int) (int32, error) {
	matched, err := p.labels.labelsMatch(cluster)
	if err != nil {
		return 0, err
	}
	switch {
	case p.sorter == nil && matched:
		return p.weight, nil
	case !matched:
		return 0, nil
	}
	var v sortValue
	if p.prop != nil && p.prop.values != nil && idx >= 0 {
		v = p.prop.values[idx]
	} else {
		q, err := propertyValue(cluster, p.sorter.Name)
		if err != nil {
			return 0, fmt.Errorf("failed to perform weight interpolation based on %s for cluster %s: %w", p.sorter.Name, cluster.Name, err)
		}
		if q != nil {
			v = sortValue{present: true, f: q.AsApproximateFloat64()}
		}
	}
	if !v.present {
		return 0, nil
	}
	if p.prop == nil {
		return 0, fmt.Errorf("failed to look up extremums for property %s, no state is prepared", p.sorter.Name)
	}
	return interpolateWeight(v.f, p.prop.ext, p.sorter.Name, cluster.Name, p.sorter.SortOrder, p.weight)
}

// interpolateWeight scales a weight linearly by where a reading sits between the observed
// extremes, rounding half away from zero; equal extremes give 0
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: interpolateWeightFor).
func interpolateWeight(f float64, ext extremes, property, cluster string, order placementv1.PropertySortOrder, weight int32) (int32, error) {
	if ext.min == nil || ext.max == nil {
		return 0, fmt.Errorf("extremums for property %s are not available, yet a reading can be found from cluster %s", property, cluster)
	}
	minF, maxF := ext.min.AsApproximateFloat64(), ext.max.AsApproximateFloat64()
	if math.IsInf(minF, 0) || math.IsInf(maxF, 0) || minF > maxF || f < minF || f > maxF {
		return 0, fmt.Errorf("cannot interpolate weight, observed value %v, observed min %v, observed max %v", f, minF, maxF)
	}
	if minF == maxF {
		return 0, nil
	}
	switch order {
	case placementv1.Descending:
		return int32(math.Round(((f - minF) / (maxF - minF)) * float64(weight))), nil
	case placementv1.Ascending:
		return int32(math.Round((1 - (f-minF)/(maxF-minF)) * float64(weight))), nil
	default:
		return 0, fmt.Errorf("cannot interpolate weight as sort order %s is invalid", order)
	}
}
