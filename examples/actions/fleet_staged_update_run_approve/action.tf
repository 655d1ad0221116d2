# terraform apply -invoke=action.fleet_staged_update_run_approve.prod
action "fleet_staged_update_run_approve" "prod" {
  config {
    update_run = "web-v42"
    stage      = "prod"
    approval   = "Before"
  }
}
