# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

resource "fleet_update_strategy" "canary_then_prod" {
  name = "canary-then-prod"
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
    before_gate {
      type         = "Approval"
      display_name = "Canary looks healthy"
    }
    # A group upgrades one member after another unless max_concurrency says otherwise: 10% of an
    # 800-member group is 80 at once.
    group {
      name            = "prod"
      max_concurrency = "10%"
    }
  }
  facts = data.fleet_facts.this.content
}

# Upgrade every member to Kubernetes 1.33.1 with the newest node image all their regions offer.
# `terraform plan` shows the rollout in `preview`: stage by stage, each group's members in the order
# they will be upgraded (maintenance window open now, opening within 4 hours, none, closed), from
# which versions to which, and who is skipped or stays pending, and why. On a large fleet the plan
# stays short: counts (`member_count`, `actions`) cover every member of the run, stage and group, and
# the groups' `members` list the few a reader needs first (the first members upgraded, then
# failures, pending and skipped members) with their `position` in the group's order;
# `preview_detail = "full"` in the provider block lists every member.
#
# The run follows the strategy by its ID. When both are created in the same plan, the ID (and so the
# run's preview) is known only after apply; to preview the run at that first plan, give the run its own
# `stage` blocks instead, e.g. a `dynamic "stage"` block over the same local value or variable the
# strategy's stages are built from (as the getting-started guide does).
resource "fleet_update_run" "k8s_1_33" {
  name               = "k8s-1-33-1"
  update_strategy_id = fleet_update_strategy.canary_then_prod.id
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
    node_image_selection { type = "Consistent" }
  }

  # Approve the prod stage's gate once the run reaches it (by position, not gate ID).
  approval {
    stage  = "prod"
    timing = "Before"
  }

  # Skip a member that must not be touched by this run (a skip cannot be undone).
  skip {
    type = "Member"
    name = "prod-legacy"
  }

  # Start it (the default; "NotStarted" creates it without starting, "Stopped" stops it) and wait
  # until it completes: a Failed or Stopped run fails the apply naming each failed member. While it
  # waits, the CLI shows only "Still creating..."; each state change (stage, group, members done of the
  # total) is logged at INFO (TF_LOG_PROVIDER=INFO). To see progress lines in the CLI instead, create
  # the run with state = "NotStarted" and start it with the fleet_update_run_start action.
  state    = "Running"
  wait_for = "completed"
  timeouts { create = "6h" }

  # Run it again later (e.g. once prod-legacy may be upgraded, or after members failed): a Completed
  # run cannot be started again, so a new value here replaces it with a new run of the same name,
  # whose plan previews what the re-run does (members already at 1.33.1 are skipped).
  triggers = { rerun = "1" }
  facts    = data.fleet_facts.this.content
}

output "rollout_plan" {
  value = {
    members = fleet_update_run.k8s_1_33.preview.member_count
    actions = fleet_update_run.k8s_1_33.preview.actions # e.g. { upgrade = 950, pending = 40, skip = 10 }
    stages = [
      for s in fleet_update_run.k8s_1_33.preview.stages : {
        stage   = s.name
        actions = s.actions
        listed = flatten([for g in s.groups : [
          for m in(g.members == null ? [] : g.members) : "${g.name} #${m.position} ${m.name}: ${m.action} ${m.current_kubernetes_version} -> ${m.target_kubernetes_version}${m.reason == null ? "" : " (${m.reason})"}"
        ]])
      }
    ]
  }
}

output "rollout_state" {
  value = fleet_update_run.k8s_1_33.status.state
}
