package facts

import (
	"slices"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Request is what a snapshot holds: what the fleet_facts data source was asked to read, or, at
// apply, what of the plan's snapshot a preview read (Only), to be read again from the live fleet.
type Request struct {
	// Fleets are fleet IDs whose members and update strategies are read, with the members'
	// maintenance windows when Windows is set, and AKS's lists of the regions they run in.
	Fleets  []string
	Windows bool
	// Hub reads the hub's member clusters, and its placements with their bindings.
	Hub bool
	// Staged are the staged runs whose inputs are read.
	Staged []StagedRun
	// Overrides are the placements whose latest resources are read, with the override snapshots
	// of the namespaces involved.
	Overrides []hub.PlacementKey
	// Clusters are the member clusters whose Karpenter picture is read.
	Clusters []string
}

// Request is what reading f again reads.
func (f *Snapshot) Request() Request {
	r := Request{Hub: f.HubRead || f.PlacementsRead}
	for _, ff := range f.Fleets {
		r.Fleets = append(r.Fleets, ff.ID)
		r.Windows = r.Windows || ff.Windows
	}
	for _, s := range f.Staged {
		r.Staged = append(r.Staged, s.StagedRun)
	}
	for _, o := range f.Overrides {
		r.Overrides = append(r.Overrides, o.Key())
	}
	for _, c := range f.Clusters {
		r.Clusters = append(r.Clusters, c.Name)
	}
	return r
}

// FleetKey is the Read key of a fleet's members, windows and strategies.
func FleetKey(fleetID string) string { return strings.ToLower(fleetID) }

// StrategyKey is the Read key of one update strategy of a fleet.
func StrategyKey(fleetID, name string) string { return FleetKey(fleetID) + "/" + strings.ToLower(name) }

// Only is the part of f that reads hold: what a preview read of it, so that what moved since is
// said of that and nothing else (a placement's own write, another fleet's members, a strategy the
// preview did not follow). The times are always kept.
func (f *Snapshot) Only(reads []Read) *Snapshot {
	read := func(in Input, key string) bool { return slices.Contains(reads, Read{Input: in, Key: key}) }
	out := &Snapshot{TakenAt: f.TakenAt, FleetNow: f.FleetNow}
	if read(InputSettings, "") {
		out.Settings = f.Settings
	}
	if read(InputHubMembers, "") {
		out.HubRead, out.Hub = f.HubRead, f.Hub
	}
	if read(InputPlacements, "") {
		out.PlacementsRead, out.PlacementsErr, out.Placements = f.PlacementsRead, f.PlacementsErr, f.Placements
	}
	for _, s := range f.Staged {
		if read(InputRunInputs, s.String()) {
			out.Staged = append(out.Staged, s)
		}
	}
	for _, o := range f.Overrides {
		if read(InputSelectedResources, o.Key().String()) {
			out.Overrides = append(out.Overrides, o)
		}
	}
	for _, o := range f.OverrideSnapshots {
		if read(InputOverrideSnapshots, o.Namespace) {
			out.OverrideSnapshots = append(out.OverrideSnapshots, o)
		}
	}
	for _, ff := range f.Fleets {
		k := FleetKey(ff.ID)
		kept := FleetRecord{ID: ff.ID, StrategiesErr: ff.StrategiesErr}
		members, windows := read(InputFleetMembers, k), read(InputWindows, k)
		if members || windows {
			kept.Members, kept.Windows = ff.Members, windows && ff.Windows
		}
		for _, s := range ff.Strategies {
			if read(InputStrategies, StrategyKey(ff.ID, s.Name)) {
				kept.Strategies = append(kept.Strategies, s)
			}
		}
		// Read and absent now (deleted since) is a move: the list stays read when any of it was.
		readStrategy := slices.ContainsFunc(reads, func(r Read) bool {
			return r.Input == InputStrategies && strings.HasPrefix(r.Key, k+"/")
		})
		kept.StrategiesRead = ff.StrategiesRead && readStrategy
		if members || windows || kept.StrategiesRead {
			out.Fleets = append(out.Fleets, kept)
		}
	}
	for _, r := range f.Regions {
		if read(InputRegions, NormalizeRegion(r.Location)) {
			out.Regions = append(out.Regions, r)
		}
	}
	for _, c := range f.Clusters {
		if read(InputKarpenter, c.Name) {
			out.Clusters = append(out.Clusters, c)
		}
	}
	return out
}
