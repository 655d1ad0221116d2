// Package meteringacc is the acceptance test of plans under Azure Resource
// Manager's read limits (issue 24): the real terraform CLI against a local
// fleet whose emulator meters reads as ARM does (testdata/fleet.yaml), with a
// bucket smaller than one plan's reads. A 429 that reached a diagnostic would
// fail the plan, and so the test.
package meteringacc

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

func TestMain(m *testing.M) { acctest.Main(m, "internal/provider/meteringacc/testdata/fleet.yaml") }

// TestAccPlansPacedUnderARMReadLimits reads the 300 members with their
// maintenance windows (fleet_members) through the whole provider, more reads
// than the bucket of 50 holds: the provider reads clusters by list and paces
// the rest, so the run succeeds with every member read and no 429 surfaced.
func TestAccPlansPacedUnderARMReadLimits(t *testing.T) {
	f := acctest.Current(t)
	f.Admin(t, "DELETE", "/_emulator/metering", nil, nil)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "fleet" {}
data "fleet_members" "all" {}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.fleet_members.all", tfjsonpath.New("members"), knownvalue.ListSizeExact(300)),
			},
			Check: func(*terraform.State) error {
				var st emulator.MeterStats
				f.Admin(t, "GET", "/_emulator/metering", nil, &st)
				reads := 0
				for _, n := range st.Reads {
					reads += n
				}
				throttled := 0
				for _, n := range st.Throttled {
					throttled += n
				}
				t.Logf("ARM reads so far: %d (%v); 429s answered and retried: %d", reads, st.Reads, throttled)
				if reads <= st.Limits.Bucket {
					return fmt.Errorf("%d reads: the test did not exceed the bucket of %d", reads, st.Limits.Bucket)
				}
				if n := st.Reads["GET Microsoft.ContainerService/managedClusters/*"]; n != 0 {
					return fmt.Errorf("%d managed cluster GETs: clusters should be read by list", n)
				}
				return nil
			},
		}},
	})
}
