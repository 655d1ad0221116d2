package conformance

import (
	"fmt"
	"math/rand/v2"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// LabelLocation is the label the Azure Fleet hub (and the local fleet) puts on every member.
const LabelLocation = "fleet.azure.com/location"

// Property names the member agent reports from node pools and resource usage.
const (
	PropNodeCount      = "kubernetes-fleet.io/node-count"
	PropAvailableCPU   = "resources.kubernetes-fleet.io/available-cpu"
	PropAllocatableCPU = "resources.kubernetes-fleet.io/allocatable-cpu"
	PropTotalCPU       = "resources.kubernetes-fleet.io/total-cpu"
	PropAvailableMem   = "resources.kubernetes-fleet.io/available-memory"
	PropAllocatableMem = "resources.kubernetes-fleet.io/allocatable-memory"
)

// Policy is one generated placement policy.
type Policy struct {
	Name   string
	Policy *placementv1.PlacementPolicy
}

// Policies returns the conformance policies for a generated fleet: a fixed list covering every
// scheduling feature (PickAll label and property filters with every operator, ORed terms, taints
// and tolerations; PickN preferences, sorters, ties, topology spread, unfulfillable counts;
// PickFixed with existing, unhealthy and unknown names), then `random` PickN policies drawn from
// seed. PickFixed names come from the fleet, so the same fleet and seed give the same policies.
func Policies(f *fleetfile.File, seed uint64, random int) []Policy {
	var ps []Policy
	add := func(name string, p *placementv1.PlacementPolicy) { ps = append(ps, Policy{Name: name, Policy: p}) }

	// PickAll: label filters.
	add("pickall-nil-policy", nil)
	add("pickall-empty", pickAll())
	add("pickall-matchlabels", pickAll(required(term(labels(LabelEnv, "prod")))))
	add("pickall-in", pickAll(required(term(exprs(expr(LabelEnv, metav1.LabelSelectorOpIn, "staging", "canary"))))))
	add("pickall-notin", pickAll(required(term(exprs(expr(LabelEnv, metav1.LabelSelectorOpNotIn, "prod"))))))
	add("pickall-exists", pickAll(required(term(exprs(expr(LabelGPU, metav1.LabelSelectorOpExists))))))
	add("pickall-doesnotexist", pickAll(required(term(exprs(expr(LabelTier, metav1.LabelSelectorOpDoesNotExist))))))
	add("pickall-labels-and-exprs", pickAll(required(term(&metav1.LabelSelector{
		MatchLabels:      map[string]string{LabelTeam: "ml"},
		MatchExpressions: []metav1.LabelSelectorRequirement{*expr(LabelTier, metav1.LabelSelectorOpIn, "gold", "silver")},
	}))))
	add("pickall-location", pickAll(required(term(exprs(expr(LabelLocation, metav1.LabelSelectorOpIn, "eastus", "westeurope"))))))

	// PickAll: property filters, every operator.
	add("pickall-nodecount-gt", pickAll(required(propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorGreaterThan, "20")))))
	add("pickall-nodecount-ge", pickAll(required(propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorGreaterThanOrEqualTo, "20")))))
	add("pickall-nodecount-eq", pickAll(required(propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorEqualTo, "12")))))
	add("pickall-nodecount-ne", pickAll(required(propTerm(labels(LabelEnv, "prod"), prop(PropNodeCount, placementv1.PropertySelectorNotEqualTo, "12")))))
	add("pickall-nodecount-lt", pickAll(required(propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorLessThan, "10")))))
	add("pickall-nodecount-le", pickAll(required(propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorLessThanOrEqualTo, "10")))))
	add("pickall-available-cpu-gt", pickAll(required(propTerm(nil, prop(PropAvailableCPU, placementv1.PropertySelectorGreaterThan, "50")))))
	add("pickall-allocatable-memory-ge", pickAll(required(propTerm(nil, prop(PropAllocatableMem, placementv1.PropertySelectorGreaterThanOrEqualTo, "500Gi")))))
	add("pickall-total-cpu-lt-and-memory", pickAll(required(propTerm(nil,
		prop(PropTotalCPU, placementv1.PropertySelectorLessThan, "100"),
		prop(PropAvailableMem, placementv1.PropertySelectorGreaterThanOrEqualTo, "100Gi")))))
	add("pickall-allocatable-cpu-le-millis", pickAll(required(propTerm(nil, prop(PropAllocatableCPU, placementv1.PropertySelectorLessThanOrEqualTo, "30500m")))))
	add("pickall-custom-le", pickAll(required(propTerm(nil, prop(PropCost, placementv1.PropertySelectorLessThanOrEqualTo, "0.80")))))
	add("pickall-custom-ne", pickAll(required(propTerm(nil, prop(PropCost, placementv1.PropertySelectorNotEqualTo, "1")))))
	add("pickall-custom-eq-millis", pickAll(required(propTerm(nil, prop(PropCost, placementv1.PropertySelectorEqualTo, "500m")))))
	add("pickall-corecost-gt", pickAll(required(propTerm(nil, prop(PropCoreCost, placementv1.PropertySelectorGreaterThan, "75m")))))
	add("pickall-ored-terms", pickAll(required(
		term(labels(LabelEnv, "canary")),
		propTerm(nil, prop(PropNodeCount, placementv1.PropertySelectorGreaterThanOrEqualTo, "40")),
		propTerm(labels(LabelTier, "gold"), prop(PropCost, placementv1.PropertySelectorLessThan, "0.5")),
	)))

	// PickAll: taints and tolerations.
	add("pickall-tolerate-exists-key", pickAll(tolerate(toleration(corev1.TolerationOpExists, "dedicated", ""))))
	add("pickall-tolerate-equal", pickAll(tolerate(toleration(corev1.TolerationOpEqual, "dedicated", "gpu"))))
	everything := toleration(corev1.TolerationOpExists, "", "")
	everything.Effect = "" // an empty effect tolerates every effect
	add("pickall-tolerate-everything", pickAll(tolerate(everything)))
	add("pickall-tolerate-two", pickAll(tolerate(
		toleration(corev1.TolerationOpEqual, "spot", "true"),
		toleration(corev1.TolerationOpExists, "maintenance", ""))))
	add("pickall-tolerate-wrong-value", pickAll(tolerate(toleration(corev1.TolerationOpEqual, "dedicated", "cpu"))))
	add("pickall-gpu-tolerated", pickAll(
		required(term(exprs(expr(LabelGPU, metav1.LabelSelectorOpExists)))),
		tolerate(toleration("", "dedicated", "gpu")))) // operator defaults to Equal

	// PickN: preferences, sorters, ties.
	add("pickn-no-preferences", pickN(10))
	add("pickn-label-preferences", pickN(12, preferred(
		pref(50, term(labels(LabelEnv, "prod"))),
		pref(30, term(labels(LabelTier, "gold"))))))
	add("pickn-negative-weight", pickN(12, preferred(
		pref(-60, term(exprs(expr(LabelEnv, metav1.LabelSelectorOpIn, "dev", "staging")))),
		pref(20, term(labels(LabelTeam, "web"))))))
	add("pickn-nodecount-descending", pickN(10, preferred(pref(100, sorter(PropNodeCount, placementv1.Descending)))))
	add("pickn-nodecount-ascending", pickN(10, preferred(pref(80, sorter(PropNodeCount, placementv1.Ascending)))))
	add("pickn-two-sorters", pickN(15, preferred(
		pref(60, sorter(PropAvailableCPU, placementv1.Descending)),
		pref(40, sorter(PropCost, placementv1.Ascending)))))
	add("pickn-negative-sorter", pickN(10, preferred(
		pref(-50, sorter(PropNodeCount, placementv1.Descending)),
		pref(30, term(labels(LabelEnv, "prod"))))))
	add("pickn-sorter-with-labels", pickN(10, preferred(
		pref(70, placementv1.ClusterSelectorTerm{
			LabelSelector:  labels(LabelTier, "gold"),
			PropertySorter: &placementv1.PropertySorter{Name: PropAllocatableMem, SortOrder: placementv1.Descending},
		}),
		pref(10, term(labels(LabelTeam, "search"))))))
	add("pickn-corecost-ascending", pickN(15, preferred(pref(100, sorter(PropCoreCost, placementv1.Ascending)))))
	add("pickn-required-and-preferred", pickN(12,
		required(term(exprs(expr(LabelEnv, metav1.LabelSelectorOpIn, "prod", "staging")))),
		preferred(
			pref(40, term(labels(LabelTier, "gold"))),
			pref(60, sorter(PropAllocatableMem, placementv1.Descending)))))
	add("pickn-ties", pickN(7, preferred(pref(10, term(labels(LabelLocation, "eastus"))))))
	add("pickn-unfulfilled-canary", pickN(30, required(term(labels(LabelEnv, "canary")))))
	add("pickn-more-than-eligible", pickN(250))
	add("pickn-zero", pickN(0))
	add("pickn-tolerations", pickN(8,
		preferred(pref(90, term(labels(LabelGPU, "true"))), pref(10, sorter(PropNodeCount, placementv1.Descending))),
		tolerate(toleration(corev1.TolerationOpExists, "dedicated", ""))))

	// PickN: topology spread.
	add("pickn-spread-location-dns", pickN(12,
		spread(1, LabelLocation, placementv1.DoNotSchedule),
		preferred(pref(50, sorter(PropNodeCount, placementv1.Descending)))))
	add("pickn-spread-location-anyway", pickN(14,
		spread(1, LabelLocation, placementv1.ScheduleAnyway),
		preferred(pref(40, term(labels(LabelEnv, "prod"))))))
	add("pickn-spread-rack-dns-skew2", pickN(10, spread(2, LabelRack, placementv1.DoNotSchedule)))
	add("pickn-spread-two-constraints", pickN(14,
		spread(2, LabelRack, placementv1.ScheduleAnyway),
		spread(1, LabelLocation, placementv1.DoNotSchedule),
		preferred(pref(30, sorter(PropCost, placementv1.Ascending)))))
	add("pickn-spread-required-prod", pickN(18,
		required(term(labels(LabelEnv, "prod"))),
		spread(1, LabelLocation, placementv1.DoNotSchedule)))
	add("pickn-spread-single-domain", pickN(5, spread(1, LabelGPU, placementv1.DoNotSchedule)))
	add("pickn-spread-stuck-domains", pickN(4,
		required(term(labels(LabelLocation, "eastus"))),
		spread(1, LabelLocation, placementv1.DoNotSchedule)))
	add("pickn-spread-default-unsatisfiable", pickN(6,
		&placementv1.TopologySpreadConstraint{TopologyKey: LabelTeam}, // maxSkew and whenUnsatisfiable defaulted
		preferred(pref(20, sorter(PropAvailableMem, placementv1.Ascending)))))

	// PickFixed.
	healthy, unhealthy, tainted := sampleMembers(f)
	add("pickfixed-existing", pickFixed(healthy[0], healthy[1], healthy[2]))
	add("pickfixed-unhealthy", pickFixed(healthy[3], unhealthy[0]))
	add("pickfixed-nonexistent", pickFixed(healthy[4], "no-such-cluster"))
	add("pickfixed-tainted", pickFixed(tainted[0], healthy[5]))
	add("pickfixed-mixed", pickFixed(unhealthy[1], "missing-1", healthy[6], tainted[1], "missing-2"))

	rng := rand.New(rand.NewPCG(seed, seed+1))
	for i := range random {
		add(fmt.Sprintf("random-%02d", i), randomPolicy(rng))
	}
	return ps
}

// sampleMembers picks healthy untainted, unhealthy and tainted healthy members (by name order)
// for PickFixed policies.
func sampleMembers(f *fleetfile.File) (healthy, unhealthy, tainted []string) {
	ms := append([]fleetfile.Member(nil), f.Members...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	for _, m := range ms {
		switch {
		case !m.IsHealthy():
			unhealthy = append(unhealthy, m.Name)
		case len(m.Taints) > 0:
			tainted = append(tainted, m.Name)
		default:
			healthy = append(healthy, m.Name)
		}
	}
	return healthy, unhealthy, tainted
}

// randomPolicy draws a PickN policy: 0-3 preferred terms (labels, sorters, both; weights -100..100),
// sometimes a required term, spread constraints or tolerations.
func randomPolicy(rng *rand.Rand) *placementv1.PlacementPolicy {
	var opts []any
	labelTerms := []func() *metav1.LabelSelector{
		func() *metav1.LabelSelector { return labels(LabelEnv, envs[rng.IntN(len(envs))]) },
		func() *metav1.LabelSelector { return labels(LabelTier, tiers[rng.IntN(len(tiers))]) },
		func() *metav1.LabelSelector { return labels(LabelTeam, teams[rng.IntN(len(teams))]) },
		func() *metav1.LabelSelector {
			return exprs(expr(LabelLocation, metav1.LabelSelectorOpNotIn, fleetRegions[rng.IntN(len(fleetRegions))].name))
		},
		func() *metav1.LabelSelector { return exprs(expr(LabelRack, metav1.LabelSelectorOpExists)) },
	}
	sorted := []string{PropNodeCount, PropAvailableCPU, PropAllocatableMem, PropCost, PropCoreCost}
	orders := []placementv1.PropertySortOrder{placementv1.Ascending, placementv1.Descending}
	var prefs []placementv1.PreferredClusterSelector
	for range rng.IntN(4) {
		w := int32(rng.IntN(201) - 100)
		var t placementv1.ClusterSelectorTerm
		switch rng.IntN(3) {
		case 0:
			t.LabelSelector = labelTerms[rng.IntN(len(labelTerms))]()
		case 1:
			t.PropertySorter = &placementv1.PropertySorter{Name: sorted[rng.IntN(len(sorted))], SortOrder: orders[rng.IntN(2)]}
		default:
			t.LabelSelector = labelTerms[rng.IntN(len(labelTerms))]()
			t.PropertySorter = &placementv1.PropertySorter{Name: sorted[rng.IntN(len(sorted))], SortOrder: orders[rng.IntN(2)]}
		}
		prefs = append(prefs, placementv1.PreferredClusterSelector{Weight: w, Preference: t})
	}
	if len(prefs) > 0 {
		opts = append(opts, preferredList(prefs))
	}
	if rng.IntN(3) == 0 {
		opts = append(opts, required(term(labelTerms[rng.IntN(len(labelTerms))]())))
	}
	if rng.IntN(3) == 0 {
		keys := []string{LabelLocation, LabelRack, LabelTeam}
		when := []placementv1.UnsatisfiableConstraintAction{placementv1.DoNotSchedule, placementv1.ScheduleAnyway}
		opts = append(opts, spread(int32(1+rng.IntN(2)), keys[rng.IntN(len(keys))], when[rng.IntN(2)]))
	}
	if rng.IntN(4) == 0 {
		opts = append(opts, tolerate(toleration(corev1.TolerationOpExists, taintChoices[rng.IntN(len(taintChoices))].Key, "")))
	}
	return pickN(int32(1+rng.IntN(25)), opts...)
}

// Builders.

type requiredTerms []placementv1.ClusterSelectorTerm
type preferredList []placementv1.PreferredClusterSelector
type tolerationList []placementv1.Toleration

func required(terms ...placementv1.ClusterSelectorTerm) requiredTerms { return terms }
func preferred(prefs ...placementv1.PreferredClusterSelector) preferredList {
	return prefs
}
func tolerate(ts ...placementv1.Toleration) tolerationList { return ts }

func pickAll(opts ...any) *placementv1.PlacementPolicy {
	return build(&placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}, opts)
}

func pickN(n int32, opts ...any) *placementv1.PlacementPolicy {
	return build(&placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: &n}, opts)
}

func pickFixed(names ...string) *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: names}
}

func build(p *placementv1.PlacementPolicy, opts []any) *placementv1.PlacementPolicy {
	affinity := func() *placementv1.ClusterAffinity {
		if p.Affinity == nil {
			p.Affinity = &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{}}
		}
		return p.Affinity.ClusterAffinity
	}
	for _, o := range opts {
		switch o := o.(type) {
		case requiredTerms:
			affinity().RequiredDuringSchedulingIgnoredDuringExecution = &placementv1.ClusterSelector{ClusterSelectorTerms: o}
		case preferredList:
			affinity().PreferredDuringSchedulingIgnoredDuringExecution = o
		case tolerationList:
			p.Tolerations = append(p.Tolerations, o...)
		case *placementv1.TopologySpreadConstraint:
			p.TopologySpreadConstraints = append(p.TopologySpreadConstraints, *o)
		default:
			panic(fmt.Sprintf("unknown policy option %T", o))
		}
	}
	return p
}

func term(ls *metav1.LabelSelector) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{LabelSelector: ls}
}

func propTerm(ls *metav1.LabelSelector, reqs ...placementv1.PropertySelectorRequirement) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{LabelSelector: ls, PropertySelector: &placementv1.PropertySelector{MatchExpressions: reqs}}
}

func labels(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func exprs(es ...*metav1.LabelSelectorRequirement) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{}
	for _, e := range es {
		ls.MatchExpressions = append(ls.MatchExpressions, *e)
	}
	return ls
}

func expr(key string, op metav1.LabelSelectorOperator, values ...string) *metav1.LabelSelectorRequirement {
	return &metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

func prop(name string, op placementv1.PropertySelectorOperator, value string) placementv1.PropertySelectorRequirement {
	return placementv1.PropertySelectorRequirement{Name: name, Operator: op, Values: []string{value}}
}

func pref(weight int32, t placementv1.ClusterSelectorTerm) placementv1.PreferredClusterSelector {
	return placementv1.PreferredClusterSelector{Weight: weight, Preference: t}
}

func sorter(name string, order placementv1.PropertySortOrder) placementv1.ClusterSelectorTerm {
	return placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{Name: name, SortOrder: order}}
}

func spread(maxSkew int32, key string, when placementv1.UnsatisfiableConstraintAction) *placementv1.TopologySpreadConstraint {
	return &placementv1.TopologySpreadConstraint{MaxSkew: &maxSkew, TopologyKey: key, WhenUnsatisfiable: when}
}

func toleration(op corev1.TolerationOperator, key, value string) placementv1.Toleration {
	return placementv1.Toleration{Key: key, Operator: op, Value: value, Effect: corev1.TaintEffectNoSchedule}
}
