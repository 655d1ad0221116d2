# The quickstart: run `make demo` from the repository root. It starts the
# local fleet described in fleet.yaml, sources .localfleet/env (the ARM_*
# variables), and runs terraform init/plan/apply here.
terraform {
  required_providers {
    fleet = {
      source = "fleetops/fleet"
    }
  }
}

# Empty: with the ARM_* environment set, the provider reaches the Fleet API
# and gets the hub's and members' credentials from it.
provider "fleet" {}

data "fleet_members" "all" {}

output "members" {
  description = "Each member: update group, location, Kubernetes version, maintenance window state and health."
  value = {
    for m in data.fleet_members.all.members : m.name => {
      group              = m.group
      location           = m.location
      kubernetes_version = m.kubernetes_version
      node_pools         = { for p in m.node_pools : p.name => "${p.count} x ${p.node_image_version}" }
      maintenance_window = m.maintenance_window
      window_opens_at    = m.window_opens_at
      healthy            = m.healthy
      node_count         = lookup(m.properties, "kubernetes-fleet.io/node-count", null)
    }
  }
}
