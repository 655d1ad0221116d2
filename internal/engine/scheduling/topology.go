package scheduling

import (
	"fmt"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

const (
	// skewChangeScoreFactor and maxSkewViolationPenalty are the plugin's constants
	// (pkg/scheduler/framework/plugins/topologyspreadconstraints/plugin.go).
	skewChangeScoreFactor   = -1
	maxSkewViolationPenalty = 1000

	doNotScheduleViolationReasonTemplate = "violated doNotSchedule topology spread constraint %q (max skew %d)"
)

// constraint is one topology spread constraint with its domains laid out over the member clusters.
type constraint struct {
	key           string
	maxSkew       int
	doNotSchedule bool
	reason        string

	domainOf []int32  // by cluster index: the cluster's domain, -1 when it lacks the key
	names    []string // domain names by domain index
	counter  domainCounter

	// Per-domain verdict for a candidate in that domain, refreshed by evaluate().
	violated   []bool
	skewChange []int
}

// classifyConstraints puts DoNotSchedule constraints (the default) before ScheduleAnyway ones,
// keeping the policy's order within each group, and lays out their domains over every member
// cluster (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go: classifyConstraints).
func classifyConstraints(policy *placementv1.PlacementPolicy, clusters []clusterv1.MemberCluster) []*constraint {
	if policy == nil || len(policy.TopologySpreadConstraints) == 0 {
		return nil
	}
	var dns, sa []*constraint
	for _, tsc := range policy.TopologySpreadConstraints {
		maxSkew := 1
		if tsc.MaxSkew != nil {
			maxSkew = int(*tsc.MaxSkew)
		}
		c := &constraint{
			key:           tsc.TopologyKey,
			maxSkew:       maxSkew,
			doNotSchedule: tsc.WhenUnsatisfiable != placementv1.ScheduleAnyway,
			// Upstream prints *MaxSkew (the CRD defaults it to 1, so it is never nil on the hub).
			reason: fmt.Sprintf(doNotScheduleViolationReasonTemplate, tsc.TopologyKey, maxSkew),
		}
		c.layOut(clusters)
		if c.doNotSchedule {
			dns = append(dns, c)
		} else {
			sa = append(sa, c)
		}
	}
	return append(dns, sa...)
}

// layOut assigns each cluster carrying the topology key to the domain named by the label's value.
func (c *constraint) layOut(clusters []clusterv1.MemberCluster) {
	c.domainOf = make([]int32, len(clusters))
	index := make(map[string]int32)
	for i := range clusters {
		v, ok := clusters[i].Labels[c.key]
		if !ok {
			c.domainOf[i] = -1
			continue
		}
		d, seen := index[v]
		if !seen {
			d = int32(len(c.names))
			index[v] = d
			c.names = append(c.names, v)
		}
		c.domainOf[i] = d
	}
	c.counter.counts = make([]int, len(c.names))
	c.violated = make([]bool, len(c.names))
	c.skewChange = make([]int, len(c.names))
}

// domainCounter counts, per domain, the clusters holding a scheduled or bound binding of the
// current policy snapshot (pkg/scheduler/framework/plugins/topologyspreadconstraints/state.go:
// bindingCounterByDomain). Every domain exists, with count 0 when none of its clusters is picked,
// even if every cluster in it is filtered out.
type domainCounter struct {
	counts                            []int
	smallest, secondSmallest, largest int
}

// count recounts the domains from the selected clusters
// (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go: countByDomain).
func (c *constraint) count(selected []bool) {
	for d := range c.counter.counts {
		c.counter.counts[d] = 0
	}
	for i, d := range c.domainOf {
		if d >= 0 && selected[i] {
			c.counter.counts[d]++
		}
	}
	c.counter.refresh()
}

// add records one more pick in a cluster's domain (the incremental form of count).
func (c *constraint) add(cluster int) {
	if d := c.domainOf[cluster]; d >= 0 {
		c.counter.counts[d]++
		c.counter.refresh()
	}
}

// refresh recomputes the smallest, second smallest and largest counts as upstream does from the
// sorted counts: the second smallest equals the smallest when two domains share it (or there is
// only one domain) (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go: countByDomain).
func (dc *domainCounter) refresh() {
	if len(dc.counts) == 0 {
		dc.smallest, dc.secondSmallest, dc.largest = -1, -1, -1
		return
	}
	smallest, largest, atSmallest := dc.counts[0], dc.counts[0], 0
	for _, n := range dc.counts {
		switch {
		case n < smallest:
			smallest, atSmallest = n, 1
		case n == smallest:
			atSmallest++
		}
		if n > largest {
			largest = n
		}
	}
	second := smallest
	if atSmallest == 1 {
		next := -1
		for _, n := range dc.counts {
			if n > smallest && (next < 0 || n < next) {
				next = n
			}
		}
		if next >= 0 {
			second = next
		}
	}
	dc.smallest, dc.secondSmallest, dc.largest = smallest, second, largest
}

// willViolate says whether one more pick in a domain of the given count breaks maxSkew, and how
// the skew would change (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go).
func willViolate(dc *domainCounter, count, maxSkew int) (violated bool, skewChange int) {
	currentSkew := dc.largest - dc.smallest
	switch {
	case dc.largest == dc.smallest:
		return currentSkew+1 > maxSkew, 1
	case count == dc.smallest && dc.smallest != dc.secondSmallest:
		return currentSkew-1 > maxSkew, -1
	case count == dc.largest:
		return currentSkew+1 > maxSkew, 1
	default:
		return currentSkew > maxSkew, 0
	}
}

// evaluate refreshes the per-domain verdicts from the current counts.
func (c *constraint) evaluate() {
	for d, n := range c.counter.counts {
		c.violated[d], c.skewChange[d] = willViolate(&c.counter, n, c.maxSkew)
	}
}

// topologyVerdict evaluates every constraint for one cluster: the first DoNotSchedule constraint
// it violates filters it out (its index is returned, else -1); otherwise its score sums -skewChange per constraint,
// with -1000 for each violated ScheduleAnyway constraint and 0 for a constraint whose key it lacks
// (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go: evaluateAllConstraints).
func topologyVerdict(constraints []*constraint, cluster int) (violated int, score int) {
	for ci, c := range constraints {
		d := c.domainOf[cluster]
		if d < 0 {
			continue
		}
		switch {
		case !c.violated[d]:
			score += c.skewChange[d] * skewChangeScoreFactor
		case c.doNotSchedule:
			return ci, 0
		default:
			score -= maxSkewViolationPenalty
		}
	}
	return -1, score
}
