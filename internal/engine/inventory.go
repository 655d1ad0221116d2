package engine

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The inventory: what the fleet's members are, read once per provider
// process and shared by every resource and data source of a plan (SPEC §8:
// a plan of 50 placements lists member clusters once, not once per resource).

var memberClustersGVR = schema.GroupVersionResource{Group: clusterv1.GroupVersion.Group, Version: clusterv1.GroupVersion.Version, Resource: "memberclusters"}

// Maintenance configuration names AKS uses for the schedules update runs honour
// (Fleet docs, concepts-update-orchestration.md "Planned maintenance").
const (
	AutoUpgradeSchedule   = "aksManagedAutoUpgradeSchedule"
	NodeOSUpgradeSchedule = "aksManagedNodeOSUpgradeSchedule"
)

// Member is one fleet member as the Fleet API and AKS see it.
type Member struct {
	Name              string
	Group             string
	Labels            map[string]string
	ClusterResourceID string
	// Cluster is the member's managed cluster; nil when ClusterErr is set.
	Cluster    *armcontainerservice.ManagedCluster
	ClusterErr error
	// Windows by maintenance configuration name (AutoUpgradeSchedule, NodeOSUpgradeSchedule).
	Windows map[string]*armcontainerservice.MaintenanceWindow
}

type inventory struct {
	hub     lazy[[]clusterv1.MemberCluster]
	mu      sync.Mutex
	members map[fleetapi.FleetID]*lazy[[]Member]
	// planned update groups by fleet and member name: see PlanMemberGroup.
	plannedGroups map[fleetapi.FleetID]map[string]string

	// HubLists counts the hub's MemberCluster list requests (tests assert the bar).
	hubLists int
}

// HubMemberClusters lists the hub's MemberClusters once per provider process.
func (c *Clients) HubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	return c.inv.hub.get(ctx, func(ctx context.Context) ([]clusterv1.MemberCluster, error) {
		hub, err := c.Hub(ctx)
		if err != nil {
			return nil, err
		}
		c.inv.mu.Lock()
		c.inv.hubLists++
		c.inv.mu.Unlock()
		list, err := hub.Dynamic.Resource(memberClustersGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("list the hub's member clusters: %w", err)
		}
		out := make([]clusterv1.MemberCluster, len(list.Items))
		for i := range list.Items {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &out[i]); err != nil {
				return nil, fmt.Errorf("member cluster %s: %w", list.Items[i].GetName(), err)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, nil
	})
}

// HubMemberClusterLists is how many times this process listed the hub's
// member clusters.
func (c *Clients) HubMemberClusterLists() int {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	return c.inv.hubLists
}

// Members reads a fleet's members with their managed clusters and
// maintenance windows, once per provider process.
func (c *Clients) Members(ctx context.Context, fleet fleetapi.FleetID) ([]Member, error) {
	c.inv.mu.Lock()
	if c.inv.members == nil {
		c.inv.members = map[fleetapi.FleetID]*lazy[[]Member]{}
	}
	l, ok := c.inv.members[fleet]
	if !ok {
		l = &lazy[[]Member]{}
		c.inv.members[fleet] = l
	}
	planned := maps.Clone(c.inv.plannedGroups[fleet])
	c.inv.mu.Unlock()
	members, err := l.get(ctx, func(ctx context.Context) ([]Member, error) { return c.readMembers(ctx, fleet) })
	if err != nil || len(planned) == 0 {
		return members, err
	}
	out := append([]Member(nil), members...)
	for i := range out {
		if g, ok := planned[out[i].Name]; ok {
			out[i].Group = g
		}
	}
	return out, nil
}

// PlanMemberGroup records that this run of terraform moves a member to an
// update group (fleet_member's plan): Members then reports that group, so the
// previews planned after it — those that depend on the member, as Terraform
// orders plans along dependencies — show the member where apply puts it, at
// plan and again at apply.
func (c *Clients) PlanMemberGroup(fleet fleetapi.FleetID, member, group string) {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	if c.inv.plannedGroups == nil {
		c.inv.plannedGroups = map[fleetapi.FleetID]map[string]string{}
	}
	if c.inv.plannedGroups[fleet] == nil {
		c.inv.plannedGroups[fleet] = map[string]string{}
	}
	c.inv.plannedGroups[fleet][member] = group
}

// memberReadConcurrency bounds parallel AKS reads; azcore's retry policy
// absorbs throttling.
const memberReadConcurrency = 8

func (c *Clients) readMembers(ctx context.Context, fleet fleetapi.FleetID) ([]Member, error) {
	fc, err := c.Fleet()
	if err != nil {
		return nil, err
	}
	ac, err := c.AKS()
	if err != nil {
		return nil, err
	}
	list, err := fc.ListMembers(ctx, fleet)
	if err != nil {
		return nil, err
	}
	members := make([]Member, len(list))
	sem := make(chan struct{}, memberReadConcurrency)
	var wg sync.WaitGroup
	for i, fm := range list {
		m := &members[i]
		m.Name = fm.Name
		if p := fm.Properties; p != nil {
			m.Group, m.Labels, m.ClusterResourceID = p.Group, p.Labels, p.ClusterResourceID
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			m.Cluster, m.Windows, m.ClusterErr = readCluster(ctx, ac, m.ClusterResourceID)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	return members, nil
}

func readCluster(ctx context.Context, ac *aks.Client, resourceID string) (*armcontainerservice.ManagedCluster, map[string]*armcontainerservice.MaintenanceWindow, error) {
	id, err := aks.ParseClusterID(resourceID)
	if err != nil {
		return nil, nil, err
	}
	mc, err := ac.GetCluster(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	configs, err := ac.ListMaintenanceConfigurations(ctx, id)
	if err != nil {
		return mc, nil, err
	}
	windows := map[string]*armcontainerservice.MaintenanceWindow{}
	for _, cfg := range configs {
		if cfg == nil || cfg.Name == nil || cfg.Properties == nil || cfg.Properties.MaintenanceWindow == nil {
			continue
		}
		for _, name := range []string{AutoUpgradeSchedule, NodeOSUpgradeSchedule} {
			if strings.EqualFold(*cfg.Name, name) {
				windows[name] = cfg.Properties.MaintenanceWindow
			}
		}
	}
	return mc, windows, nil
}
