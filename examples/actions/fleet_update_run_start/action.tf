# A run created without starting it, started by the action once it exists; the CLI shows its
# progress (stage, group, members being updated, gates waited on, members done of the total).
resource "fleet_update_run" "release" {
  name = "release-1-33"
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 3600
    group {
      name            = "canary"
      max_concurrency = "2"
    }
  }
  stage {
    name = "prod"
    group {
      name            = "prod"
      max_concurrency = "10%"
    }
  }
  state = "NotStarted"
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  lifecycle {
    ignore_changes = [state]
    action_trigger {
      events  = [after_create]
      actions = [action.fleet_update_run_start.release]
    }
  }
}

action "fleet_update_run_start" "release" {
  config {
    update_run = "release-1-33"
    wait_for   = "completed" # or "started" (default)
  }
}

# Or alone: terraform apply -invoke=action.fleet_update_run_start.release
