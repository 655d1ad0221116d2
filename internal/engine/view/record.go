package view

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Recorder is a Fleet that notes what each read read (facts.Read): apply reads the same again
// from the live fleet to say what moved since the plan, so what moved is computed from what the
// preview read and from nothing else. A preview declares the inputs it reads; a read of any other
// is noted as undeclared (a bug the preview protocol reports).
type Recorder struct {
	v        Fleet
	declared []facts.Input
	mu       sync.Mutex
	reads    []facts.Read
}

// Record wraps v; declared are the inputs the caller says it reads (none: any).
func Record(v Fleet, declared ...facts.Input) *Recorder { return &Recorder{v: v, declared: declared} }

// Reads are the reads made, in the order first made.
func (r *Recorder) Reads() []facts.Read {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reads)
}

// Undeclared are the inputs read that were not declared.
func (r *Recorder) Undeclared() []facts.Input {
	if len(r.declared) == 0 {
		return nil
	}
	var out []facts.Input
	for _, rd := range r.Reads() {
		if !slices.Contains(r.declared, rd.Input) && !slices.Contains(out, rd.Input) {
			out = append(out, rd.Input)
		}
	}
	return out
}

func (r *Recorder) note(in facts.Input, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd := facts.Read{Input: in, Key: key}
	if !slices.Contains(r.reads, rd) {
		r.reads = append(r.reads, rd)
	}
}

func (r *Recorder) Now() time.Time      { r.note(facts.InputClock, ""); return r.v.Now() }
func (r *Recorder) FleetNow() time.Time { r.note(facts.InputFleetClock, ""); return r.v.FleetNow() }
func (r *Recorder) ListLimit() int      { r.note(facts.InputSettings, ""); return r.v.ListLimit() }

func (r *Recorder) HubMemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	r.note(facts.InputHubMembers, "")
	return r.v.HubMemberClusters(ctx)
}

func (r *Recorder) HubPlacements(ctx context.Context) ([]placementv1.ClusterResourcePlacement, error) {
	r.note(facts.InputPlacements, "")
	return r.v.HubPlacements(ctx)
}

func (r *Recorder) HubBindings(ctx context.Context) ([]placementv1.ClusterResourceBinding, error) {
	r.note(facts.InputPlacements, "")
	return r.v.HubBindings(ctx)
}

func (r *Recorder) HubPlacement(ctx context.Context, key hub.PlacementKey) (*hub.Placement, error) {
	r.note(facts.InputPlacements, "")
	return r.v.HubPlacement(ctx, key)
}

func (r *Recorder) HubPlacementBindings(ctx context.Context, key hub.PlacementKey) ([]placementv1.ClusterResourceBinding, error) {
	r.note(facts.InputPlacements, "")
	return r.v.HubPlacementBindings(ctx, key)
}

func (r *Recorder) RunInputs(ctx context.Context, ns, placement, strategy string) (hub.RunInputs, error) {
	r.note(facts.InputRunInputs, facts.StagedRun{Namespace: ns, Placement: placement, Strategy: strategy}.String())
	r.note(facts.InputHubMembers, "")
	return r.v.RunInputs(ctx, ns, placement, strategy)
}

func (r *Recorder) LatestSelectedResources(ctx context.Context, key hub.PlacementKey) ([][]byte, string, error) {
	r.note(facts.InputSelectedResources, key.String())
	return r.v.LatestSelectedResources(ctx, key)
}

func (r *Recorder) LatestOverrideSnapshots(ctx context.Context, ns string) ([]hub.OverrideSnapshot, error) {
	r.note(facts.InputOverrideSnapshots, ns)
	return r.v.LatestOverrideSnapshots(ctx, ns)
}

func (r *Recorder) MemberClusters(ctx context.Context, fleet fleetapi.FleetID) ([]facts.Member, error) {
	r.note(facts.InputFleetMembers, facts.FleetKey(fleet.String()))
	return r.v.MemberClusters(ctx, fleet)
}

func (r *Recorder) MembersWithWindowsOf(ctx context.Context, fleet fleetapi.FleetID, need func(facts.Member) bool) ([]facts.Member, error) {
	r.note(facts.InputFleetMembers, facts.FleetKey(fleet.String()))
	r.note(facts.InputWindows, facts.FleetKey(fleet.String()))
	return r.v.MembersWithWindowsOf(ctx, fleet, need)
}

func (r *Recorder) UpdateStrategy(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	r.note(facts.InputStrategies, facts.StrategyKey(fleet.String(), name))
	return r.v.UpdateStrategy(ctx, fleet, name)
}

func (r *Recorder) KubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error) {
	r.note(facts.InputRegions, facts.NormalizeRegion(location))
	return r.v.KubernetesVersions(ctx, location)
}

func (r *Recorder) NodeImageVersions(ctx context.Context, location string) ([]aks.NodeImageVersion, error) {
	r.note(facts.InputRegions, facts.NormalizeRegion(location))
	return r.v.NodeImageVersions(ctx, location)
}

func (r *Recorder) Karpenter(ctx context.Context, cluster string) (*facts.Karpenter, error) {
	r.note(facts.InputKarpenter, cluster)
	return r.v.Karpenter(ctx, cluster)
}

// InputNames words inputs for a message: "hub member clusters, hub placements".
func InputNames(ins []facts.Input) string {
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = string(in)
	}
	return strings.Join(names, ", ")
}
