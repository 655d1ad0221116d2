package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
)

// RegionLists are what AKS offers per region: its Kubernetes versions and its node images (the
// latest of each type). *aks.Client reads them; a bundle pinned to facts answers from them.
type RegionLists interface {
	ListKubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error)
	ListNodeImageVersions(ctx context.Context, location string) ([]aks.NodeImageVersion, error)
}

// RegionFacts are one region's lists as a plan read them; *Err says a read failed.
type RegionFacts struct {
	Location           string                                   `json:"location"`
	KubernetesVersions []*armcontainerservice.KubernetesVersion `json:"kubernetesVersions,omitempty"`
	VersionsErr        string                                   `json:"versionsErr,omitempty"`
	NodeImages         []aks.NodeImageVersion                   `json:"nodeImages,omitempty"`
	ImagesErr          string                                   `json:"imagesErr,omitempty"`
}

// Regions reads what AKS offers per region: live, or from the facts a plan read.
func (c *Clients) Regions() (RegionLists, error) {
	if c.pinned != nil {
		return pinnedRegions{c.pinned}, nil
	}
	return c.AKS()
}

// readRegionFacts reads the lists of the regions the facts' members run in (a release between
// plan and apply changes what a channel resolves to and which images a run takes).
func (c *Clients) readRegionFacts(ctx context.Context, f *Facts) error {
	seen := map[string]bool{}
	var locations []string
	for _, ff := range f.Fleets {
		for _, m := range ff.Members {
			if m.Cluster == nil || m.Cluster.Location == nil {
				continue
			}
			if l := normalizeRegion(*m.Cluster.Location); !seen[l] {
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
		r := RegionFacts{Location: loc}
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

// normalizeRegion compares locations as Azure does: case and spaces aside.
func normalizeRegion(l string) string { return strings.ReplaceAll(strings.ToLower(l), " ", "") }

type pinnedRegions struct{ f *Facts }

func (p pinnedRegions) region(location string) (*RegionFacts, error) {
	for i := range p.f.Regions {
		if normalizeRegion(p.f.Regions[i].Location) == normalizeRegion(location) {
			return &p.f.Regions[i], nil
		}
	}
	return nil, &FactsNotReadError{What: fmt.Sprintf("region %s (no member read ran there)", location)}
}

func (p pinnedRegions) ListKubernetesVersions(_ context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error) {
	r, err := p.region(location)
	if err != nil {
		return nil, err
	}
	if r.VersionsErr != "" {
		return nil, errors.New(r.VersionsErr)
	}
	return r.KubernetesVersions, nil
}

func (p pinnedRegions) ListNodeImageVersions(_ context.Context, location string) ([]aks.NodeImageVersion, error) {
	r, err := p.region(location)
	if err != nil {
		return nil, err
	}
	if r.ImagesErr != "" {
		return nil, errors.New(r.ImagesErr)
	}
	return r.NodeImages, nil
}

// movedRegions says which versions and images each region gained or lost.
func movedRegions(planned, now []RegionFacts) []string {
	byLoc := map[string]RegionFacts{}
	for _, r := range now {
		byLoc[normalizeRegion(r.Location)] = r
	}
	var out []string
	for _, b := range planned {
		a, ok := byLoc[normalizeRegion(b.Location)]
		if !ok {
			continue
		}
		if d := setDiff(patchVersions(b.KubernetesVersions), patchVersions(a.KubernetesVersions)); d != "" {
			out = append(out, fmt.Sprintf("region %s: Kubernetes versions %s", b.Location, d))
		}
		if d := setDiff(imageNames(b.NodeImages), imageNames(a.NodeImages)); d != "" {
			out = append(out, fmt.Sprintf("region %s: node images %s", b.Location, d))
		}
	}
	return out
}

func patchVersions(vs []*armcontainerservice.KubernetesVersion) []string {
	var out []string
	for _, v := range vs {
		if v == nil {
			continue
		}
		for patch := range v.PatchVersions {
			out = append(out, patch)
		}
	}
	return out
}

func imageNames(is []aks.NodeImageVersion) []string {
	out := make([]string, len(is))
	for i, im := range is {
		out[i] = im.FullName
	}
	return out
}
