package view

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// RolloutFleet is what an update-run or update-strategy preview needs: the
// fleet's members as rollout.Member (from the member inventory) and what AKS
// offers in their regions.
type RolloutFleet struct {
	Members []rollout.Member
	Regions map[string]rollout.Region
	// Unreadable are the members left out because their managed cluster could not be read, in
	// the inventory's order.
	Unreadable []UnreadableMember
	// NodeImageWarning, when set, says in which regions AKS's node image
	// list could not be read, so that their node images are only those the
	// members run (one warning for a whole preview).
	NodeImageWarning string
	// AssumedNodeImages are the versions a region is assumed to offer though
	// its AKS list does not show them (location → image type → versions): those
	// a member there runs, and those assumeOlderImagesOffered adds.
	AssumedNodeImages map[string]map[string][]string
}

// Assumed reports whether the full node image version is offered in location
// only by assumption.
func (f RolloutFleet) Assumed(location, fullImage string) bool {
	family, version := rollout.SplitNodeImage(fullImage)
	return slices.Contains(f.AssumedNodeImages[location][family], version)
}

// UnreadableMember is a member whose managed cluster could not be read.
type UnreadableMember struct {
	Name string
	Err  error
}

// RolloutFleet reads a fleet's members (the inventory, once per provider
// process) and, per region of their clusters, AKS's Kubernetes versions and
// node images.
//
// Node images per region: the latest version of each image type from AKS's
// nodeImageVersions list of the region (RegionNodeImages: read once per
// location and process; it may name images no member runs yet, which is what
// Latest, Consistent and the NodeImage channel pick), plus the images the
// members' pools run now, plus the older versions assumeOlderImagesOffered
// takes a region to keep (AssumedNodeImages, which previews warn about). Where
// the list cannot be read the region offers only its members' images, and
// NodeImageWarning says so. Region.Releases stay empty:
// Azure does not announce releases. Member.Upgrade stays zero (an instant,
// successful upgrade): the preview cannot know a future failure.
//
// How far previews built on these facts are from what then executes is
// measured by TestRolloutFidelityRealPath (internal/provider), which takes
// the preview through this function over HTTP and classifies each difference
// by what these facts lack (hidden images, releases, durations, failures); the emulator's
// TestPreviewMatchesExecution instead feeds rollout.Plan the emulator's own
// inputs (durations, failures, every image, releases) and so compares the
// engine with itself, not these facts with the service.
func ReadRolloutFleet(ctx context.Context, v Fleet, fleet fleetapi.FleetID) (RolloutFleet, error) {
	return ReadRolloutFleetFor(ctx, v, fleet, nil)
}

// RolloutFleetFor is RolloutFleet with the maintenance windows of only the
// members in group (nil: all), e.g. rollout.Reaches of a run's strategy: the
// others' windows are not read (MembersWithWindowsOf).
func ReadRolloutFleetFor(ctx context.Context, v Fleet, fleet fleetapi.FleetID, inGroup func(group string) bool) (RolloutFleet, error) {
	var need func(facts.Member) bool
	if inGroup != nil {
		need = func(m facts.Member) bool { return inGroup(m.Group) }
	}
	members, err := v.MembersWithWindowsOf(ctx, fleet, need)
	if err != nil {
		return RolloutFleet{}, err
	}
	out := RolloutFleet{Regions: map[string]rollout.Region{}}
	locations := map[string]bool{}
	for _, m := range members {
		rm, ok := RolloutMember(m)
		if !ok {
			out.Unreadable = append(out.Unreadable, UnreadableMember{Name: m.Name, Err: m.ClusterErr})
			continue
		}
		out.Members = append(out.Members, rm)
		locations[rm.Location] = true
	}
	if len(locations) == 0 {
		return out, nil
	}
	names := make([]string, 0, len(locations))
	for l := range locations {
		names = append(names, l)
	}
	sort.Strings(names)
	for _, loc := range names {
		values, err := v.KubernetesVersions(ctx, loc)
		if err != nil {
			return RolloutFleet{}, fmt.Errorf("list the Kubernetes versions of region %s: %w", loc, err)
		}
		reg := rollout.Region{NodeImages: map[string][]string{}}
		for _, kv := range values {
			if kv == nil {
				continue
			}
			for patch := range kv.PatchVersions {
				reg.KubernetesVersions = append(reg.KubernetesVersions, patch)
			}
		}
		sort.Strings(reg.KubernetesVersions)
		out.Regions[loc] = reg
	}
	images := RegionNodeImages(ctx, v, names)
	out.NodeImageWarning = images.Warning()
	for loc, byFamily := range images.Images {
		reg := out.Regions[loc]
		for family, vs := range byFamily {
			reg.NodeImages[family] = append(reg.NodeImages[family], vs...)
		}
	}
	// A member's image that its region's list, once read, does not show is offered only by
	// assumption as well: the region may have dropped it since the member took it.
	runOnly := map[string]map[string][]string{}
	for _, m := range out.Members {
		reg := out.Regions[m.Location]
		for _, p := range m.NodePools {
			family, v := rollout.SplitNodeImage(p.NodeImageVersion)
			if family == "" || slices.Contains(reg.NodeImages[family], v) {
				continue
			}
			reg.NodeImages[family] = append(reg.NodeImages[family], v)
			if _, read := images.Images[m.Location]; read {
				if runOnly[m.Location] == nil {
					runOnly[m.Location] = map[string][]string{}
				}
				runOnly[m.Location][family] = append(runOnly[m.Location][family], v)
			}
		}
	}
	out.AssumedNodeImages = rollout.AssumeOlderImagesOffered(out.Regions, images.Images)
	for loc, byFamily := range runOnly {
		if out.AssumedNodeImages[loc] == nil {
			out.AssumedNodeImages[loc] = map[string][]string{}
		}
		for family, vs := range byFamily {
			out.AssumedNodeImages[loc][family] = append(out.AssumedNodeImages[loc][family], vs...)
		}
	}
	return out, nil
}

// NodeImages are the node images AKS lists for some locations.
type NodeImages struct {
	// Images by location: image type ("AKSUbuntu-2204gen2containerd") →
	// versions ("202512.01.0"), the latest of each type.
	Images map[string]map[string][]string
	// Failed are the locations whose list could not be read, sorted, and Err
	// the first of their errors.
	Failed []string
	Err    error
}

// RegionNodeImages reads AKS's nodeImageVersions list of each location
// (aks.Client caches it per location and process, failures too).
func RegionNodeImages(ctx context.Context, ac RegionLists, locations []string) NodeImages {
	out := NodeImages{Images: map[string]map[string][]string{}}
	sorted := append([]string(nil), locations...)
	sort.Strings(sorted)
	for _, loc := range sorted {
		list, err := ac.NodeImageVersions(ctx, loc)
		if err != nil {
			out.Failed = append(out.Failed, loc)
			if out.Err == nil {
				out.Err = err
			}
			continue
		}
		byFamily := map[string][]string{}
		for _, v := range list {
			family, version := rollout.SplitNodeImage(v.FullName)
			if family == "" || version == "" || slices.Contains(byFamily[family], version) {
				continue
			}
			byFamily[family] = append(byFamily[family], version)
		}
		out.Images[loc] = byFamily
	}
	return out
}

// Warning is the one warning a preview gives when some lists could not be
// read; "" when all were.
func (n NodeImages) Warning() string {
	if len(n.Failed) == 0 {
		return ""
	}
	return fmt.Sprintf("AKS's node image list (locations/nodeImageVersions, api-version %s) could not be read for %s: %v. "+
		"There the preview knows only the node images the members' pools run now, so a newer image AKS offers (which Latest, "+
		"Consistent and the NodeImage channel would pick) is not shown.",
		aks.NodeImageVersionsAPIVersion, strings.Join(n.Failed, ", "), n.Err)
}

// RolloutMember converts an inventory member; false when its cluster is unreadable.
func RolloutMember(m facts.Member) (rollout.Member, bool) {
	mc := m.Cluster
	if m.ClusterErr != nil || mc == nil || mc.Properties == nil {
		return rollout.Member{}, false
	}
	rm := rollout.Member{
		Name: m.Name, Group: m.Group, Labels: m.Labels, Location: deref(mc.Location),
		KubernetesVersion: deref(mc.Properties.CurrentKubernetesVersion),
	}
	if rm.KubernetesVersion == "" {
		rm.KubernetesVersion = deref(mc.Properties.KubernetesVersion)
	}
	for _, p := range mc.Properties.AgentPoolProfiles {
		if p == nil {
			continue
		}
		np := rollout.NodePool{Name: deref(p.Name), NodeImageVersion: deref(p.NodeImageVersion), KubernetesVersion: deref(p.CurrentOrchestratorVersion)}
		if p.OSSKU != nil {
			np.OSSKU = string(*p.OSSKU)
		}
		rm.NodePools = append(rm.NodePools, np)
	}
	rm.AutoUpgradeWindow = m.Windows[facts.AutoUpgradeSchedule]
	rm.NodeOSUpgradeWindow = m.Windows[facts.NodeOSUpgradeSchedule]
	return rm, true
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
