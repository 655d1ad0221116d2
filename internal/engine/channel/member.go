package channel

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// Action is what an auto-upgrade run would do with a member (SPEC §6b).
type Action string

const (
	// Upgrade: the run moves the member to the target.
	Upgrade Action = "upgrade"
	// None: the member is already at the target.
	None Action = "none"
	// Skip: the channel leaves the member alone; Reason says why.
	Skip Action = "skip"
)

// MemberAction is one member's line of a profile preview.
type MemberAction struct {
	Name                     string
	CurrentKubernetesVersion string
	// TargetKubernetesVersion is the channel's target (the current version for NodeImage).
	TargetKubernetesVersion string
	// CurrentNodeImages and TargetNodeImages map pool name → full node image
	// version; NodeImage channel only.
	CurrentNodeImages map[string]string
	TargetNodeImages  map[string]string
	Action            Action
	Reason            string
}

// MemberActions says, for each member in order, what a run of target t would
// do with it. regions holds each location's table (keys compared ignoring
// case and spaces, as Azure compares location names).
//
// Choice: Kubernetes channels compare the control plane's version only; the
// node images a Full run also moves follow the profile's node image
// selection, which the update run's own preview (rollout) shows.
func MemberActions(t Target, members []rollout.Member, regions map[string]VersionTable) []MemberAction {
	byLoc := make(map[string]VersionTable, len(regions))
	for loc, tab := range regions {
		byLoc[normalizeLocation(loc)] = tab
	}
	out := make([]MemberAction, 0, len(members))
	for _, m := range members {
		tab, ok := byLoc[normalizeLocation(m.Location)]
		var a MemberAction
		if t.Channel == NodeImage {
			a = nodeImageAction(t, m, tab, ok)
		} else {
			a = kubernetesAction(t, m, tab, ok)
		}
		if a.Action == Upgrade {
			a.Reason += "; " + windowNote(t.Channel, m)
		}
		out = append(out, a)
	}
	return out
}

func kubernetesAction(t Target, m rollout.Member, tab VersionTable, haveRegion bool) MemberAction {
	a := MemberAction{Name: m.Name, CurrentKubernetesVersion: m.KubernetesVersion, TargetKubernetesVersion: t.KubernetesVersion, Action: Skip}
	cur, err := ParseVersion(m.KubernetesVersion)
	if err != nil {
		a.Reason = "current version: " + err.Error()
		return a
	}
	tgt, err := ParseVersion(t.KubernetesVersion)
	if err != nil {
		a.Reason = "target version: " + err.Error()
		return a
	}
	switch c := cur.Compare(tgt); {
	case c == 0:
		a.Action, a.Reason = None, fmt.Sprintf("already at %s, the %s channel's target", tgt, t.Channel)
		return a
	case c > 0:
		// supported-kubernetes-versions.md: "Downgrades or rollback to an
		// unsupported version aren't supported."
		a.Reason = fmt.Sprintf("%s%s is newer than the %s channel's target %s: AKS does not downgrade", cur, previewNote(tab, cur), t.Channel, tgt)
		return a
	}
	if !haveRegion {
		a.Reason = fmt.Sprintf("no AKS version list for region %s", m.Location)
		return a
	}
	if why := unsupported(tab, cur, m.LongTermSupport); why != "" {
		a.Reason = why
		return a
	}
	// concepts-update-orchestration.md "Minor version skipping behavior":
	// "Auto-upgrade doesn't move clusters between minor Kubernetes versions
	// when there's more than one minor Kubernetes version difference".
	// Choice: this holds for LTS clusters too; the Fleet docs make no exception
	// (AKS lets an LTS cluster skip minors only in a manual upgrade).
	if n := cur.MinorsBehind(tgt); n > 1 {
		a.Reason = fmt.Sprintf("%s is %d minor versions behind the target %s: auto-upgrade does not move a cluster across more than one minor version; bring it to %s with an update run first",
			cur, n, tgt, minorAt(tgt.MinorIndex()-1).MinorString())
		return a
	}
	// update-automation.md: "ensure that the clusters in the generated update
	// run are all enabled with LTS. Non-LTS clusters cause the update run to
	// fail when the first non-LTS cluster is encountered."
	if t.LongTermSupport && !m.LongTermSupport {
		a.Reason = "not on the AKS long-term support plan: a run of a long-term-support profile fails at the first such cluster; enable LTS on it or leave it out of the profile's strategy"
		return a
	}
	// concepts-update-orchestration.md "Pending status": the target "isn't yet
	// available in the cluster's Azure region" holds the member Pending.
	if !tabHasGA(tab, tgt) {
		a.Reason = fmt.Sprintf("%s is not yet generally available in region %s%s: a run holds this member Pending until it is", tgt, m.Location, onlyPreviewNote(tab, tgt))
		return a
	}
	a.Action, a.Reason = Upgrade, fmt.Sprintf("%s → %s", cur, tgt)
	return a
}

func nodeImageAction(t Target, m rollout.Member, tab VersionTable, haveRegion bool) MemberAction {
	a := MemberAction{Name: m.Name, CurrentKubernetesVersion: m.KubernetesVersion, TargetKubernetesVersion: m.KubernetesVersion,
		CurrentNodeImages: map[string]string{}, TargetNodeImages: map[string]string{}, Action: Skip}
	for _, p := range m.NodePools {
		a.CurrentNodeImages[p.Name] = p.NodeImageVersion
		a.TargetNodeImages[p.Name] = p.NodeImageVersion
	}
	if !haveRegion {
		a.Reason = fmt.Sprintf("no AKS version list for region %s", m.Location)
		return a
	}
	// auto-upgrade-cluster.md: "Autoupgrade requires the cluster's Kubernetes
	// version to be within the AKS support window, even if using the
	// node-image channel"; concepts-update-orchestration.md NodeImage: "so long
	// as the minor Kubernetes version is still supported".
	if cur, err := ParseVersion(m.KubernetesVersion); err != nil {
		a.Reason = "current version: " + err.Error()
		return a
	} else if why := unsupported(tab, cur, m.LongTermSupport); why != "" {
		a.Reason = why
		return a
	}
	// "Nodes on different operating systems are updated in accordance with the
	// node image versions aligned to those operating systems": each pool takes
	// the newest image of its type in the member's region (Latest), or the
	// run's one version of its type (Consistent, SelectNodeImages).
	want := tab.LatestNodeImages()
	where := "in region " + m.Location
	if t.Selection == ConsistentImages {
		want, where = t.NodeImages, "common to the run's regions (Consistent)"
		for _, p := range m.NodePools {
			family, _ := rollout.SplitNodeImage(p.NodeImageVersion)
			if slices.Contains(t.NoConsistentImage, family) {
				// concepts-update-orchestration.md "Skipped status": "When consistent node image is selected
				// and it's not possible to find the target image version for one of the node pools".
				a.Reason = fmt.Sprintf("no consistent node image version for node pool %s (image type %s): the regions of the run's members share none, so a run skips this member", p.Name, family)
				return a
			}
		}
	}
	var moves, unknown []string
	for _, p := range m.NodePools {
		family, cur := rollout.SplitNodeImage(p.NodeImageVersion)
		want, ok := want[family]
		if family == "" || !ok {
			unknown = append(unknown, fmt.Sprintf("%s (%s)", p.Name, p.NodeImageVersion))
			continue
		}
		// Choice: a pool already newer than the region's newest keeps its image.
		if rollout.CompareImageVersions(want, cur) > 0 {
			a.TargetNodeImages[p.Name] = rollout.JoinNodeImage(family, want)
			moves = append(moves, fmt.Sprintf("%s %s → %s", p.Name, cur, want))
		}
	}
	sort.Strings(moves)
	switch {
	case len(moves) > 0:
		a.Action, a.Reason = Upgrade, "node images "+strings.Join(moves, ", ")
	case len(unknown) > 0:
		a.Reason = fmt.Sprintf("no node image versions known in region %s for node pools %s", m.Location, strings.Join(unknown, ", "))
	default:
		a.Action, a.Reason = None, "node images already the newest "+where
	}
	return a
}

// unsupported says why a cluster on cur is outside what auto-upgrade
// serves, or "". concepts-update-orchestration.md: "Auto-upgrade requires the
// cluster's Kubernetes version to be within the AKS support window". An LTS
// cluster is supported on a minor AKS offers under LTS (long-term-support.md).
//
// Choice: a cluster on a minor newer than N (a preview) is not "outside" the
// window; the Kubernetes channels leave it alone anyway (no downgrade).
func unsupported(tab VersionTable, cur Version, lts bool) string {
	oldest, newest, ok := tab.SupportWindow()
	if !ok {
		return "AKS offers no generally available version in the member's region"
	}
	if cur.MinorIndex() >= oldest.MinorIndex() {
		return ""
	}
	if m, ok := tab.ga(cur); ok && lts && m.LongTermSupport() {
		return ""
	}
	why := fmt.Sprintf("%s is outside the AKS support window (%s to %s): auto-upgrade requires a supported version", cur, oldest.MinorString(), newest.MinorString())
	if lts {
		why += ", and AKS does not offer " + cur.MinorString() + " under long-term support"
	}
	return why
}

func tabHasGA(tab VersionTable, v Version) bool {
	m, ok := tab.ga(v)
	if !ok {
		return false
	}
	for _, p := range m.Patches {
		if p == v {
			return true
		}
	}
	return false
}

func previewNote(tab VersionTable, v Version) string {
	if _, preview := tab.offers(v); preview {
		return " (a preview version)"
	}
	return ""
}

func onlyPreviewNote(tab VersionTable, v Version) string {
	if _, preview := tab.offers(v); preview {
		return " (only as a preview)"
	}
	return ""
}

// windowNote: Kubernetes channels run Full upgrades, which honor
// aksManagedAutoUpgradeSchedule; NodeImage runs honor
// aksManagedNodeOSUpgradeSchedule (concepts-update-orchestration.md "Planned
// maintenance windows"); "If a cluster has no defined planned maintenance
// window, it's upgraded immediately when the update run reaches the cluster"
// (auto-upgrade profiles overview).
func windowNote(c Channel, m rollout.Member) string {
	name, w := "aksManagedAutoUpgradeSchedule", m.AutoUpgradeWindow
	if c == NodeImage {
		name, w = "aksManagedNodeOSUpgradeSchedule", m.NodeOSUpgradeWindow
	}
	if w == nil {
		return "no " + name + " maintenance window: upgraded as soon as the run reaches it"
	}
	return "waits for its " + name + " maintenance window"
}

func normalizeLocation(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}
