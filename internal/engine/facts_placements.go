package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// PlacementFacts are one placement (a ClusterResourcePlacement, or a ResourcePlacement when
// Namespace is set) cut to what the previews of member cluster taints and placement disruption
// budgets read of it: its policy and its bindings. The whole objects are not kept: a binding is a
// few KB of spec and status, and a PickAll placement has one per member.
type PlacementFacts struct {
	Namespace  string                       `json:"namespace,omitempty"`
	Name       string                       `json:"name"`
	Generation int64                        `json:"generation,omitempty"`
	Policy     *placementv1.PlacementPolicy `json:"policy,omitempty"`
	Bindings   []BindingFacts               `json:"bindings,omitempty"`
}

// BindingFacts is a binding cut to what those previews read (not its name): its target cluster and state,
// whether it is being deleted, and its conditions' type, status and observed generation
// (the eviction controller's availability check, pkg/utils/condition: IsConditionStatusTrue).
type BindingFacts struct {
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

// readPlacementFacts reads every placement of both scopes with its bindings (grouped by the
// placement tracking label; a binding whose placement is gone is left out: no preview reads it).
// A failed read is kept as PlacementsErr, for the previews that need the placements to report.
func (c *Clients) readPlacementFacts(ctx context.Context, f *Facts) {
	h, err := c.HubAPI(ctx)
	if err != nil {
		f.PlacementsErr = err.Error()
		return
	}
	placements, err := h.AllPlacements(ctx)
	if err != nil {
		f.PlacementsErr = fmt.Sprintf("listing the placements: %v", err)
		return
	}
	bindings, err := h.AllBindings(ctx)
	if err != nil {
		f.PlacementsErr = fmt.Sprintf("listing the bindings: %v", err)
		return
	}
	f.PlacementsRead = true
	f.Placements = placementFacts(placements, bindings)
}

func placementFacts(placements []placementv1.ClusterResourcePlacement, bindings []placementv1.ClusterResourceBinding) []PlacementFacts {
	out := make([]PlacementFacts, 0, len(placements))
	at := map[hub.PlacementKey]int{}
	for i := range placements {
		p := &placements[i]
		at[hub.PlacementKey{Namespace: p.Namespace, Name: p.Name}] = len(out)
		out = append(out, PlacementFacts{Namespace: p.Namespace, Name: p.Name, Generation: p.Generation, Policy: p.Spec.Policy.DeepCopy()})
	}
	for i := range bindings {
		b := &bindings[i]
		j, ok := at[hub.PlacementKey{Namespace: b.Namespace, Name: b.Labels[placementv1beta1.PlacementTrackingLabel]}]
		if !ok {
			continue
		}
		bf := BindingFacts{TargetCluster: b.Spec.TargetCluster, State: b.Spec.State, Generation: b.Generation, Deleting: b.DeletionTimestamp != nil}
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

func (p *PlacementFacts) key() hub.PlacementKey {
	return hub.PlacementKey{Namespace: p.Namespace, Name: p.Name}
}

// placement is the placement as the hub serves it, cut to what the facts hold.
func (p *PlacementFacts) placement() *hub.Placement {
	out := &hub.Placement{}
	out.Name, out.Namespace, out.Generation = p.Name, p.Namespace, p.Generation
	out.Kind = p.key().Kind()
	out.Spec.Policy = p.Policy.DeepCopy()
	return out
}

// bindings are the placement's bindings as the hub serves them, cut to what the facts hold.
func (p *PlacementFacts) bindings() []placementv1.ClusterResourceBinding {
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

func (f *Facts) placements() ([]PlacementFacts, error) {
	if !f.PlacementsRead {
		why := "the provider had no hub when it was read"
		if f.PlacementsErr != "" {
			why = f.PlacementsErr
		}
		return nil, &FactsNotReadError{What: "the hub's placements and their bindings (" + why + ")"}
	}
	return f.Placements, nil
}

var placementGroupResource = schema.GroupResource{Group: placementv1beta1.GroupVersion.Group, Resource: "clusterresourceplacements"}

// HubMemberCluster is the hub's MemberCluster name; a pinned view answers from the facts.
func (c *Clients) HubMemberCluster(ctx context.Context, name string) (*clusterv1.MemberCluster, error) {
	if c.pinned != nil {
		mcs, err := c.pinned.hubMemberClusters()
		if err != nil {
			return nil, err
		}
		for i := range mcs {
			if mcs[i].Name == name {
				return &mcs[i], nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: clusterv1.GroupVersion.Group, Resource: "memberclusters"}, name)
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.MemberCluster(ctx, name)
}

// HubPlacements lists every placement of both scopes (hub.Client.AllPlacements); a pinned view
// answers from the facts.
func (c *Clients) HubPlacements(ctx context.Context) ([]placementv1.ClusterResourcePlacement, error) {
	if c.pinned != nil {
		ps, err := c.pinned.placements()
		if err != nil {
			return nil, err
		}
		out := make([]placementv1.ClusterResourcePlacement, len(ps))
		for i := range ps {
			out[i] = ps[i].placement().ClusterResourcePlacement
		}
		return out, nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.AllPlacements(ctx)
}

// HubBindings lists every binding of both scopes (hub.Client.AllBindings); a pinned view answers
// from the facts.
func (c *Clients) HubBindings(ctx context.Context) ([]placementv1.ClusterResourceBinding, error) {
	if c.pinned != nil {
		ps, err := c.pinned.placements()
		if err != nil {
			return nil, err
		}
		var out []placementv1.ClusterResourceBinding
		for i := range ps {
			out = append(out, ps[i].bindings()...)
		}
		return out, nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.AllBindings(ctx)
}

// HubPlacement reads the placement key names (hub.Client.PlacementAt); a pinned view answers
// from the facts, NotFound when they lack it.
func (c *Clients) HubPlacement(ctx context.Context, key hub.PlacementKey) (*hub.Placement, error) {
	if c.pinned != nil {
		p, err := c.pinned.placement(key)
		if err != nil {
			return nil, err
		}
		return p.placement(), nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.PlacementAt(ctx, key)
}

// HubPlacementBindings lists the bindings of the placement key names (hub.Client.BindingsAt); a
// pinned view answers from the facts.
func (c *Clients) HubPlacementBindings(ctx context.Context, key hub.PlacementKey) ([]placementv1.ClusterResourceBinding, error) {
	if c.pinned != nil {
		p, err := c.pinned.placement(key)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return p.bindings(), nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.BindingsAt(ctx, key)
}

func (f *Facts) placement(key hub.PlacementKey) (*PlacementFacts, error) {
	ps, err := f.placements()
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if ps[i].key() == key {
			return &ps[i], nil
		}
	}
	gr := placementGroupResource
	if key.Namespace != "" {
		gr.Resource = "resourceplacements"
	}
	return nil, apierrors.NewNotFound(gr, key.String())
}

// movedPlacements says how each placement's policy and bindings moved: clusters bound or
// unbound, and clusters whose binding became available or unavailable.
func movedPlacements(planned, now []PlacementFacts) []string {
	return pairUp(planned, now, func(p PlacementFacts) string { return p.key().String() }, "placement", "the hub",
		func(name string, b, a PlacementFacts) []string {
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

func boundClusters(p PlacementFacts) []string {
	out := make([]string, 0, len(p.Bindings))
	for _, b := range p.Bindings {
		if !b.Deleting && b.State != placementv1.BindingStateUnscheduled {
			out = append(out, b.TargetCluster)
		}
	}
	return out
}

// bindingStates is each binding's cluster → its state and whether it is Available.
func bindingStates(p PlacementFacts) map[string]string {
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
