# terraform apply -invoke=action.fleet_update_run_skip.flaky
action "fleet_update_run_skip" "flaky" {
  config {
    update_run = "release-1-33"
    target {
      type = "Member"
      name = "prod-eu-7"
    }
    target {
      type = "AfterStageWait"
      name = "canary"
    }
  }
}
