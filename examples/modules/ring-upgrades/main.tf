# Ring-based Kubernetes upgrades on an Azure Kubernetes Fleet Manager fleet: one update strategy whose
# stages are the rings, an update run over it, and optionally an auto-upgrade profile that follows the
# same rings. Every resource's plan preview is an output.

locals {
  run_name = var.kubernetes_version == null ? null : "${var.name}-${replace(var.kubernetes_version, ".", "-")}"
}

# The fleet's members as this plan reads them: every preview below is computed from them at plan and
# again when a saved plan is applied, so a reviewed plan applies after the fleet moved.
data "fleet_facts" "this" {
  fleet_ids = var.fleet_id == null ? null : [var.fleet_id]
  hub       = false # rollouts read the fleet's members, not the hub
}

# One stage block per ring, with one group block per update group of the ring.
resource "fleet_update_strategy" "rings" {
  name     = var.name
  fleet_id = var.fleet_id
  dynamic "stage" {
    for_each = var.rings
    content {
      name                        = stage.value.name
      after_stage_wait_in_seconds = stage.value.wait_seconds
      dynamic "group" {
        for_each = stage.value.groups
        content {
          name = group.value
        }
      }
    }
  }
  facts = data.fleet_facts.this.content
}

resource "fleet_update_run" "upgrade" {
  count    = var.kubernetes_version == null ? 0 : 1
  name     = local.run_name
  fleet_id = var.fleet_id
  # The same stages as the strategy's, built from the same rings, so the run's preview is known at
  # the first plan (an update_strategy_id is unknown until the strategy exists).
  dynamic "stage" {
    for_each = var.rings
    content {
      name                        = stage.value.name
      after_stage_wait_in_seconds = stage.value.wait_seconds
      dynamic "group" {
        for_each = stage.value.groups
        content {
          name = group.value
        }
      }
    }
  }
  managed_cluster_update {
    upgrade {
      type               = var.upgrade_type
      kubernetes_version = var.upgrade_type == "NodeImageOnly" ? null : var.kubernetes_version
    }
    node_image_selection { type = var.node_image_selection }
  }
  state    = var.run_state
  wait_for = var.wait_for
  facts    = data.fleet_facts.this.content
}

resource "fleet_auto_upgrade_profile" "rings" {
  count                     = var.channel == null ? 0 : 1
  name                      = var.name
  fleet_id                  = var.fleet_id
  channel                   = var.channel
  target_kubernetes_version = var.target_kubernetes_version
  update_strategy_id        = fleet_update_strategy.rings.id
  facts                     = data.fleet_facts.this.content
}
