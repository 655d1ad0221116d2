# terraform test against the local fleet (internal/provider/testdata/fleet.yaml: the quickstart's members),
# run by `make test` (internal/provider TestAccRingUpgradesModule). By hand: `make fleet-up`,
# `source .localfleet/env`, then `terraform init && terraform test` here with TF_CLI_CONFIG_FILE=bin/terraformrc.

# Every member listed: the assertions below look at members the default summary leaves out
# (it lists the members that change first; a predicted failure is a plan warning).
provider "fleet" {
  preview_detail = "full"
}

variables {
  name = "rings"
  rings = [
    { name = "canary", groups = ["canary"], wait_seconds = 60 },
    { name = "prod", groups = ["prod"] },
  ]
  kubernetes_version = "1.33.1"
}

# The plan alone shows the rings' members, the members no ring reaches and the run's order.
run "plan_shows_rings_and_run" {
  command = plan

  assert {
    condition     = jsonencode(output.rings.canary.canary.members) == jsonencode(["canary-east"])
    error_message = "The canary ring should select canary-east only, got ${jsonencode(output.rings)}."
  }
  assert {
    condition     = output.rings.prod.prod.count == 3
    error_message = "The prod ring should select the three prod members, got ${jsonencode(output.rings.prod)}."
  }
  assert {
    condition     = jsonencode(output.unselected_members) == jsonencode(["staging-west"])
    error_message = "staging-west is in no ring and should be reported, got ${jsonencode(output.unselected_members)}."
  }
  assert {
    condition     = jsonencode([for m in output.run_plan.canary : m.member]) == jsonencode(["canary-east"]) && output.run_plan.canary[0].to == "1.33.1"
    error_message = "The run should upgrade canary-east to 1.33.1 first, got ${jsonencode(output.run_plan)}."
  }
  # prod-east-2 is on 1.31.9: AKS does not skip a minor version, and the plan says so before anything runs.
  assert {
    condition     = sum(values(output.run_actions)) == 4 && output.run_actions.fail == 1
    error_message = "The run should cover the four ring members and fail one, got ${jsonencode(output.run_actions)}."
  }
  assert {
    condition     = anytrue([for m in output.run_plan.prod : m.member == "prod-east-2" && m.action == "fail" && strcontains(m.reason, "minor")])
    error_message = "The plan should show why prod-east-2 cannot go to 1.33.1, got ${jsonencode(output.run_plan.prod)}."
  }
  assert {
    condition     = fleet_update_run.upgrade[0].name == "rings-1-33-1"
    error_message = "The run's name should carry the version."
  }
}

# Applied: the strategy, a run that is not started (the module's default) and a profile on the same rings.
run "apply_creates_without_starting" {
  variables {
    channel = "Stable"
  }

  assert {
    condition     = output.run_status == "NotStarted"
    error_message = "The run should not start until run_state = \"Running\", got ${coalesce(output.run_status, "null")}."
  }
  assert {
    condition     = endswith(output.update_strategy_id, "/updateStrategies/rings") && endswith(output.auto_upgrade_profile_id, "/autoUpgradeProfiles/rings")
    error_message = "Unexpected IDs: ${output.update_strategy_id}, ${output.auto_upgrade_profile_id}."
  }
  assert {
    condition     = fleet_auto_upgrade_profile.rings[0].update_strategy_id == output.update_strategy_id
    error_message = "The profile should follow the module's rings."
  }
  assert {
    condition     = output.channel_target.target != null
    error_message = "The Stable channel should resolve to a version."
  }
}

# Bad input is refused at plan with the variable's message.
run "rejects_an_empty_ring" {
  command = plan
  variables {
    rings = [{ name = "empty", groups = [] }]
  }
  expect_failures = [var.rings]
}
