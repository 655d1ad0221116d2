// Package facts is the snapshot of the fleet a plan read: pure data, with its encoding, what of it
// a preview read (Only) and what moved between two snapshots (Moved). It does no I/O: the session
// takes a snapshot (session.Read), and a pinned view answers from one (view.Pinned).
package facts

import (
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// Snapshot is what previews read of the fleet, taken once at plan (the
// fleet_facts data source) and carried by the configuration to apply.
// Terraform plans a resource again during apply and refuses any planned value
// that changed, yet gives that re-plan only the configuration, the prior state
// and its private data: a data source read at plan is not read again, so the
// facts it read are what lets the apply's re-plan compute the very preview the
// reviewer saw (docs/guides/plan-apply-contract.md).
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
	// Staged are the inputs of the staged update runs the data source names (its staged_run blocks).
	Staged []StagedInputs `json:"staged,omitempty"`
	// Overrides are the latest resources of the placements the data source names
	// (override_placements), OverrideSnapshots the latest override snapshots of the namespaces
	// involved: what override previews read.
	Overrides         []SelectedResources `json:"overrides,omitempty"`
	OverrideSnapshots []OverrideSnapshots `json:"overrideSnapshots,omitempty"`
	Fleets            []FleetRecord       `json:"fleets,omitempty"`
	// Clusters are member clusters' Karpenter pictures (fleet_nodepool_disruption).
	Clusters []Karpenter `json:"clusters,omitempty"`
	// Regions are AKS's Kubernetes versions and node images in the members' regions.
	Regions []Region `json:"regions,omitempty"`
	// Settings are the provider's preview settings at plan (settings.go).
	Settings *Settings `json:"settings,omitempty"`
}

// FleetRecord is one fleet's members as the inventory reads them.
type FleetRecord struct {
	ID string `json:"id"`
	// Windows says the members' maintenance windows were read.
	Windows bool           `json:"windows"`
	Members []MemberRecord `json:"members"`
	// Strategies are the fleet's update strategies (strategies.go); StrategiesRead says they
	// were listed, StrategiesErr why not.
	StrategiesRead bool       `json:"strategiesRead,omitempty"`
	StrategiesErr  string     `json:"strategiesErr,omitempty"`
	Strategies     []Strategy `json:"strategies,omitempty"`
}

const encodingPrefix = "fleetfacts1."
