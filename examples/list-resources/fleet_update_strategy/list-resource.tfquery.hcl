list "fleet_update_strategy" "all" {
  provider = fleet
  config {
    name_prefix = "team-a-"
  }
}
