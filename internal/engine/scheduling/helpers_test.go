package scheduling

import placementv1 "go.goms.io/fleet/apis/placement/v1"

// bindingsFor turns a result's picks into the bindings the hub would hold afterwards (all Bound).
func bindingsFor(res Result, current bool) []Binding {
	out := make([]Binding, 0, len(res.Selected))
	for _, p := range res.Selected {
		out = append(out, Binding{
			Cluster: p.Cluster,
			State:   placementv1.BindingStateBound,
			Score:   &Score{AffinityScore: p.AffinityScore, TopologySpreadScore: p.TopologySpreadScore},
			Current: current,
		})
	}
	return out
}
