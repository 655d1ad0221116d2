package rollout

import (
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
)

// The preview's warning about node images AKS's list does not show (it lists each region's latest
// only): a member upgraded to an image its region offers by assumption, a Consistent set resting on
// one, and a member held Pending for an image older than its region's newest.
func TestAssumedImageWarning(t *testing.T) {
	const ub = "AKSUbuntu-2204gen2containerd-"
	facts := view.RolloutFleet{
		Members: []rollout.Member{{Name: "a", Location: "eastus"}, {Name: "b", Location: "australiaeast"}},
		Regions: map[string]rollout.Region{
			"eastus":        {NodeImages: map[string][]string{"AKSUbuntu-2204gen2containerd": {"202512.02.0", "202511.04.0"}}},
			"australiaeast": {NodeImages: map[string][]string{"AKSUbuntu-2204gen2containerd": {"202512.02.0"}}},
		},
		AssumedNodeImages: map[string]map[string][]string{"eastus": {"AKSUbuntu-2204gen2containerd": {"202511.04.0"}}},
	}
	mp := func(name string, action rollout.Action, target string) rollout.MemberPreview {
		return rollout.MemberPreview{Name: name, Action: action,
			CurrentNodeImageVersions: map[string]string{"pool0": ub + "202509.01.0"}, TargetNodeImageVersions: map[string]string{"pool0": target}}
	}
	preview := func(cons []string, ms ...rollout.MemberPreview) rollout.Preview {
		return rollout.Preview{ConsistentNodeImageVersions: cons, Stages: []rollout.StagePreview{{Groups: []rollout.GroupPreview{{Members: ms}}}}}
	}
	tests := []struct {
		name string
		p    rollout.Preview
		want string // a substring; "" for no warning
	}{
		{"listed image", preview(nil, mp("a", rollout.ActionUpgrade, ub+"202512.02.0")), ""},
		{"assumed image", preview(nil, mp("a", rollout.ActionUpgrade, ub+"202511.04.0")),
			"1 member(s) (a) get a node image their region's AKS list does not show (" + ub + "202511.04.0 in eastus)"},
		{"consistent set", preview([]string{ub + "202511.04.0"}, mp("b", rollout.ActionSkip, ub+"202509.01.0"), mp("a", rollout.ActionSkip, ub+"202509.01.0")),
			"the Consistent node image set rests on images a region's AKS list does not show (" + ub + "202511.04.0 in eastus)"},
		{"pending for an older image", preview(nil, mp("b", rollout.ActionPending, ub+"202510.01.0")),
			"1 member(s) (b) get a node image their region's AKS list does not show (" + ub + "202510.01.0 in australiaeast)"},
		{"pending for a newer image", preview(nil, mp("b", rollout.ActionPending, ub+"202601.01.0")), ""},
	}
	for _, tc := range tests {
		got := assumedImageWarning(tc.p, facts)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
