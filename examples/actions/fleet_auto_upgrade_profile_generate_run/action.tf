# terraform apply -invoke=action.fleet_auto_upgrade_profile_generate_run.stable
action "fleet_auto_upgrade_profile_generate_run" "stable" {
  config {
    auto_upgrade_profile = "stable"
  }
}
