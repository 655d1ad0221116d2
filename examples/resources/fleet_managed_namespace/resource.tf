# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Two teams, two namespaces, each on its own members. Team A runs on every production member
# (the gpu-tainted one too), within a quota, reachable only from its own pods.
resource "fleet_managed_namespace" "team_a" {
  name     = "team-a"
  location = "eastus"
  labels   = { team = "a" }

  resource_quota {
    cpu_request    = "8"
    cpu_limit      = "16"
    memory_request = "32Gi"
    memory_limit   = "64Gi"
  }

  network_policy {
    ingress = "AllowSameNamespace"
    egress  = "AllowAll"
  }

  placement {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
    # Tolerations can only be added later, never removed (KubeFleet rejects it, so the plan fails).
    toleration {
      key    = "dedicated"
      value  = "gpu"
      effect = "NoSchedule"
    }
  }

  facts = data.fleet_facts.this.content
}

# Team B gets two named members, a smaller quota and no incoming traffic at all. Destroying it
# deletes the namespaces on the members too; a namespace of that name a member already has is
# taken over only when it is identical.
resource "fleet_managed_namespace" "team_b" {
  name            = "team-b"
  location        = "eastus"
  labels          = { team = "b" }
  adoption_policy = "IfIdentical"
  delete_policy   = "Delete"

  resource_quota {
    cpu_limit    = "4"
    memory_limit = "16Gi"
  }

  network_policy {
    ingress = "DenyAll"
  }

  placement {
    placement_type = "PickFixed"
    cluster_names  = ["canary-east", "prod-west-1"]
  }

  facts = data.fleet_facts.this.content
}

# Where each namespace goes, as the plan's preview has it, and where it went.
output "team_namespaces" {
  value = {
    for ns in [fleet_managed_namespace.team_a, fleet_managed_namespace.team_b] : ns.name => {
      planned  = [for s in ns.preview.selected : s.cluster]
      excluded = ns.preview.excluded
      placed   = ns.placed_members
    }
  }
}
