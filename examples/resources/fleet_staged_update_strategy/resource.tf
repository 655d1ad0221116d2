# Canary clusters first, then a 30-minute soak; then prod clusters one at a time in the integer
# order of their `rollout-order` label (2 before 10), once someone approves the prod stage.
# The plan's `preview` shows which joined member clusters each stage holds now, in that order,
# and which clusters no stage holds (a run of a placement that schedules one of them would fail).
resource "fleet_staged_update_strategy" "rings" {
  name = "rings"
  stages = [
    {
      name              = "canary"
      label_selector    = { match_labels = { env = "canary" } }
      after_stage_tasks = [{ type = "TimedWait", wait_time = "30m" }]
    },
    {
      name              = "prod"
      label_selector    = { match_labels = { env = "prod" } }
      sorting_label_key = "rollout-order" # optional: otherwise by cluster name
      after_stage_tasks = [{ type = "Approval" }]
    },
  ]
}
