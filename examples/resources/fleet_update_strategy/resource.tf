# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Canary first; an hour later (if the canary group's upgrades succeeded) the prod groups, in
# parallel, after someone approves the gate. The plan's `preview` counts and lists (the first 20 by
# name; every one with the provider's `preview_detail = "full"`) the members each group resolves to
# now, and the members no group selects (a run with this strategy never updates them).
resource "fleet_update_strategy" "canary_then_prod" {
  name = "canary-then-prod"
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 3600
    group { name = "canary" }
  }
  stage {
    name = "prod"
    before_gate {
      type         = "Approval"
      display_name = "Canary looks healthy"
    }
    group { name = "prod-east" }
    group { name = "prod-west" }
  }
  facts = data.fleet_facts.this.content
}

output "strategy_members" {
  value = {
    for s in fleet_update_strategy.canary_then_prod.preview.stages : s.name => {
      for g in s.groups : g.name => { count = g.member_count, first = g.members }
    }
  }
}
