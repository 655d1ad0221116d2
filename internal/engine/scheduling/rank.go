package scheduling

import "sort"

// clusterScore is the scheduler's score of a candidate in one cycle
// (pkg/scheduler/framework/score.go: ClusterScore).
type clusterScore struct {
	topologySpread int
	affinity       int
	// obsolete is 1 when the cluster holds a binding from an older policy snapshot
	// (pkg/scheduler/framework/plugins/sameplacementaffinity/scoring.go).
	obsolete int
}

// less orders scores by topology spread score, then affinity score, then the obsolete-binding
// bonus (pkg/scheduler/framework/score.go: ClusterScore.Less).
func (s clusterScore) less(o clusterScore) bool {
	if s.topologySpread != o.topologySpread {
		return s.topologySpread < o.topologySpread
	}
	if s.affinity != o.affinity {
		return s.affinity < o.affinity
	}
	return s.obsolete < o.obsolete
}

// ranksAbove says whether candidate a is picked before candidate b: the scheduler sorts
// ScoredClusters (whose Less breaks score ties by name_a < name_b) in reverse, so the higher score
// wins and, on a tie, the lexicographically LARGER name wins
// (pkg/scheduler/framework/frameworkutils.go: pickTopNScoredClusters; score.go: ScoredClusters.Less).
// The upstream comment says ties go to the smaller name; the code (and score_test.go) say otherwise.
func ranksAbove(a clusterScore, aName string, b clusterScore, bName string) bool {
	if a != b {
		return b.less(a)
	}
	return aName > bName
}

// trimCandidate is a scheduled or bound binding considered for scale-in.
type trimCandidate struct {
	cluster string
	score   *Score
}

// sortForTrim orders bindings so that the first ones are trimmed first: no recorded score first,
// then the lowest recorded score (topology spread, then affinity), then the smaller name
// (pkg/scheduler/framework/frameworkutils.go: sortByClusterScoreAndName).
func sortForTrim(bindings []trimCandidate) {
	sort.SliceStable(bindings, func(i, j int) bool {
		a, b := bindings[i], bindings[j]
		switch {
		case a.score == nil && b.score == nil:
			return a.cluster < b.cluster
		case a.score == nil:
			return true
		case b.score == nil:
			return false
		}
		sa := clusterScore{topologySpread: int(a.score.TopologySpreadScore), affinity: int(a.score.AffinityScore)}
		sb := clusterScore{topologySpread: int(b.score.TopologySpreadScore), affinity: int(b.score.AffinityScore)}
		if sa == sb {
			return a.cluster < b.cluster
		}
		return sa.less(sb)
	})
}

// trimOrder picks which bindings a PickN scale-in unschedules: scheduled bindings before bound
// ones, each group in sortForTrim order; when every scheduled binding goes, their order does not
// matter (pkg/scheduler/framework/framework.go: downscale).
func trimOrder(scheduled, bound []trimCandidate, count int) []string {
	if count <= 0 {
		return nil
	}
	out := make([]string, 0, count)
	if count < len(scheduled) {
		sortForTrim(scheduled)
		for _, b := range scheduled[:count] {
			out = append(out, b.cluster)
		}
		return out
	}
	for _, b := range scheduled {
		out = append(out, b.cluster)
	}
	left := count - len(scheduled)
	if left > len(bound) {
		left = len(bound)
	}
	sortForTrim(bound)
	for _, b := range bound[:left] {
		out = append(out, b.cluster)
	}
	return out
}
