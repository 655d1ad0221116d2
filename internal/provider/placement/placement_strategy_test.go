package placement

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	fleetcondition "go.goms.io/fleet/pkg/utils/condition"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubeFleet v0.18.9's CRD refuses changing the strategy type from External; the plan says so first.
func TestCheckStrategyImmutable(t *testing.T) {
	st := func(typ string) *placementStrategyModel {
		return &placementStrategyModel{Type: types.StringValue(typ)}
	}
	for _, tc := range []struct {
		name     string
		old, new *placementStrategyModel
		unknown  []path.Path
		want     bool
	}{
		{name: "External to RollingUpdate", old: st("External"), new: st("RollingUpdate"), want: true},
		{name: "External to no strategy (RollingUpdate)", old: st("External"), new: nil, want: true},
		{name: "External kept", old: st("External"), new: st("External")},
		{name: "RollingUpdate to External", old: st("RollingUpdate"), new: st("External")},
		{name: "no strategy to External", old: nil, new: st("External")},
		{name: "unknown type", old: st("External"), new: &placementStrategyModel{Type: types.StringUnknown()}, unknown: []path.Path{path.Root("strategy").AtName("type")}},
	} {
		var diags diag.Diagnostics
		checkStrategyImmutable(&diags, tc.old, tc.new, tc.unknown)
		got := diags.HasError()
		if got != tc.want {
			t.Errorf("%s: error %t, want %t (%v)", tc.name, got, tc.want, diags)
		}
		if got && !strings.Contains(diags.Errors()[0].Detail(), "cannot change rollout strategy type from 'External' to other types") {
			t.Errorf("%s: %s", tc.name, diags.Errors()[0].Detail())
		}
	}
}

// A placement whose selectors the hub agent refused is never rolled out: the wait ends at once with
// the hub's message instead of at its timeout.
func TestPlacementRefused(t *testing.T) {
	crp := &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 2}}
	if why := placementRefused(crp); why != "" {
		t.Fatalf("no condition: %q", why)
	}
	crp.Status.Conditions = []metav1.Condition{{Type: string(placementv1.ClusterResourcePlacementScheduledConditionType), Status: metav1.ConditionFalse,
		Reason: fleetcondition.InvalidResourceSelectorsReason, Message: "The resource selectors are invalid: no matches for kind", ObservedGeneration: 1}}
	if why := placementRefused(crp); why != "" {
		t.Fatalf("an older generation's refusal: %q", why)
	}
	crp.Status.Conditions[0].ObservedGeneration = 2
	if why := placementRefused(crp); !strings.Contains(why, "InvalidResourceSelectors") || !strings.Contains(why, "no matches for kind") {
		t.Fatalf("refused: %q", why)
	}
}
