package scheduling

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Names used by upstream's topologyspreadconstraints tests.
const (
	tscName1 = "bravelion"
	tscName2 = "smartfish"
	tscName3 = "jumpingcat"
	tscName4 = "singingbutterfly"
	tscName5 = "sleepingwolf"
	tscName6 = "dancingelephant"
	tk1      = "topology-key-1"
	tk2      = "topology-key-2"
	tk3      = "topology-key-3"
	tv1      = "topology-value-1"
	tv2      = "topology-value-2"
	tv3      = "topology-value-3"
)

// clustersWithLabels builds bare clusters from "name key=value key=value" specs.
func clustersWithLabels(specs ...string) []clusterv1.MemberCluster {
	out := make([]clusterv1.MemberCluster, 0, len(specs))
	for _, s := range specs {
		f := strings.Fields(s)
		c := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: f[0], Labels: map[string]string{}}}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			c.Labels[k] = v
		}
		out = append(out, c)
	}
	return out
}

func selectedMask(clusters []clusterv1.MemberCluster, names ...string) []bool {
	mask := make([]bool, len(clusters))
	for i := range clusters {
		for _, n := range names {
			if clusters[i].Name == n {
				mask[i] = true
			}
		}
	}
	return mask
}

func tsc(key string, maxSkew int32, when placementv1.UnsatisfiableConstraintAction) placementv1.TopologySpreadConstraint {
	return placementv1.TopologySpreadConstraint{TopologyKey: key, MaxSkew: &maxSkew, WhenUnsatisfiable: when}
}

// TestCountByDomain ports topologyspreadconstraints/utils_test.go: TestCountByDomain.
func TestCountByDomain(t *testing.T) {
	cases := []struct {
		name                              string
		clusters                          []clusterv1.MemberCluster
		selected                          []string
		wantCounts                        map[string]int
		smallest, secondSmallest, largest int
	}{
		{name: "uninitialized (no clusters)", wantCounts: map[string]int{}, smallest: -1, secondSmallest: -1, largest: -1},
		{name: "uninitialized (no topology key present in clusters)", clusters: clustersWithLabels(tscName1), wantCounts: map[string]int{}, smallest: -1, secondSmallest: -1, largest: -1},
		{name: "single domain", clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv1), selected: []string{tscName1},
			wantCounts: map[string]int{tv1: 1}, smallest: 1, secondSmallest: 1, largest: 1},
		{name: "multiple domains, same count",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv2, tscName3+" "+tk1+"="+tv3), selected: []string{tscName1, tscName2, tscName3},
			wantCounts: map[string]int{tv1: 1, tv2: 1, tv3: 1}, smallest: 1, secondSmallest: 1, largest: 1},
		{name: "multiple domains, different counts, separate special counts",
			clusters:   clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv1, tscName3+" "+tk1+"="+tv2, tscName4+" "+tk1+"="+tv2, tscName5+" "+tk1+"="+tv2, tscName6+" "+tk1+"="+tv3),
			selected:   []string{tscName1, tscName2, tscName3, tscName4, tscName5, tscName6},
			wantCounts: map[string]int{tv1: 2, tv2: 3, tv3: 1}, smallest: 1, secondSmallest: 2, largest: 3},
		{name: "multiple domains, different counts, multiple smallests",
			clusters:   clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv2, tscName3+" "+tk1+"="+tv3, tscName4+" "+tk1+"="+tv3, tscName5+" "+tk1+"="+tv3, tscName6+" "+tk1+"="+tv3),
			selected:   []string{tscName1, tscName2, tscName3, tscName4, tscName5, tscName6},
			wantCounts: map[string]int{tv1: 1, tv2: 1, tv3: 4}, smallest: 1, secondSmallest: 1, largest: 4},
		{name: "multiple domains, different counts, multiple largests",
			clusters:   clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv2, tscName3+" "+tk1+"="+tv2, tscName4+" "+tk1+"="+tv3, tscName5+" "+tk1+"="+tv3),
			selected:   []string{tscName1, tscName2, tscName3, tscName4, tscName5},
			wantCounts: map[string]int{tv1: 1, tv2: 2, tv3: 2}, smallest: 1, secondSmallest: 2, largest: 2},
		// Two domains with different counts: the second smallest is the larger one.
		{name: "two domains, different counts",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1, tscName2+" "+tk1+"="+tv2, tscName3+" "+tk1+"="+tv2), selected: []string{tscName2, tscName3},
			wantCounts: map[string]int{tv1: 0, tv2: 2}, smallest: 0, secondSmallest: 2, largest: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &constraint{key: tk1}
			c.layOut(tc.clusters)
			c.count(selectedMask(tc.clusters, tc.selected...))
			got := map[string]int{}
			for d, n := range c.counter.counts {
				got[c.names[d]] = n
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.wantCounts) {
				t.Errorf("counts = %v; want %v", got, tc.wantCounts)
			}
			dc := c.counter
			if dc.smallest != tc.smallest || dc.secondSmallest != tc.secondSmallest || dc.largest != tc.largest {
				t.Errorf("special counts = %d/%d/%d; want %d/%d/%d", dc.smallest, dc.secondSmallest, dc.largest, tc.smallest, tc.secondSmallest, tc.largest)
			}
		})
	}
}

// TestWillViolate ports topologyspreadconstraints/utils_test.go: TestWillViolate. The three error
// rows (unregistered domain, count outside [smallest, largest]) cannot arise here: counts and
// their extremes come from the same domains.
func TestWillViolate(t *testing.T) {
	cases := []struct {
		name           string
		counts         []int
		pick           int // domain index
		maxSkew        int
		wantViolated   bool
		wantSkewChange int
	}{
		{name: "one count only, no violation", counts: []int{2, 2, 2}, pick: 0, maxSkew: 1, wantSkewChange: 1},
		{name: "one count only, violated", counts: []int{2, 2, 2}, pick: 1, maxSkew: 0, wantViolated: true, wantSkewChange: 1},
		{name: "one smallest count, pick smallest count, no violation", counts: []int{1, 2, 2}, pick: 0, maxSkew: 1, wantSkewChange: -1},
		{name: "one smallest count, pick smallest count, violated", counts: []int{1, 4, 4}, pick: 0, maxSkew: 1, wantViolated: true, wantSkewChange: -1},
		{name: "multiple smallest counts, pick smallest count, no violation", counts: []int{1, 1, 2}, pick: 1, maxSkew: 1, wantSkewChange: 0},
		{name: "multiple smallest counts, pick smallest count, violated", counts: []int{1, 1, 3}, pick: 0, maxSkew: 1, wantViolated: true, wantSkewChange: 0},
		{name: "separate special counts, pick second smallest, no violation", counts: []int{1, 2, 3}, pick: 1, maxSkew: 2, wantSkewChange: 0},
		{name: "separate special counts, pick second smallest, violated", counts: []int{1, 2, 3}, pick: 1, maxSkew: 1, wantViolated: true, wantSkewChange: 0},
		{name: "separate special counts, pick a count larger than second smallest, less than largest, no violation", counts: []int{1, 2, 5, 3}, pick: 3, maxSkew: 5, wantSkewChange: 0},
		{name: "separate special counts, pick a count larger than second smallest, less than largest, violated", counts: []int{1, 2, 5, 3}, pick: 3, maxSkew: 3, wantViolated: true, wantSkewChange: 0},
		{name: "separate special counts, pick largest, no violation", counts: []int{1, 2, 5}, pick: 2, maxSkew: 5, wantSkewChange: 1},
		{name: "separate special counts, pick largest, violated", counts: []int{1, 2, 5}, pick: 2, maxSkew: 2, wantViolated: true, wantSkewChange: 1},
		// Once skew exceeds maxSkew, even the smallest domain violates (reference §2).
		{name: "skew above maxSkew: a pick in the lone smallest domain still passes", counts: []int{0, 2, 2}, pick: 0, maxSkew: 1, wantViolated: false, wantSkewChange: -1},
		{name: "skew above maxSkew: every other domain violates, even a shared smallest one", counts: []int{0, 0, 3}, pick: 1, maxSkew: 1, wantViolated: true, wantSkewChange: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dc := domainCounter{counts: tc.counts}
			dc.refresh()
			violated, skewChange := willViolate(&dc, tc.counts[tc.pick], tc.maxSkew)
			if violated != tc.wantViolated || skewChange != tc.wantSkewChange {
				t.Errorf("willViolate() = %t, %d; want %t, %d", violated, skewChange, tc.wantViolated, tc.wantSkewChange)
			}
		})
	}
}

// TestTopologyVerdict ports topologyspreadconstraints/utils_test.go: TestEvaluateAllConstraints
// (and TestClassifyConstraints: DoNotSchedule constraints are evaluated first). Upstream lists
// scores for clusters it does not filter, selected clusters included.
func TestTopologyVerdict(t *testing.T) {
	const dns, sa = placementv1.DoNotSchedule, placementv1.ScheduleAnyway
	reason := func(key string, skew int) string { return fmt.Sprintf(doNotScheduleViolationReasonTemplate, key, skew) }
	cases := []struct {
		name           string
		clusters       []clusterv1.MemberCluster
		selected       []string
		constraints    []placementv1.TopologySpreadConstraint
		wantViolations map[string]string
		wantScores     map[string]int
	}{
		{name: "2 doNotSchedule topology spread constraints, 4 clusters, 4 violations",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv2, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName4+" "+tk1+"="+tv2+" "+tk2+"="+tv1),
			selected: []string{tscName2, tscName3, tscName4}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 2, dns), tsc(tk2, 1, dns)},
			wantViolations: map[string]string{tscName1: reason(tk2, 1), tscName2: reason(tk1, 2), tscName3: reason(tk1, 2), tscName4: reason(tk1, 2)},
			wantScores:     map[string]int{}},
		{name: "2 doNotSchedule topology spread constraints, 4 clusters, 4 scores (1 excluded cluster)",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv3, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv3, tscName4),
			selected: []string{tscName3}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 2, dns), tsc(tk2, 1, dns)},
			wantViolations: map[string]string{},
			wantScores:     map[string]int{tscName1: -1, tscName2: -1, tscName3: -1, tscName4: 0}},
		{name: "2 doNotSchedule topology spread constraints, 4 clusters, 2 violations, 2 scores",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv3, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv3, tscName4+" "+tk2+"="+tk1),
			selected: []string{tscName1, tscName4}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 1, dns), tsc(tk2, 1, dns)},
			wantViolations: map[string]string{tscName1: reason(tk1, 1), tscName4: reason(tk2, 1)},
			wantScores:     map[string]int{tscName2: 1, tscName3: 0}},
		{name: "2 scheduleAnyway topology spread constraints, 4 clusters, 4 violations",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv2, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName4+" "+tk1+"="+tv2+" "+tk2+"="+tv1),
			selected: []string{tscName2, tscName3, tscName4}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 2, sa), tsc(tk2, 1, sa)},
			wantViolations: map[string]string{},
			wantScores:     map[string]int{tscName1: -1000 + 1, tscName2: -2000, tscName3: -2000, tscName4: -1000 + 1}},
		{name: "2 scheduleAnyway topology spread constraints, 4 clusters, no violations (1 excluded cluster)",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv3, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv3, tscName4),
			selected: []string{tscName3}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 2, sa), tsc(tk2, 1, sa)},
			wantViolations: map[string]string{},
			wantScores:     map[string]int{tscName1: -1, tscName2: -1, tscName3: -1, tscName4: 0}},
		{name: "2 doNotSchedule topology spread constraints, 4 clusters, 2 violations (scheduleAnyway)",
			clusters: clustersWithLabels(tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv3, tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv2, tscName3+" "+tk1+"="+tv3, tscName4+" "+tk2+"="+tk1),
			selected: []string{tscName1, tscName4}, constraints: []placementv1.TopologySpreadConstraint{tsc(tk1, 1, sa), tsc(tk2, 1, sa)},
			wantViolations: map[string]string{},
			wantScores:     map[string]int{tscName1: -2000, tscName2: 1, tscName3: 0, tscName4: -1000}},
		{name: "1 doNotSchedule topology spread constraint, 2 scheduleAnyway topology spread constraints, 5 clusters, 1 doNotSchedule violations, 2 scheduleAnyway violations, 1 excluded cluster",
			clusters: clustersWithLabels(
				tscName1+" "+tk1+"="+tv1+" "+tk2+"="+tv1+" "+tk3+"="+tv1,
				tscName2+" "+tk1+"="+tv2+" "+tk2+"="+tv1+" "+tk3+"="+tv2,
				tscName3+" "+tk1+"="+tv2+" "+tk2+"="+tv2+" "+tk3+"="+tv2,
				tscName4+" "+tk1+"="+tv2+" "+tk2+"="+tv2+" "+tk3+"="+tv1,
				tscName5+" "+tk3+"="+tv1),
			selected: []string{tscName1, tscName5},
			// Policy order puts a ScheduleAnyway constraint first; DoNotSchedule ones still run first.
			constraints:    []placementv1.TopologySpreadConstraint{tsc(tk2, 1, sa), tsc(tk1, 1, dns), tsc(tk3, 2, sa)},
			wantViolations: map[string]string{tscName1: reason(tk1, 1)},
			wantScores:     map[string]int{tscName2: 2 - 1000, tscName3: 3, tscName4: 2 - 1000, tscName5: -1000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			constraints := classifyConstraints(&placementv1.PlacementPolicy{TopologySpreadConstraints: tc.constraints}, tc.clusters)
			sel := selectedMask(tc.clusters, tc.selected...)
			for _, c := range constraints {
				c.count(sel)
				c.evaluate()
			}
			for i := range tc.clusters {
				name := tc.clusters[i].Name
				ci, score := topologyVerdict(constraints, i)
				if want, ok := tc.wantViolations[name]; ok {
					if ci < 0 || constraints[ci].reason != want {
						t.Errorf("%s: verdict %d (score %d); want violation %q", name, ci, score, want)
					}
					continue
				}
				if ci >= 0 || score != tc.wantScores[name] {
					t.Errorf("%s: verdict %d, score %d; want score %d", name, ci, score, tc.wantScores[name])
				}
			}
		})
	}
}

// TestIncrementalCounts checks that add() after each pick equals a full recount.
func TestIncrementalCounts(t *testing.T) {
	clusters := generatedFleet(500, 7)
	c := &constraint{key: "zone", maxSkew: 1}
	c.layOut(clusters)
	sel := make([]bool, len(clusters))
	c.count(sel)
	for i := 0; i < len(clusters); i += 7 {
		sel[i] = true
		c.add(i)
		want := &constraint{key: "zone", maxSkew: 1}
		want.layOut(clusters)
		want.count(sel)
		if fmt.Sprint(c.counter) != fmt.Sprint(want.counter) {
			t.Fatalf("after %d picks: %v; want %v", i, c.counter, want.counter)
		}
	}
}
