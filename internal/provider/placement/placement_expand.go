package placement

import (
	"math"

	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

func placementInt32(v types.Int64) int32 {
	n := v.ValueInt64()
	return int32(max(math.MinInt32, min(math.MaxInt32, n)))
}

// toAPI is the policy as the provider writes it to the hub.
func (m *policyModel) toAPI() *placementv1.PlacementPolicy {
	if m == nil {
		return nil
	}
	p := &placementv1.PlacementPolicy{PlacementType: placementv1.PlacementType(m.PlacementType.ValueString())}
	if len(m.ClusterNames) > 0 {
		p.ClusterNames = append([]string(nil), m.ClusterNames...)
	}
	if !m.NumberOfClusters.IsNull() && !m.NumberOfClusters.IsUnknown() {
		n := placementInt32(m.NumberOfClusters)
		p.NumberOfClusters = &n
	}
	if len(m.RequiredClusterSelectors) > 0 || len(m.PreferredClusterSelectors) > 0 {
		ca := &placementv1.ClusterAffinity{}
		if len(m.RequiredClusterSelectors) > 0 {
			ca.RequiredDuringSchedulingIgnoredDuringExecution = &placementv1.ClusterSelector{}
			for _, t := range m.RequiredClusterSelectors {
				term := placementv1.ClusterSelectorTerm{LabelSelector: shared.LabelSelector(t.Labels, t.LabelExpressions)}
				if len(t.PropertyExpressions) > 0 {
					term.PropertySelector = &placementv1.PropertySelector{}
					for _, e := range t.PropertyExpressions {
						term.PropertySelector.MatchExpressions = append(term.PropertySelector.MatchExpressions, placementv1.PropertySelectorRequirement{
							Name: e.Name.ValueString(), Operator: placementv1.PropertySelectorOperator(e.Operator.ValueString()), Values: append([]string(nil), e.Values...),
						})
					}
				}
				ca.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms = append(ca.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms, term)
			}
		}
		for _, t := range m.PreferredClusterSelectors {
			pref := placementv1.PreferredClusterSelector{
				Weight:     placementInt32(t.Weight),
				Preference: placementv1.ClusterSelectorTerm{LabelSelector: shared.LabelSelector(t.Labels, t.LabelExpressions)},
			}
			if s := t.PropertySorter; s != nil {
				pref.Preference.PropertySorter = &placementv1.PropertySorter{Name: s.Name.ValueString(), SortOrder: placementv1.PropertySortOrder(s.SortOrder.ValueString())}
			}
			ca.PreferredDuringSchedulingIgnoredDuringExecution = append(ca.PreferredDuringSchedulingIgnoredDuringExecution, pref)
		}
		p.Affinity = &placementv1.Affinity{ClusterAffinity: ca}
	}
	for _, c := range m.TopologySpreadConstraints {
		tsc := placementv1.TopologySpreadConstraint{
			TopologyKey:       c.TopologyKey.ValueString(),
			WhenUnsatisfiable: placementv1.UnsatisfiableConstraintAction(c.WhenUnsatisfiable.ValueString()),
		}
		if !c.MaxSkew.IsNull() && !c.MaxSkew.IsUnknown() {
			s := placementInt32(c.MaxSkew)
			tsc.MaxSkew = &s
		}
		p.TopologySpreadConstraints = append(p.TopologySpreadConstraints, tsc)
	}
	for _, t := range m.Tolerations {
		p.Tolerations = append(p.Tolerations, placementv1.Toleration{
			Key: t.Key.ValueString(), Operator: corev1.TolerationOperator(t.Operator.ValueString()),
			Value: t.Value.ValueString(), Effect: corev1.TaintEffect(t.Effect.ValueString()),
		})
	}
	return p
}
