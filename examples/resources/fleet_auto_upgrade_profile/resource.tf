# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Keep the fleet on the Stable channel: when AKS releases a new patch of minor N-1 (N being the
# newest GA minor), Fleet generates and starts an update run that copies the "canary-then-prod"
# strategy. `terraform plan` shows in `preview` the version the channel resolves to now and, for
# each member, whether a run would upgrade it, leave it (already there) or skip it, and why.
resource "fleet_update_strategy" "canary_then_prod" {
  name = "canary-then-prod"
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 3600
    group { name = "canary" }
  }
  stage {
    name = "prod"
    group { name = "prod" }
  }
  facts = data.fleet_facts.this.content
}

resource "fleet_auto_upgrade_profile" "stable" {
  name                      = "stable"
  channel                   = "Stable"
  update_strategy_id        = fleet_update_strategy.canary_then_prod.id
  node_image_selection_type = "Consistent"
  facts                     = data.fleet_facts.this.content
}

# Pin a minor version: the latest patch of 1.32, as AKS releases them. long_term_support allows a
# minor AKS offers only under its long-term support plan.
resource "fleet_auto_upgrade_profile" "pinned" {
  name                      = "pinned-132"
  channel                   = "TargetKubernetesVersion"
  target_kubernetes_version = "1.32"
  disabled                  = true # created, but triggers nothing until enabled
  facts                     = data.fleet_facts.this.content
}

# Node images only, and a run for today's target right away (created, not started: start it with a
# fleet_update_run or `az fleet updaterun start`).
resource "fleet_auto_upgrade_profile" "images" {
  name                = "node-images"
  channel             = "NodeImage"
  generate_update_run = true
  facts               = data.fleet_facts.this.content
}

output "stable_channel" {
  description = "What the Stable channel resolves to now, and what a run would do with each member."
  value = {
    target  = fleet_auto_upgrade_profile.stable.preview.target_kubernetes_version
    actions = fleet_auto_upgrade_profile.stable.preview.actions # action → number of members
    members = { for name, m in fleet_auto_upgrade_profile.stable.preview.members : name => "${m.action}: ${m.reason}" }
  }
}

output "node_image_run" {
  value = fleet_auto_upgrade_profile.images.generated_update_run_id
}
