package placement

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// plString is an Optional-only attribute read back from the hub: "" is unset.
func plString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// placementPolicyFromAPI reads a policy as the hub stores it, with the CRD's defaults where the hub left a
// field empty (so that a placement made elsewhere imports without a diff).
func placementPolicyFromAPI(p *placementv1.PlacementPolicy) *policyModel {
	if p == nil {
		return nil
	}
	p = scheduling.Defaulted(p)
	m := &policyModel{
		PlacementType:    types.StringValue(string(p.PlacementType)),
		ClusterNames:     shared.Strings(p.ClusterNames),
		NumberOfClusters: types.Int64Null(),
	}
	if p.NumberOfClusters != nil {
		m.NumberOfClusters = types.Int64Value(int64(*p.NumberOfClusters))
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		ca := p.Affinity.ClusterAffinity
		if r := ca.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for _, t := range r.ClusterSelectorTerms {
				term := requiredTermModel{}
				term.Labels, term.LabelExpressions = shared.LabelsFromSelector(t.LabelSelector)
				if t.PropertySelector != nil {
					for _, e := range t.PropertySelector.MatchExpressions {
						term.PropertyExpressions = append(term.PropertyExpressions, propertyExpressionModel{
							Name: types.StringValue(e.Name), Operator: types.StringValue(string(e.Operator)), Values: append([]string{}, e.Values...),
						})
					}
				}
				m.RequiredClusterSelectors = append(m.RequiredClusterSelectors, term)
			}
		}
		for _, t := range ca.PreferredDuringSchedulingIgnoredDuringExecution {
			term := preferredTermModel{Weight: types.Int64Value(int64(t.Weight))}
			term.Labels, term.LabelExpressions = shared.LabelsFromSelector(t.Preference.LabelSelector)
			if s := t.Preference.PropertySorter; s != nil {
				term.PropertySorter = &propertySorterModel{Name: types.StringValue(s.Name), SortOrder: types.StringValue(string(s.SortOrder))}
			}
			m.PreferredClusterSelectors = append(m.PreferredClusterSelectors, term)
		}
	}
	for _, c := range p.TopologySpreadConstraints {
		m.TopologySpreadConstraints = append(m.TopologySpreadConstraints, topologySpreadModel{
			MaxSkew: types.Int64Value(int64(shared.Deref(c.MaxSkew))), TopologyKey: types.StringValue(c.TopologyKey),
			WhenUnsatisfiable: plString(string(c.WhenUnsatisfiable)),
		})
	}
	for _, t := range p.Tolerations {
		m.Tolerations = append(m.Tolerations, tolerationModel{
			Key: plString(t.Key), Operator: types.StringValue(string(t.Operator)),
			Value: plString(t.Value), Effect: plString(string(t.Effect)),
		})
	}
	return m
}
