package savedplanacc_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// An override's preview reads the placement's latest resources, its bindings, the member
// clusters' labels and the hub's other overrides: fleet_facts pins them for the placements it
// names in override_placements. The placement (a namespace on prod-east-1 and prod-west-1, both
// tier=gold) is applied first; the saved plan adds a ClusterResourceOverride labelling the
// namespace with each cluster's tier; prod-west-1 then turns tier=silver before `apply PLANFILE`.

const overridePlacementHCL = `
data "fleet_facts" "at_plan" {
  override_placements = ["%[1]s"]
}

resource "fleet_placement" "web" {
  name               = "%[1]s"
  resource_selectors = [{ group = "", version = "v1", kind = "Namespace", name = "%[1]s" }]
  policy             = { placement_type = "PickFixed", cluster_names = ["prod-east-1", "prod-west-1"] }
}
`

// HCL's "$${...}" is KubeFleet's "${...}".
const overrideHCL = `
resource "fleet_cluster_resource_override" "tier" {
  name               = "%[1]s"
  placement          = { name = fleet_placement.web.name }
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "%[1]s" }]
  rules = [{
    cluster_selector = { terms = [{ labels = { env = "prod" } }] }
    json_patches     = [{ op = "add", path = "/metadata/labels/tier", value = jsonencode("$${MEMBER-CLUSTER-LABEL-KEY-tier}") }]
  }]
  %[2]s
}
`

var overrideConfig = withAdded(overridePlacementHCL, overrideHCL)

// TestAccSavedPlanClusterResourceOverride: without facts Terraform refuses the apply (the preview
// computed again has two groups); with facts it applies, keeps the reviewed preview (one group of
// two clusters labelled gold) and warns what moved; with nothing moved it warns nothing.
func TestAccSavedPlanClusterResourceOverride(t *testing.T) {
	const addr = "fleet_cluster_resource_override.tier"
	tierSilver := func(t *testing.T) {
		patchMember(t, "prod-west-1", map[string]any{"labels": map[string]any{"tier": "silver"}}, map[string]any{"labels": map[string]any{"tier": "gold"}})
	}
	// planned saves the plan that adds the override once both clusters hold the placement's
	// namespace: one group, both clusters get tier=gold.
	planned := func(t *testing.T, name string, withFacts bool) *acctest.Workdir {
		acctest.NewHubClients(t).CreateNamespace(t, name)
		w, plan := planAdded(t, overrideConfig, availableBindings, name, withFacts)
		acctest.Lines(t, plan, `clusters_count\s+= 2`, `clusters_from\s+= "bindings"`, `value.{1,8}gold`)
		return w
	}

	t.Run("without facts the apply is refused", func(t *testing.T) {
		w := planned(t, "saved-ovr-live", false)
		tierSilver(t)
		applyRefused(t, w, `preview`)
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w := planned(t, "saved-ovr-facts", true)
		tierSilver(t)
		moved, out := applyMoved(t, w, addr)
		acctest.Lines(t, moved.Detail,
			`member cluster prod-west-1: labels tier: gold → silver`,
			`Computed now, the preview would differ`,
			`preview\.resources\[0\]\.groups`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		acctest.Lines(t, w.Must("show"), `value.{1,8}gold`, `groups_count\s+= 1`) // the reviewed preview
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		w := planned(t, "saved-ovr-still", true)
		acctest.Lines(t, applyUnwarned(t, w), `Apply complete! Resources: 1 added`)
	})
}
