list "fleet_staged_update_run" "team_a" {
  provider = fleet
  config {
    namespace = "team-a"
  }
}
