package rollout

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kubeversion"
)

// parseKubeVersion reads an update's or a member's Kubernetes version: "major.minor.patch", or
// "major.minor" (kubeversion, shared with the channel rules).
func parseKubeVersion(s string) (kubeversion.Version, error) { return kubeversion.ParseAny(s) }

// minorsBetween is the number of minor versions from a to b (b newer), across majors as 100 minors.
func minorsBetween(a, b kubeversion.Version) int { return a.MinorsBehind(b) }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SplitNodeImage splits a full node image version into its image type and version:
// "AKSUbuntu-2204gen2containerd-202510.01.0" → ("AKSUbuntu-2204gen2containerd", "202510.01.0").
// fleets.json NodeImageVersion: "The image version to upgrade the nodes to (e.g., 'AKSUbuntu-1804gen2containerd-2022.12.13')";
// NodeImageSelection.customNodeImageVersions groups versions by "node image family".
func SplitNodeImage(full string) (family, version string) {
	i := strings.LastIndex(full, "-")
	if i <= 0 || i == len(full)-1 {
		return "", full
	}
	return full[:i], full[i+1:]
}

// JoinNodeImage is the inverse of SplitNodeImage.
func JoinNodeImage(family, version string) string { return family + "-" + version }

// CompareImageVersions compares node image versions ("202510.01.0", "20348.2582.240716")
// numerically by dot-separated parts, falling back to string order for non-numeric parts.
func CompareImageVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		if i >= len(pa) {
			return -1
		}
		if i >= len(pb) {
			return 1
		}
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			if c := cmpInt(na, nb); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return 0
}

// newestImage returns the newest version in vs ("" if empty).
func newestImage(vs []string) string {
	best := ""
	for _, v := range vs {
		if best == "" || CompareImageVersions(v, best) > 0 {
			best = v
		}
	}
	return best
}

// kubernetesAvailableFrom is when version v becomes available in r: the zero time if it is
// offered already, a release time if it is announced, ok=false if never.
func (r Region) kubernetesAvailableFrom(v string) (time.Time, bool) {
	for _, k := range r.KubernetesVersions {
		if k == v {
			return time.Time{}, true
		}
	}
	var at time.Time
	found := false
	for _, rel := range r.Releases {
		if rel.KubernetesVersion == v && (!found || rel.At.Before(at)) {
			at, found = rel.At, true
		}
	}
	return at, found
}

// nodeImageAvailableFrom is kubernetesAvailableFrom for a full node image version.
func (r Region) nodeImageAvailableFrom(full string) (time.Time, bool) {
	family, version := SplitNodeImage(full)
	for _, v := range r.NodeImages[family] {
		if v == version {
			return time.Time{}, true
		}
	}
	var at time.Time
	found := false
	for _, rel := range r.Releases {
		if rel.NodeImageVersion == full && (!found || rel.At.Before(at)) {
			at, found = rel.At, true
		}
	}
	return at, found
}

// imagesAt lists the versions of an image type available in r at t.
func (r Region) imagesAt(family string, t time.Time) []string {
	out := append([]string(nil), r.NodeImages[family]...)
	for _, rel := range r.Releases {
		if rel.NodeImageVersion == "" || rel.At.After(t) {
			continue
		}
		if f, v := SplitNodeImage(rel.NodeImageVersion); f == family {
			out = append(out, v)
		}
	}
	return out
}

func availableAt(from time.Time, ok bool, t time.Time) bool { return ok && !from.After(t) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
