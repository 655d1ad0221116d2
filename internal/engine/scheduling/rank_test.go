package scheduling

import (
	"fmt"
	"sort"
	"testing"
)

// TestClusterScoreLess ports pkg/scheduler/framework/score_test.go: TestClusterScoreLess and
// TestClusterScoreLessWhenEqual.
func TestClusterScoreLess(t *testing.T) {
	cases := []struct {
		name   string
		s1, s2 clusterScore
		want   bool
	}{
		{name: "s1 is less than s2 in topology spread score", s1: clusterScore{0, 10, 0}, s2: clusterScore{1, 20, 0}, want: true},
		{name: "s1 is less than s2 in affinity score", s1: clusterScore{1, 10, 0}, s2: clusterScore{1, 20, 0}, want: true},
		{name: "s1 is less than s2 in active or creating binding score", s1: clusterScore{1, 10, 0}, s2: clusterScore{1, 10, 1}, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.s1.less(tc.s2) != tc.want || tc.s2.less(tc.s1) != !tc.want {
				t.Errorf("less(%v, %v) = %t; want %t", tc.s1, tc.s2, tc.s1.less(tc.s2), tc.want)
			}
		})
	}
	if (clusterScore{}).less(clusterScore{}) {
		t.Error("equal scores compare less")
	}
}

type named struct {
	name  string
	score clusterScore
}

// TestRanking ports pkg/scheduler/framework/score_test.go: TestScoredClustersSort — the scheduler
// sorts in reverse, so topology spread dominates, and equal scores go to the LARGER name.
func TestRanking(t *testing.T) {
	a, b, c, d, e := "cluster-1", "cluster-2", "cluster-3", "cluster-4", "cluster-5"
	cases := []struct {
		name string
		in   []named
		want []string
	}{
		{name: "sort asc values",
			in:   []named{{b, clusterScore{0, 10, 0}}, {a, clusterScore{0, 10, 1}}, {c, clusterScore{1, 10, 1}}, {d, clusterScore{1, 20, 0}}, {e, clusterScore{2, 30, 0}}},
			want: []string{e, d, c, a, b}},
		{name: "sort desc values",
			in:   []named{{d, clusterScore{2, 30, 1}}, {e, clusterScore{2, 30, 0}}, {c, clusterScore{1, 20, 1}}, {b, clusterScore{1, 10, 0}}, {a, clusterScore{0, 10, 1}}},
			want: []string{d, e, c, b, a}},
		{name: "sort values in random",
			in:   []named{{c, clusterScore{1, 20, 0}}, {d, clusterScore{2, 30, 1}}, {a, clusterScore{0, 10, 0}}, {e, clusterScore{0, 10, 1}}, {b, clusterScore{1, 10, 1}}},
			want: []string{d, c, b, e, a}},
		{name: "sort by name when scores are the same",
			in:   []named{{c, clusterScore{}}, {d, clusterScore{}}},
			want: []string{d, c}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sort.Slice(tc.in, func(i, j int) bool { return ranksAbove(tc.in[i].score, tc.in[i].name, tc.in[j].score, tc.in[j].name) })
			var got []string
			for _, n := range tc.in {
				got = append(got, n.name)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ranked %v; want %v", got, tc.want)
			}
		})
	}
}

// TestSortForTrim ports pkg/scheduler/framework/framework_test.go: TestSortByClusterScoreAndName.
func TestSortForTrim(t *testing.T) {
	s1, s2, s3 := &Score{AffinityScore: 10, TopologySpreadScore: 0}, &Score{AffinityScore: 20, TopologySpreadScore: 1}, &Score{AffinityScore: 5, TopologySpreadScore: 0}
	const cluster, alt, another = "bravelion", "smartfish", "singingbutterfly"
	cases := []struct {
		name string
		in   []trimCandidate
		want []string
	}{
		{name: "no scores assigned to any cluster", in: []trimCandidate{{cluster, nil}, {alt, nil}}, want: []string{cluster, alt}},
		{name: "no scores assigned to one cluster", in: []trimCandidate{{cluster, s1}, {alt, nil}}, want: []string{alt, cluster}},
		{name: "different scores", in: []trimCandidate{{cluster, s1}, {alt, s2}, {another, s3}}, want: []string{another, cluster, alt}},
		{name: "same score, different names", in: []trimCandidate{{cluster, s1}, {alt, s1}, {another, s1}}, want: []string{cluster, another, alt}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sortForTrim(tc.in)
			var got []string
			for _, b := range tc.in {
				got = append(got, b.cluster)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("sortForTrim() = %v; want %v", got, tc.want)
			}
		})
	}
}

// TestTrimOrder ports pkg/scheduler/framework/framework_test.go: TestDownscale (which bindings are
// unscheduled; the "invalid downscale count" row cannot arise here).
func TestTrimOrder(t *testing.T) {
	c := func(i int) string { return fmt.Sprintf("cluster-%d", i) }
	s1, s2 := &Score{TopologySpreadScore: 1, AffinityScore: 10}, &Score{TopologySpreadScore: 0, AffinityScore: 20}
	cases := []struct {
		name             string
		scheduled, bound []trimCandidate
		count            int
		want             []string
	}{
		{name: "downscale count is zero", scheduled: []trimCandidate{{c(1), nil}}, bound: []trimCandidate{{c(2), nil}}, count: 0},
		{name: "trim part of scheduled bindings only",
			scheduled: []trimCandidate{{c(3), s1}, {c(1), s1}, {c(2), s2}}, bound: []trimCandidate{{c(4), nil}}, count: 2,
			want: []string{c(2), c(1)}},
		{name: "trim all scheduled bindings",
			scheduled: []trimCandidate{{c(3), s1}, {c(1), s1}, {c(2), s2}}, bound: []trimCandidate{{c(4), nil}}, count: 3,
			want: []string{c(3), c(1), c(2)}},
		{name: "trim all scheduled bindings + part of bound bindings",
			scheduled: []trimCandidate{{c(3), s1}, {c(1), s1}, {c(2), s2}}, bound: []trimCandidate{{c(5), s1}, {c(6), s2}, {c(4), s1}}, count: 4,
			want: []string{c(3), c(1), c(2), c(6)}},
		{name: "trim all bindings",
			scheduled: []trimCandidate{{c(1), s1}, {c(2), s1}}, bound: []trimCandidate{{c(3), s1}}, count: 3,
			want: []string{c(1), c(2), c(3)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := trimOrder(tc.scheduled, tc.bound, tc.count)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("trimOrder() = %v; want %v", got, tc.want)
			}
		})
	}
}
