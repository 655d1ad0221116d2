# Before maintenance of prod-eu-3: terraform apply -invoke=action.fleet_placement_evict.web
action "fleet_placement_evict" "web" {
  config {
    placement = "web"
    cluster   = "prod-eu-3"
  }
}
