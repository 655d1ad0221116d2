list "fleet_auto_upgrade_profile" "all" {
  provider = fleet
  config {
    name_prefix = "team-a-"
  }
}
