package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Defaulted returns a copy of the policy with the CRD's defaults applied, as the hub stores it:
// placementType PickAll, topology spread maxSkew 1, toleration operator Equal
// (config/crd/bases/placement.kubernetes-fleet.io_clusterresourceplacements.yaml, v1beta1).
// whenUnsatisfiable has no default in the CRD; the scheduler reads "" as DoNotSchedule.
func Defaulted(policy *placementv1.PlacementPolicy) *placementv1.PlacementPolicy {
	if policy == nil {
		return nil
	}
	p := policy.DeepCopy()
	if p.PlacementType == "" {
		p.PlacementType = placementv1.PickAllPlacementType
	}
	for i := range p.TopologySpreadConstraints {
		if p.TopologySpreadConstraints[i].MaxSkew == nil {
			one := int32(1)
			p.TopologySpreadConstraints[i].MaxSkew = &one
		}
	}
	for i := range p.Tolerations {
		if p.Tolerations[i].Operator == "" {
			p.Tolerations[i].Operator = corev1.TolerationOpEqual
		}
	}
	return p
}
