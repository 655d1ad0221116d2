package session

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
)

// View is the live fleet as previews see it, with the provider's preview settings.
func (c *Session) View() view.Fleet { return &live{c: c, settings: c.Settings()} }

// ViewWith is the live fleet with the preview settings s (nil: the provider's): apply computes
// "the preview now" with the reviewed plan's settings, so a changed setting is not taken for a
// moved fleet.
func (c *Session) ViewWith(s *facts.Settings) view.Fleet {
	if s == nil {
		return c.View()
	}
	return &live{c: c, settings: *s}
}

// Pinned is the fleet as the snapshot s holds it, with the update groups this run's fleet_member
// plans move members to, and update strategies s's fleets lacked read now (view.Overlay).
func (c *Session) Pinned(s *facts.Snapshot) view.Fleet {
	return view.Pinned(s, view.Overlay{Groups: c.plannedGroups, Strategy: c.View().UpdateStrategy})
}

// Settings are the provider's preview settings.
func (c *Session) Settings() facts.Settings {
	s := facts.Settings{PreviewDetail: c.o.PreviewDetail, ListLimit: c.o.ListLimit}
	if v := c.o.FleetAPIVersion; v != fleetapi.APIVersion {
		s.FleetAPIVersion = v
	}
	return s
}

// live reads through the session: the hub's member clusters and the fleets' members once per
// process (the inventory), everything else when asked.
type live struct {
	c        *Session
	settings facts.Settings
}

func (l *live) Now() time.Time      { return l.c.Now() }
func (l *live) FleetNow() time.Time { return l.c.FleetNow() }
func (l *live) ListLimit() int      { return l.settings.ListLimit }

func (l *live) HubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	return l.c.hubMemberClusters(ctx)
}

func (l *live) HubPlacements(ctx context.Context) ([]placementv1.ClusterResourcePlacement, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.AllPlacements(ctx)
}

func (l *live) HubBindings(ctx context.Context) ([]placementv1.ClusterResourceBinding, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.AllBindings(ctx)
}

func (l *live) HubPlacement(ctx context.Context, key hub.PlacementKey) (*hub.Placement, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.PlacementAt(ctx, key)
}

func (l *live) HubPlacementBindings(ctx context.Context, key hub.PlacementKey) ([]placementv1.ClusterResourceBinding, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.BindingsAt(ctx, key)
}

func (l *live) RunInputs(ctx context.Context, ns, placement, strategy string) (hub.RunInputs, error) {
	in, err := l.c.readRunInputs(ctx, facts.StagedRun{Namespace: ns, Placement: placement, Strategy: strategy})
	if err != nil || in.Placement == nil {
		return in, err
	}
	in.MemberClusters, err = l.c.hubMemberClusters(ctx)
	return in, err
}

func (l *live) LatestSelectedResources(ctx context.Context, key hub.PlacementKey) ([][]byte, string, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, "", err
	}
	return h.LatestSelectedResources(ctx, key)
}

func (l *live) LatestOverrideSnapshots(ctx context.Context, ns string) ([]hub.OverrideSnapshot, error) {
	h, err := l.c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.LatestOverrideSnapshots(ctx, ns)
}

func (l *live) MemberClusters(ctx context.Context, fleet fleetapi.FleetID) ([]facts.Member, error) {
	return l.c.memberClusters(ctx, fleet)
}

func (l *live) MembersWithWindowsOf(ctx context.Context, fleet fleetapi.FleetID, need func(facts.Member) bool) ([]facts.Member, error) {
	return l.c.membersWithWindowsOf(ctx, fleet, need)
}

func (l *live) UpdateStrategy(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	fc, err := l.c.Fleet()
	if err != nil {
		return nil, err
	}
	s, err := fc.GetUpdateStrategy(ctx, fleet, name)
	if err != nil || s.Properties == nil {
		return nil, err
	}
	return &s.Properties.Strategy, nil
}

func (l *live) KubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error) {
	ac, err := l.c.AKS()
	if err != nil {
		return nil, err
	}
	return ac.ListKubernetesVersions(ctx, location)
}

func (l *live) NodeImageVersions(ctx context.Context, location string) ([]aks.NodeImageVersion, error) {
	ac, err := l.c.AKS()
	if err != nil {
		return nil, err
	}
	return ac.ListNodeImageVersions(ctx, location)
}

func (l *live) Karpenter(ctx context.Context, cluster string) (*facts.Karpenter, error) {
	k, err := l.c.readKarpenter(ctx, cluster)
	if err != nil {
		return nil, err
	}
	return &k, nil
}
