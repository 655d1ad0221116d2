# terraform query -generate-config-out=generated.tf
list "fleet_update_run" "generated" {
  provider = fleet
  config {
    auto_upgrade_profile = "stable" # runs this profile generated
    state                = "NotStarted"
  }
}
