package facts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
)

// Region are one region's lists as a plan read them; *Err says a read failed.
type Region struct {
	Location           string                                   `json:"location"`
	KubernetesVersions []*armcontainerservice.KubernetesVersion `json:"kubernetesVersions,omitempty"`
	VersionsErr        string                                   `json:"versionsErr,omitempty"`
	NodeImages         []aks.NodeImageVersion                   `json:"nodeImages,omitempty"`
	ImagesErr          string                                   `json:"imagesErr,omitempty"`
}

// NormalizeRegion compares locations as Azure does: case and spaces aside.
func NormalizeRegion(l string) string { return strings.ReplaceAll(strings.ToLower(l), " ", "") }

// Versions are the region's Kubernetes versions, or the error reading them gave.
func (r *Region) Versions() ([]*armcontainerservice.KubernetesVersion, error) {
	if r.VersionsErr != "" {
		return nil, errors.New(r.VersionsErr)
	}
	return r.KubernetesVersions, nil
}

// Images are the region's node images, or the error reading them gave.
func (r *Region) Images() ([]aks.NodeImageVersion, error) {
	if r.ImagesErr != "" {
		return nil, errors.New(r.ImagesErr)
	}
	return r.NodeImages, nil
}

// movedRegions says which versions and images each region gained or lost.
func movedRegions(planned, now []Region) []string {
	byLoc := map[string]Region{}
	for _, r := range now {
		byLoc[NormalizeRegion(r.Location)] = r
	}
	var out []string
	for _, b := range planned {
		a, ok := byLoc[NormalizeRegion(b.Location)]
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
