# A strategy Terraform did not create, with which members each of its groups selects now.
data "fleet_update_strategy" "rings" {
  name = "rings"
}

output "ring_members" {
  value = data.fleet_update_strategy.rings.preview
}
