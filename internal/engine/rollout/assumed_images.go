package rollout

import (
	"slices"
	"sort"
)

// AssumeOlderImagesOffered adds to each region whose list was read the older
// versions of an image type that another region lists or a member elsewhere
// runs, and returns what it added.
//
// AKS's list holds only the latest version of each image type (Node Image
// Versions - List: "Only returns the latest version of each node image"), but
// Consistent picks "image versions that are currently available in all Azure
// regions where the clusters in this run are located"
// (concepts-update-orchestration.md): when regions' latest differ, the common
// version is an older one the faster regions do not list. Node images reach
// regions progressively and stay available after newer ones, so a region that
// lists 202512.02.0 is taken to offer a 202511.04.0 seen elsewhere. Previews
// built on an assumed version say so (TestRolloutFidelityRealPath measures it).
func AssumeOlderImagesOffered(regions map[string]Region, listed map[string]map[string][]string) map[string]map[string][]string {
	known := map[string][]string{} // image type → every version seen in any region
	for _, reg := range regions {
		for family, vs := range reg.NodeImages {
			for _, v := range vs {
				if !slices.Contains(known[family], v) {
					known[family] = append(known[family], v)
				}
			}
		}
	}
	for _, vs := range known {
		sort.Slice(vs, func(i, j int) bool { return CompareImageVersions(vs[i], vs[j]) < 0 })
	}
	assumed := map[string]map[string][]string{}
	for loc, byFamily := range listed {
		reg := regions[loc]
		for family, latest := range byFamily {
			newest := ""
			for _, v := range latest {
				if newest == "" || CompareImageVersions(v, newest) > 0 {
					newest = v
				}
			}
			for _, v := range known[family] {
				if CompareImageVersions(v, newest) >= 0 || slices.Contains(reg.NodeImages[family], v) {
					continue
				}
				reg.NodeImages[family] = append(reg.NodeImages[family], v)
				if assumed[loc] == nil {
					assumed[loc] = map[string][]string{}
				}
				assumed[loc][family] = append(assumed[loc][family], v)
			}
		}
	}
	return assumed
}
