package scheduling

import (
	"encoding/json"
	"reflect"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// BindingsFromAPI reads the scheduler's view of a placement's ClusterResourceBindings;
// latestPolicySnapshot is the name of the placement's latest ClusterSchedulingPolicySnapshot
// (pkg/scheduler/framework/frameworkutils.go: classifyBindings reads the same fields).
func BindingsFromAPI(bindings []placementv1.ClusterResourceBinding, latestPolicySnapshot string) []Binding {
	out := make([]Binding, 0, len(bindings))
	for i := range bindings {
		b := &bindings[i]
		nb := Binding{
			Cluster:       b.Spec.TargetCluster,
			State:         b.Spec.State,
			PreviousState: placementv1.BindingState(b.GetAnnotations()[placementv1beta1.PreviousBindingStateAnnotation]),
			Current:       b.Spec.SchedulingPolicySnapshotName == latestPolicySnapshot,
			Deleting:      !b.DeletionTimestamp.IsZero(),
		}
		if cs := b.Spec.ClusterDecision.ClusterScore; cs != nil {
			nb.Score = &Score{}
			if cs.AffinityScore != nil {
				nb.Score.AffinityScore = *cs.AffinityScore
			}
			if cs.TopologySpreadScore != nil {
				nb.Score.TopologySpreadScore = *cs.TopologySpreadScore
			}
		}
		out = append(out, nb)
	}
	return out
}

// NeedsNewSnapshot says whether the hub agent cuts a new policy snapshot when a placement's policy
// goes from old to updated: it hashes the policy's JSON without numberOfClusters, so a change of
// numberOfClusters alone keeps the snapshot (and the picks: scale-out adds, scale-in trims), any
// other change makes every binding obsolete and reschedules. Both policies are compared as the hub
// stores them (CRD defaults applied)
// (pkg/controllers/placement/controller.go: getOrCreateSchedulingPolicySnapshot).
func NeedsNewSnapshot(old, updated *placementv1.PlacementPolicy) bool {
	return !reflect.DeepEqual(snapshotForm(old), snapshotForm(updated))
}

// snapshotForm is the JSON the policy hash is computed from (pkg/utils/resource: HashOf marshals
// the policy to JSON).
func snapshotForm(policy *placementv1.PlacementPolicy) []byte {
	p := Defaulted(policy)
	if p != nil {
		p.NumberOfClusters = nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return b
}
