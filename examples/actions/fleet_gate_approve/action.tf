# terraform apply -invoke=action.fleet_gate_approve.canary_done
action "fleet_gate_approve" "canary_done" {
  config {
    update_run = "release-1-33"
    stage      = "canary"
    timing     = "After"
  }
}
