package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Read takes a snapshot of what r asks for: the hub's MemberClusters and placements with their
// bindings (r.Hub), each fleet's members, with their maintenance windows when r.Windows (an ARM
// read per member), its update strategies and AKS's lists of the regions they run in, the inputs
// of the staged runs, the latest resources and override snapshots of the placements, the Karpenter
// picture of the clusters, the clocks and the provider's preview settings. It reads with the same
// readers as the live view, so a snapshot is what a live preview would have read.
func (c *Session) Read(ctx context.Context, r facts.Request) (*facts.Snapshot, error) {
	return c.read(ctx, r, c.hubMemberClusters)
}

// ReadAgain is Read after an apply's own writes, to say what moved since the plan: the hub's
// MemberClusters are listed anew (one request; this apply may have tainted one since the process
// first listed them), the rest comes from the inventory as Read's does (members are ARM reads,
// paced; none of this apply's writes changes them).
func (c *Session) ReadAgain(ctx context.Context, r facts.Request) (*facts.Snapshot, error) {
	return c.read(ctx, r, c.listHubMemberClusters)
}

func (c *Session) read(ctx context.Context, r facts.Request, hubMemberClusters func(context.Context) ([]clusterv1.MemberCluster, error)) (*facts.Snapshot, error) {
	f := &facts.Snapshot{}
	if r.Hub {
		mcs, err := hubMemberClusters(ctx)
		if err != nil {
			return nil, err
		}
		f.HubRead = true
		f.Hub = make([]clusterv1.MemberCluster, len(mcs))
		for i := range mcs {
			f.Hub[i] = *mcs[i].DeepCopy()
			f.Hub[i].ManagedFields = nil
		}
		c.readPlacements(ctx, f)
	}
	for _, id := range r.Fleets {
		fleet, err := fleetapi.ParseFleetID(id)
		if err != nil {
			return nil, err
		}
		members, err := c.memberClusters(ctx, fleet)
		if r.Windows && err == nil {
			members, err = c.membersWithWindowsOf(ctx, fleet, nil)
		}
		if err != nil {
			return nil, err
		}
		ff := facts.FleetRecord{ID: fleet.String(), Windows: r.Windows, Members: make([]facts.MemberRecord, len(members))}
		for i, m := range members {
			ff.Members[i] = facts.RecordOf(m)
		}
		c.readStrategies(ctx, fleet, &ff)
		f.Fleets = append(f.Fleets, ff)
	}
	if err := c.readRegions(ctx, f); err != nil {
		return nil, err
	}
	for _, run := range r.Staged {
		in, err := c.readRunInputs(ctx, run)
		if err != nil {
			return nil, err
		}
		f.Staged = append(f.Staged, facts.StagedInputs{StagedRun: run, Inputs: in})
	}
	if err := c.readOverrides(ctx, f, r.Overrides); err != nil {
		return nil, err
	}
	c.prefetchClusters(ctx, r.Clusters)
	for _, name := range r.Clusters {
		k, err := c.readKarpenter(ctx, name)
		if err != nil {
			return nil, err
		}
		f.Clusters = append(f.Clusters, k)
	}
	f.TakenAt, f.FleetNow = c.Now().Truncate(time.Second), c.FleetNow().Truncate(time.Second)
	settings := c.Settings()
	f.Settings = &settings
	return f, nil
}

// readPlacements reads every placement of both scopes with its bindings (grouped by the
// placement tracking label; a binding whose placement is gone is left out: no preview reads it).
// A failed read is kept as PlacementsErr, for the previews that need the placements to report.
func (c *Session) readPlacements(ctx context.Context, f *facts.Snapshot) {
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
	f.Placements = facts.PlacementsOf(placements, bindings)
}

// readOverrides adds to f what override previews of each placement read: its latest
// resources, and the latest override snapshots of the ClusterResourceOverrides, of the placement's
// namespace and of every namespace its resources are in.
func (c *Session) readOverrides(ctx context.Context, f *facts.Snapshot, placements []hub.PlacementKey) error {
	if len(placements) == 0 {
		return nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return err
	}
	nss := map[string]bool{"": true}
	for _, key := range placements {
		resources, index, err := h.LatestSelectedResources(ctx, key)
		if err != nil {
			return fmt.Errorf("the resources of %s %s: %w", key.Kind(), key, err)
		}
		of := facts.SelectedResources{Namespace: key.Namespace, Placement: key.Name, Index: index}
		for _, r := range resources {
			of.Resources = append(of.Resources, json.RawMessage(r))
		}
		f.Overrides = append(f.Overrides, of)
		nss[key.Namespace] = true
		for _, ns := range facts.ResourceNamespaces(resources) {
			nss[ns] = true
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(nss)) {
		snaps, err := h.LatestOverrideSnapshots(ctx, ns)
		if err != nil {
			return fmt.Errorf("the override snapshots of namespace %q: %w", ns, err)
		}
		f.OverrideSnapshots = append(f.OverrideSnapshots, facts.OverrideSnapshots{Namespace: ns, Snapshots: snaps})
	}
	return nil
}

// readRunInputs is what KubeFleet's controller initializes run from (hub.Client.RunInputs),
// without the member clusters and managed fields.
func (c *Session) readRunInputs(ctx context.Context, r facts.StagedRun) (hub.RunInputs, error) {
	h, err := c.HubAPI(ctx)
	if err != nil {
		return hub.RunInputs{}, err
	}
	in, err := h.RunInputs(ctx, r.Namespace, r.Placement, r.Strategy)
	if err != nil {
		return in, err
	}
	{
		in.MemberClusters = nil
		if in.Placement != nil {
			in.Placement.ManagedFields = nil
		}
		if in.Strategy != nil {
			in.Strategy.ManagedFields = nil
		}
		for i := range in.PolicySnapshots {
			in.PolicySnapshots[i].ManagedFields = nil
		}
		for i := range in.Bindings {
			in.Bindings[i].ManagedFields = nil
		}
		for i := range in.ResourceSnapshots {
			in.ResourceSnapshots[i].ManagedFields = nil
		}
	}
	return in, nil
}

// readRegions reads the lists of the regions the facts' members run in (a release between
// plan and apply changes what a channel resolves to and which images a run takes).
func (c *Session) readRegions(ctx context.Context, f *facts.Snapshot) error {
	seen := map[string]bool{}
	var locations []string
	for _, ff := range f.Fleets {
		for _, m := range ff.Members {
			if m.Cluster == nil || m.Cluster.Location == nil {
				continue
			}
			if l := facts.NormalizeRegion(*m.Cluster.Location); !seen[l] {
				seen[l] = true
				locations = append(locations, *m.Cluster.Location)
			}
		}
	}
	if len(locations) == 0 {
		return nil
	}
	ac, err := c.AKS()
	if err != nil {
		return err
	}
	sort.Strings(locations)
	for _, loc := range locations {
		r := facts.Region{Location: loc}
		if r.KubernetesVersions, err = ac.ListKubernetesVersions(ctx, loc); err != nil {
			r.VersionsErr = err.Error()
		}
		if r.NodeImages, err = ac.ListNodeImageVersions(ctx, loc); err != nil {
			r.ImagesErr = err.Error()
		}
		f.Regions = append(f.Regions, r)
	}
	return nil
}

// readStrategies lists the fleet's update strategies into ff. A failed list fails only the
// previews that need a strategy (StrategiesErr), not the data source.
func (c *Session) readStrategies(ctx context.Context, fleet fleetapi.FleetID, ff *facts.FleetRecord) {
	fc, err := c.Fleet()
	var list []fleetapi.FleetUpdateStrategy
	if err == nil {
		list, err = fc.ListUpdateStrategies(ctx, fleet)
	}
	if err != nil {
		ff.StrategiesErr = err.Error()
		return
	}
	ff.StrategiesRead = true
	for _, s := range list {
		if s.Properties == nil {
			continue
		}
		ff.Strategies = append(ff.Strategies, facts.Strategy{Name: s.Name, Strategy: s.Properties.Strategy})
	}
	sort.Slice(ff.Strategies, func(i, j int) bool { return ff.Strategies[i].Name < ff.Strategies[j].Name })
}
