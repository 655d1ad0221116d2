package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

// Action is what an update run does with a member when it reaches it.
type Action string

const (
	// ActionUpgrade: the member's upgrade starts.
	ActionUpgrade Action = "upgrade"
	// ActionSkip: the member is Skipped with a reason (already at target, no consistent image, ...).
	ActionSkip Action = "skip"
	// ActionPending: the member goes Pending (window closed, version not yet in its region).
	ActionPending Action = "pending"
	// ActionFail: AKS rejects the upgrade, so the member Fails (and, fail-fast, the run).
	ActionFail Action = "fail"
)

// Target is what a member is upgraded to.
type Target struct {
	// KubernetesVersion is the control plane's target ("" for NodeImageOnly).
	KubernetesVersion string
	// NodeImages maps node pool name → full target node image version (pools whose image
	// changes or stays, for Full and NodeImageOnly; empty for ControlPlaneOnly).
	NodeImages map[string]string
}

// Decision is the outcome of reaching a member at time t.
type Decision struct {
	Action Action
	Reason string
	// Window is the state of the maintenance window the upgrade type honors, at t.
	Window maintenance.WindowState
	// WindowOpensAt is when that window opened (Open) or opens next (OpensSoon, Closed).
	WindowOpensAt time.Time
	// Target is what the member would be upgraded to (current versions where nothing changes).
	Target Target
	// EligibleFrom (Pending only) is the earliest time the reasons for Pending can clear under
	// the same facts; EligibleKnown is false when they never clear (no release announced).
	EligibleFrom  time.Time
	EligibleKnown bool
}

// WindowFor returns the maintenance window an upgrade type honors.
// concepts-update-orchestration.md "Planned maintenance windows": Kubernetes Control Plane and
// Kubernetes + Node Image honor AKSManagedAutoUpgradeSchedule; Node Image Only honors
// AKSManagedNodeOSAutoUpgradeSchedule.
func WindowFor(m Member, t UpgradeType) *armcontainerservice.MaintenanceWindow {
	if t == NodeImageOnly {
		return m.NodeOSUpgradeWindow
	}
	return m.AutoUpgradeWindow
}

func windowName(t UpgradeType) string {
	if t == NodeImageOnly {
		return "aksManagedNodeOSUpgradeSchedule"
	}
	return "aksManagedAutoUpgradeSchedule"
}

// maxControlPlaneSkew: upgrade-aks-control-plane.md "Starting with Kubernetes 1.28, the control
// plane can be up to three minor versions ahead of node pools.".
const maxControlPlaneSkew = 3

// Decide says what an update run does with member m when it reaches it at t.
// selected is the run's Consistent image set (image type → version); regions the AKS offerings.
//
// The checks run in this order, each citing its source:
//  1. Skipped: no Consistent image for a pool, or already at target (concepts-update-orchestration.md "Skipped status").
//  2. Pending: maintenance window closed, target version not yet in the region ("Pending status").
//  3. Failed: AKS rejects the upgrade path (skipping a minor version, a downgrade, control-plane skew).
//  4. Otherwise the upgrade starts.
//
// Choice: the docs do not order these checks; a skip needs no AKS call, the run waits for the
// window before calling AKS, and AKS validates the upgrade when it is called — hence 1, 2, 3.
func Decide(m Member, u Update, selected map[string]string, regions map[string]Region, t time.Time) Decision {
	d := Decision{}
	win := WindowFor(m, u.Upgrade)
	d.Window, d.WindowOpensAt = maintenance.State(win, t)
	region, haveRegion := regions[m.Location]

	// Targets.
	d.Target.KubernetesVersion = ""
	if u.Upgrade != NodeImageOnly {
		d.Target.KubernetesVersion = u.KubernetesVersion
	}
	var pendingImages []string // images the member needs that its region lacks (Latest/Custom)
	var eligible []time.Time
	neverEligible := false
	if u.Upgrade != ControlPlaneOnly {
		d.Target.NodeImages = map[string]string{}
		custom := map[string]string{}
		for _, v := range u.CustomNodeImageVersions {
			f, ver := SplitNodeImage(v)
			custom[f] = ver
		}
		for _, p := range m.NodePools {
			family, current := SplitNodeImage(p.NodeImageVersion)
			if family == "" {
				d.Target.NodeImages[p.Name] = p.NodeImageVersion
				continue
			}
			var want string
			switch selectionOf(u) {
			case Latest:
				// concepts-update-orchestration.md: "Latest: Use the latest node images available in the
				// Azure region of each cluster when the upgrade of that cluster starts."
				want = newestImage(region.imagesAt(family, t))
				if want == "" {
					pendingImages = append(pendingImages, fmt.Sprintf("no %s node image is available in region %s", family, m.Location))
					neverEligible = true
					want = current
				}
			case Consistent:
				// concepts-update-orchestration.md "Skipped status": "When consistent node image is selected and
				// it's not possible to find the target image version for one of the node pools."
				v, ok := selected[family]
				if !ok {
					d.Action = ActionSkip
					d.Reason = fmt.Sprintf("no consistent node image version for node pool %s (image type %s)", p.Name, family)
					d.Target.NodeImages[p.Name] = p.NodeImageVersion
					return d
				}
				want = v
			case Custom:
				// NodeImageSelection.customNodeImageVersions: "If the nodes belong to a family without a
				// matching image version in this field, they are not upgraded."
				v, ok := custom[family]
				if !ok {
					want = current
					break
				}
				want = v
				from, ok := region.nodeImageAvailableFrom(JoinNodeImage(family, v))
				if !availableAt(from, ok, t) {
					pendingImages = append(pendingImages, fmt.Sprintf("node image %s is not yet available in region %s", JoinNodeImage(family, v), m.Location))
					if ok {
						eligible = append(eligible, from)
					} else {
						neverEligible = true
					}
				}
			}
			// Choice: a pool already on a newer image than the selection keeps it (never a node image downgrade).
			if CompareImageVersions(want, current) < 0 {
				want = current
			}
			d.Target.NodeImages[p.Name] = JoinNodeImage(family, want)
		}
	}

	// 1a. Already at target Kubernetes version. concepts-update-orchestration.md "Skipped status" lists
	// this as a reason of its own: "The member cluster is already on the target Kubernetes version (if
	// the update run mode is Full or ControlPlaneOnly)." — so a Full run skips such a member even when
	// its node images are older (their upgrade needs a NodeImageOnly run).
	if u.Upgrade != NodeImageOnly && sameKube(m.KubernetesVersion, u.KubernetesVersion) {
		d.Action = ActionSkip
		d.Reason = fmt.Sprintf("already at target Kubernetes version %s", u.KubernetesVersion)
		if d.Target.NodeImages != nil {
			for _, p := range m.NodePools { // skipped: its node pools keep their images
				d.Target.NodeImages[p.Name] = p.NodeImageVersion
			}
		}
		return d
	}
	// 1b. Already at target. concepts-update-orchestration.md "Skipped status": "Cluster is already at the
	// target Kubernetes version (if update run mode is Full or ControlPlaneOnly) and all node pools are
	// at the target node image version."
	if len(pendingImages) == 0 && atTarget(m, u, d.Target) {
		d.Action = ActionSkip
		switch u.Upgrade {
		case ControlPlaneOnly:
			d.Reason = fmt.Sprintf("already at target Kubernetes version %s", u.KubernetesVersion)
		case NodeImageOnly:
			d.Reason = "already at target node image versions"
		default:
			d.Reason = fmt.Sprintf("already at target Kubernetes version %s and node image versions", u.KubernetesVersion)
		}
		return d
	}

	// 2. Pending. concepts-update-orchestration.md "Pending status" → Member cluster:
	// "Maintenance window isn't open. Message indicates next opening time." and
	// "Target Kubernetes or node image version isn't yet available in the cluster's Azure region."
	var reasons []string
	if d.Window != maintenance.Open && d.Window != maintenance.None {
		if d.WindowOpensAt.IsZero() {
			reasons = append(reasons, fmt.Sprintf("maintenance window %s is closed and does not open again", windowName(u.Upgrade)))
			neverEligible = true
		} else {
			reasons = append(reasons, fmt.Sprintf("maintenance window %s is closed; it opens at %s", windowName(u.Upgrade), d.WindowOpensAt.UTC().Format(time.RFC3339)))
			eligible = append(eligible, d.WindowOpensAt)
		}
	}
	if u.Upgrade != NodeImageOnly {
		if !haveRegion {
			reasons = append(reasons, fmt.Sprintf("no AKS version information for region %s", m.Location))
			neverEligible = true
		} else if from, ok := region.kubernetesAvailableFrom(u.KubernetesVersion); !availableAt(from, ok, t) {
			reasons = append(reasons, fmt.Sprintf("Kubernetes version %s is not yet available in region %s", u.KubernetesVersion, m.Location))
			if ok {
				eligible = append(eligible, from)
			} else {
				neverEligible = true
			}
		}
	}
	reasons = append(reasons, pendingImages...)
	if len(reasons) > 0 {
		d.Action = ActionPending
		d.Reason = strings.Join(reasons, "; ")
		if !neverEligible {
			d.EligibleKnown = true
			d.EligibleFrom = t
			for _, e := range eligible {
				if e.After(d.EligibleFrom) {
					d.EligibleFrom = e
				}
			}
		}
		return d
	}

	// 3. AKS rejects the upgrade path: the member upgrade fails when Fleet calls AKS.
	if reason := rejectedUpgrade(m, u); reason != "" {
		d.Action = ActionFail
		d.Reason = reason
		return d
	}

	d.Action = ActionUpgrade
	switch u.Upgrade {
	case ControlPlaneOnly:
		d.Reason = fmt.Sprintf("control plane %s → %s", m.KubernetesVersion, u.KubernetesVersion)
	case NodeImageOnly:
		d.Reason = "node images"
	default:
		// upgrade-aks-control-plane.md: "During a full cluster upgrade, AKS upgrades the control plane
		// first, then upgrades each node pool sequentially."
		d.Reason = fmt.Sprintf("control plane then node pools %s → %s", m.KubernetesVersion, u.KubernetesVersion)
	}
	return d
}

func selectionOf(u Update) NodeImageSelectionType {
	if u.NodeImageSelection == "" {
		return Latest
	}
	return u.NodeImageSelection
}

func poolVersion(m Member, p NodePool) string {
	if p.KubernetesVersion == "" {
		return m.KubernetesVersion
	}
	return p.KubernetesVersion
}

func sameKube(a, b string) bool {
	va, ea := parseKubeVersion(a)
	vb, eb := parseKubeVersion(b)
	if ea != nil || eb != nil {
		return a == b
	}
	return va.Compare(vb) == 0
}

func atTarget(m Member, u Update, tg Target) bool {
	if u.Upgrade != NodeImageOnly && !sameKube(m.KubernetesVersion, u.KubernetesVersion) {
		return false
	}
	if u.Upgrade == ControlPlaneOnly {
		return true
	}
	for _, p := range m.NodePools {
		if u.Upgrade == Full && !sameKube(poolVersion(m, p), u.KubernetesVersion) {
			return false
		}
		if tg.NodeImages[p.Name] != p.NodeImageVersion {
			return false
		}
	}
	return true
}

// rejectedUpgrade returns why AKS refuses the control-plane upgrade, or "".
func rejectedUpgrade(m Member, u Update) string {
	if u.Upgrade == NodeImageOnly {
		return ""
	}
	cur, err := parseKubeVersion(m.KubernetesVersion)
	if err != nil {
		return fmt.Sprintf("current Kubernetes version: %v", err)
	}
	tgt, err := parseKubeVersion(u.KubernetesVersion)
	if err != nil {
		return fmt.Sprintf("target Kubernetes version: %v", err)
	}
	// supported-kubernetes-versions.md: "Downgrades or rollback to an unsupported version aren't supported."
	if tgt.Compare(cur) < 0 {
		return fmt.Sprintf("AKS does not downgrade Kubernetes: %s → %s", m.KubernetesVersion, u.KubernetesVersion)
	}
	// upgrade-aks-control-plane.md: "When you upgrade a supported non-LTS AKS cluster, you can't skip
	// Kubernetes minor versions. ... 1.28.x -> 1.30.x isn't allowed." An LTS cluster may skip minors
	// ("An LTS cluster can skip minor versions when moving to a higher LTS version").
	if n := minorsBetween(cur, tgt); n > 1 && !m.LongTermSupport {
		return fmt.Sprintf("AKS does not skip Kubernetes minor versions: %s → %s crosses %d minor versions; upgrade one minor version at a time", m.KubernetesVersion, u.KubernetesVersion, n)
	}
	// ControlPlaneOnly leaves the pools behind: upgrade-aks-control-plane.md "the control plane can be
	// up to three minor versions ahead of node pools".
	if u.Upgrade == ControlPlaneOnly {
		for _, p := range m.NodePools {
			pv, err := parseKubeVersion(poolVersion(m, p))
			if err != nil {
				continue
			}
			if minorsBetween(pv, tgt) > maxControlPlaneSkew {
				return fmt.Sprintf("control plane %s would be more than %d minor versions ahead of node pool %s (%s)", u.KubernetesVersion, maxControlPlaneSkew, p.Name, poolVersion(m, p))
			}
		}
	}
	return ""
}

// ConsistentNodeImages selects the Consistent image set of a run over its members at t:
// image type → version. missing lists the image types that have no common version.
//
// fleets.json NodeImageSelectionType Consistent: "for each node pool in managed clusters affected by
// the update run, the system selects the latest image version such that it is available across all
// other node pools (in all other clusters) of the same image type."
// concepts-update-orchestration.md: "Consistent: When the update run starts, pick image versions
// that are currently available in all Azure regions where the clusters in this run are located."
// Choice: the regions that count for an image type are those of the run's members that have a
// node pool of that type (the spec's wording); the docs' "all Azure regions" reads the same when
// every member runs every image type.
func ConsistentNodeImages(members []Member, regions map[string]Region, t time.Time) (selected map[string]string, missing []string) {
	locs := map[string]map[string]bool{} // image type → locations
	for _, m := range members {
		for _, p := range m.NodePools {
			family, _ := SplitNodeImage(p.NodeImageVersion)
			if family == "" {
				continue
			}
			if locs[family] == nil {
				locs[family] = map[string]bool{}
			}
			locs[family][m.Location] = true
		}
	}
	selected = map[string]string{}
	for _, family := range sortedKeys(locs) {
		var common map[string]bool
		for _, loc := range sortedKeys(locs[family]) {
			have := map[string]bool{}
			for _, v := range regions[loc].imagesAt(family, t) {
				have[v] = true
			}
			if common == nil {
				common = have
				continue
			}
			for v := range common {
				if !have[v] {
					delete(common, v)
				}
			}
		}
		best := newestImage(sortedKeys(common))
		if best == "" {
			missing = append(missing, family)
			continue
		}
		selected[family] = best
	}
	return selected, missing
}

// selectedList renders a selected image set as fleets.json NodeImageSelectionStatus.selectedNodeImageVersions.
func selectedList(sel map[string]string) []string {
	out := make([]string, 0, len(sel))
	for f, v := range sel {
		out = append(out, JoinNodeImage(f, v))
	}
	sort.Strings(out)
	return out
}
