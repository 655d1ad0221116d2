# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Canary clusters first, then a 30-minute soak; then, once someone approves, prod clusters two at a
# time in the integer order of their `rollout-order` label (2 before 10), and a last approval.
# The plan's `preview` shows which joined member clusters each stage holds now, in that order and
# in the batches KubeFleet updates them, and which clusters no stage holds (a run of a placement
# that schedules one of them would fail to initialize).
resource "fleet_staged_update_strategy" "rings" {
  name = "rings"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
    after_stage_task {
      type      = "TimedWait"
      wait_time = "30m"
    }
  }
  stage {
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
    sorting_label_key = "rollout-order"     # optional: otherwise by cluster name
    max_concurrency   = "2"                 # or a percentage of the stage: "25%"; default 1
    before_stage_task { type = "Approval" } # <run>-before-prod
    after_stage_task { type = "Approval" }  # <run>-after-prod
  }
  facts = data.fleet_facts.this.content
}

# For the ResourcePlacements of a namespace: a namespaced StagedUpdateStrategy.
resource "fleet_staged_update_strategy" "team" {
  name      = "team-rings"
  namespace = "team-a"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
  }
  stage {
    name            = "prod"
    max_concurrency = "50%"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
  facts = data.fleet_facts.this.content
}
