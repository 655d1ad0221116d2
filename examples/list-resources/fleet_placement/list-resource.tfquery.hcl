list "fleet_placement" "all" {
  provider = fleet
  config {
    name_prefix = "team-a-"
  }
}
