package emulator

import (
	"net/http"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

func (s *Server) registerVersionRoutes() {
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions", nil, s.listKubernetesVersions)
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/locations/{location}/nodeImageVersions", nil, s.listNodeImageVersions)
}

// nodeImageVersion is an entry of AKS's locations/nodeImageVersions
// (api-version 2025-07-02-preview, example NodeImageVersions_List.json).
type nodeImageVersion struct {
	FullName string `json:"fullName"`
	OS       string `json:"os"`
	SKU      string `json:"sku"`
	Version  string `json:"version"`
}

// listNodeImageVersions answers the latest version of each node image of a
// region at the simulated time (the fleet file's regions.<r>.nodeImages plus
// releases whose time has come), as AKS does: "Only returns the latest
// version of each node image". An image type "AKSUbuntu-2204gen2containerd"
// is os AKSUbuntu, sku 2204gen2containerd.
func (s *Server) listNodeImageVersions(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkSubscription(p); err != nil {
		return err
	}
	s.world.mu.Lock()
	images, ok := s.world.nodeImages(p["location"], s.world.clock.Now())
	regions := s.world.regionNames()
	s.world.mu.Unlock()
	if !ok {
		return armErrorf(http.StatusBadRequest, "LocationNotAvailableForResourceType",
			"The provided location '%s' is not available for resource type 'Microsoft.ContainerService/locations/nodeImageVersions'. List of available regions for the resource type is '%s'.",
			p["location"], strings.Join(regions, ","))
	}
	families := make([]string, 0, len(images))
	for f := range images {
		families = append(families, f)
	}
	sort.Strings(families)
	out := listResult[nodeImageVersion]{Value: []nodeImageVersion{}}
	for _, f := range families {
		vs := images[f]
		if len(vs) == 0 {
			continue
		}
		latest := vs[len(vs)-1] // sorted ascending
		osName, sku, _ := strings.Cut(f, "-")
		out.Value = append(out.Value, nodeImageVersion{FullName: f + "-" + latest, OS: osName, SKU: sku, Version: latest})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// listKubernetesVersions answers a region's versions at the simulated time
// (the fleet file's plus releases whose time has come) in AKS's shape: one
// entry per minor with its patch versions and their upgrades. A minor with
// both GA and preview patches gets two entries, one with isPreview, so a
// preview patch is never mistaken for GA.
func (s *Server) listKubernetesVersions(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.checkSubscription(p); err != nil {
		return err
	}
	s.world.mu.Lock()
	ga, preview, ok := s.world.kubernetesVersions(p["location"], s.world.clock.Now())
	regions := s.world.regionNames()
	s.world.mu.Unlock()
	if !ok {
		return armErrorf(http.StatusBadRequest, "LocationNotAvailableForResourceType",
			"The provided location '%s' is not available for resource type 'Microsoft.ContainerService/locations/kubernetesVersions'. List of available regions for the resource type is '%s'.",
			p["location"], strings.Join(regions, ","))
	}
	writeJSON(w, http.StatusOK, kubernetesVersionList(ga, preview))
	return nil
}

// kubernetesVersionList groups sorted GA and preview versions by minor.
// Upgrades of a patch are the later patches of its minor and the patches of
// the next minor; GA patches upgrade only to GA ones.
func kubernetesVersionList(ga, preview []string) armcontainerservice.KubernetesVersionListResult {
	all := append(append([]string{}, ga...), preview...)
	sortVersions(all)
	isPreview := map[string]bool{}
	for _, v := range preview {
		isPreview[v] = true
	}
	upgrades := func(v string) []*string {
		out := []*string{}
		pv := parseVersion(v)
		for _, u := range all {
			pu := parseVersion(u)
			if compareVersions(u, v) > 0 && pu[0] == pv[0] && pu[1] <= pv[1]+1 && (isPreview[v] || !isPreview[u]) {
				out = append(out, to.Ptr(u))
			}
		}
		return out
	}
	type key struct {
		minor   string
		preview bool
	}
	var order []key
	entries := map[key]*armcontainerservice.KubernetesVersion{}
	for _, v := range all {
		k := key{minorOf(v), isPreview[v]}
		e, ok := entries[k]
		if !ok {
			e = &armcontainerservice.KubernetesVersion{
				Version:       to.Ptr(k.minor),
				IsPreview:     to.Ptr(k.preview),
				IsDefault:     to.Ptr(false),
				PatchVersions: map[string]*armcontainerservice.KubernetesPatchVersion{},
				Capabilities: &armcontainerservice.KubernetesVersionCapabilities{
					SupportPlan: []*armcontainerservice.KubernetesSupportPlan{to.Ptr(armcontainerservice.KubernetesSupportPlanKubernetesOfficial)},
				},
			}
			entries[k] = e
			order = append(order, k)
		}
		e.PatchVersions[v] = &armcontainerservice.KubernetesPatchVersion{Upgrades: upgrades(v)}
	}
	// AKS's default is the GA minor below the newest GA minor, or the only one.
	var gaMinors []string
	for _, k := range order {
		if !k.preview {
			gaMinors = append(gaMinors, k.minor)
		}
	}
	if n := len(gaMinors); n > 0 {
		def := gaMinors[n-1]
		if n > 1 {
			def = gaMinors[n-2]
		}
		entries[key{def, false}].IsDefault = to.Ptr(true)
	}
	out := armcontainerservice.KubernetesVersionListResult{Values: []*armcontainerservice.KubernetesVersion{}}
	for _, k := range order {
		out.Values = append(out.Values, entries[k])
	}
	return out
}
