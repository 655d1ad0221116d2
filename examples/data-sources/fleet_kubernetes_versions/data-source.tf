# Versions in the locations of the provider fleet's members, and what each
# auto-upgrade channel resolves to there.
data "fleet_kubernetes_versions" "fleet" {}

# Or in locations of your choice (no fleet needed).
data "fleet_kubernetes_versions" "europe" {
  locations = ["westeurope"]
}

# Where a Stable or Rapid profile would move members today, by location.
output "channel_targets" {
  value = { for l in data.fleet_kubernetes_versions.fleet.location_versions : l.location => l.channels }
}

# Versions a manual update run could still target but auto-upgrade never will.
output "previews" {
  value = distinct(flatten([
    for l in data.fleet_kubernetes_versions.fleet.location_versions : [for v in l.versions : v.version if v.is_preview]
  ]))
}

# What a TargetKubernetesVersion profile on "1.32" moves members to.
output "target_1_32" {
  value = data.fleet_kubernetes_versions.europe.location_versions[0].latest_patch_by_minor["1.32"]
}
