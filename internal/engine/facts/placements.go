package facts

import (
	"fmt"
	"sort"
	"strings"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Placement are one placement (a ClusterResourcePlacement, or a ResourcePlacement when
// Namespace is set) cut to what the previews of member cluster taints and placement disruption
// budgets read of it: its policy and its bindings. The whole objects are not kept: a binding is a
// few KB of spec and status, and a PickAll placement has one per member.
type Placement struct {
	Namespace  string                       `json:"namespace,omitempty"`
	Name       string                       `json:"name"`
	Generation int64                        `json:"generation,omitempty"`
	Policy     *placementv1.PlacementPolicy `json:"policy,omitempty"`
	Bindings   []Binding                    `json:"bindings,omitempty"`
}

// Binding is a binding cut to what those previews read (not its name): its target cluster and state,
// whether it is being deleted, and its conditions' type, status and observed generation
// (the eviction controller's availability check, pkg/utils/condition: IsConditionStatusTrue).
type Binding struct {
	TargetCluster string                   `json:"cluster"`
	State         placementv1.BindingState `json:"state,omitempty"`
	Generation    int64                    `json:"generation,omitempty"`
	Deleting      bool                     `json:"deleting,omitempty"`
	Conditions    []BindingCondition       `json:"conditions,omitempty"`
}

// BindingCondition is a binding's condition without its message and times.
type BindingCondition struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	ObservedGeneration int64                  `json:"gen,omitempty"`
}

// PlacementsOf cuts placements and their bindings to what the snapshot keeps.
func PlacementsOf(placements []placementv1.ClusterResourcePlacement, bindings []placementv1.ClusterResourceBinding) []Placement {
	out := make([]Placement, 0, len(placements))
	at := map[hub.PlacementKey]int{}
	for i := range placements {
		p := &placements[i]
		at[hub.PlacementKey{Namespace: p.Namespace, Name: p.Name}] = len(out)
		out = append(out, Placement{Namespace: p.Namespace, Name: p.Name, Generation: p.Generation, Policy: p.Spec.Policy.DeepCopy()})
	}
	for i := range bindings {
		b := &bindings[i]
		j, ok := at[hub.PlacementKey{Namespace: b.Namespace, Name: b.Labels[placementv1beta1.PlacementTrackingLabel]}]
		if !ok {
			continue
		}
		bf := Binding{TargetCluster: b.Spec.TargetCluster, State: b.Spec.State, Generation: b.Generation, Deleting: b.DeletionTimestamp != nil}
		for _, c := range b.Status.Conditions {
			bf.Conditions = append(bf.Conditions, BindingCondition{Type: c.Type, Status: c.Status, ObservedGeneration: c.ObservedGeneration})
		}
		out[j].Bindings = append(out[j].Bindings, bf)
	}
	for i := range out {
		sort.Slice(out[i].Bindings, func(a, b int) bool { return out[i].Bindings[a].TargetCluster < out[i].Bindings[b].TargetCluster })
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (p *Placement) Key() hub.PlacementKey {
	return hub.PlacementKey{Namespace: p.Namespace, Name: p.Name}
}

// placement is the placement as the hub serves it, cut to what the facts hold.
func (p *Placement) AsPlacement() *hub.Placement {
	out := &hub.Placement{}
	out.Name, out.Namespace, out.Generation = p.Name, p.Namespace, p.Generation
	out.Kind = p.Key().Kind()
	out.Spec.Policy = p.Policy.DeepCopy()
	return out
}

// bindings are the placement's bindings as the hub serves them, cut to what the facts hold.
func (p *Placement) AsBindings() []placementv1.ClusterResourceBinding {
	out := make([]placementv1.ClusterResourceBinding, len(p.Bindings))
	for i, b := range p.Bindings {
		o := &out[i]
		o.Name, o.Namespace, o.Generation = p.Name+"-"+b.TargetCluster, p.Namespace, b.Generation
		o.Labels = map[string]string{placementv1beta1.PlacementTrackingLabel: p.Name}
		if b.Deleting {
			o.DeletionTimestamp = &metav1.Time{}
		}
		o.Spec.TargetCluster, o.Spec.State = b.TargetCluster, b.State
		for _, c := range b.Conditions {
			o.Status.Conditions = append(o.Status.Conditions, metav1.Condition{Type: c.Type, Status: c.Status, ObservedGeneration: c.ObservedGeneration})
		}
	}
	return out
}

// movedPlacements says how each placement's policy and bindings moved: clusters bound or
// unbound, and clusters whose binding became available or unavailable.
func movedPlacements(planned, now []Placement) []string {
	return pairUp(planned, now, func(p Placement) string { return p.Key().String() }, "placement", "the hub",
		func(name string, b, a Placement) []string {
			var out []string
			if !equality.Semantic.DeepEqual(b.Policy, a.Policy) {
				out = append(out, fmt.Sprintf("placement %s: policy %s → %s", name, policyText(b.Policy), policyText(a.Policy)))
			}
			if d := setDiff(boundClusters(b), boundClusters(a)); d != "" {
				out = append(out, fmt.Sprintf("placement %s: bound clusters %d → %d (%s)", name, len(boundClusters(b)), len(boundClusters(a)), d))
			}
			if d := mapDiff(bindingStates(b), bindingStates(a)); d != "" {
				out = append(out, fmt.Sprintf("placement %s: bindings %s", name, d))
			}
			return out
		})
}

func policyText(p *placementv1.PlacementPolicy) string {
	if p == nil {
		return "PickAll"
	}
	s := string(p.PlacementType)
	if s == "" {
		s = "PickAll"
	}
	if p.NumberOfClusters != nil {
		s += fmt.Sprintf("(%d)", *p.NumberOfClusters)
	}
	if len(p.ClusterNames) > 0 {
		s += "(" + strings.Join(p.ClusterNames, ", ") + ")"
	}
	if n := len(p.Tolerations); n > 0 {
		s += fmt.Sprintf(" with %d toleration(s)", n)
	}
	if p.Affinity != nil {
		s += " with affinity"
	}
	if len(p.TopologySpreadConstraints) > 0 {
		s += " with topology spread"
	}
	return s
}

func boundClusters(p Placement) []string {
	out := make([]string, 0, len(p.Bindings))
	for _, b := range p.Bindings {
		if !b.Deleting && b.State != placementv1.BindingStateUnscheduled {
			out = append(out, b.TargetCluster)
		}
	}
	return out
}

// bindingStates is each binding's cluster → its state and whether it is Available.
func bindingStates(p Placement) map[string]string {
	out := map[string]string{}
	for _, b := range p.Bindings {
		s := string(b.State)
		if b.Deleting {
			s = "Deleting"
		}
		avail := "not available"
		for _, c := range b.Conditions {
			if c.Type == string(placementv1.ResourceBindingAvailable) && c.Status == metav1.ConditionTrue && c.ObservedGeneration == b.Generation {
				avail = "available"
			}
		}
		out[b.TargetCluster] = s + ", " + avail
	}
	return out
}
