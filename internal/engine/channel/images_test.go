package channel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// The NodeImage channel under a profile's node image selection, over eastus (Ubuntu 202510.01.0 and
// 202511.04.0) and westeurope (202510.01.0): fleets.json's own example has two regions whose newest
// images differ, and Consistent upgrades "both node pools to" the older, common one.
func TestSelectNodeImages(t *testing.T) {
	regions := map[string]VersionTable{"eastus": eastus(t), "westeurope": westeurope(t, false)}
	base, err := Resolve(NodeImage, Options{}, Union(regions["eastus"], regions["westeurope"]))
	if err != nil {
		t.Fatal(err)
	}
	east, west := member("a", "eastus", "1.32.5", pools(rollout.NodePool{Name: "system", NodeImageVersion: ubuntu + "-202509.01.0"})),
		member("b", "westeurope", "1.32.5", pools(rollout.NodePool{Name: "system", NodeImageVersion: ubuntu + "-202509.01.0"}))
	members := []rollout.Member{east, west}
	type want struct {
		top    map[string]string // Target.NodeImages
		images [2]string         // each member's target for pool system
		action [2]Action
	}
	tests := []struct {
		sel NodeImageSelection
		want
	}{
		// Latest: "the latest available version is different in different regions".
		{LatestImages, want{map[string]string{ubuntu: "202511.04.0", win: "20348.2582.240916"}, [2]string{"202511.04.0", "202510.01.0"}, [2]Action{Upgrade, Upgrade}}},
		// Unset is the service's default, Latest.
		{"", want{map[string]string{ubuntu: "202511.04.0", win: "20348.2582.240916"}, [2]string{"202511.04.0", "202510.01.0"}, [2]Action{Upgrade, Upgrade}}},
		// Consistent: "all node pools of the same image type will be upgraded to the same image version".
		{ConsistentImages, want{map[string]string{ubuntu: "202510.01.0"}, [2]string{"202510.01.0", "202510.01.0"}, [2]Action{Upgrade, Upgrade}}},
	}
	for _, tc := range tests {
		t.Run(string(tc.sel), func(t *testing.T) {
			tg := SelectNodeImages(base, tc.sel, members, regions)
			if !reflect.DeepEqual(tg.NodeImages, tc.top) {
				t.Errorf("NodeImages = %v, want %v", tg.NodeImages, tc.top)
			}
			for i, a := range MemberActions(tg, members, regions) {
				if got := strings.TrimPrefix(a.TargetNodeImages["system"], ubuntu+"-"); got != tc.images[i] || a.Action != tc.action[i] {
					t.Errorf("%s: %s to %s (%s), want %s to %s", a.Name, a.Action, got, a.Reason, tc.action[i], tc.images[i])
				}
			}
		})
	}
}

// Consistent with a member already on the newest image of the fast region: the common image is
// older, and the member keeps its image (no downgrade); one with no common image is skipped.
func TestSelectNodeImagesConsistentEdges(t *testing.T) {
	regions := map[string]VersionTable{"eastus": eastus(t), "westeurope": westeurope(t, false)}
	base, err := Resolve(NodeImage, Options{}, Union(regions["eastus"], regions["westeurope"]))
	if err != nil {
		t.Fatal(err)
	}
	ahead := member("a", "eastus", "1.32.5", pools(rollout.NodePool{Name: "system", NodeImageVersion: ubuntu + "-202511.04.0"}))
	west := member("b", "westeurope", "1.32.5")
	got := MemberActions(SelectNodeImages(base, ConsistentImages, []rollout.Member{ahead, west}, regions), []rollout.Member{ahead, west}, regions)
	if got[0].Action != None || got[0].Reason != "node images already the newest common to the run's regions (Consistent)" {
		t.Errorf("ahead: %s %q", got[0].Action, got[0].Reason)
	}
	if got[1].Action != None {
		t.Errorf("west: %s %q", got[1].Action, got[1].Reason)
	}
	// A Windows pool in eastus and one in westeurope, which offers no Windows image: no common version.
	winPool := rollout.NodePool{Name: "win", NodeImageVersion: win + "-20348.2582.240716"}
	a := member("a", "eastus", "1.32.5", pools(winPool))
	b := member("b", "westeurope", "1.32.5", pools(winPool))
	tg := SelectNodeImages(base, ConsistentImages, []rollout.Member{a, b}, regions)
	if !reflect.DeepEqual(tg.NoConsistentImage, []string{win}) {
		t.Fatalf("NoConsistentImage = %v", tg.NoConsistentImage)
	}
	for _, r := range MemberActions(tg, []rollout.Member{a, b}, regions) {
		if r.Action != Skip || !strings.Contains(r.Reason, "no consistent node image version for node pool win") {
			t.Errorf("%s: %s %q, want skip for no consistent image", r.Name, r.Action, r.Reason)
		}
	}
	// Kubernetes channels are not changed by the selection.
	st, err := Resolve(Stable, Options{}, regions["eastus"])
	if err != nil {
		t.Fatal(err)
	}
	if got := SelectNodeImages(st, ConsistentImages, []rollout.Member{a, b}, regions); got.NodeImages != nil || got.KubernetesVersion != st.KubernetesVersion {
		t.Errorf("Stable changed: %+v", got)
	}
}
