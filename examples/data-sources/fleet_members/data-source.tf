# Every member of the provider's default fleet.
data "fleet_members" "all" {}

# Members whose update window is open now: an update run reaches them first.
output "open_now" {
  value = [for m in data.fleet_members.all.members : m.name if m.maintenance_window == "open"]
}

# Members the hub's scheduler would not place on, and why.
output "unhealthy" {
  value = { for m in data.fleet_members.all.members : m.name => m.health_message if !m.healthy }
}
