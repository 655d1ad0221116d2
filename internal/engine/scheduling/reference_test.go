package scheduling

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// This file holds a deliberately literal re-enactment of the hub agent's PickN loop
// (pkg/scheduler/framework/framework.go, frameworkutils.go and the topology spread plugin's
// utils.go): every cycle recounts domains with maps and sorted counts, re-reads every property,
// re-evaluates every cluster and sorts with sort.Sort(sort.Reverse(...)), as upstream does.
// Schedule's incremental fast path must agree with it on random fleets.

type refBinding struct {
	cluster  string
	state    placementv1.BindingState
	previous placementv1.BindingState
	current  bool
	score    *Score
}

type refScored struct {
	name  string
	score clusterScore
}

// refScoredClusters mirrors framework.ScoredClusters' sort.Interface.
type refScoredClusters []refScored

func (s refScoredClusters) Len() int      { return len(s) }
func (s refScoredClusters) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s refScoredClusters) Less(i, j int) bool {
	if s[i].score == s[j].score {
		return s[i].name < s[j].name
	}
	return s[i].score.less(s[j].score)
}

type refCounter struct {
	counter                           map[string]int
	smallest, secondSmallest, largest int
}

// refCountByDomain is countByDomain verbatim in spirit: sorted counts, special cases for 0/1/2.
func refCountByDomain(clusters []clusterv1.MemberCluster, selected map[string]bool, key string) refCounter {
	c := refCounter{counter: map[string]int{}, smallest: -1, secondSmallest: -1, largest: -1}
	for _, cl := range clusters {
		v, ok := cl.Labels[key]
		if !ok {
			continue
		}
		if selected[cl.Name] {
			c.counter[v]++
		} else if _, seen := c.counter[v]; !seen {
			c.counter[v] = 0
		}
	}
	var sorted []int
	for _, n := range c.counter {
		sorted = append(sorted, n)
	}
	sort.Ints(sorted)
	switch {
	case len(sorted) == 0:
	case len(sorted) == 1:
		c.smallest, c.secondSmallest, c.largest = sorted[0], sorted[0], sorted[0]
	case len(sorted) == 2:
		if sorted[0] < sorted[1] {
			c.smallest, c.secondSmallest, c.largest = sorted[0], sorted[1], sorted[1]
		} else {
			c.smallest, c.secondSmallest, c.largest = sorted[0], sorted[0], sorted[0]
		}
	default:
		c.smallest, c.secondSmallest, c.largest = sorted[0], sorted[1], sorted[len(sorted)-1]
	}
	return c
}

func refWillViolate(c refCounter, domain string, maxSkew int) (bool, int) {
	count := c.counter[domain]
	cur := c.largest - c.smallest
	switch {
	case c.largest == c.smallest:
		return cur+1 > maxSkew, 1
	case count == c.smallest && c.smallest != c.secondSmallest:
		return cur-1 > maxSkew, -1
	case count == c.largest:
		return cur+1 > maxSkew, 1
	default:
		return cur > maxSkew, 0
	}
}

// refTopology is evaluateAllConstraints: DoNotSchedule constraints first, each over every cluster.
func refTopology(policy *placementv1.PlacementPolicy, clusters []clusterv1.MemberCluster, selected map[string]bool) (map[string]string, map[string]int) {
	violations, scores := map[string]string{}, map[string]int{}
	var dns, sa []placementv1.TopologySpreadConstraint
	for _, c := range policy.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == placementv1.ScheduleAnyway {
			sa = append(sa, c)
		} else {
			dns = append(dns, c)
		}
	}
	for pass, group := range [][]placementv1.TopologySpreadConstraint{dns, sa} {
		for _, c := range group {
			counter := refCountByDomain(clusters, selected, c.TopologyKey)
			for _, cl := range clusters {
				if _, ok := violations[cl.Name]; ok {
					continue
				}
				v, ok := cl.Labels[c.TopologyKey]
				if !ok {
					scores[cl.Name] += 0
					continue
				}
				violated, change := refWillViolate(counter, v, int(*c.MaxSkew))
				switch {
				case violated && pass == 0:
					violations[cl.Name] = fmt.Sprintf(doNotScheduleViolationReasonTemplate, c.TopologyKey, *c.MaxSkew)
					delete(scores, cl.Name)
				case violated:
					scores[cl.Name] -= maxSkewViolationPenalty
				default:
					scores[cl.Name] += change * skewChangeScoreFactor
				}
			}
		}
	}
	return violations, scores
}

type refResult struct {
	selected map[string]Score
	err      bool
}

// referencePickN runs the hub agent's PickN cycles literally.
func referencePickN(in Input) refResult {
	policy := Defaulted(in.Policy)
	n := int(*policy.NumberOfClusters)
	byName := map[string]*clusterv1.MemberCluster{}
	for i := range in.Clusters {
		byName[in.Clusters[i].Name] = &in.Clusters[i]
	}
	var bindings []*refBinding
	for _, b := range in.Bindings {
		bindings = append(bindings, &refBinding{cluster: b.Cluster, state: b.State, previous: b.PreviousState, current: b.Current && !in.PolicyChanged, score: b.Score})
	}
	for cycle := 0; cycle < 10000; cycle++ {
		var bound, scheduled, obsolete, unscheduled []*refBinding
		for _, b := range bindings {
			c, ok := byName[b.cluster]
			switch {
			case b.state == placementv1.BindingStateUnscheduled:
				unscheduled = append(unscheduled, b)
			case !ok || !c.DeletionTimestamp.IsZero():
				b.previous, b.state = b.state, placementv1.BindingStateUnscheduled // dangling
			case !b.current:
				obsolete = append(obsolete, b)
			case b.state == placementv1.BindingStateScheduled:
				scheduled = append(scheduled, b)
			case b.state == placementv1.BindingStateBound:
				bound = append(bound, b)
			}
		}
		present := len(scheduled) + len(bound)
		if n <= present && present-n+len(obsolete) > 0 {
			for _, b := range obsolete {
				b.previous, b.state = b.state, placementv1.BindingStateUnscheduled
			}
			var s, bd []trimCandidate
			for _, b := range scheduled {
				s = append(s, trimCandidate{b.cluster, b.score})
			}
			for _, b := range bound {
				bd = append(bd, trimCandidate{b.cluster, b.score})
			}
			victims := map[string]bool{}
			for _, v := range trimOrder(s, bd, present-n) {
				victims[v] = true
			}
			for _, b := range append(scheduled, bound...) {
				if victims[b.cluster] {
					b.previous, b.state = b.state, placementv1.BindingStateUnscheduled
				}
			}
			break
		}
		if n <= present {
			break
		}
		desired := n - present
		limit := desired
		if len(policy.TopologySpreadConstraints) > 0 {
			limit = 1
		}
		selected, obsoleteSet := map[string]bool{}, map[string]bool{}
		for _, b := range append(scheduled, bound...) {
			selected[b.cluster] = true
		}
		for _, b := range obsolete {
			obsoleteSet[b.cluster] = true
		}
		violations, tscScores := refTopology(policy, in.Clusters, selected)
		terms := requiredTerms(policy)
		var passed []*clusterv1.MemberCluster
		for i := range in.Clusters {
			c := &in.Clusters[i]
			reason, err := filterAffinity(terms, c)
			if err != nil {
				return refResult{err: true}
			}
			if reason != "" {
				continue
			}
			if ok, _ := eligibility(c, in.Now); !ok {
				continue
			}
			if filterTaints(c, policyTolerations(policy)) != "" {
				continue
			}
			if selected[c.Name] {
				continue
			}
			if _, ok := violations[c.Name]; ok {
				continue
			}
			passed = append(passed, c)
		}
		// PreScore: extremes over every cluster, then Score per candidate.
		prefTerms := preferredTerms(policy)
		var prefs []preference
		if len(prefTerms) > 0 {
			state := map[string]extremes{}
			for _, t := range prefTerms {
				if s := t.Preference.PropertySorter; s != nil {
					var ex extremes
					for i := range in.Clusters {
						q, err := propertyValue(&in.Clusters[i], s.Name)
						if err != nil {
							return refResult{err: true}
						}
						if q == nil {
							continue
						}
						if ex.min == nil || q.Cmp(*ex.min) < 0 {
							ex.min = q
						}
						if ex.max == nil || q.Cmp(*ex.max) > 0 {
							ex.max = q
						}
					}
					state[s.Name] = ex
				}
			}
			for _, t := range prefTerms {
				if t.Weight != 0 {
					prefs = append(prefs, preferenceWith(t.Weight, t.Preference, state))
				}
			}
		}
		scored := refScoredClusters{}
		for _, c := range passed {
			aff, err := affinityScore(prefs, c, -1)
			if err != nil {
				return refResult{err: true}
			}
			s := clusterScore{topologySpread: tscScores[c.Name], affinity: aff}
			if obsoleteSet[c.Name] {
				s.obsolete = 1
			}
			scored = append(scored, refScored{name: c.Name, score: s})
		}
		k := min(desired, limit, len(scored))
		sort.Sort(sort.Reverse(scored))
		picked := map[string]refScored{}
		for _, s := range scored[:k] {
			picked[s.name] = s
		}
		checked := map[string]bool{}
		for _, b := range obsolete {
			checked[b.cluster] = true
			s, ok := picked[b.cluster]
			if !ok {
				b.previous, b.state = b.state, placementv1.BindingStateUnscheduled
				continue
			}
			b.current, b.score = true, &Score{AffinityScore: int32(s.score.affinity), TopologySpreadScore: int32(s.score.topologySpread)}
		}
		for _, b := range unscheduled {
			checked[b.cluster] = true
			if s, ok := picked[b.cluster]; ok {
				b.state, b.current = b.previous, true
				b.score = &Score{AffinityScore: int32(s.score.affinity), TopologySpreadScore: int32(s.score.topologySpread)}
			}
		}
		for _, s := range scored[:k] {
			if !checked[s.name] {
				bindings = append(bindings, &refBinding{cluster: s.name, state: placementv1.BindingStateScheduled, current: true,
					score: &Score{AffinityScore: int32(s.score.affinity), TopologySpreadScore: int32(s.score.topologySpread)}})
			}
		}
		if desired <= limit || k != limit {
			break
		}
	}
	out := refResult{selected: map[string]Score{}}
	for _, b := range bindings {
		if c, ok := byName[b.cluster]; ok && c.DeletionTimestamp.IsZero() && b.current &&
			(b.state == placementv1.BindingStateScheduled || b.state == placementv1.BindingStateBound) {
			s := Score{}
			if b.score != nil {
				s = *b.score
			}
			out.selected[b.cluster] = s
		}
	}
	return out
}

// randomCase draws a fleet, a PickN policy and existing bindings.
func randomCase(rng *rand.Rand) Input {
	regions := []string{"east", "west", "central", "north"}[:2+rng.Intn(3)]
	n := 5 + rng.Intn(40)
	clusters := make([]clusterv1.MemberCluster, 0, n)
	for i := 0; i < n; i++ {
		labels := map[string]string{"env": []string{"prod", "canary"}[rng.Intn(2)]}
		if rng.Intn(8) != 0 {
			labels["region"] = regions[rng.Intn(len(regions))]
		}
		if rng.Intn(3) != 0 {
			labels["zone"] = fmt.Sprintf("z%d", rng.Intn(4))
		}
		c := healthyCluster(fmt.Sprintf("m-%02d-%c", rng.Intn(60), 'a'+rune(i%26)), labels)
		if rng.Intn(5) != 0 {
			c = withProperties(c, NodeCountProperty, fmt.Sprintf("%d", rng.Intn(6)))
		}
		if rng.Intn(400) == 0 {
			c = withProperties(c, NodeCountProperty, "v1.29.4") // not a Quantity: aborts the cycle
		}
		if rng.Intn(4) != 0 {
			c.Status.ResourceUsage.Available = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(fmt.Sprintf("%dm", 100*rng.Intn(40)))}
		}
		switch rng.Intn(12) {
		case 0:
			c.Status.AgentStatus[0].LastReceivedHeartbeat = metav1.NewTime(testNow.Add(-600e9))
		case 1:
			c.Spec.Taints = []clusterv1.Taint{{Key: "gpu", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}
		case 2:
			del := metav1.NewTime(testNow)
			c.DeletionTimestamp = &del
		}
		clusters = append(clusters, c)
	}
	// Unique names.
	seen := map[string]bool{}
	for i := range clusters {
		for seen[clusters[i].Name] {
			clusters[i].Name += "x"
		}
		seen[clusters[i].Name] = true
	}
	policy := pickN(int32(rng.Intn(12)))
	var prefs []placementv1.PreferredClusterSelector
	if rng.Intn(2) == 0 {
		prefs = append(prefs, placementv1.PreferredClusterSelector{Weight: int32(rng.Intn(201) - 100), Preference: labelTerm("env", "prod")})
	}
	if rng.Intn(2) == 0 {
		prefs = append(prefs, placementv1.PreferredClusterSelector{Weight: int32(rng.Intn(201) - 100), Preference: sorterTerm(nil, NodeCountProperty, []placementv1.PropertySortOrder{placementv1.Ascending, placementv1.Descending}[rng.Intn(2)])})
	}
	if rng.Intn(2) == 0 {
		prefs = append(prefs, placementv1.PreferredClusterSelector{Weight: int32(rng.Intn(101)), Preference: sorterTerm(&metav1.LabelSelector{MatchLabels: map[string]string{"env": "canary"}}, availableCPU, placementv1.Descending)})
	}
	if len(prefs) > 0 {
		withPreferred(policy, prefs...)
	}
	if rng.Intn(3) == 0 {
		withRequired(policy, propTerm(nil, expr(NodeCountProperty, placementv1.PropertySelectorGreaterThanOrEqualTo, "1")), labelTerm("env", "canary"))
	}
	whens := []placementv1.UnsatisfiableConstraintAction{placementv1.DoNotSchedule, placementv1.ScheduleAnyway}
	for _, key := range []string{"region", "zone"} {
		if rng.Intn(2) == 0 {
			policy.TopologySpreadConstraints = append(policy.TopologySpreadConstraints, tsc(key, int32(1+rng.Intn(2)), whens[rng.Intn(2)]))
		}
	}
	if rng.Intn(3) == 0 {
		policy.Tolerations = []placementv1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
	}
	var bindings []Binding
	for i := range clusters {
		if rng.Intn(4) != 0 {
			continue
		}
		b := Binding{Cluster: clusters[i].Name, Current: rng.Intn(2) == 0}
		switch rng.Intn(4) {
		case 0:
			b.State = placementv1.BindingStateScheduled
		case 1, 2:
			b.State = placementv1.BindingStateBound
		case 3:
			b.State, b.PreviousState = placementv1.BindingStateUnscheduled, placementv1.BindingStateBound
		}
		if rng.Intn(4) != 0 {
			b.Score = sc(int32(rng.Intn(50)), int32(rng.Intn(3)-1))
		}
		bindings = append(bindings, b)
	}
	if rng.Intn(10) == 0 {
		bindings = append(bindings, Binding{Cluster: "gone", State: placementv1.BindingStateBound, Current: true})
	}
	return Input{Policy: policy, Clusters: clusters, Bindings: bindings, PolicyChanged: rng.Intn(4) == 0, Now: testNow}
}

// TestScheduleMatchesReference runs Schedule and the literal re-enactment on random fleets and
// compares the bindings each leaves: which clusters, with which recorded scores.
func TestScheduleMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	for i := 0; i < 3000; i++ {
		in := randomCase(rng)
		want := referencePickN(in)
		got, err := Schedule(in)
		if (err != nil) != want.err {
			t.Fatalf("case %d: error %v; reference error %t", i, err, want.err)
		}
		if err != nil {
			continue
		}
		gotSel := map[string]Score{}
		for _, p := range got.Selected {
			gotSel[p.Cluster] = Score{AffinityScore: p.AffinityScore, TopologySpreadScore: p.TopologySpreadScore}
		}
		if fmt.Sprint(gotSel) != fmt.Sprint(want.selected) {
			t.Fatalf("case %d (N=%d, %d clusters, %d TSC, policy changed %t):\n got  %v\n want %v\n%s", i, *in.Policy.NumberOfClusters, len(in.Clusters),
				len(in.Policy.TopologySpreadConstraints), in.PolicyChanged, gotSel, want.selected, describe(in))
		}
	}
}

func describe(in Input) string {
	var b strings.Builder
	for _, bd := range in.Bindings {
		fmt.Fprintf(&b, "binding %s %s current=%t score=%v\n", bd.Cluster, bd.State, bd.Current, bd.Score)
	}
	return b.String()
}
