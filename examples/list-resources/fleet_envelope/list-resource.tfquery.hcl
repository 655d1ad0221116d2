list "fleet_envelope" "team_a" {
  provider = fleet
  config {
    namespace = "team-a"
  }
}
