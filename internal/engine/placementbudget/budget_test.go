package placementbudget

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// binding builds the bindings of upstream's TestIsEvictionAllowed by letter: S scheduled and
// unavailable, B and A bound and Available, U bound and unavailable, X unscheduled and Available.
func bindings(codes string) []placementv1.ClusterResourceBinding {
	out := make([]placementv1.ClusterResourceBinding, 0, len(codes))
	for _, c := range codes {
		b := placementv1.ClusterResourceBinding{Spec: placementv1.ResourceBindingSpec{State: placementv1.BindingStateBound, TargetCluster: string(c)}}
		switch c {
		case 'S':
			b.Spec.State = placementv1.BindingStateScheduled
		case 'X':
			b.Spec.State = placementv1.BindingStateUnscheduled
		}
		if c == 'B' || c == 'A' || c == 'X' {
			b.Status.Conditions = []metav1.Condition{{Type: string(placementv1.ResourceBindingAvailable), Status: metav1.ConditionTrue, Reason: "available"}}
		}
		out = append(out, b)
	}
	return out
}

func pickN(n int32) *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: ptr.To(n)}
}

var pickAll = &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}

func maxU(v intstr.IntOrString) Spec { return Spec{MaxUnavailable: &v} }
func minA(v intstr.IntOrString) Spec { return Spec{MinAvailable: &v} }

var (
	i = intstr.FromInt32
	s = intstr.FromString
)

// upstreamCases are every case of v0.18.9's TestIsEvictionAllowed
// (pkg/controllers/clusterresourceplacementeviction/controller_test.go), in its order.
var upstreamCases = []struct {
	name          string
	policy        *placementv1.PlacementPolicy
	bindings      string
	spec          Spec
	wantAllowed   bool
	wantAvailable int
}{
	{"MaxUnavailable Integer zero, one available binding - block", pickN(1), "B", maxU(i(0)), false, 1},
	{"MaxUnavailable Integer zero, one unavailable binding - block", pickN(1), "S", maxU(i(0)), false, 0},
	{"MaxUnavailable Integer one, one unavailable binding - block", pickN(1), "S", maxU(i(1)), false, 0},
	{"MaxUnavailable Integer one, one available binding, upscaling - allow", pickN(2), "B", maxU(i(1)), true, 1},
	{"MaxUnavailable Integer one, one available, one unavailable - block", pickN(2), "BU", maxU(i(1)), false, 1},
	{"MaxUnavailable Integer one, two available - allow", pickN(1), "BX", maxU(i(1)), true, 2},
	{"MaxUnavailable Integer one, available greater than target, downscaling - allow", pickN(1), "BAX", maxU(i(1)), true, 3},
	{"MaxUnavailable Integer greater than one - block", pickN(4), "SBAU", maxU(i(2)), false, 2},
	{"MaxUnavailable Integer greater than one - allow", pickN(3), "SBX", maxU(i(2)), true, 2},
	{"MaxUnavailable Integer large number greater than target - allow", pickN(4), "SBUX", maxU(i(10)), true, 2},
	{"MaxUnavailable percentage zero - block", pickN(2), "BX", maxU(s("0%")), false, 2},
	{"MaxUnavailable percentage rounds up to 1 - block", pickN(1), "S", maxU(s("10%")), false, 0},
	{"MaxUnavailable percentage rounds up to 1 - allow", pickN(1), "B", maxU(s("10%")), true, 1},
	{"MaxUnavailable percentage rounds up to greater than 1 - block", pickN(4), "SBUX", maxU(s("40%")), false, 2},
	{"MaxUnavailable percentage rounds up to greater than 1 - allow", pickN(3), "SBX", maxU(s("50%")), true, 2},
	{"MaxUnavailable percentage hundred, target greater than bindings - allow", pickN(10), "SBUAX", maxU(s("100%")), true, 3},
	{"MaxUnavailable percentage hundred, target equal to bindings - block", pickN(2), "SU", maxU(s("100%")), false, 0},
	{"MaxUnavailable percentage hundred, target equal to bindings - allow", pickN(4), "SBUX", maxU(s("100%")), true, 2},
	{"MinAvailable Integer zero, unavailable binding - block", pickN(2), "S", minA(i(0)), false, 0},
	{"MinAvailable Integer zero, available binding - allow", pickN(2), "B", minA(i(0)), true, 1},
	{"MinAvailable Integer one, unavailable binding - block", pickN(1), "S", minA(i(1)), false, 0},
	{"MinAvailable Integer one, available binding, upscaling - block", pickN(2), "B", minA(i(1)), false, 1},
	{"MinAvailable Integer one, one available, one unavailable - block", pickN(1), "BU", minA(i(1)), false, 1},
	{"MinAvailable Integer one, two available - allow", pickN(2), "BX", minA(i(1)), true, 2},
	{"MinAvailable Integer one, available greater than target, downscaling - allow", pickN(1), "BAX", minA(i(1)), true, 3},
	{"MinAvailable Integer greater than one - block", pickN(2), "BX", minA(i(2)), false, 2},
	{"MinAvailable Integer greater than one - allow", pickN(4), "SBAX", minA(i(2)), true, 3},
	{"MinAvailable Integer greater than one, downscaling - block", pickN(1), "BAX", minA(i(3)), false, 3},
	{"MinAvailable Integer large number greater than target - block", pickN(5), "SBAUX", minA(i(10)), false, 3},
	{"MinAvailable percentage zero, all unavailable - block", pickN(2), "SU", minA(s("0%")), false, 0},
	{"MinAvailable percentage zero, all available - allow", pickN(3), "BAX", minA(s("0%")), true, 3},
	{"MinAvailable percentage rounds up to one - block", pickN(1), "S", minA(s("10%")), false, 0},
	{"MinAvailable percentage rounds up to one - allow", pickN(2), "BX", minA(s("10%")), true, 2},
	{"MinAvailable percentage rounds up to greater than 1 - block", pickN(3), "SBA", minA(s("40%")), false, 2},
	{"MinAvailable percentage rounds up to greater than 1 - allow", pickN(3), "BAX", minA(s("40%")), true, 3},
	{"MinAvailable percentage hundred, bindings less than target - block", pickN(10), "BA", minA(s("100%")), false, 2},
	{"MinAvailable percentage hundred, bindings equal to target - block", pickN(3), "BAX", minA(s("100%")), false, 3},
	{"MinAvailable percentage hundred, bindings greater than target - allow", pickN(2), "BAX", minA(s("100%")), true, 3},
	{"MinAvailable Integer zero, available binding, PickAll - allow", pickAll, "B", minA(i(0)), true, 1},
	{"MinAvailable Integer one, available binding, PickAll - block", pickAll, "B", minA(i(1)), false, 1},
	{"MinAvailable Integer greater than one, PickAll - allow", pickAll, "BAX", minA(i(2)), true, 3},
}

func TestEvaluateUpstreamCases(t *testing.T) {
	for _, tc := range upstreamCases {
		t.Run(tc.name, func(t *testing.T) {
			v := Evaluate(tc.policy, bindings(tc.bindings), tc.spec)
			if (v.Allowed > 0) != tc.wantAllowed || v.Available != tc.wantAvailable || v.Total != len(tc.bindings) {
				t.Errorf("Evaluate = %+v, want allowed %v with %d available of %d", v, tc.wantAllowed, tc.wantAvailable, len(tc.bindings))
			}
		})
	}
	if len(upstreamCases) != 41 {
		t.Fatalf("%d upstream cases, want v0.18.9's 41", len(upstreamCases))
	}
}

// executeEviction's earlier verdicts: PickFixed is invalid, a PickAll budget with maxUnavailable or
// a percentage minAvailable blocks every eviction; an Available condition of an older generation
// does not count (condition.IsConditionStatusTrue).
func TestEvaluateBeforeTheCount(t *testing.T) {
	if v := Evaluate(&placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType}, bindings("B"), minA(i(0))); !v.PickFixed || v.Allowed != 0 {
		t.Errorf("PickFixed: %+v", v)
	}
	for _, spec := range []Spec{maxU(i(1)), minA(s("10%"))} {
		v := Evaluate(nil, bindings("BA"), spec)
		if v.Misconfigured == "" || v.Allowed != 0 || v.Message() != v.Misconfigured {
			t.Errorf("PickAll with %+v: %+v", spec, v)
		}
	}
	stale := bindings("BA")
	stale[0].Generation = 2
	if v := Evaluate(pickN(2), stale, minA(i(1))); v.Available != 1 || v.Allowed != 0 {
		t.Errorf("stale Available condition counted: %+v", v)
	}
	if got := Evaluate(pickN(3), bindings("BAX"), maxU(i(2))); got.Allowed != 2 || got.Message() != "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3" {
		t.Errorf("maxUnavailable 2 over 3 available: %+v %q", got, got.Message())
	}
}
