package facts

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// What a pinned view (view.Pinned) asks of a snapshot: each lookup answers from it, or says what
// it lacks (NotReadError).

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

func (f *Snapshot) PlacementList() ([]Placement, error) {
	if !f.PlacementsRead {
		why := "the provider had no hub when it was read"
		if f.PlacementsErr != "" {
			why = f.PlacementsErr
		}
		return nil, &NotReadError{What: "the hub's placements and their bindings (" + why + ")"}
	}
	return f.Placements, nil
}

var placementGroupResource = schema.GroupResource{Group: placementv1beta1.GroupVersion.Group, Resource: "clusterresourceplacements"}

// PlacementAt is the placement key names, NotFound when the snapshot lacks it.
func (f *Snapshot) PlacementAt(key hub.PlacementKey) (*Placement, error) {
	ps, err := f.PlacementList()
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if ps[i].Key() == key {
			return &ps[i], nil
		}
	}
	gr := placementGroupResource
	if key.Namespace != "" {
		gr.Resource = "resourceplacements"
	}
	return nil, apierrors.NewNotFound(gr, key.String())
}

// RegionAt is the lists of location the snapshot holds.
func (f *Snapshot) RegionAt(location string) (*Region, error) {
	for i := range f.Regions {
		if NormalizeRegion(f.Regions[i].Location) == NormalizeRegion(location) {
			return &f.Regions[i], nil
		}
	}
	return nil, &NotReadError{What: fmt.Sprintf("region %s (no member read ran there)", location)}
}

// StrategyOf is the update strategy name of fleet as the snapshot holds it.
func (f *Snapshot) StrategyOf(fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	for _, ff := range f.Fleets {
		if !strings.EqualFold(ff.ID, fleet.String()) {
			continue
		}
		if !ff.StrategiesRead {
			return nil, &NotReadError{What: "the update strategies of fleet " + ff.ID + ": " + ff.StrategiesErr}
		}
		for _, s := range ff.Strategies {
			if strings.EqualFold(s.Name, name) {
				out := s.Strategy
				return &out, nil
			}
		}
		return nil, ErrStrategyAbsent
	}
	return nil, &NotReadError{What: "fleet " + fleet.String() + " (add it to fleet_ids)"}
}
