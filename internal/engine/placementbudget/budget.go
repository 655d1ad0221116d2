// Package placementbudget is KubeFleet v0.18.9's ClusterResourcePlacementDisruptionBudget as its
// eviction controller applies it: how many of a placement's clusters an eviction may take now.
package placementbudget

import (
	"fmt"

	"go.goms.io/fleet/pkg/utils/condition"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Spec is the budget: at most one of the two is set (the CRD's CEL rule).
type Spec struct {
	MaxUnavailable, MinAvailable *intstr.IntOrString
}

// Verdict is what the eviction controller would decide for an eviction of an Available,
// not-failed binding of the placement now.
type Verdict struct {
	// Allowed is disruptionsAllowed: evictions the budget allows now (0: an eviction is blocked).
	Allowed int
	// Available and Total are the bindings it counts (its message's availablePlacements and
	// totalPlacements); Desired is PickN's numberOfClusters (0 otherwise).
	Available, Total, Desired int
	// Misconfigured is KubeFleet's message when the budget cannot apply to a PickAll placement
	// (every eviction is then blocked); "" otherwise.
	Misconfigured string
	// PickFixed: KubeFleet refuses every eviction of a PickFixed placement as invalid.
	PickFixed bool
}

// Evaluate is the eviction controller's verdict for the placement's bindings (every binding
// that carries its tracking label, whatever its state)
// (pkg/controllers/clusterresourceplacementeviction/controller.go: executeEviction, isEvictionAllowed).
func Evaluate(policy *placementv1.PlacementPolicy, bindings []placementv1.ClusterResourceBinding, spec Spec) Verdict {
	v := Verdict{Total: len(bindings)}
	for i := range bindings {
		if condition.IsConditionStatusTrue(bindings[i].GetCondition(string(placementv1.ResourceBindingAvailable)), bindings[i].Generation) {
			v.Available++
		}
	}
	typ := placementv1.PickAllPlacementType // defaulter.SetPlacementDefaults: no policy is PickAll
	if policy != nil && policy.PlacementType != "" {
		typ = policy.PlacementType
	}
	switch typ {
	case placementv1.PickFixedPlacementType:
		v.PickFixed = true
		return v
	case placementv1.PickAllPlacementType:
		if spec.MaxUnavailable != nil || (spec.MinAvailable != nil && spec.MinAvailable.Type == intstr.String) {
			v.Misconfigured = condition.EvictionBlockedMisconfiguredPDBSpecifiedMessage
			return v
		}
	case placementv1.PickNPlacementType:
		if policy.NumberOfClusters != nil {
			v.Desired = int(*policy.NumberOfClusters)
		}
	}
	switch {
	case spec.MaxUnavailable != nil:
		maxUnavailable, _ := intstr.GetScaledValueFromIntOrPercent(spec.MaxUnavailable, v.Desired, true)
		v.Allowed = maxUnavailable - (v.Total - v.Available)
	case spec.MinAvailable != nil:
		minAvailable := spec.MinAvailable.IntValue() // PickAll: an integer (the webhook's rule)
		if typ != placementv1.PickAllPlacementType {
			minAvailable, _ = intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, v.Desired, true)
		}
		v.Allowed = v.Available - minAvailable
	}
	v.Allowed = max(v.Allowed, 0)
	return v
}

// Message is the eviction controller's message for an eviction of an Available binding under
// the verdict (pkg/utils/condition/reason.go).
func (v Verdict) Message() string {
	switch {
	case v.PickFixed:
		return condition.EvictionInvalidPickFixedCRPMessage
	case v.Misconfigured != "":
		return v.Misconfigured
	case v.Allowed > 0:
		return fmt.Sprintf(condition.EvictionAllowedPDBSpecifiedMessageFmt, v.Available, v.Total)
	}
	return fmt.Sprintf(condition.EvictionBlockedPDBSpecifiedMessageFmt, v.Available, v.Total)
}
