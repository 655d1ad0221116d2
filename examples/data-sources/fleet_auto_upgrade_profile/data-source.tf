# A profile Terraform did not create: its channel, last trigger and what the channel resolves to now.
data "fleet_auto_upgrade_profile" "nightly" {
  name = "nightly"
}

output "nightly_target" {
  value = data.fleet_auto_upgrade_profile.nightly.preview.target_kubernetes_version
}
