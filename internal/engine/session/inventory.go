package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
)

// The inventory: what the fleet's members are, read once per provider
// process and shared by every resource and data source of a plan (SPEC §8:
// a plan of 50 placements lists member clusters once, not once per resource).

var memberClustersGVR = schema.GroupVersionResource{Group: clusterv1.GroupVersion.Group, Version: clusterv1.GroupVersion.Version, Resource: "memberclusters"}

// hubMemberClusters lists the hub's MemberClusters once per provider process.
func (c *Session) hubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	return c.inv.hub.get(ctx, c.listHubMemberClusters)
}

// listHubMemberClusters lists the hub's MemberClusters now.
func (c *Session) listHubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
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
}

// membersWithWindowsOf is the members with the maintenance windows of only the
// members need selects (nil: all); the others' Windows are nil. Each member's
// windows are read once per process, whichever preview asks first, so a plan
// reads the union of what its previews need (issue 24: "maintenance
// configurations only for the members whose previews need them").
func (c *Session) membersWithWindowsOf(ctx context.Context, fleet fleetapi.FleetID, need func(facts.Member) bool) ([]facts.Member, error) {
	members, err := c.memberClusters(ctx, fleet)
	if err != nil {
		return nil, err
	}
	if need == nil {
		need = func(facts.Member) bool { return true }
	}
	wanted := make([]bool, len(members))
	for i := range members {
		wanted[i] = members[i].ClusterErr == nil && members[i].Cluster != nil && need(members[i])
	}
	cache, err := c.readWindowsOf(ctx, fleet, members, wanted)
	if err != nil {
		return nil, err
	}
	out := append([]facts.Member(nil), members...)
	for i := range out {
		if !wanted[i] {
			continue
		}
		w := cache[out[i].Name]
		out[i].Windows, out[i].ClusterErr = w.windows, w.err
	}
	return out, nil
}

// memberClusters reads a fleet's members with their managed clusters but
// not their maintenance windows (Windows is nil), once per provider process.
func (c *Session) memberClusters(ctx context.Context, fleet fleetapi.FleetID) ([]facts.Member, error) {
	members, err := c.inventoryLazy(&c.inv.members, fleet).get(ctx, func(ctx context.Context) ([]facts.Member, error) { return c.readMembers(ctx, fleet) })
	return view.WithGroups(members, c.plannedGroups(fleet)), err
}

// MaintenanceWindowReads is how many members' maintenance configurations
// this process listed.
func (c *Session) MaintenanceWindowReads() int {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	return c.inv.windowReads
}

// HubMemberClusterLists is how many times this process listed the hub's
// member clusters.
func (c *Session) HubMemberClusterLists() int {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	return c.inv.hubLists
}

func (c *Session) inventoryLazy(m *map[fleetapi.FleetID]*lazy[[]facts.Member], fleet fleetapi.FleetID) *lazy[[]facts.Member] {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	if *m == nil {
		*m = map[fleetapi.FleetID]*lazy[[]facts.Member]{}
	}
	l, ok := (*m)[fleet]
	if !ok {
		l = &lazy[[]facts.Member]{}
		(*m)[fleet] = l
	}
	return l
}

// plannedGroups are the update groups PlanMemberGroup recorded for fleet's members.
func (c *Session) plannedGroups(fleet fleetapi.FleetID) map[string]string {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	return maps.Clone(c.inv.plannedGroups[fleet])
}

// PlanMemberGroup records that this run of terraform moves a member to an
// update group (fleet_member's plan): Members then reports that group, so the
// previews planned after it — those that depend on the member, as Terraform
// orders plans along dependencies — show the member where apply puts it, at
// plan and again at apply.
func (c *Session) PlanMemberGroup(fleet fleetapi.FleetID, member, group string) {
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

// memberReadConcurrency bounds parallel AKS reads; the session's pacer
// spaces them to ARM's read budget (azure/pacing.go).
const memberReadConcurrency = 8

// readMembers reads the fleet's members and their managed clusters in bulk:
// one list per resource group, not one GET per cluster. Members' maintenance
// configurations are read apart (readWindowsOf), only for previews that
// need them: AKS serves them per cluster, and no bulk read of ARM has them.
// Reads at 1,000 members in one resource group: 1 members list and 1 cluster
// list (per page the RP serves), plus 1,000 maintenance configuration lists
// where windows are needed, against 2,001 with a GET per cluster.
func (c *Session) readMembers(ctx context.Context, fleet fleetapi.FleetID) ([]facts.Member, error) {
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
	members := make([]facts.Member, len(list))
	ids := make([]aks.ClusterID, len(list))
	groups := map[resourceGroupKey][]int{}
	for i, fm := range list {
		m := &members[i]
		m.Name = fm.Name
		if p := fm.Properties; p != nil {
			m.Group, m.Labels, m.ClusterResourceID = p.Group, p.Labels, p.ClusterResourceID
		}
		id, err := aks.ParseClusterID(m.ClusterResourceID)
		if err != nil {
			m.ClusterErr = err
			continue
		}
		ids[i] = id
		k := resourceGroupKey{strings.ToLower(id.SubscriptionID), strings.ToLower(id.ResourceGroupName)}
		groups[k] = append(groups[k], i)
	}
	keys := make([]resourceGroupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	var oneByOne []int
	for _, k := range keys {
		idx := groups[k]
		if len(idx) == 1 {
			oneByOne = append(oneByOne, idx...) // a GET costs what a list does
			continue
		}
		clusters, err := ac.ListClusters(ctx, ids[idx[0]].SubscriptionID, ids[idx[0]].ResourceGroupName)
		if aks.IsForbidden(err) {
			c.warnListForbidden(ctx, k, len(idx), err)
			oneByOne = append(oneByOne, idx...)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list the managed clusters of resource group %s (to read %d members' clusters): %w", k, len(idx), err)
		}
		byName := make(map[string]*armcontainerservice.ManagedCluster, len(clusters))
		for _, mc := range clusters {
			if mc != nil && mc.Name != nil {
				byName[strings.ToLower(*mc.Name)] = mc
			}
		}
		for _, i := range idx {
			if mc, ok := byName[strings.ToLower(ids[i].Name)]; ok {
				members[i].Cluster = mc
			} else {
				members[i].ClusterErr = fmt.Errorf("managed cluster %s is not in the list of its resource group (deleted?)", ids[i])
			}
		}
	}
	parallel(ctx, oneByOne, func(i int) { members[i].Cluster, members[i].ClusterErr = ac.GetCluster(ctx, ids[i]) })
	if err := throttled(ctx, members); err != nil {
		return nil, err
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	return members, nil
}

// readWindowsOf reads the maintenance windows of the wanted members not read
// before in this process and returns the wanted members' windows. One caller reads at a
// time per fleet, so two previews planned at once never read a member twice.
// Throttling and a cancelled context are not cached: the plan fails on them.
func (c *Session) readWindowsOf(ctx context.Context, fleet fleetapi.FleetID, members []facts.Member, wanted []bool) (map[string]memberWindows, error) {
	c.inv.mu.Lock()
	if c.inv.windowsSem == nil {
		c.inv.windowsSem, c.inv.windows = map[fleetapi.FleetID]chan struct{}{}, map[fleetapi.FleetID]map[string]memberWindows{}
	}
	sem, ok := c.inv.windowsSem[fleet]
	if !ok {
		sem = make(chan struct{}, 1)
		c.inv.windowsSem[fleet], c.inv.windows[fleet] = sem, map[string]memberWindows{}
	}
	cache := c.inv.windows[fleet]
	c.inv.mu.Unlock()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-sem }()
	var missing []int
	for i := range members {
		if _, done := cache[members[i].Name]; wanted[i] && !done {
			missing = append(missing, i)
		}
	}
	// What the caller reads, copied while this caller holds sem (the only writers of cache do too).
	wantedOf := func() map[string]memberWindows {
		out := map[string]memberWindows{}
		for i := range members {
			if wanted[i] {
				out[members[i].Name] = cache[members[i].Name]
			}
		}
		return out
	}
	if len(missing) == 0 {
		return wantedOf(), nil
	}
	ac, err := c.AKS()
	if err != nil {
		return nil, err
	}
	read := make([]memberWindows, len(members))
	progress := c.logProgress(ctx, "maintenance configuration lists", len(missing))
	parallel(ctx, missing, func(i int) {
		id, err := aks.ParseClusterID(members[i].ClusterResourceID)
		if err == nil {
			read[i].windows, err = readWindows(ctx, ac, id)
		}
		read[i].err = err
		progress()
	})
	for _, i := range missing {
		if azure.IsThrottled(read[i].err) {
			return nil, read[i].err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.inv.mu.Lock()
	for _, i := range missing {
		cache[members[i].Name] = read[i]
	}
	c.inv.windowReads += len(missing)
	c.inv.mu.Unlock()
	return wantedOf(), nil
}

// throttled is the one error of reads that ARM's throttling, or the end of
// the context, cut short: the plan's failure, not one member's each.
func throttled(ctx context.Context, members []facts.Member) error {
	for i := range members {
		if azure.IsThrottled(members[i].ClusterErr) {
			return members[i].ClusterErr
		}
	}
	return ctx.Err()
}

type resourceGroupKey struct{ sub, rg string }

func (k resourceGroupKey) String() string {
	return "/subscriptions/" + k.sub + "/resourceGroups/" + k.rg
}

// parallel runs f for each index, memberReadConcurrency at a time.
func parallel(ctx context.Context, idx []int, f func(i int)) {
	sem := make(chan struct{}, memberReadConcurrency)
	var wg sync.WaitGroup
	for _, i := range idx {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// warnListForbidden says once per resource group what reading its clusters one by one costs.
func (c *Session) warnListForbidden(ctx context.Context, k resourceGroupKey, n int, err error) {
	msg := fmt.Sprintf("The principal may not list the managed clusters of resource group %s (%v). "+
		"Reading its %d members' clusters one by one costs %d ARM reads instead of 1 (about %ds more at ARM's refill rate of %d reads a second once the bucket of %d is spent). "+
		"Grant Microsoft.ContainerService/managedClusters/read on the resource group (e.g. Reader) to read them in one list.",
		k, shortError(err), n, n, n/azure.ARMReadRefillPerSecond, azure.ARMReadRefillPerSecond, azure.ARMReadBucket)
	c.inv.mu.Lock()
	c.inv.warnings = append(c.inv.warnings, msg)
	c.inv.mu.Unlock()
	tflog.Warn(ctx, msg)
}

func shortError(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("%d %s", re.StatusCode, re.ErrorCode)
	}
	return err.Error()
}

// InventoryWarnings are the warnings reading the inventory gave (each once per process).
func (c *Session) InventoryWarnings() []string {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	return append([]string(nil), c.inv.warnings...)
}

// TakeInventoryWarnings returns the inventory warnings not handed out before:
// a plan shows each once, on the first resource whose preview read it.
func (c *Session) TakeInventoryWarnings() []string {
	c.inv.mu.Lock()
	defer c.inv.mu.Unlock()
	out := append([]string(nil), c.inv.warnings[c.inv.reported:]...)
	c.inv.reported = len(c.inv.warnings)
	return out
}

// logProgress logs, at INFO, what n reads will cost and then their progress
// every 10 seconds, so a user with TF_LOG_PROVIDER=INFO sees why a plan waits.
// It returns the function to call after each read.
func (c *Session) logProgress(ctx context.Context, what string, n int) func() {
	if n > azure.ARMReadBucket {
		tflog.Info(ctx, fmt.Sprintf("Reading %d %s: %d ARM reads, paced to ARM's read budget (a bucket of %d refilled at %d a second), so at least %ds",
			n, what, n, azure.ARMReadBucket, azure.ARMReadRefillPerSecond, (n-azure.ARMReadBucket)/azure.ARMReadRefillPerSecond))
	}
	var mu sync.Mutex
	done, last := 0, time.Now()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if time.Since(last) >= 10*time.Second {
			last = time.Now()
			tflog.Info(ctx, fmt.Sprintf("Read %d of %d %s", done, n, what))
		}
	}
}

func readWindows(ctx context.Context, ac *aks.Client, id aks.ClusterID) (map[string]*armcontainerservice.MaintenanceWindow, error) {
	configs, err := ac.ListMaintenanceConfigurations(ctx, id)
	if err != nil {
		return nil, err
	}
	windows := map[string]*armcontainerservice.MaintenanceWindow{}
	for _, cfg := range configs {
		if cfg == nil || cfg.Name == nil || cfg.Properties == nil || cfg.Properties.MaintenanceWindow == nil {
			continue
		}
		for _, name := range []string{facts.AutoUpgradeSchedule, facts.NodeOSUpgradeSchedule} {
			if strings.EqualFold(*cfg.Name, name) {
				windows[name] = cfg.Properties.MaintenanceWindow
			}
		}
	}
	return windows, nil
}
