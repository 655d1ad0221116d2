package scheduling

import (
	"fmt"
	"sort"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// ReasonPending and pendingMessage are what the placement's Scheduled condition shows while the
// policy snapshot carries no Scheduled condition
// (pkg/controllers/placement/controller.go: buildScheduledCondition).
const (
	ReasonPending  = "SchedulePending"
	pendingMessage = "Scheduling has not completed"
)

// Schedule runs the hub agent's scheduler on a placement until it would stop requeueing it and
// returns the outcome. The error is a *CycleError when the scheduler would abort every cycle
// (a member cluster reporting a non-Quantity value for a property the policy selects or sorts on,
// an unknown operator, ...): the hub then changes nothing and retries.
//
// (pkg/scheduler/framework/framework.go: RunSchedulingCycleFor and the per-type cycles.)
func Schedule(in Input) (Result, error) {
	policy := Defaulted(in.Policy)
	s := newRun(in, policy)
	var res Result
	var err error
	switch {
	case policy == nil:
		res, err = s.pickAll()
	case policy.PlacementType == placementv1.PickFixedPlacementType:
		res = s.pickFixed()
	case policy.PlacementType == placementv1.PickAllPlacementType:
		res, err = s.pickAll()
	case policy.PlacementType == placementv1.PickNPlacementType:
		res, err = s.pickN()
	default:
		return Result{}, fmt.Errorf("the placement type %s is unknown", policy.PlacementType)
	}
	if err != nil {
		return res, err
	}
	s.classify(&res)
	return res, nil
}

// run is the state of one placement being scheduled, cycle after cycle.
type run struct {
	in       Input
	policy   *placementv1.PlacementPolicy
	clusters []clusterv1.MemberCluster
	index    map[string]int

	// Bindings as classifyBindings sorts them, by cluster index.
	selected      []bool   // scheduled or bound binding of the current snapshot
	recorded      []*Score // recorded score of those bindings
	boundState    []bool   // the selected binding is Bound (not Scheduled)
	obsolete      []bool   // scheduled/bound binding of an older snapshot
	unscheduled   map[string]bool
	placedAtStart map[string]bool // clusters holding a scheduled/bound binding of any snapshot
	keptOrder     []int           // clusters selected before the first cycle

	trimEvents []string
	picks      []Pick

	// Filter and score state, built on the first cycle that needs it.
	static      []string // first failing filter among ClusterAffinity, ClusterEligibility, TaintToleration
	staticErr   error
	staticDone  bool
	affinity    []int
	scoreErr    error
	scoreDone   bool
	constraints []*constraint

	// Buffers reused by every cycle.
	passed    []candidate
	violation []int32
}

func newRun(in Input, policy *placementv1.PlacementPolicy) *run {
	n := len(in.Clusters)
	r := &run{
		in:            in,
		policy:        policy,
		clusters:      in.Clusters,
		index:         make(map[string]int, n),
		selected:      make([]bool, n),
		recorded:      make([]*Score, n),
		boundState:    make([]bool, n),
		obsolete:      make([]bool, n),
		unscheduled:   make(map[string]bool),
		placedAtStart: make(map[string]bool),
	}
	for i := range in.Clusters {
		r.index[in.Clusters[i].Name] = i
	}
	r.classifyBindings()
	return r
}

// classifyBindings sorts the bindings: deleting ones are ignored, Unscheduled ones remembered,
// bindings on a missing or leaving cluster are dangling and get unscheduled, bindings of an older
// policy snapshot are obsolete, the rest are scheduled or bound
// (pkg/scheduler/framework/frameworkutils.go: classifyBindings).
func (r *run) classifyBindings() {
	var dangling []string
	for _, b := range r.in.Bindings {
		i, present := r.index[b.Cluster]
		switch {
		case b.Deleting:
		case b.State == placementv1.BindingStateUnscheduled:
			r.unscheduled[b.Cluster] = true
		case !present || !r.clusters[i].GetDeletionTimestamp().IsZero():
			dangling = append(dangling, b.Cluster)
			r.placedAtStart[b.Cluster] = true
		case !b.Current || r.in.PolicyChanged:
			r.obsolete[i] = true
			r.placedAtStart[b.Cluster] = true
		case b.State == placementv1.BindingStateScheduled || b.State == placementv1.BindingStateBound:
			if !r.selected[i] {
				r.keptOrder = append(r.keptOrder, i)
			}
			r.selected[i] = true
			r.recorded[i] = b.Score
			r.boundState[i] = b.State == placementv1.BindingStateBound
			r.placedAtStart[b.Cluster] = true
		}
	}
	sort.Strings(dangling)
	r.trimEvents = append(r.trimEvents, dangling...)
}

func (r *run) selectedCount() int {
	n := 0
	for _, s := range r.selected {
		if s {
			n++
		}
	}
	return n
}

func (r *run) obsoleteCount() int {
	n := 0
	for _, o := range r.obsolete {
		if o {
			n++
		}
	}
	return n
}

// staticFilters runs, for every member cluster, the filters whose verdict does not change between
// cycles, in the profile's order: ClusterAffinity, ClusterEligibility, TaintToleration
// (pkg/scheduler/profile/profile.go). ClusterAffinity sees every cluster first, so one cluster it
// cannot evaluate aborts the cycle.
//
// v0.18.9: the profile's NamespaceAffinity filter (after ClusterEligibility) skips cluster-scoped
// placements (pkg/scheduler/framework/plugins/namespaceaffinity/filtering.go: PreFilter), so a
// ClusterResourcePlacement sees the same filters as in v0.14.0 (it matters only for namespaced
// ResourcePlacements).
func (r *run) staticFilters() error {
	if r.staticDone {
		return r.staticErr
	}
	r.staticDone = true
	r.static = make([]string, len(r.clusters))
	terms := requiredTerms(r.policy)
	tolerations := policyTolerations(r.policy)
	for i := range r.clusters {
		c := &r.clusters[i]
		reason, err := filterAffinity(terms, c)
		if err != nil {
			r.staticErr = err
			return err
		}
		if reason == "" {
			if ok, why := eligibility(c, r.in.Now); !ok {
				reason = why
			}
		}
		if reason == "" {
			reason = filterTaints(c, tolerations)
		}
		r.static[i] = reason
	}
	r.constraints = classifyConstraints(r.policy, r.clusters)
	return nil
}

// scores prepares the ClusterAffinity scores of every cluster that passes the static filters and
// is not yet selected (PreScore reads every member cluster; Score only the candidates)
// (pkg/scheduler/framework/plugins/clusteraffinity/scoring.go).
func (r *run) scores() error {
	if r.scoreDone {
		return r.scoreErr
	}
	r.scoreDone = true
	r.affinity = make([]int, len(r.clusters))
	terms := preferredTerms(r.policy)
	if len(terms) == 0 {
		return nil
	}
	props, err := prepareSortedProperties(terms, r.clusters)
	if err != nil {
		r.scoreErr = err
		return err
	}
	prefs := compilePreferences(terms, props)
	for i := range r.clusters {
		if r.static[i] != "" || r.selected[i] {
			continue
		}
		s, err := affinityScore(prefs, &r.clusters[i], i)
		if err != nil {
			r.scoreErr = err
			return err
		}
		r.affinity[i] = s
	}
	return nil
}

// countDomains recounts every constraint's domains from the selected clusters and refreshes the
// verdicts (pkg/scheduler/framework/plugins/topologyspreadconstraints/utils.go).
func (r *run) countDomains() {
	for _, c := range r.constraints {
		c.count(r.selected)
		c.evaluate()
	}
}

// candidate is a cluster that passed every filter in a cycle, with its score.
type candidate struct {
	cluster int
	score   clusterScore
}

func (r *run) above(a, b candidate) bool {
	return ranksAbove(a.score, r.clusters[a.cluster].Name, b.score, r.clusters[b.cluster].Name)
}

// cycleOutcome is what one scheduling cycle saw: the candidates it did not pick (best first) and
// the clusters it filtered out with their reasons.
type cycleOutcome struct {
	notPicked []candidate
	filtered  map[int]string // TopologySpreadConstraints reasons
	whatIf    bool           // no cycle ran; evaluated for the preview only
	err       error          // the what-if evaluation failed
}

// whatIf evaluates the filters and scores as a cycle would now, for a PickN placement whose
// scheduler runs no cycle (it already has its clusters).
func (r *run) whatIf() *cycleOutcome {
	out := &cycleOutcome{whatIf: true}
	if out.err = r.staticFilters(); out.err != nil {
		return out
	}
	if out.err = r.scores(); out.err != nil {
		return out
	}
	r.countDomains()
	passed, violation := r.evaluateCandidates(true)
	_, out.notPicked = r.pickTop(passed, 0, true)
	out.filtered = r.tscFiltered(violation)
	return out
}

// evaluateCandidates runs the dynamic part of a cycle: SamePlacementAffinity skips selected
// clusters, TopologySpreadConstraints filters and scores the rest
// (pkg/scheduler/framework/framework.go: runFilterPlugins, runScorePlugins). The returned slices
// are reused by the next call: passed lists the candidates, violation[i] is the index+1 of the
// DoNotSchedule constraint that filters cluster i out (0 when none).
func (r *run) evaluateCandidates(withScores bool) (passed []candidate, violation []int32) {
	if r.violation == nil {
		r.violation = make([]int32, len(r.clusters))
		r.passed = make([]candidate, 0, len(r.clusters))
	}
	passed, violation = r.passed[:0], r.violation
	for i := range r.clusters {
		violation[i] = 0
		if r.static[i] != "" || r.selected[i] {
			continue
		}
		ci, tsc := topologyVerdict(r.constraints, i)
		if ci >= 0 {
			violation[i] = int32(ci + 1)
			continue
		}
		c := candidate{cluster: i}
		if withScores {
			c.score = clusterScore{topologySpread: tsc, affinity: r.affinity[i]}
			if r.obsolete[i] {
				c.score.obsolete = 1
			}
		}
		passed = append(passed, c)
	}
	r.passed = passed
	return passed, violation
}

// tscFiltered words the TopologySpreadConstraints verdicts of a cycle by cluster.
func (r *run) tscFiltered(violation []int32) map[int]string {
	out := make(map[int]string)
	for i, v := range violation {
		if v > 0 {
			out[i] = r.constraints[v-1].reason
		}
	}
	return out
}

// pickTop picks the best k candidates (k == 1 by a scan, else by sorting) and returns the rest in
// rank order when asked (pkg/scheduler/framework/frameworkutils.go: pickTopNScoredClusters).
func (r *run) pickTop(passed []candidate, k int, wantRest bool) (picked, rest []candidate) {
	if k == 1 && !wantRest && len(passed) > 0 {
		best := 0
		for i := 1; i < len(passed); i++ {
			if r.above(passed[i], passed[best]) {
				best = i
			}
		}
		return []candidate{passed[best]}, nil
	}
	sort.Slice(passed, func(i, j int) bool { return r.above(passed[i], passed[j]) })
	if k > len(passed) {
		k = len(passed)
	}
	return passed[:k], passed[k:]
}

// bind records the scheduler's binding for a picked cluster: an obsolete binding is patched (its
// state kept), an Unscheduled one revived, otherwise a Scheduled one created
// (pkg/scheduler/framework/frameworkutils.go: crossReferencePickedClustersAndDeDupBindings).
func (r *run) bind(c candidate) {
	name := r.clusters[c.cluster].Name
	r.selected[c.cluster] = true
	r.obsolete[c.cluster] = false
	delete(r.unscheduled, name)
	r.recorded[c.cluster] = &Score{AffinityScore: int32(c.score.affinity), TopologySpreadScore: int32(c.score.topologySpread)}
	for _, con := range r.constraints {
		con.add(c.cluster)
	}
	r.picks = append(r.picks, Pick{
		Cluster:             name,
		AffinityScore:       int32(c.score.affinity),
		TopologySpreadScore: int32(c.score.topologySpread),
	})
}

// unscheduleObsolete marks every obsolete binding not picked in this cycle Unscheduled; it loses
// the obsolete-binding bonus in later cycles
// (pkg/scheduler/framework/frameworkutils.go: crossReferencePickedClustersAndDeDupBindings).
func (r *run) unscheduleObsolete() {
	var names []string
	for i, o := range r.obsolete {
		if o {
			r.obsolete[i] = false
			r.unscheduled[r.clusters[i].Name] = true
			names = append(names, r.clusters[i].Name)
		}
	}
	sort.Strings(names)
	r.trimEvents = append(r.trimEvents, names...)
}

// pickN schedules a PickN placement: scale in by recorded scores when there are too many picks (or
// obsolete bindings linger), do nothing when there are exactly enough, else pick the best
// min(needed, batch) candidates per cycle, one per cycle under topology spread constraints
// (pkg/scheduler/framework/framework.go: runSchedulingCycleForPickNPlacementType).
func (r *run) pickN() (Result, error) {
	if r.policy.NumberOfClusters == nil {
		// The controller writes no number-of-clusters annotation on the snapshot; the scheduler
		// fails the cycle (pkg/utils/annotations/annotations.go).
		return Result{}, fmt.Errorf("cannot find annotation %s", placementv1beta1.NumberOfClustersAnnotation)
	}
	n := int(*r.policy.NumberOfClusters)
	if n < 0 {
		return Result{}, fmt.Errorf("invalid annotation %s: %d is not a valid count", placementv1beta1.NumberOfClustersAnnotation, n)
	}
	var res Result
	var final *cycleOutcome
	for {
		res.Cycles++
		present := r.selectedCount()
		if n <= present && present-n+r.obsoleteCount() > 0 {
			// shouldDownscale (frameworkutils.go) then downscale (framework.go).
			r.unscheduleObsolete()
			r.downscale(present - n)
			break
		}
		if n <= present {
			// shouldSchedule is false: a status refresh only, never a rebalance.
			break
		}
		desired := n - present
		limit := desired
		if r.policy != nil && len(r.policy.TopologySpreadConstraints) > 0 {
			// TopologySpreadConstraints.PostBatch limits every batch to one cluster.
			limit = 1
		}
		if err := r.staticFilters(); err != nil {
			return Result{}, err
		}
		if err := r.scores(); err != nil {
			return Result{}, err
		}
		r.countDomains()
		passed, violation := r.evaluateCandidates(true)
		k := min(desired, limit, len(passed))
		requeue := desired > limit && k == limit // shouldRequeue (frameworkutils.go)
		picked, rest := r.pickTop(passed, k, !requeue)
		for _, c := range picked {
			r.bind(c)
		}
		r.unscheduleObsolete()
		if requeue {
			continue
		}
		final = &cycleOutcome{notPicked: rest, filtered: r.tscFiltered(violation)}
		break
	}
	count := r.selectedCount()
	res.Fulfilled = count >= n
	res.Reason, res.Message = scheduledCondition(res.Fulfilled, count)
	r.finish(&res, final, n)
	return res, nil
}

// downscale unschedules count picks: scheduled bindings before bound ones, lowest recorded score
// first, ties to the smaller name (pkg/scheduler/framework/framework.go: downscale).
func (r *run) downscale(count int) {
	var scheduled, bound []trimCandidate
	for _, i := range r.keptOrder {
		if !r.selected[i] {
			continue
		}
		tc := trimCandidate{cluster: r.clusters[i].Name, score: r.recorded[i]}
		if r.boundState[i] {
			bound = append(bound, tc)
		} else {
			scheduled = append(scheduled, tc)
		}
	}
	for _, name := range trimOrder(scheduled, bound, count) {
		r.selected[r.index[name]] = false
		r.trimEvents = append(r.trimEvents, name)
	}
}

// pickAll schedules a PickAll placement in one cycle: every cluster that passes the filters and is
// not yet selected is picked; the condition is always True
// (pkg/scheduler/framework/framework.go: runSchedulingCycleForPickAllPlacementType).
func (r *run) pickAll() (Result, error) {
	if err := r.staticFilters(); err != nil {
		return Result{}, err
	}
	// PickAll runs PreFilter and Filter only: topology spread constraints (which validation
	// forbids for PickAll, but the CRD accepts) filter; nothing is scored.
	r.countDomains()
	passed, violation := r.evaluateCandidates(false)
	tscFiltered := r.tscFiltered(violation)
	sort.Slice(passed, func(i, j int) bool { return r.clusters[passed[i].cluster].Name < r.clusters[passed[j].cluster].Name })
	for _, c := range passed {
		r.bind(c)
	}
	r.unscheduleObsolete()
	count := r.selectedCount()
	res := Result{Cycles: 1, Fulfilled: true}
	res.Reason, res.Message = scheduledCondition(true, count)
	r.finish(&res, &cycleOutcome{filtered: tscFiltered}, count)
	// PickAll ranks by name: every score is zero.
	sort.SliceStable(res.Selected, func(i, j int) bool { return res.Selected[i].Cluster < res.Selected[j].Cluster })
	return res, nil
}

// pickFixed binds the listed clusters that exist and are eligible; no plugin runs
// (pkg/scheduler/framework/framework.go: runSchedulingCycleForPickFixedPlacementType).
func (r *run) pickFixed() Result {
	names := r.policy.ClusterNames
	res := Result{Cycles: 1}
	if len(names) == 0 {
		// The scheduler skips the cycle and writes no status (v0.18.9's webhook accepts an empty
		// list; v0.14.0's rejected it), so bindings stay as they are.
		res.Reason, res.Message = ReasonPending, pendingMessage
		for _, i := range r.keptOrder {
			res.Selected = append(res.Selected, r.pickFor(i))
		}
		for _, i := range r.byName() {
			if !r.selected[i] {
				name := r.clusters[i].Name
				res.Excluded = append(res.Excluded, Exclusion{Cluster: name, Reason: fmt.Sprintf(notListedReasonTemplate, name)})
			}
		}
		return res
	}
	listed := make(map[string]bool, len(names))
	var valid []int
	var problems []Exclusion
	for _, name := range names {
		listed[name] = true
		i, ok := r.index[name]
		if !ok {
			problems = append(problems, Exclusion{Cluster: name, Reason: fmt.Sprintf(pickFixedNotFoundClusterReasonTemplate, name)})
			continue
		}
		if ok, why := eligibility(&r.clusters[i], r.in.Now); !ok {
			problems = append(problems, Exclusion{Cluster: name, Reason: fmt.Sprintf(pickFixedInvalidClusterReasonTemplate, name, why)})
			continue
		}
		valid = append(valid, i)
	}
	// crossReferenceValidTargetsWithBindings (frameworkutils.go): create or patch bindings for the
	// valid targets, unschedule obsolete bindings outside them; scheduled/bound bindings of the
	// current snapshot stay even on a target that is no longer eligible.
	kept := r.keptOrder
	for _, i := range valid {
		if r.selected[i] {
			continue
		}
		r.bind(candidate{cluster: i})
		r.recorded[i] = nil
	}
	r.unscheduleObsolete()
	res.Fulfilled = len(problems) == 0
	res.Reason, res.Message = scheduledCondition(res.Fulfilled, len(valid))

	// Selected: the valid targets in the policy's order, then kept bindings on other clusters.
	inValid := make(map[int]bool, len(valid))
	for _, i := range valid {
		inValid[i] = true
		res.Selected = append(res.Selected, r.pickFor(i))
	}
	for _, i := range kept {
		if !inValid[i] && r.selected[i] {
			res.Selected = append(res.Selected, r.pickFor(i))
		}
	}
	res.Trimmed = r.trimmed()
	res.Excluded = problems
	for _, i := range r.byName() {
		if !r.selected[i] && !listed[r.clusters[i].Name] {
			res.Excluded = append(res.Excluded, Exclusion{Cluster: r.clusters[i].Name, Reason: fmt.Sprintf(notListedReasonTemplate, r.clusters[i].Name)})
		}
	}
	return res
}

// scheduledCondition words the Scheduled condition
// (pkg/scheduler/framework/frameworkutils.go: newScheduledConditionFromBindings).
func scheduledCondition(fulfilled bool, count int) (reason, message string) {
	if fulfilled {
		return ReasonFulfilled, fmt.Sprintf(fullyScheduledMessage, count)
	}
	return ReasonUnfulfilled, fmt.Sprintf(notFullyScheduledMessage, count)
}

// pickFor describes a selected cluster as a Pick.
func (r *run) pickFor(i int) Pick {
	name := r.clusters[i].Name
	p := Pick{Cluster: name, Change: ChangeAdded}
	if r.placedAtStart[name] {
		p.Change = ChangeKept
	}
	if s := r.recorded[i]; s != nil {
		p.AffinityScore, p.TopologySpreadScore = s.AffinityScore, s.TopologySpreadScore
	}
	return p
}

// byName returns cluster indexes in name order.
func (r *run) byName() []int {
	idx := make([]int, len(r.clusters))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return r.clusters[idx[a]].Name < r.clusters[idx[b]].Name })
	return idx
}

// trimmed lists the clusters that lost their binding, in the order they lost it, leaving out any
// picked again later in the run.
func (r *run) trimmed() []string {
	var out []string
	seen := make(map[string]bool)
	for _, name := range r.trimEvents {
		if seen[name] {
			continue
		}
		seen[name] = true
		if i, ok := r.index[name]; ok && r.selected[i] {
			continue
		}
		out = append(out, name)
	}
	return out
}

// finish fills Selected, Trimmed and Excluded for PickN and PickAll. The final cycle's outcome
// words the exclusions; when no cycle ran (PickN with enough picks), the filters and scores are
// evaluated as a cycle would, without the scheduler acting on them.
func (r *run) finish(res *Result, final *cycleOutcome, n int) {
	// Kept picks, not re-evaluated, rank first by recorded score; then the cycles' picks in order.
	var kept []candidate
	for _, i := range r.keptOrder {
		if r.selected[i] {
			c := candidate{cluster: i}
			if s := r.recorded[i]; s != nil {
				c.score = clusterScore{topologySpread: int(s.TopologySpreadScore), affinity: int(s.AffinityScore)}
			} else {
				c.score = clusterScore{topologySpread: -1 << 31, affinity: -1 << 31}
			}
			kept = append(kept, c)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return r.above(kept[i], kept[j]) })
	for _, c := range kept {
		res.Selected = append(res.Selected, r.pickFor(c.cluster))
	}
	for _, p := range r.picks {
		res.Selected = append(res.Selected, r.pickFor(r.index[p.Cluster]))
	}
	res.Trimmed = r.trimmed()

	if final == nil {
		final = r.whatIf()
	}
	if final.err != nil {
		for _, i := range r.byName() {
			if !r.selected[i] {
				name := r.clusters[i].Name
				res.Excluded = append(res.Excluded, Exclusion{Cluster: name, Reason: fmt.Sprintf(notEvaluatedReasonTemplate, name, final.err)})
			}
		}
		return
	}
	for _, c := range final.notPicked {
		if r.selected[c.cluster] {
			continue
		}
		name := r.clusters[c.cluster].Name
		reason, class := fmt.Sprintf(notPickedByScoreReasonTemplate, name, c.score.affinity, c.score.topologySpread), ClassNotScored
		if final.whatIf {
			reason, class = fmt.Sprintf(notNeededReasonTemplate, name, n, c.score.affinity, c.score.topologySpread), ClassNotNeeded
		}
		res.Excluded = append(res.Excluded, Exclusion{Cluster: name, Reason: reason, Class: class})
	}
	// v0.18.9 sorts the filtered clusters by name and lists the first ones, up to 20 unpicked
	// clusters in all (pkg/scheduler/framework/framework.go: updatePolicySnapshotStatusFromBindings;
	// v0.14.0 listed them in the order its parallel filter finished them); the preview lists
	// every one, by name, so its first filtered clusters are the ones the hub lists.
	for _, i := range r.byName() {
		if r.selected[i] {
			continue
		}
		reason := ""
		if r.static != nil && r.static[i] != "" {
			reason = unschedulable(r.static[i])
		} else if why, ok := final.filtered[i]; ok {
			reason = unschedulable(why)
		}
		if reason != "" {
			res.Excluded = append(res.Excluded, Exclusion{Cluster: r.clusters[i].Name, Reason: reason})
		}
	}
}
