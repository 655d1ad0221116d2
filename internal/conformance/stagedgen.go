package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The staged update run conformance (staged_test.go) runs on a small fleet of its own, generated
// here with the strategies it runs: the staged update run controller
// (go.goms.io/fleet pkg/controllers/updaterun/initialization.go) sorts clusters by an integer
// sorting label, then by name as strings, and refuses labels that are not integers, clusters in two
// stages and clusters in none.
const (
	// LabelStaged marks the members the staged placements select.
	LabelStaged = "staged"
	// LabelRing is the ring a member belongs to (canary, early, late; absent on some).
	LabelRing = "ring"
	// LabelOrder is the sorting label: integers that sort differently as strings ("2", "10",
	// "100", "007"), ties, and on some late or ringless members no value or a non-integer one.
	LabelOrder = "order"
)

// Rings of the staged fleet; "" is a member without the ring label.
var stagedRings = []string{"canary", "early", "late", ""}

// stagedMemberLabels are the label sets of the staged fleet (which member gets which is drawn from
// the seed): every ring, integer orders with ties, missing and non-integer orders.
var stagedMemberLabels = []map[string]string{
	{LabelRing: "canary", LabelOrder: "2", LabelEnv: "staging"},
	{LabelRing: "canary", LabelOrder: "10", LabelEnv: "staging"},
	{LabelRing: "canary", LabelOrder: "100", LabelEnv: "prod"},
	{LabelRing: "early", LabelOrder: "1", LabelEnv: "prod"},
	{LabelRing: "early", LabelOrder: "10", LabelEnv: "prod"},
	{LabelRing: "early", LabelOrder: "007", LabelEnv: "staging"},
	{LabelRing: "early", LabelOrder: "20", LabelEnv: "prod"},
	{LabelRing: "late", LabelOrder: "3", LabelEnv: "prod"},
	{LabelRing: "late", LabelOrder: "30", LabelEnv: "prod"},
	{LabelRing: "late", LabelEnv: "prod"},
	{LabelRing: "late", LabelOrder: "x7", LabelEnv: "staging"},
	{LabelRing: "late", LabelOrder: "2", LabelEnv: "prod"},
	{LabelRing: "late", LabelEnv: "dev"},
	{LabelOrder: "5", LabelEnv: "dev"},
	{LabelOrder: "v2", LabelEnv: "dev"},
	{LabelOrder: "0", LabelEnv: "prod"},
	{LabelRing: "early", LabelOrder: "100", LabelEnv: "prod"},
	{LabelRing: "late", LabelOrder: "1000", LabelEnv: "staging"},
}

// stagedMemberNumbers name the members m-<n>: names that sort differently as strings and as
// integers (m-10 < m-2), which the controller's tie-break by name compares as strings.
var stagedMemberNumbers = []int{1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 20, 30, 100, 101, 200, 1000, 21, 8}

// GenerateStagedFleet returns the staged conformance fleet for seed: 18 members labelled
// staged=yes, two of which the scheduler cannot pick (one unhealthy, one tainted) though stage
// selectors match them, plus two unlabelled members no staged placement selects.
func GenerateStagedFleet(seed uint64) *fleetfile.File {
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	f := &fleetfile.File{
		Fleet:   fleetfile.Fleet{Name: "staged-conformance", SubscriptionID: "00000000-0000-0000-0000-000000000002", ResourceGroup: "rg-staged", Location: "eastus"},
		Clock:   fleetfile.Clock{Start: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Speed: 1},
		Regions: map[string]fleetfile.Region{"eastus": {KubernetesVersions: []string{"1.32.5"}, NodeImages: map[string][]string{"AKSUbuntu-2204gen2containerd": {"202510.01.0"}}}},
	}
	perm := rng.Perm(len(stagedMemberLabels))
	unhealthy, tainted := rng.IntN(len(perm)), rng.IntN(len(perm))
	if tainted == unhealthy {
		tainted = (tainted + 1) % len(perm)
	}
	member := func(name string, labels map[string]string) fleetfile.Member {
		return fleetfile.Member{
			Name: name, Group: "default", Location: "eastus", KubernetesVersion: "1.32.5", Labels: labels,
			NodePools: []fleetfile.NodePool{{Name: "pool0", Count: 1 + rng.IntN(5), NodeImage: nodeImage}},
		}
	}
	for i, p := range perm {
		labels := map[string]string{LabelStaged: "yes"}
		for k, v := range stagedMemberLabels[p] {
			labels[k] = v
		}
		m := member(fmt.Sprintf("m-%d", stagedMemberNumbers[i]), labels)
		switch i {
		case unhealthy:
			healthy := false
			m.Healthy = &healthy
		case tainted:
			m.Taints = []fleetfile.Taint{{Key: "maintenance", Effect: "NoSchedule"}}
		}
		f.Members = append(f.Members, m)
	}
	f.Members = append(f.Members,
		member("other-1", map[string]string{LabelRing: "canary", LabelOrder: "1", LabelEnv: "prod"}),
		member("other-2", map[string]string{LabelEnv: "prod"}))
	return f
}

// StagedStrategy is a generated ClusterStagedUpdateStrategy and what the generator did to it.
type StagedStrategy struct {
	Name string
	Spec placementv1.UpdateStrategySpec
	// Shape says how it was built ("partition", "+overlap", "-stage", ...), for the report.
	Shape string
}

// StagedStrategies draws n strategies from seed. Each starts as a partition of the rings into
// stages in random order (ring=x, ring in (x, y), ring notin (...) which also takes ringless
// members, ring doesNotExist) with sorting by the integer label, by a non-integer or a missing
// label, or none, and after-stage tasks; then about half get a change: an overlapping stage
// (everything {}, env=prod, order exists), a dropped stage (clusters in no stage), a stage with no
// selector (the controller's labels.Nothing: an empty stage), a stage matching nothing, an invalid
// selector or invalid tasks, or a single stage taking everything.
func StagedStrategies(seed uint64, n int) []StagedStrategy {
	rng := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))
	out := make([]StagedStrategy, 0, n)
	for i := range n {
		s := StagedStrategy{Name: fmt.Sprintf("st-%02d", i), Shape: "partition"}
		groups := slicesShuffled(rng, stagedRings)
		k := 1 + rng.IntN(len(groups))
		cuts := rng.Perm(len(groups) - 1)[:k-1]
		isCut := map[int]bool{}
		for _, c := range cuts {
			isCut[c+1] = true
		}
		var chunks [][]string
		for j, g := range groups {
			if j == 0 || isCut[j] {
				chunks = append(chunks, nil)
			}
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], g)
		}
		for j, chunk := range chunks {
			st := placementv1.StageConfig{Name: stageName(j, chunk), LabelSelector: ringSelector(rng, chunk)}
			st.SortingLabelKey = randomSortingKey(rng)
			st.AfterStageTasks = randomTasks(rng)
			st.MaxConcurrency = randomMaxConcurrency(rng)
			st.BeforeStageTasks = randomBeforeTasks(rng)
			s.Spec.Stages = append(s.Spec.Stages, st)
		}
		stages := &s.Spec.Stages
		insert := func(st placementv1.StageConfig) {
			at := rng.IntN(len(*stages) + 1)
			*stages = append((*stages)[:at], append([]placementv1.StageConfig{st}, (*stages)[at:]...)...)
		}
		switch r := rng.IntN(100); {
		case r < 45:
		case r < 55:
			sel := []*metav1.LabelSelector{{}, labels(LabelEnv, "prod"), exprs(expr(LabelOrder, metav1.LabelSelectorOpExists))}[rng.IntN(3)]
			insert(placementv1.StageConfig{Name: "overlap", LabelSelector: sel, SortingLabelKey: randomSortingKey(rng)})
			s.Shape += "+overlap"
		case r < 65 && len(*stages) > 1:
			at := rng.IntN(len(*stages))
			*stages = append((*stages)[:at], (*stages)[at+1:]...)
			s.Shape += "-stage"
		case r < 73:
			insert(placementv1.StageConfig{Name: "noselector", AfterStageTasks: randomTasks(rng)})
			s.Shape += "+noselector"
		case r < 80:
			insert(placementv1.StageConfig{Name: "nomatch", LabelSelector: labels(LabelRing, "nowhere")})
			s.Shape += "+nomatch"
		case r < 85:
			insert(placementv1.StageConfig{Name: "badselector", LabelSelector: exprs(expr(LabelRing, metav1.LabelSelectorOpIn))})
			s.Shape += "+invalidselector"
		case r < 91:
			at := rng.IntN(len(*stages))
			if rng.IntN(2) == 0 {
				(*stages)[at].AfterStageTasks = []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}, {Type: placementv1.StageTaskTypeApproval}}
			} else {
				(*stages)[at].AfterStageTasks = []placementv1.StageTask{{Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{}}}
			}
			s.Shape += "+invalidtasks"
		default:
			s.Spec.Stages = []placementv1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}, SortingLabelKey: randomSortingKey(rng),
				AfterStageTasks: randomTasks(rng), MaxConcurrency: randomMaxConcurrency(rng), BeforeStageTasks: randomBeforeTasks(rng)}}
			s.Shape = "everything"
		}
		out = append(out, s)
	}
	return out
}

func slicesShuffled(rng *rand.Rand, s []string) []string {
	out := append([]string(nil), s...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func stageName(i int, chunk []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "s%d", i+1)
	for _, g := range chunk {
		if g == "" {
			g = "noring"
		}
		b.WriteString(g)
	}
	return b.String()
}

// ringSelector selects the members of the rings in chunk ("" is a member without the label).
func ringSelector(rng *rand.Rand, chunk []string) *metav1.LabelSelector {
	var rings []string
	withoutRing := false
	for _, g := range chunk {
		if g == "" {
			withoutRing = true
		} else {
			rings = append(rings, g)
		}
	}
	switch {
	case withoutRing && len(rings) == 0:
		return exprs(expr(LabelRing, metav1.LabelSelectorOpDoesNotExist))
	case withoutRing:
		var others []string
		for _, r := range stagedRings {
			if r != "" && !contains(rings, r) {
				others = append(others, r)
			}
		}
		if len(others) == 0 {
			// every ring and no ring: everything
			return &metav1.LabelSelector{}
		}
		return exprs(expr(LabelRing, metav1.LabelSelectorOpNotIn, others...))
	case len(rings) == 1 && rng.IntN(2) == 0:
		return labels(LabelRing, rings[0])
	}
	return exprs(expr(LabelRing, metav1.LabelSelectorOpIn, rings...))
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// randomSortingKey: none, the integer label, a label with non-integer values, a label no member has.
func randomSortingKey(rng *rand.Rand) *string {
	var key string
	switch r := rng.IntN(100); {
	case r < 50:
		return nil
	case r < 90:
		key = LabelOrder
	case r < 95:
		key = LabelRing
	default:
		key = "absent"
	}
	return &key
}

// randomMaxConcurrency: absent (the CRD's default 1), a count (1 to 5) or a percentage the CRD
// accepts (1 to 100 %), some rounding down to 0 (then 1) on small stages.
func randomMaxConcurrency(rng *rand.Rand) *intstr.IntOrString {
	switch r := rng.IntN(10); {
	case r < 3:
		return nil
	case r < 6:
		v := intstr.FromInt32(int32(1 + rng.IntN(5)))
		return &v
	}
	v := intstr.FromString([]string{"1%", "10%", "25%", "33%", "50%", "99%", "100%"}[rng.IntN(7)])
	return &v
}

// randomBeforeTasks: a before-stage Approval on about a third of the stages.
func randomBeforeTasks(rng *rand.Rand) []placementv1.StageTask {
	if rng.IntN(3) == 0 {
		return []placementv1.StageTask{{Type: placementv1.StageTaskTypeApproval}}
	}
	return nil
}

func randomTasks(rng *rand.Rand) []placementv1.StageTask {
	wait := placementv1.StageTask{Type: placementv1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Hour}}
	approval := placementv1.StageTask{Type: placementv1.StageTaskTypeApproval}
	switch r := rng.IntN(10); {
	case r < 4:
		return nil
	case r < 6:
		return []placementv1.StageTask{wait}
	case r < 8:
		return []placementv1.StageTask{approval}
	case r < 9:
		return []placementv1.StageTask{wait, approval}
	}
	return []placementv1.StageTask{approval, wait}
}
