package placement

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
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
