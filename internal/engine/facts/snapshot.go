package facts

import (
	"strings"
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Snapshot are what previews read of the fleet, taken once at plan (the
// fleet_facts data source) and carried by the configuration to apply.
// Terraform plans a resource again during apply and refuses any planned value
// that changed, yet gives that re-plan only the configuration, the prior state
// and its private data: a data source read at plan is not read again, so the
// facts it read are what lets the apply's re-plan compute the very preview the
// reviewer saw (DESIGN.md, "The plan/apply contract").
type Snapshot struct {
	// TakenAt is the provider's clock and FleetNow the Fleet API's when the facts were read: previews
	// computed from the facts are computed at these times.
	TakenAt  time.Time `json:"takenAt"`
	FleetNow time.Time `json:"fleetNow"`
	// Hub are the hub's MemberClusters; HubRead says the hub was read (the provider has one).
	HubRead bool                      `json:"hubRead"`
	Hub     []clusterv1.MemberCluster `json:"hub,omitempty"`
	// Placements are the hub's placements of both scopes with their bindings, read with the hub
	// (what member cluster taint and placement disruption budget previews read); PlacementsRead
	// says they were, PlacementsErr why not.
	PlacementsRead bool        `json:"placementsRead,omitempty"`
	PlacementsErr  string      `json:"placementsErr,omitempty"`
	Placements     []Placement `json:"placements,omitempty"`
	// Staged are the inputs of the staged update runs the data source names (staged_runs).
	Staged []StagedInputs `json:"staged,omitempty"`
	// Overrides are the latest resources of the placements the data source names
	// (override_placements), OverrideSnapshots the latest override snapshots of the namespaces
	// involved: what override previews read.
	Overrides         []SelectedResources `json:"overrides,omitempty"`
	OverrideSnapshots []OverrideSnapshots `json:"overrideSnapshots,omitempty"`
	Fleets            []Fleet             `json:"fleets,omitempty"`
	// Clusters are member clusters' Karpenter pictures (fleet_nodepool_disruption).
	Clusters []Karpenter `json:"clusters,omitempty"`
	// Regions are AKS's Kubernetes versions and node images in the members' regions.
	Regions []Region `json:"regions,omitempty"`
	// Settings are the provider's preview settings at plan (facts_settings.go).
	Settings *Settings `json:"settings,omitempty"`
}

// Fleet are one fleet's members as the inventory reads them.
type Fleet struct {
	ID string `json:"id"`
	// Windows says the members' maintenance windows were read.
	Windows bool           `json:"windows"`
	Members []MemberRecord `json:"members"`
	// Strategies are the fleet's update strategies (facts_strategies.go); StrategiesRead says they
	// were listed, StrategiesErr why not.
	StrategiesRead bool       `json:"strategiesRead,omitempty"`
	StrategiesErr  string     `json:"strategiesErr,omitempty"`
	Strategies     []Strategy `json:"strategies,omitempty"`
}

const encodingPrefix = "fleetfacts1."

// NotReadError says the facts lack what a preview needs.
type NotReadError struct{ What string }

func (e *NotReadError) Error() string {
	return "data.fleet_facts did not read " + e.What
}

// HubMemberClusters are the hub's member clusters the snapshot holds (copies).
func (f *Snapshot) HubMemberClusters() ([]clusterv1.MemberCluster, error) {
	if !f.HubRead {
		return nil, &NotReadError{What: "the hub's member clusters (the provider had no hub when it was read)"}
	}
	out := make([]clusterv1.MemberCluster, len(f.Hub))
	for i := range f.Hub {
		out[i] = *f.Hub[i].DeepCopy()
	}
	return out, nil
}

// Members are the members of fleet the snapshot holds; windows asks for their maintenance windows.
func (f *Snapshot) Members(fleet fleetapi.FleetID, windows bool) ([]Member, error) {
	for _, ff := range f.Fleets {
		if !strings.EqualFold(ff.ID, fleet.String()) {
			continue
		}
		if windows && !ff.Windows {
			return nil, &NotReadError{What: "the maintenance windows of fleet " + ff.ID + " (set maintenance_windows = true)"}
		}
		out := make([]Member, len(ff.Members))
		for i, m := range ff.Members {
			out[i] = m.Member()
		}
		return out, nil
	}
	return nil, &NotReadError{What: "fleet " + fleet.String() + " (add it to fleet_ids)"}
}
