package disruption_test

import (
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// npWeekendConfig is AKS's own "only allow disruption at weekends" example
// (https://learn.microsoft.com/azure/aks/node-autoprovision-disruption: budgets
// `nodes: "50%"` on `0 0 * * 6` for 48h, plus `nodes: "0"`) on NodePool "guarded", whose pods two
// seeded PodDisruptionBudgets select, beside a second NodePool of the same cluster.
const npWeekendConfig = `provider "fleet" {}

resource "fleet_nodepool_disruption" "test" {
  cluster              = "canary-east"
  node_pool            = "guarded"
  consolidation_policy = "WhenEmpty"
  budget {
    nodes    = "50%"
    schedule = "0 0 * * 6"
    duration = "48h"
  }
  budget {
    nodes = "0"
  }
}

resource "fleet_nodepool_disruption" "pinned" {
  cluster              = "canary-east"
  node_pool            = "pinned"
  consolidation_policy = "WhenEmpty"
}
`

// The PDB picture and the week ahead: shop/web (no disruption allowed) holds the two nodes of its
// pods, shop/cart lets its not-Ready pod go (AlwaysAllow), and the weekend example never opens —
// a schedule of zeros for the whole week and warnings that say why. The PDBs are listed in pages
// of one (two requests a read) and read once per provider instance for both NodePools.
func TestAccNodePoolDisruption_pdbsAndWeekend(t *testing.T) {
	kc := npMember(t)
	old := kube.PDBPageSize
	kube.PDBPageSize = 1
	t.Cleanup(func() { kube.PDBPageSize = old })
	clock := &npClock{now: npMondayMorning}
	var instances atomic.Int64
	factories := map[string]func() (tfprotov6.ProviderServer, error){
		"fleet": func() (tfprotov6.ProviderServer, error) {
			instances.Add(1)
			return provider.NewServer("test", provider.WithClock(clock.Now))()
		},
	}
	before := kube.PDBListRequests()
	web := knownvalue.StringExact("PodDisruptionBudget shop/web allows no disruption of one of its pods now")
	zero := knownvalue.MapExact(map[string]knownvalue.Check{
		"Empty": knownvalue.Int64Exact(0), "Underutilized": knownvalue.Int64Exact(0), "Drifted": knownvalue.Int64Exact(0),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             npExpectReleased(kc, "guarded"),
		Steps: []resource.TestStep{{
			Config: npWeekendConfig,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes"), knownvalue.MapExact(map[string]knownvalue.Check{"guarded-0": web, "guarded-1": web})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes_count"), knownvalue.Int64Exact(2)),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "summary"), knownvalue.StringRegexp(regexp.MustCompile(`^Karpenter may start disrupting 0 of 4 nodes now: .*; 2 nodes held by PodDisruptionBudgets\.$`))),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "schedule"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
					"from": knownvalue.StringExact("2026-11-23T10:00:00Z"), "to": knownvalue.StringExact("2026-11-30T10:00:00Z"),
					"allowed": zero, "unbounded": knownvalue.ListExact([]knownvalue.Check{}),
				})})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "schedule_omitted"), knownvalue.Int64Exact(0)),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact(`budget 0 (nodes "50%", schedule "0 0 * * 6", duration 48h) is never the effective limit in the coming week: budget 1 (nodes "0"), active whenever it is, always allows fewer disruptions`),
					knownvalue.StringRegexp(regexp.MustCompile(`^no disruption is allowed at any time in the coming week \(UTC, as Karpenter evaluates schedules\) for Empty, Drifted, which this NodePool would otherwise use: `)),
				})),
				plancheck.ExpectKnownValue("fleet_nodepool_disruption.pinned", acctest.Path("preview", "nodes"), knownvalue.Int64Exact(2)),
			}},
		}},
	})
	requests, n := kube.PDBListRequests()-before, instances.Load()
	t.Logf("%d PodDisruptionBudget list requests (pages of one) for 2 NodePools of one cluster over %d provider instances", requests, n)
	// Two provider instances compute previews (the plan, and apply's own plan); each reads the PDBs
	// once, in two pages, for both NodePools: 4. A read per NodePool would make it 8.
	if requests != 4 {
		t.Fatalf("%d list requests over %d provider instances, want 4: one read of two pages per planning instance", requests, n)
	}
}
