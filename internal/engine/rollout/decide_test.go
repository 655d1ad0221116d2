package rollout

import (
	"reflect"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
)

func TestDecide(t *testing.T) {
	cpo := func(v string) Update { return Update{Upgrade: ControlPlaneOnly, KubernetesVersion: v} }
	nio := Update{Upgrade: NodeImageOnly}
	tests := []struct {
		name     string
		m        Member
		u        Update
		selected map[string]string
		at       time.Time
		action   Action
		reason   string
		k8s      string
		images   map[string]string
		window   maintenance.WindowState
		eligible time.Time // for pending; zero = never
	}{
		{
			// ManagedClusterUpgradeType Full: "upgrades the control plane and all agent pools";
			// concepts-update-orchestration.md Latest: "the latest node images available in the Azure region of each cluster".
			name: "full upgrade to the latest image of the member's region",
			m:    member("a", "g", eastus, "1.32.5"), u: full("1.33.1"),
			action: ActionUpgrade, reason: "control plane then node pools 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			name: "latest differs by region",
			m:    member("a", "g", westeu, "1.31.9"), u: full("1.32.5"),
			action: ActionUpgrade, reason: "control plane then node pools 1.31.9 → 1.32.5",
			k8s: "1.32.5", images: map[string]string{"system": midImg}, window: maintenance.None,
		},
		{
			// "Skipped status": "Cluster is already at the target Kubernetes version ... and all node pools are at the target node image version."
			name: "full: already at target version and images",
			m:    member("a", "g", eastus, "1.33.1", pools(NodePool{Name: "system", NodeImageVersion: newImg})), u: full("1.33.1"),
			action: ActionSkip, reason: "already at target Kubernetes version 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// concepts-update-orchestration.md "Skipped status": "The member cluster is already on the target
			// Kubernetes version (if the update run mode is Full or ControlPlaneOnly)." — a reason of its own.
			name: "full: at target version with an old image is skipped",
			m:    member("a", "g", eastus, "1.33.1"), u: full("1.33.1"),
			action: ActionSkip, reason: "already at target Kubernetes version 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": oldImg}, window: maintenance.None,
		},
		{
			name: "full: a control plane at target is skipped, a node pool behind it too",
			m:    member("a", "g", eastus, "1.33.1", pools(NodePool{Name: "system", NodeImageVersion: newImg, KubernetesVersion: "1.32.5"})), u: full("1.33.1"),
			action: ActionSkip, reason: "already at target Kubernetes version 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// ControlPlaneOnly "will not be applied to the AgentPool": node images do not count.
			name: "control plane only: at target regardless of node images",
			m:    member("a", "g", eastus, "1.33.1"), u: cpo("1.33.1"),
			action: ActionSkip, reason: "already at target Kubernetes version 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": oldImg}, window: maintenance.None,
		},
		{
			name: "control plane only upgrade",
			m:    member("a", "g", eastus, "1.32.5"), u: cpo("1.33.1"),
			action: ActionUpgrade, reason: "control plane 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": oldImg}, window: maintenance.None,
		},
		{
			name: "node image only: already on the latest image",
			m:    member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "system", NodeImageVersion: newImg})), u: nio,
			action: ActionSkip, reason: "already at target node image versions",
			k8s: "1.32.5", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			name: "node image only upgrades images, not Kubernetes",
			m:    member("a", "g", eastus, "1.32.5"), u: nio,
			action: ActionUpgrade, reason: "node images",
			k8s: "1.32.5", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// "Skipped status": "When consistent node image is selected and it's not possible to find the target image version for one of the node pools."
			name: "consistent: no version for a pool's image type skips the member",
			m:    member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "system", NodeImageVersion: oldImg}, NodePool{Name: "user", NodeImageVersion: azlOld})),
			u:    Update{Upgrade: NodeImageOnly, NodeImageSelection: Consistent}, selected: map[string]string{ubuntu: "202510.20.0"},
			action: ActionSkip, reason: "no consistent node image version for node pool user (image type AKSAzureLinux-V2gen2)",
			k8s: "1.32.5", images: map[string]string{"system": midImg, "user": azlOld}, window: maintenance.None,
		},
		{
			// NodeImageSelectionType Consistent: "all node pools of the same image type will be upgraded to the same image version".
			name: "consistent: the selected version",
			m:    member("a", "g", eastus, "1.32.5"), u: Update{Upgrade: NodeImageOnly, NodeImageSelection: Consistent}, selected: map[string]string{ubuntu: "202510.20.0"},
			action: ActionUpgrade, reason: "node images",
			k8s: "1.32.5", images: map[string]string{"system": midImg}, window: maintenance.None,
		},
		{
			// Choice: never a node image downgrade.
			name: "consistent: a pool on a newer image keeps it",
			m:    member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "system", NodeImageVersion: newImg})), u: Update{Upgrade: Full, KubernetesVersion: "1.33.1", NodeImageSelection: Consistent}, selected: map[string]string{ubuntu: "202510.20.0"},
			action: ActionUpgrade, reason: "control plane then node pools 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// customNodeImageVersions: "If the nodes belong to a family without a matching image version in this field, they are not upgraded."
			name:   "custom: listed image type upgraded, unlisted one untouched",
			m:      member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "system", NodeImageVersion: oldImg}, NodePool{Name: "user", NodeImageVersion: azlOld})),
			u:      Update{Upgrade: NodeImageOnly, NodeImageSelection: Custom, CustomNodeImageVersions: []string{newImg}},
			action: ActionUpgrade, reason: "node images",
			k8s: "1.32.5", images: map[string]string{"system": newImg, "user": azlOld}, window: maintenance.None,
		},
		{
			// "Pending status": "Target Kubernetes or node image version isn't yet available in the cluster's Azure region."
			name:   "custom: image not in the member's region is pending",
			m:      member("a", "g", westeu, "1.32.5"),
			u:      Update{Upgrade: NodeImageOnly, NodeImageSelection: Custom, CustomNodeImageVersions: []string{newImg}},
			action: ActionPending, reason: "node image AKSUbuntu-2204gen2containerd-202511.04.0 is not yet available in region westeurope",
			k8s: "1.32.5", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// "Pending status": "Maintenance window isn't open. Message indicates next opening time."
			name: "closed window is pending until it opens",
			m:    member("a", "g", eastus, "1.32.5", autoWindow(saturdays())), u: full("1.33.1"),
			action: ActionPending, reason: "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.Closed, eligible: at("2026-11-28T02:00:00Z"),
		},
		{
			name: "a window opening within four hours is not open yet",
			m:    member("a", "g", eastus, "1.32.5", autoWindow(opensSoon)), u: full("1.33.1"),
			action: ActionPending, reason: "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-23T02:00:00Z",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.OpensSoon, eligible: at("2026-11-23T02:00:00Z"),
		},
		{
			name: "open window upgrades",
			m:    member("a", "g", eastus, "1.32.5", autoWindow(openNow)), u: full("1.33.1"),
			action: ActionUpgrade, reason: "control plane then node pools 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.Open,
		},
		{
			// concepts-update-orchestration.md: Node Image Only honors AKSManagedNodeOSAutoUpgradeSchedule.
			name: "node image only honors the node OS window, not the auto-upgrade window",
			m:    member("a", "g", eastus, "1.32.5", autoWindow(saturdays()), osWindow(openNow)), u: nio,
			action: ActionUpgrade, reason: "node images",
			k8s: "1.32.5", images: map[string]string{"system": newImg}, window: maintenance.Open,
		},
		{
			// Full and ControlPlaneOnly honor AKSManagedAutoUpgradeSchedule.
			name: "full honors the auto-upgrade window, not the node OS window",
			m:    member("a", "g", eastus, "1.32.5", autoWindow(saturdays()), osWindow(openNow)), u: full("1.33.1"),
			action: ActionPending, reason: "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.Closed, eligible: at("2026-11-28T02:00:00Z"),
		},
		{
			name: "version not yet in the region is pending until its release",
			m:    member("a", "g", westeu, "1.32.5"), u: full("1.33.1"),
			action: ActionPending, reason: "Kubernetes version 1.33.1 is not yet available in region westeurope",
			k8s: "1.33.1", images: map[string]string{"system": midImg}, window: maintenance.None, eligible: at("2026-11-24T12:00:00Z"),
		},
		{
			name: "version released in the region upgrades",
			m:    member("a", "g", westeu, "1.32.5"), u: full("1.33.1"), at: at("2026-11-24T12:00:00Z"),
			action: ActionUpgrade, reason: "control plane then node pools 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": midImg}, window: maintenance.None,
		},
		{
			name: "version never announced in the region stays pending",
			m:    member("a", "g", eastus, "1.32.5"), u: cpo("1.33.2"),
			action: ActionPending, reason: "Kubernetes version 1.33.2 is not yet available in region eastus",
			k8s: "1.33.2", images: map[string]string{"system": oldImg}, window: maintenance.None,
		},
		{
			name: "closed window and missing version: both reasons, eligible when both clear",
			m:    member("a", "g", westeu, "1.32.5", autoWindow(saturdays())), u: full("1.33.1"),
			action: ActionPending, reason: "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z; Kubernetes version 1.33.1 is not yet available in region westeurope",
			k8s: "1.33.1", images: map[string]string{"system": midImg}, window: maintenance.Closed, eligible: at("2026-11-28T02:00:00Z"),
		},
		{
			name: "unknown region is pending",
			m:    member("a", "g", nowhere, "1.32.5"), u: full("1.33.1"),
			action: ActionPending, reason: "no AKS version information for region antarctica; no AKSUbuntu-2204gen2containerd node image is available in region antarctica",
			k8s: "1.33.1", images: map[string]string{"system": oldImg}, window: maintenance.None,
		},
		{
			// upgrade-aks-control-plane.md: "you can't skip Kubernetes minor versions ... 1.28.x -> 1.30.x isn't allowed."
			name: "skipping a minor version fails",
			m:    member("a", "g", eastus, "1.31.9"), u: full("1.33.1"),
			action: ActionFail, reason: "AKS does not skip Kubernetes minor versions: 1.31.9 → 1.33.1 crosses 2 minor versions; upgrade one minor version at a time",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// upgrade-aks-control-plane.md: "An LTS cluster can skip minor versions when moving to a higher LTS version".
			name: "an LTS cluster may skip minor versions",
			m:    member("a", "g", eastus, "1.31.9", lts), u: full("1.33.1"),
			action: ActionUpgrade, reason: "control plane then node pools 1.31.9 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// supported-kubernetes-versions.md: "Downgrades or rollback to an unsupported version aren't supported."
			name: "a downgrade fails",
			m:    member("a", "g", eastus, "1.33.1"), u: full("1.32.5"),
			action: ActionFail, reason: "AKS does not downgrade Kubernetes: 1.33.1 → 1.32.5",
			k8s: "1.32.5", images: map[string]string{"system": newImg}, window: maintenance.None,
		},
		{
			// upgrade-aks-control-plane.md: "the control plane can be up to three minor versions ahead of node pools".
			name: "control plane only: more than three minors ahead of a pool fails",
			m:    member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "old", NodeImageVersion: oldImg, KubernetesVersion: "1.29.9"})), u: cpo("1.33.1"),
			action: ActionFail, reason: "control plane 1.33.1 would be more than 3 minor versions ahead of node pool old (1.29.9)",
			k8s: "1.33.1", images: map[string]string{"old": oldImg}, window: maintenance.None,
		},
		{
			name: "control plane only: three minors ahead of a pool is allowed",
			m:    member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "old", NodeImageVersion: oldImg, KubernetesVersion: "1.30.9"})), u: cpo("1.33.1"),
			action: ActionUpgrade, reason: "control plane 1.32.5 → 1.33.1",
			k8s: "1.33.1", images: map[string]string{"old": oldImg}, window: maintenance.None,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			when := tc.at
			if when.IsZero() {
				when = t0
			}
			d := Decide(tc.m, tc.u, tc.selected, regions(), when)
			if d.Action != tc.action || d.Reason != tc.reason {
				t.Fatalf("Decide = %s %q, want %s %q", d.Action, d.Reason, tc.action, tc.reason)
			}
			if d.Window != tc.window {
				t.Errorf("window = %s, want %s", d.Window, tc.window)
			}
			var mp MemberPreview
			fillTarget(&mp, tc.m, tc.u, d.Target)
			if mp.TargetKubernetesVersion != tc.k8s || !reflect.DeepEqual(mp.TargetNodeImageVersions, tc.images) {
				t.Errorf("target = %s %v, want %s %v", mp.TargetKubernetesVersion, mp.TargetNodeImageVersions, tc.k8s, tc.images)
			}
			if tc.action == ActionPending {
				if tc.eligible.IsZero() != !d.EligibleKnown || (d.EligibleKnown && !d.EligibleFrom.Equal(tc.eligible)) {
					t.Errorf("eligible = %v %s, want %s", d.EligibleKnown, d.EligibleFrom, tc.eligible)
				}
			}
		})
	}
}

func TestConsistentNodeImages(t *testing.T) {
	tests := []struct {
		name    string
		members []Member
		want    map[string]string
		missing []string
	}{
		{
			// NodeImageSelectionType Consistent: "the system will upgrade both node pools to image version
			// 'AKSUbuntu-1804gen2containerd-2021.10.12'" — the newest version common to both regions.
			name:    "newest version common to the members' regions",
			members: []Member{member("a", "g", eastus, "1.32.5"), member("b", "g", westeu, "1.32.5")},
			want:    map[string]string{ubuntu: "202510.20.0"},
		},
		{
			name:    "one region: its newest",
			members: []Member{member("a", "g", eastus, "1.32.5")},
			want:    map[string]string{ubuntu: "202511.04.0"},
		},
		{
			// Choice: only regions of members with a pool of that image type count.
			name: "an image type counts only the regions that run it",
			members: []Member{
				member("a", "g", eastus, "1.32.5", pools(NodePool{Name: "system", NodeImageVersion: oldImg}, NodePool{Name: "user", NodeImageVersion: azlOld})),
				member("b", "g", westeu, "1.32.5"),
			},
			want: map[string]string{ubuntu: "202510.20.0", azl: "202511.04.0"},
		},
		{
			name:    "no common version",
			members: []Member{member("a", "g", eastus, "1.32.5"), member("b", "g", nowhere, "1.32.5")},
			want:    map[string]string{},
			missing: []string{ubuntu},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, missing := ConsistentNodeImages(tc.members, regions(), t0)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(missing, tc.missing) {
				t.Fatalf("got %v missing %v, want %v missing %v", got, missing, tc.want, tc.missing)
			}
		})
	}
}

func TestSplitNodeImage(t *testing.T) {
	for _, tc := range []struct{ in, family, version string }{
		{"AKSUbuntu-2204gen2containerd-202510.01.0", "AKSUbuntu-2204gen2containerd", "202510.01.0"},
		{"AKSWindows-2022-containerd-20348.2582.240716", "AKSWindows-2022-containerd", "20348.2582.240716"},
		{"noversion", "", "noversion"},
	} {
		f, v := SplitNodeImage(tc.in)
		if f != tc.family || v != tc.version {
			t.Errorf("SplitNodeImage(%q) = %q, %q", tc.in, f, v)
		}
	}
	if CompareImageVersions("20348.2582.240716", "20348.2582.240916") >= 0 || CompareImageVersions("202511.04.0", "202510.20.0") <= 0 {
		t.Error("image versions must compare numerically")
	}
}
