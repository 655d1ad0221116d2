package channel

import (
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

const (
	noWindow   = "no aksManagedAutoUpgradeSchedule maintenance window: upgraded as soon as the run reaches it"
	noOSWindow = "no aksManagedNodeOSUpgradeSchedule maintenance window: upgraded as soon as the run reaches it"
)

func saturday() *armcontainerservice.MaintenanceWindow {
	return &armcontainerservice.MaintenanceWindow{
		Schedule:      &armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{DayOfWeek: to.Ptr(armcontainerservice.WeekDaySaturday), IntervalWeeks: to.Ptr[int32](1)}},
		DurationHours: to.Ptr[int32](4), StartTime: to.Ptr("02:00"),
	}
}

type memberOpt func(*rollout.Member)

func member(name, loc, k8s string, opts ...memberOpt) rollout.Member {
	m := rollout.Member{Name: name, Location: loc, KubernetesVersion: k8s,
		NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: ubuntu + "-202510.01.0"}}}
	for _, o := range opts {
		o(&m)
	}
	return m
}

func ltsCluster(m *rollout.Member)   { m.LongTermSupport = true }
func autoWindow(m *rollout.Member)   { m.AutoUpgradeWindow = saturday() }
func nodeOSWindow(m *rollout.Member) { m.NodeOSUpgradeWindow = saturday() }
func pools(ps ...rollout.NodePool) memberOpt {
	return func(m *rollout.Member) { m.NodePools = ps }
}

// westeurope lags eastus: 1.33.2 not yet there (a preview in one case), an older Ubuntu image.
func westeurope(t *testing.T, with1332Preview bool) VersionTable {
	entries := []*armcontainerservice.KubernetesVersion{
		aksEntry("1.31", false, false, nil, "1.31.9"),
		aksEntry("1.32", false, true, nil, "1.32.5"),
		aksEntry("1.33", false, false, nil, "1.33.1"),
	}
	if with1332Preview {
		entries = append(entries, aksEntry("1.33", true, false, nil, "1.33.2"))
	}
	tab := mustTable(t, entries...)
	tab.AddNodeImage(ubuntu + "-202510.01.0")
	return tab
}

func TestMemberActionsKubernetes(t *testing.T) {
	// eastus with 1.33.2 released as GA: what the union of regions resolves Rapid to.
	east := Union(eastus(t), mustTable(t, aksEntry("1.33", false, false, nil, "1.33.2")))
	regions := map[string]VersionTable{"eastus": east, "westeurope": westeurope(t, false), "northeurope": westeurope(t, true)}
	target := func(c Channel, o Options) Target {
		tg, err := Resolve(c, o, east)
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	stable, rapid := target(Stable, Options{}), target(Rapid, Options{})
	if stable.KubernetesVersion != "1.32.5" || rapid.KubernetesVersion != "1.33.2" {
		t.Fatalf("fixture: Stable %s, Rapid %s; want 1.32.5, 1.33.2", stable.KubernetesVersion, rapid.KubernetesVersion)
	}
	lts131 := target(TargetKubernetesVersion, Options{TargetKubernetesVersion: "1.31", LongTermSupport: true})
	lts129 := target(TargetKubernetesVersion, Options{TargetKubernetesVersion: "1.29", LongTermSupport: true})
	tkv131 := target(TargetKubernetesVersion, Options{TargetKubernetesVersion: "1.31"})

	tests := []struct {
		name   string
		target Target
		m      rollout.Member
		action Action
		reason string
	}{
		{name: "already at target", target: stable, m: member("a", "eastus", "1.32.5"),
			action: None, reason: "already at 1.32.5, the Stable channel's target"},
		// concepts-update-orchestration.md: "If a cluster has no defined planned maintenance window, it's upgraded immediately when the update run reaches the cluster."
		{name: "one minor behind, no window", target: stable, m: member("a", "eastus", "1.31.9"),
			action: Upgrade, reason: "1.31.9 → 1.32.5; " + noWindow},
		{name: "a patch behind, with a window", target: stable, m: member("a", "eastus", "1.32.4", autoWindow),
			action: Upgrade, reason: "1.32.4 → 1.32.5; waits for its aksManagedAutoUpgradeSchedule maintenance window"},
		// "Minor version skipping behavior": no move across more than one minor version.
		{name: "more than one minor behind", target: rapid, m: member("a", "eastus", "1.31.9"),
			action: Skip, reason: "1.31.9 is 2 minor versions behind the target 1.33.2: auto-upgrade does not move a cluster across more than one minor version; bring it to 1.32 with an update run first"},
		{name: "more than one minor behind, LTS cluster too", target: stable, m: member("a", "eastus", "1.29.8", ltsCluster),
			action: Skip, reason: "1.29.8 is 3 minor versions behind the target 1.32.5: auto-upgrade does not move a cluster across more than one minor version; bring it to 1.31 with an update run first"},
		{name: "newer than target", target: stable, m: member("a", "eastus", "1.33.1"),
			action: Skip, reason: "1.33.1 is newer than the Stable channel's target 1.32.5: AKS does not downgrade"},
		{name: "on a preview version", target: rapid, m: member("a", "eastus", "1.34.0"),
			action: Skip, reason: "1.34.0 (a preview version) is newer than the Rapid channel's target 1.33.2: AKS does not downgrade"},
		// "Auto-upgrade requires the cluster's Kubernetes version to be within the AKS support window".
		{name: "outside the support window", target: tkv131, m: member("a", "eastus", "1.30.14"),
			action: Skip, reason: "1.30.14 is outside the AKS support window (1.31 to 1.33): auto-upgrade requires a supported version"},
		{name: "LTS cluster on a minor not offered under LTS", target: lts131, m: member("a", "eastus", "1.30.14", ltsCluster),
			action: Skip, reason: "1.30.14 is outside the AKS support window (1.31 to 1.33): auto-upgrade requires a supported version, and AKS does not offer 1.30 under long-term support"},
		// update-automation.md: the LTS target's patches reach LTS clusters.
		{name: "LTS cluster on an LTS-only minor takes its patch", target: lts129, m: member("a", "eastus", "1.29.8", ltsCluster),
			action: Upgrade, reason: "1.29.8 → 1.29.9; " + noWindow},
		{name: "non-LTS cluster on an LTS-only minor", target: lts129, m: member("a", "eastus", "1.29.8"),
			action: Skip, reason: "1.29.8 is outside the AKS support window (1.31 to 1.33): auto-upgrade requires a supported version"},
		// "Non-LTS clusters cause the update run to fail when the first non-LTS cluster is encountered."
		{name: "non-LTS cluster under an LTS profile", target: lts131, m: member("a", "eastus", "1.31.8"),
			action: Skip, reason: "not on the AKS long-term support plan: a run of a long-term-support profile fails at the first such cluster; enable LTS on it or leave it out of the profile's strategy"},
		{name: "LTS cluster under an LTS profile", target: lts131, m: member("a", "eastus", "1.31.8", ltsCluster),
			action: Upgrade, reason: "1.31.8 → 1.31.9; " + noWindow},
		// "Pending status": the target isn't yet available in the cluster's region.
		{name: "target not yet in the member's region", target: rapid, m: member("a", "westeurope", "1.33.1"),
			action: Skip, reason: "1.33.2 is not yet generally available in region westeurope: a run holds this member Pending until it is"},
		{name: "target only a preview in the member's region", target: rapid, m: member("a", "northeurope", "1.33.1"),
			action: Skip, reason: "1.33.2 is not yet generally available in region northeurope (only as a preview): a run holds this member Pending until it is"},
		{name: "region compared as Azure does", target: rapid, m: member("a", "East US", "1.33.1"),
			action: Upgrade, reason: "1.33.1 → 1.33.2; " + noWindow},
		{name: "no version list for the region", target: rapid, m: member("a", "mars", "1.33.1"),
			action: Skip, reason: "no AKS version list for region mars"},
		{name: "unreadable current version", target: rapid, m: member("a", "eastus", "latest"),
			action: Skip, reason: `current version: "latest" is not a Kubernetes version (major.minor.patch)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MemberActions(tc.target, []rollout.Member{tc.m}, regions)
			if len(got) != 1 {
				t.Fatalf("got %d actions, want 1", len(got))
			}
			a := got[0]
			if a.Action != tc.action || a.Reason != tc.reason {
				t.Errorf("got %s %q\nwant %s %q", a.Action, a.Reason, tc.action, tc.reason)
			}
			if a.Name != tc.m.Name || a.CurrentKubernetesVersion != tc.m.KubernetesVersion || a.TargetKubernetesVersion != tc.target.KubernetesVersion {
				t.Errorf("versions: %+v", a)
			}
			if a.TargetNodeImages != nil {
				t.Errorf("Kubernetes channels leave node images to the run's selection, got %v", a.TargetNodeImages)
			}
		})
	}
}

func TestMemberActionsNodeImage(t *testing.T) {
	regions := map[string]VersionTable{"eastus": eastus(t), "westeurope": westeurope(t, false)}
	target, err := Resolve(NodeImage, Options{}, Union(regions["eastus"], regions["westeurope"]))
	if err != nil {
		t.Fatal(err)
	}
	winPool := rollout.NodePool{Name: "win", NodeImageVersion: win + "-20348.2582.240716"}
	tests := []struct {
		name   string
		m      rollout.Member
		action Action
		reason string
		images map[string]string
	}{
		{name: "each pool to its OS's newest image", m: member("a", "eastus", "1.32.5", autoWindow, pools(rollout.NodePool{Name: "system", NodeImageVersion: ubuntu + "-202510.01.0"}, winPool)),
			// NodeImage runs honor aksManagedNodeOSUpgradeSchedule, not the auto-upgrade one.
			action: Upgrade, reason: "node images system 202510.01.0 → 202511.04.0, win 20348.2582.240716 → 20348.2582.240916; " + noOSWindow,
			images: map[string]string{"system": ubuntu + "-202511.04.0", "win": win + "-20348.2582.240916"}},
		{name: "with a node OS window", m: member("a", "eastus", "1.32.5", nodeOSWindow),
			action: Upgrade, reason: "node images system 202510.01.0 → 202511.04.0; waits for its aksManagedNodeOSUpgradeSchedule maintenance window",
			images: map[string]string{"system": ubuntu + "-202511.04.0"}},
		{name: "already newest in its region", m: member("a", "eastus", "1.32.5", pools(rollout.NodePool{Name: "system", NodeImageVersion: ubuntu + "-202511.04.0"})),
			action: None, reason: "node images already the newest in region eastus", images: map[string]string{"system": ubuntu + "-202511.04.0"}},
		// concepts-update-orchestration.md Latest: "the latest node images available in the Azure region of each cluster".
		{name: "newest of the member's own region", m: member("a", "westeurope", "1.32.5"),
			action: None, reason: "node images already the newest in region westeurope", images: map[string]string{"system": ubuntu + "-202510.01.0"}},
		{name: "no image of the pool's type in the region", m: member("a", "westeurope", "1.32.5", pools(winPool)),
			action: Skip, reason: "no node image versions known in region westeurope for node pools win (" + win + "-20348.2582.240716)",
			images: map[string]string{"win": win + "-20348.2582.240716"}},
		// auto-upgrade-cluster.md: within the support window "even if using the node-image channel".
		{name: "outside the support window", m: member("a", "eastus", "1.30.14"),
			action: Skip, reason: "1.30.14 is outside the AKS support window (1.31 to 1.33): auto-upgrade requires a supported version",
			images: map[string]string{"system": ubuntu + "-202510.01.0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := MemberActions(target, []rollout.Member{tc.m}, regions)[0]
			if a.Action != tc.action || a.Reason != tc.reason {
				t.Errorf("got %s %q\nwant %s %q", a.Action, a.Reason, tc.action, tc.reason)
			}
			if !reflect.DeepEqual(a.TargetNodeImages, tc.images) {
				t.Errorf("TargetNodeImages = %v, want %v", a.TargetNodeImages, tc.images)
			}
			if a.TargetKubernetesVersion != tc.m.KubernetesVersion {
				t.Errorf("NodeImage keeps the Kubernetes version: target %s, current %s", a.TargetKubernetesVersion, tc.m.KubernetesVersion)
			}
		})
	}
}

// Members come back in the order given, one action each.
func TestMemberActionsOrder(t *testing.T) {
	regions := map[string]VersionTable{"eastus": eastus(t)}
	tg, err := Resolve(Stable, Options{}, regions["eastus"])
	if err != nil {
		t.Fatal(err)
	}
	got := MemberActions(tg, []rollout.Member{member("z", "eastus", "1.32.5"), member("a", "eastus", "1.31.9")}, regions)
	if len(got) != 2 || got[0].Name != "z" || got[0].Action != None || got[1].Name != "a" || got[1].Action != Upgrade {
		t.Errorf("got %+v", got)
	}
}
