package fleetapi

import (
	"maps"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The managed namespace's placement policy is KubeFleet's v1
// PlacementPolicy narrowed by the Fleet API (fleets.json
// Placement.V1.PlacementPolicy): the conversions are field for field, so the
// hub's scheduler (and the preview) see exactly what ARM was sent.

// ToKubeFleet is the policy as a ClusterResourcePlacement carries it; nil
// stays nil (PickAll over every joined member).
func (p *PlacementPolicy) ToKubeFleet() *placementv1.PlacementPolicy {
	if p == nil {
		return nil
	}
	out := &placementv1.PlacementPolicy{PlacementType: placementv1.PlacementType(p.PlacementType)}
	if len(p.ClusterNames) > 0 {
		out.ClusterNames = append([]string(nil), p.ClusterNames...)
	}
	if a := p.Affinity; a != nil && a.ClusterAffinity != nil {
		ca := &placementv1.ClusterAffinity{}
		if req := a.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			sel := &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{}}
			for _, t := range req.ClusterSelectorTerms {
				sel.ClusterSelectorTerms = append(sel.ClusterSelectorTerms, t.toKubeFleet())
			}
			ca.RequiredDuringSchedulingIgnoredDuringExecution = sel
		}
		out.Affinity = &placementv1.Affinity{ClusterAffinity: ca}
	}
	for _, t := range p.Tolerations {
		out.Tolerations = append(out.Tolerations, placementv1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value, Effect: corev1.TaintEffect(t.Effect),
		})
	}
	return out
}

func (t ClusterSelectorTerm) toKubeFleet() placementv1.ClusterSelectorTerm {
	var out placementv1.ClusterSelectorTerm
	if l := t.LabelSelector; l != nil {
		out.LabelSelector = &metav1.LabelSelector{MatchLabels: maps.Clone(l.MatchLabels)}
		for _, e := range l.MatchExpressions {
			out.LabelSelector.MatchExpressions = append(out.LabelSelector.MatchExpressions, metav1.LabelSelectorRequirement{
				Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: append([]string(nil), e.Values...),
			})
		}
	}
	if ps := t.PropertySelector; ps != nil {
		out.PropertySelector = &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{}}
		for _, e := range ps.MatchExpressions {
			out.PropertySelector.MatchExpressions = append(out.PropertySelector.MatchExpressions, placementv1.PropertySelectorRequirement{
				Name: e.Name, Operator: placementv1.PropertySelectorOperator(e.Operator), Values: append([]string(nil), e.Values...),
			})
		}
	}
	return out
}

// PlacementPolicyFromKubeFleet is the inverse of ToKubeFleet over the fields
// the Fleet API defines; the caller refuses the others (numberOfClusters,
// preferred terms, topology spread constraints) before it converts.
func PlacementPolicyFromKubeFleet(p *placementv1.PlacementPolicy) *PlacementPolicy {
	if p == nil {
		return nil
	}
	out := &PlacementPolicy{PlacementType: string(p.PlacementType)}
	if len(p.ClusterNames) > 0 {
		out.ClusterNames = append([]string(nil), p.ClusterNames...)
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		ca := &ClusterAffinity{}
		if req := p.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			sel := &ClusterSelector{ClusterSelectorTerms: []ClusterSelectorTerm{}}
			for _, t := range req.ClusterSelectorTerms {
				var term ClusterSelectorTerm
				if l := t.LabelSelector; l != nil {
					term.LabelSelector = &LabelSelector{MatchLabels: maps.Clone(l.MatchLabels)}
					for _, e := range l.MatchExpressions {
						term.LabelSelector.MatchExpressions = append(term.LabelSelector.MatchExpressions, LabelSelectorRequirement{
							Key: e.Key, Operator: string(e.Operator), Values: append([]string(nil), e.Values...),
						})
					}
				}
				if ps := t.PropertySelector; ps != nil {
					term.PropertySelector = &PropertySelector{MatchExpressions: []PropertySelectorRequirement{}}
					for _, e := range ps.MatchExpressions {
						term.PropertySelector.MatchExpressions = append(term.PropertySelector.MatchExpressions, PropertySelectorRequirement{
							Name: e.Name, Operator: string(e.Operator), Values: append([]string(nil), e.Values...),
						})
					}
				}
				sel.ClusterSelectorTerms = append(sel.ClusterSelectorTerms, term)
			}
			ca.RequiredDuringSchedulingIgnoredDuringExecution = sel
		}
		out.Affinity = &Affinity{ClusterAffinity: ca}
	}
	for _, t := range p.Tolerations {
		out.Tolerations = append(out.Tolerations, Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}
