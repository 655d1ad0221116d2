// Package rolloutacc holds the acceptance tests of fleet_update_strategy and
// fleet_update_run against a local fleet of its own, whose clock runs fast
// enough for runs to complete within seconds.
package rolloutacc

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func TestMain(m *testing.M) {
	// Waits read the run every second (see TestAccUpdateRun_requestsPer30s).
	acctest.MainPollingFast(m, "internal/provider/rolloutacc/testdata/fleet.yaml")
}

const twoStages = `
resource "fleet_update_strategy" "s" {
  name = "two-stage"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
    after_stage_wait_in_seconds = 60
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}
`

func TestAccUpdateRun_twoStagesCompleted(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: twoStages + `
resource "fleet_update_run" "r" {
  name     = "two-stage-run"
  wait_for = "completed"
` + acctest.StagesOf("fleet_update_strategy.s") + `
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 1, "groups", 0, "members"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("prod-1"), knownvalue.StringExact("prod-2")})),
				plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "unselected_members"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("risky-1")})),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "after_stage_wait_in_seconds"), knownvalue.Int64Exact(60)),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "members", 0, "name"), knownvalue.StringExact("canary-1")),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "members", 0, "action"), knownvalue.StringExact("upgrade")),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "members", 0, "target_kubernetes_version"), knownvalue.StringExact("1.33.1")),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 1, "groups", 0, "members", 0, "target_node_image_versions", "system"),
					knownvalue.StringExact("AKSUbuntu-2204gen2containerd-202511.04.0")),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "unselected_members"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("risky-1")})),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "outcome"), knownvalue.StringExact("Completed")),
				plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 1, "groups", 0, "member_count"), knownvalue.Int64Exact(2)),
				plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 1, "groups", 0, "members_omitted"), knownvalue.Int64Exact(0)),
				plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "unselected_member_count"), knownvalue.Int64Exact(1)),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "unselected_member_count"), knownvalue.Int64Exact(1)),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "members", 0, "position"), knownvalue.Int64Exact(1)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 1, "groups", 0, "members", 1, "state"), knownvalue.StringExact("Completed")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 0, "after_stage_wait_state"), knownvalue.StringExact("Completed")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("state"), knownvalue.StringExact("Running")),
			},
		}, {
			ResourceName: "fleet_update_run.r", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"preview", "wait_for", "timeouts", "status"},
		}, {
			ResourceName: "fleet_update_strategy.s", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"preview", "timeouts"},
		}},
	})
}

// A member whose upgrade fails makes the run Failed: apply fails naming the
// member and its message, and the state is saved. A Failed run stays failed:
// the next plan with the same configuration (state = Running) is empty, so no
// apply — even one made for another change — re-starts a failed upgrade.
// Changing `retry` does, once the failure is cleared.
func TestAccUpdateRun_failureThenRetry(t *testing.T) {
	cfg := func(state, retry string) string {
		return `
resource "fleet_update_run" "r" {
  name     = "risky-run"
  state    = "` + state + `"
  retry    = ` + retry + `
  wait_for = "completed"
  stage {
    name = "risky"
    group {
      name = "risky"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg("NotStarted", "null"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("NotStarted")),
			},
		}, {
			Config:      cfg("Running", "null"),
			ExpectError: regexp.MustCompile(`(?s)Member risky-1 .*failed: planned failure:\s+node\s+drain\s+timed\s+out`),
		}, {
			// Refreshed: Failed keeps state = Running, so nothing is planned.
			Config: cfg("Running", "null"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionNoop),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Failed")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("state"), knownvalue.StringExact("Running")),
			},
		}, {
			PreConfig: func() { clearFailure(t, "risky-1") },
			Config:    cfg("Running", `"after-drain-fix"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 0, "groups", 0, "members", 0, "state"), knownvalue.StringExact("Completed")),
			},
		}},
	})
}

// A provider whose azure block is known only after apply (a fleet created in
// the same apply, here a terraform_data stand-in) plans unknown previews for
// every Fleet API resource, never an error, and the apply then works.
func TestAccRollout_unknownProviderConfiguration(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		ExternalProviders:        map[string]resource.ExternalProvider{},
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "fleet" {
  input = "rollout"
}

provider "fleet" {
  azure {
    fleet_name = terraform_data.fleet.output
  }
}

resource "fleet_update_strategy" "s" {
  name   = "unknown-config"
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}

resource "fleet_update_run" "r" {
  name     = "unknown-config-run"
  state    = "NotStarted"
` + acctest.StagesOf("fleet_update_strategy.s") + `
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
  }
}

resource "fleet_auto_upgrade_profile" "p" {
  name    = "unknown-config"
  channel = "Stable"
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("fleet_update_strategy.s", acctest.Path("preview")),
				plancheck.ExpectUnknownValue("fleet_update_run.r", acctest.Path("preview")),
				plancheck.ExpectUnknownValue("fleet_auto_upgrade_profile.p", acctest.Path("preview")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("NotStarted")),
			},
		}},
	})
}
