package provider

import (
	"slices"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

// Every previewed resource declares what its preview reads, each a known input: the generated
// saved-plan test (savedplanacc) moves exactly these.
func TestPreviewInputsDeclared(t *testing.T) {
	got := PreviewInputs()
	for _, typ := range []string{"fleet_placement", "fleet_resource_placement", "fleet_placement_disruption_budget", "fleet_member_cluster_taints",
		"fleet_staged_update_strategy", "fleet_staged_update_run", "fleet_update_strategy", "fleet_update_run", "fleet_auto_upgrade_profile", "fleet_nodepool_disruption"} {
		if len(got[typ]) == 0 {
			t.Errorf("%s declares no preview inputs", typ)
		}
	}
	for typ, ins := range got {
		for _, in := range ins {
			if !slices.Contains(facts.Inputs, in) {
				t.Errorf("%s reads %q, not a facts.Input", typ, in)
			}
		}
	}
	t.Logf("%d previewed resource types", len(got))
}
