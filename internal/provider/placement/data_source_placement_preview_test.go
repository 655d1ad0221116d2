package placement_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The data source previews a policy without creating anything: for a new placement, and as an
// update of an existing one (its picks kept).
func TestAccPlacementPreviewDataSource(t *testing.T) {
	const addr = "data.fleet_placement_preview.what_if"
	acctest.NewHubClients(t)
	policy := func(n int) string {
		return fmt.Sprintf(`{
    placement_type     = "PickN"
    number_of_clusters = %d
    preferred_cluster_selector {
      weight          = 50
      property_sorter {
        name = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
  }`, n)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Invalid policies fail at plan, with the attribute path (first: the post-test
				// destroy runs the last step's configuration).
				Config: acctest.ProviderConfig + `data "fleet_placement_preview" "what_if" {
  policy {
    placement_type = "PickFixed"
    cluster_names  = ["Not_A_Member"]
  }
}` + "\n",
				ExpectError: acctest.WrappedRegexp(`policy\.cluster_names\[0\]: PickFixed cluster name Not_A_Member is not a valid member name`),
			},
			{
				Config: acctest.ProviderConfig + `data "fleet_placement_preview" "what_if" {
  policy ` + policy(2) + "\n}\n",
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preview"), previewExact(
						"found all cluster needed as specified by the scheduling policy, found 2 cluster(s)",
						[]knownvalue.Check{pick("prod-east-1", 50, "added"), pick("prod-west-1", 38, "added")},
						map[string]string{
							"canary-east":  `does not score high enough \(affinity score: 25, topology spread score: 0\)`,
							"prod-east-2":  taintReason,
							"staging-west": heartbeatReason,
						},
						map[string]int64{"not scored high enough": 1, "taint not tolerated": 1, "no recent heartbeat": 1},
					)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("preview")),
				},
			},
			{
				// A PickN of 4 asks for more than the three eligible clusters: not fulfilled.
				Config: acctest.ProviderConfig + `data "fleet_placement_preview" "what_if" {
  policy ` + policy(4) + "\n}\n",
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("fulfilled"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("message"),
						knownvalue.StringExact("could not find all clusters needed as specified by the scheduling policy, found 3 cluster(s) instead")),
				},
			},
			{
				// The what-if of scaling an existing placement out: its picks are kept.
				Config: pickNConfig("preview-existing", "preview-existing", 1) + `
data "fleet_placement_preview" "what_if" {
  placement = fleet_placement.test.name
  policy ` + policy(2) + `
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
						pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "added"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("preview-existing")),
				},
			},
		},
	})
}
