# A staged rollout on the local fleet (make fleet-up; . .localfleet/env; make install; export
# TF_CLI_CONFIG_FILE=$PWD/bin/terraformrc): apply once to create the placement and the strategy,
# then plan a release with -var release=1 to read the run's preview. See README.md.
terraform {
  required_providers {
    fleet = { source = "fleetops/fleet" }
  }
}

provider "fleet" {}

variable "release" {
  description = "The release to roll out (a staged update run that snapshots the placement's resources when it starts); null: none yet."
  type        = number
  default     = null
}

# The web namespace's resources, placed on every healthy prod and canary cluster (the GPU cluster's
# taint tolerated), but only as staged update runs roll them out.
resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    required_cluster_selector {
      label_expression {
        key      = "env"
        operator = "In"
        values   = ["canary", "prod"]
      }
    }
    toleration {
      key   = "dedicated"
      value = "gpu"
    }
  }
  strategy { type = "External" }
}

resource "fleet_staged_update_strategy" "rings" {
  name = "rings"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
    after_stage_task {
      type      = "TimedWait"
      wait_time = "10m"
    }
  }
  stage {
    name = "gold"
    label_selector {
      match_labels = { env = "prod", tier = "gold" }
    }
    after_stage_task { type = "Approval" }
  }
  stage {
    name = "rest"
    label_selector {
      match_labels = { env = "prod" }
      match_expression {
        key      = "tier"
        operator = "NotIn"
        values   = ["gold"]
      }
    }
    max_concurrency = "50%"                 # half of the stage's clusters at a time
    before_stage_task { type = "Approval" } # someone approves before the rest starts
  }
}

resource "fleet_staged_update_run" "release" {
  count                       = var.release == null ? 0 : 1
  name                        = "web-release-${var.release}"
  placement_name              = fleet_placement.web.id
  staged_update_strategy_name = fleet_staged_update_strategy.rings.id
  approvals                   = ["gold"] # gold's after-stage approval; the rest's before-stage one stays with a person
}

output "strategy_stages" {
  value = fleet_staged_update_strategy.rings.preview
}

output "release" {
  value = one(fleet_staged_update_run.release[*].preview)
}
