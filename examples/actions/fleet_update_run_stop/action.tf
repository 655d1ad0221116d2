# terraform apply -invoke=action.fleet_update_run_stop.release
action "fleet_update_run_stop" "release" {
  config {
    update_run = "release-1-33"
  }
}
