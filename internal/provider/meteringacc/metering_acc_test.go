// Package meteringacc is the acceptance test of plans under Azure Resource
// Manager's read limits (issue 24): the real terraform CLI against a local
// fleet whose emulator meters reads as ARM does (testdata/fleet.yaml), with a
// bucket smaller than one plan's reads. A 429 that reached a diagnostic would
// fail the plan, and so the test.
package meteringacc

import (
	"fmt"
	"net/http"
	"strings"
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
			Config: acctest.MembersConfig,
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

// TestAcc429StormEndsInOneClearError: throttling beyond what pacing absorbs
// (every maintenance configuration read answered 429 with a Retry-After of a
// minute, past the 30 s the provider rides out) fails `terraform plan` of the
// real CLI with one error that names ARM's limit, the last answer's
// Retry-After and remaining-reads header and what to do; the provider stops
// reading at once rather than spending more of the budget (at most one 429
// per parallel read).
func TestAcc429StormEndsInOneClearError(t *testing.T) {
	f := acctest.Current(t)
	f.Admin(t, "DELETE", "/_emulator/metering", nil, nil)
	f.AddFaults(t, emulator.FaultRule{Method: http.MethodGet, Path: "/maintenanceConfigurations$", Count: 100000, Status: http.StatusTooManyRequests, RetryAfterSeconds: 60})
	w := acctest.NewWorkdir(t, "data \"fleet_members\" \"all\" {}\n")
	out, err := w.Run("plan", "-input=false")
	if err == nil {
		t.Fatalf("plan succeeded through a 429 storm:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("%d errors, want one:\n%s", n, out)
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
	for _, part := range []string{"Azure Resource Manager throttled the read GET", "429 TooManyRequests",
		"token bucket of 250 reads refilled at 25 a second", "3,750, 375 a second, across all principals",
		"with a Retry-After longer than the 30s of throttling this process waits out", "Retry-After: 60", emulator.ReadRemainingHeader + ": 0", "run fewer plans in parallel", "a principal of its own"} {
		if !strings.Contains(text, part) {
			t.Errorf("the error lacks %q:\n%s", part, out)
		}
	}
	hits := f.Faults(t)[0].Hits
	if hits < 1 || hits > memberReadConcurrency {
		t.Errorf("%d throttled requests, want 1 to %d (one per parallel read, then none)", hits, memberReadConcurrency)
	}
	t.Logf("%d throttled requests; the plan's error:\n%s", hits, out)
}

// memberReadConcurrency is the session's parallel member reads (engine/session/inventory.go).
const memberReadConcurrency = 8
