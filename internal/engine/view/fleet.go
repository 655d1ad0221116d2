// Package view is the fleet as previews see it: one interface (Fleet) with two implementations,
// the live fleet (session.Session.View) and a snapshot a plan read (Pinned). Preview code
// receives only a Fleet, so it cannot read the fleet any other way, and a saved plan applied
// later computes its previews from what the plan read (DESIGN.md, "The view").
package view

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
)

// Fleet is every read a preview makes of the fleet. Each method reads one input (MethodInputs).
type Fleet interface {
	// Now is the provider's clock (disruption and placement previews use it, as Karpenter and
	// the hub agent use their controllers').
	Now() time.Time
	// FleetNow is the Fleet API's clock: the Date of its latest response (rollout previews are
	// computed at it).
	FleetNow() time.Time
	// ListLimit is how many per-cluster entries a preview lists (preview_detail); 0 lists all.
	ListLimit() int

	// HubMemberClusters are the hub's MemberClusters, sorted by name.
	HubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error)
	// HubPlacements and HubBindings are every placement and binding of both scopes
	// (hub.Client.AllPlacements, AllBindings).
	HubPlacements(ctx context.Context) ([]placementv1.ClusterResourcePlacement, error)
	HubBindings(ctx context.Context) ([]placementv1.ClusterResourceBinding, error)
	// HubPlacement is the placement key names (NotFound when there is none), HubPlacementBindings
	// its bindings.
	HubPlacement(ctx context.Context, key hub.PlacementKey) (*hub.Placement, error)
	HubPlacementBindings(ctx context.Context, key hub.PlacementKey) ([]placementv1.ClusterResourceBinding, error)
	// RunInputs is what KubeFleet's controller initializes a staged run in ns of placement with
	// strategy from (hub.Client.RunInputs), with the hub's member clusters.
	RunInputs(ctx context.Context, ns, placement, strategy string) (hub.RunInputs, error)
	// LatestSelectedResources is what the placement's latest resource snapshot holds, and its index.
	LatestSelectedResources(ctx context.Context, key hub.PlacementKey) ([][]byte, string, error)
	// LatestOverrideSnapshots are the latest override snapshots of namespace ns ("": the
	// ClusterResourceOverrides').
	LatestOverrideSnapshots(ctx context.Context, ns string) ([]hub.OverrideSnapshot, error)

	// MemberClusters are a fleet's members with their managed clusters, without maintenance
	// windows; MembersWithWindowsOf adds the windows of the members need selects (nil: all).
	MemberClusters(ctx context.Context, fleet fleetapi.FleetID) ([]facts.Member, error)
	MembersWithWindowsOf(ctx context.Context, fleet fleetapi.FleetID, need func(facts.Member) bool) ([]facts.Member, error)
	// UpdateStrategy is the fleet's update strategy name (nil when it has no properties).
	UpdateStrategy(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error)
	// KubernetesVersions and NodeImageVersions are what AKS offers in location (the latest node
	// image of each type).
	KubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error)
	NodeImageVersions(ctx context.Context, location string) ([]aks.NodeImageVersion, error)

	// Karpenter is a member cluster's Karpenter picture (fleet_nodepool_disruption).
	Karpenter(ctx context.Context, cluster string) (*facts.Karpenter, error)
}

// MethodInputs are the inputs each method of Fleet reads: a method reads these and nothing else.
// TestEveryMethodHasItsInputs keeps it whole, and the generated saved-plan test moves each input.
var MethodInputs = map[string][]facts.Input{
	"Now":                     {facts.InputClock},
	"FleetNow":                {facts.InputFleetClock},
	"ListLimit":               {facts.InputSettings},
	"HubMemberClusters":       {facts.InputHubMembers},
	"HubPlacements":           {facts.InputPlacements},
	"HubBindings":             {facts.InputPlacements},
	"HubPlacement":            {facts.InputPlacements},
	"HubPlacementBindings":    {facts.InputPlacements},
	"RunInputs":               {facts.InputRunInputs, facts.InputHubMembers},
	"LatestSelectedResources": {facts.InputSelectedResources},
	"LatestOverrideSnapshots": {facts.InputOverrideSnapshots},
	"MemberClusters":          {facts.InputFleetMembers},
	"MembersWithWindowsOf":    {facts.InputFleetMembers, facts.InputWindows},
	"UpdateStrategy":          {facts.InputStrategies},
	"KubernetesVersions":      {facts.InputRegions},
	"NodeImageVersions":       {facts.InputRegions},
	"Karpenter":               {facts.InputKarpenter},
}
