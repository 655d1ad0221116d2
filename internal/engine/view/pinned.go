package view

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Overlay is what a pinned view takes from the provider process besides the snapshot.
type Overlay struct {
	// Groups are the update groups fleet_member plans of this run of terraform move members to
	// (session.Session.PlanMemberGroup), by fleet and member: Terraform plans a preview after the
	// members it depends on, so it shows each member where apply puts it.
	Groups func(fleet fleetapi.FleetID) map[string]string
	// Strategy reads an update strategy the snapshot's fleet lacked: it did not exist at plan, so
	// no planned preview rests on it (its ID was unknown then, e.g. a strategy created in the same
	// apply, and so was the preview).
	Strategy func(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error)
}

// Pinned is the fleet as the snapshot s holds it: every read answers from s, a *facts.NotReadError
// when s lacks it.
func Pinned(s *facts.Snapshot, o Overlay) Fleet { return &pinned{s: s, o: o} }

type pinned struct {
	s *facts.Snapshot
	o Overlay
}

func (p *pinned) Now() time.Time      { return p.s.TakenAt }
func (p *pinned) FleetNow() time.Time { return p.s.FleetNow }

// ListLimit is the plan's (facts.Settings): a plan made with full detail applies as reviewed.
func (p *pinned) ListLimit() int {
	if p.s.Settings == nil {
		return 0
	}
	return p.s.Settings.ListLimit
}

func (p *pinned) HubMemberClusters(context.Context) ([]clusterv1.MemberCluster, error) {
	return p.s.HubMemberClusters()
}

func (p *pinned) HubPlacements(context.Context) ([]placementv1.ClusterResourcePlacement, error) {
	ps, err := p.s.PlacementList()
	if err != nil {
		return nil, err
	}
	out := make([]placementv1.ClusterResourcePlacement, len(ps))
	for i := range ps {
		out[i] = ps[i].AsPlacement().ClusterResourcePlacement
	}
	return out, nil
}

func (p *pinned) HubBindings(context.Context) ([]placementv1.ClusterResourceBinding, error) {
	ps, err := p.s.PlacementList()
	if err != nil {
		return nil, err
	}
	var out []placementv1.ClusterResourceBinding
	for i := range ps {
		out = append(out, ps[i].AsBindings()...)
	}
	return out, nil
}

func (p *pinned) HubPlacement(_ context.Context, key hub.PlacementKey) (*hub.Placement, error) {
	pl, err := p.s.PlacementAt(key)
	if err != nil {
		return nil, err
	}
	return pl.AsPlacement(), nil
}

func (p *pinned) HubPlacementBindings(_ context.Context, key hub.PlacementKey) ([]placementv1.ClusterResourceBinding, error) {
	pl, err := p.s.PlacementAt(key)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return pl.AsBindings(), nil
}

func (p *pinned) RunInputs(_ context.Context, ns, placement, strategy string) (hub.RunInputs, error) {
	want := facts.StagedRun{Namespace: ns, Placement: placement, Strategy: strategy}
	for _, s := range p.s.Staged {
		if s.StagedRun != want {
			continue
		}
		in := facts.CopyRunInputs(s.Inputs)
		if in.Placement == nil {
			return in, nil
		}
		var err error
		in.MemberClusters, err = p.s.HubMemberClusters()
		return in, err
	}
	return hub.RunInputs{}, &facts.NotReadError{What: "the inputs of a staged update run of " + want.String() + " (add a staged_run block for it to data.fleet_facts)"}
}

func (p *pinned) LatestSelectedResources(_ context.Context, key hub.PlacementKey) ([][]byte, string, error) {
	for _, o := range p.s.Overrides {
		if o.Key() == key {
			out := make([][]byte, len(o.Resources))
			for i, r := range o.Resources {
				out[i] = bytes.Clone(r)
			}
			return out, o.Index, nil
		}
	}
	return nil, "", &facts.NotReadError{What: fmt.Sprintf("the resources of %s %s (add %q to override_placements)", key.Kind(), key, key.String())}
}

func (p *pinned) LatestOverrideSnapshots(_ context.Context, ns string) ([]hub.OverrideSnapshot, error) {
	for _, s := range p.s.OverrideSnapshots {
		if s.Namespace != ns {
			continue
		}
		out := make([]hub.OverrideSnapshot, len(s.Snapshots))
		for i, o := range s.Snapshots { // copies: the snapshots are the facts' own
			out[i] = o
			out[i].Spec = *o.Spec.DeepCopy()
			out[i].ResourceSelectors = nil
			for _, rs := range o.ResourceSelectors {
				out[i].ResourceSelectors = append(out[i].ResourceSelectors, *rs.DeepCopy())
			}
		}
		return out, nil
	}
	what := "the ClusterResourceOverrides' snapshots"
	if ns != "" {
		what = fmt.Sprintf("the ResourceOverrides' snapshots of namespace %q", ns)
	}
	return nil, &facts.NotReadError{What: what + " (add the placement whose resources are there to override_placements)"}
}

func (p *pinned) MemberClusters(_ context.Context, fleet fleetapi.FleetID) ([]facts.Member, error) {
	members, err := p.s.Members(fleet, false)
	return p.withPlannedGroups(fleet, members), err
}

// MembersWithWindowsOf answers with every member's windows: the snapshot holds them all
// (data.fleet_facts' maintenance_windows).
func (p *pinned) MembersWithWindowsOf(_ context.Context, fleet fleetapi.FleetID, _ func(facts.Member) bool) ([]facts.Member, error) {
	members, err := p.s.Members(fleet, true)
	return p.withPlannedGroups(fleet, members), err
}

func (p *pinned) withPlannedGroups(fleet fleetapi.FleetID, members []facts.Member) []facts.Member {
	if p.o.Groups == nil {
		return members
	}
	return WithGroups(members, p.o.Groups(fleet))
}

// WithGroups is members with the planned update groups (member name → group) in place.
func WithGroups(members []facts.Member, planned map[string]string) []facts.Member {
	if len(planned) == 0 || members == nil {
		return members
	}
	out := append([]facts.Member(nil), members...)
	for i := range out {
		if g, ok := planned[out[i].Name]; ok {
			out[i].Group = g
		}
	}
	return out
}

func (p *pinned) UpdateStrategy(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	s, err := p.s.StrategyOf(fleet, name)
	if errors.Is(err, facts.ErrStrategyAbsent) && p.o.Strategy != nil {
		return p.o.Strategy(ctx, fleet, name)
	}
	return s, err
}

func (p *pinned) KubernetesVersions(_ context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error) {
	r, err := p.s.RegionAt(location)
	if err != nil {
		return nil, err
	}
	return r.Versions()
}

func (p *pinned) NodeImageVersions(_ context.Context, location string) ([]aks.NodeImageVersion, error) {
	r, err := p.s.RegionAt(location)
	if err != nil {
		return nil, err
	}
	return r.Images()
}

func (p *pinned) Karpenter(_ context.Context, cluster string) (*facts.Karpenter, error) {
	for i := range p.s.Clusters {
		if p.s.Clusters[i].Name == cluster {
			k := p.s.Clusters[i]
			return &k, nil
		}
	}
	return nil, &facts.NotReadError{What: fmt.Sprintf("cluster %q (add it to clusters)", cluster)}
}
