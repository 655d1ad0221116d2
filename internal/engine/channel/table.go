package channel

import (
	"fmt"
	"slices"
	"sort"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// MinorVersion is one entry of AKS's version list for a location
// (managedClusters ListKubernetesVersions: KubernetesVersion): a minor
// version, whether it is in preview, and its patches.
type MinorVersion struct {
	// Minor has Patch 0.
	Minor Version
	// Preview: AKS marks the whole entry isPreview.
	Preview bool
	// Default: AKS creates clusters on this minor when no version is given.
	Default bool
	// SupportPlans lists KubernetesOfficial and/or AKSLongTermSupport.
	SupportPlans []armcontainerservice.KubernetesSupportPlan
	// Patches ascending.
	Patches []Version
}

// LongTermSupport reports whether AKS offers the minor under its LTS plan.
func (m MinorVersion) LongTermSupport() bool {
	for _, p := range m.SupportPlans {
		if p == armcontainerservice.KubernetesSupportPlanAKSLongTermSupport {
			return true
		}
	}
	return false
}

// VersionTable is what AKS offers in one location: the Kubernetes versions
// of ListKubernetesVersions and the node images by image type.
//
// The provider fills Minors with TableFromAKS and NodeImages from the agent
// pools' upgrade profiles (AddNodeImage of each latestNodeImageVersion); the
// emulator fills both from its fleet file at the simulated time.
type VersionTable struct {
	// Minors ascending; a GA entry before a preview entry of the same minor.
	Minors []MinorVersion
	// NodeImages by image type ("AKSUbuntu-2204gen2containerd", the prefix of a
	// pool's nodeImageVersion, one per OS SKU and generation) → versions
	// ("202511.04.0"); rollout.Region.NodeImages has the same shape.
	NodeImages map[string][]string
}

// TableFromAKS converts a location's ListKubernetesVersions values.
func TableFromAKS(values []*armcontainerservice.KubernetesVersion) (VersionTable, error) {
	var t VersionTable
	for _, kv := range values {
		if kv == nil {
			continue
		}
		if kv.Version == nil {
			return VersionTable{}, fmt.Errorf("AKS listed a Kubernetes version entry without its version")
		}
		minor, err := ParseMinor(*kv.Version)
		if err != nil {
			return VersionTable{}, err
		}
		m := MinorVersion{Minor: minor, Preview: deref(kv.IsPreview), Default: deref(kv.IsDefault)}
		if kv.Capabilities != nil {
			for _, p := range kv.Capabilities.SupportPlan {
				if p != nil {
					m.SupportPlans = append(m.SupportPlans, *p)
				}
			}
		}
		for s := range kv.PatchVersions {
			v, err := ParseVersion(s)
			if err != nil {
				return VersionTable{}, err
			}
			if v.MinorOnly() != minor {
				return VersionTable{}, fmt.Errorf("AKS listed patch %s under minor %s", s, minor.MinorString())
			}
			m.Patches = append(m.Patches, v)
		}
		sortVersions(m.Patches)
		t.Minors = append(t.Minors, m)
	}
	t.sort()
	return t, nil
}

// AddNodeImage records a full node image version
// ("AKSUbuntu-2204gen2containerd-202511.04.0") as offered.
func (t *VersionTable) AddNodeImage(full string) {
	family, v := rollout.SplitNodeImage(full)
	if family == "" {
		return
	}
	if t.NodeImages == nil {
		t.NodeImages = map[string][]string{}
	}
	for _, have := range t.NodeImages[family] {
		if have == v {
			return
		}
	}
	t.NodeImages[family] = append(t.NodeImages[family], v)
}

// Union merges tables (several locations): a version is offered if any
// table offers it, as GA if any offers it as GA.
//
// Choice: the docs do not say against which region's list Fleet resolves a
// channel for a multi-region fleet. A profile preview resolves over the union
// of its members' regions, so a version released in any of them is the
// target; MemberActions then holds back members whose own region lacks it
// (concepts-update-orchestration.md "Pending status": "Target Kubernetes ...
// version isn't yet available in the cluster's Azure region").
func Union(tables ...VersionTable) VersionTable {
	type key struct {
		minor   Version
		preview bool
	}
	index := map[key]int{}
	var out VersionTable
	for _, t := range tables {
		for _, m := range t.Minors {
			k := key{m.Minor, m.Preview}
			i, ok := index[k]
			if !ok {
				i = len(out.Minors)
				index[k] = i
				out.Minors = append(out.Minors, MinorVersion{Minor: m.Minor, Preview: m.Preview})
			}
			e := &out.Minors[i]
			e.Default = e.Default || m.Default
			e.SupportPlans = unionPlans(e.SupportPlans, m.SupportPlans)
			e.Patches = unionVersions(e.Patches, m.Patches)
		}
		for family, vs := range t.NodeImages {
			for _, v := range vs {
				out.AddNodeImage(rollout.JoinNodeImage(family, v))
			}
		}
	}
	out.sort()
	return out
}

func (t *VersionTable) sort() {
	sort.SliceStable(t.Minors, func(i, j int) bool {
		if c := t.Minors[i].Minor.Compare(t.Minors[j].Minor); c != 0 {
			return c < 0
		}
		return !t.Minors[i].Preview && t.Minors[j].Preview
	})
}

// newestGA is N, the newest GA minor version.
func (t VersionTable) newestGA() (Version, bool) {
	for i := len(t.Minors) - 1; i >= 0; i-- {
		if m := t.Minors[i]; !m.Preview && len(m.Patches) > 0 {
			return m.Minor, true
		}
	}
	return Version{}, false
}

// SupportWindow is AKS's community support window: the newest GA minor N and
// the two before it (supported-kubernetes-versions.md: "AKS supports three GA
// minor versions of Kubernetes: The latest GA version (N). The two previous
// minor versions (N-1 and N-2)."). N-3 is platform support only, outside it.
// ok is false when the table has no GA version.
//
// Choice: the window counts minor numbers from N, whether or not the table
// lists each minor.
func (t VersionTable) SupportWindow() (oldest, newest Version, ok bool) {
	n, ok := t.newestGA()
	if !ok {
		return Version{}, Version{}, false
	}
	return minorAt(n.MinorIndex() - 2), n, true
}

// SupportedMinors lists the window's minors, oldest first.
func (t VersionTable) SupportedMinors() []Version {
	oldest, newest, ok := t.SupportWindow()
	if !ok {
		return nil
	}
	var out []Version
	for i := oldest.MinorIndex(); i <= newest.MinorIndex(); i++ {
		out = append(out, minorAt(i))
	}
	return out
}

// DefaultVersion is what AKS gives a cluster created without a version: the
// latest GA patch of the minor it marks default (auto-upgrade-cluster.md:
// "When you create a cluster without designating a patch, the cluster runs
// the minor version's latest GA patch").
func (t VersionTable) DefaultVersion() (Version, bool) {
	for _, m := range t.Minors {
		if m.Default && !m.Preview && len(m.Patches) > 0 {
			return m.Patches[len(m.Patches)-1], true
		}
	}
	return Version{}, false
}

// inWindow reports whether v's minor is in the support window.
func (t VersionTable) inWindow(v Version) bool {
	oldest, newest, ok := t.SupportWindow()
	return ok && v.MinorIndex() >= oldest.MinorIndex() && v.MinorIndex() <= newest.MinorIndex()
}

// ga returns the GA entry of a minor.
func (t VersionTable) ga(minor Version) (MinorVersion, bool) {
	for _, m := range t.Minors {
		if !m.Preview && m.Minor == minor.MinorOnly() && len(m.Patches) > 0 {
			return m, true
		}
	}
	return MinorVersion{}, false
}

// offers reports whether v is listed, and whether only as a preview.
func (t VersionTable) offers(v Version) (listed, preview bool) {
	preview = true
	for _, m := range t.Minors {
		for _, p := range m.Patches {
			if p == v {
				listed, preview = true, preview && m.Preview
			}
		}
	}
	return listed, listed && preview
}

// hasPreview reports whether the table lists a preview of the minor.
func (t VersionTable) hasPreview(minor Version) bool {
	for _, m := range t.Minors {
		if m.Preview && m.Minor == minor.MinorOnly() && len(m.Patches) > 0 {
			return true
		}
	}
	return false
}

// LatestNodeImages is the newest version of each image type.
func (t VersionTable) LatestNodeImages() map[string]string {
	out := map[string]string{}
	for family, vs := range t.NodeImages {
		for _, v := range vs {
			if cur, ok := out[family]; !ok || rollout.CompareImageVersions(v, cur) > 0 {
				out[family] = v
			}
		}
	}
	return out
}

func sortVersions(vs []Version) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].Compare(vs[j]) < 0 })
}

func unionVersions(a, b []Version) []Version {
	seen := map[Version]bool{}
	var out []Version
	for _, v := range append(append([]Version{}, a...), b...) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sortVersions(out)
	return out
}

func unionPlans(a, b []armcontainerservice.KubernetesSupportPlan) []armcontainerservice.KubernetesSupportPlan {
	out := slices.Clone(a)
	for _, p := range b {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
