list "fleet_staged_update_strategy" "team_a" {
  provider = fleet
  config {
    namespace = "team-a"
  }
}
