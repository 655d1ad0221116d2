# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {
  # What KubeFleet initializes each run from (placement, snapshots, bindings, strategy).
  staged_run {
    placement_name              = "web"
    staged_update_strategy_name = "rings"
  }
  staged_run {
    namespace                   = "team-a"
    placement_name              = "api"
    staged_update_strategy_name = "team"
  }
}

# A placement rolled out by staged update runs rather than all at once.
resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  strategy { type = "External" }
  facts = data.fleet_facts.this.content
}

# One release, stage by stage as the strategy says. Without resource_snapshot_index KubeFleet
# snapshots the placement's resources when it starts the run (status.resource_snapshot_index_used
# says which index). The plan's `preview` lists each stage's clusters in update order and batches,
# what it waits for before and after, and which approval requests it needs — or why KubeFleet
# would refuse to start the run. Destroying the run abandons the release: clusters already
# updated keep the new version.
resource "fleet_staged_update_run" "web_r3" {
  name                        = "web-r3"
  placement_name              = fleet_placement.web.id
  staged_update_strategy_name = "rings"                   # a fleet_staged_update_strategy
  state                       = "Run"                     # "Initialize": create it, start later; "Stop": pause it
  approvals                   = ["canary", "before:prod"] # a stage name approves its before- and after-stage requests
  wait_for                    = "completed"
  facts                       = data.fleet_facts.this.content
}

output "web_r3_batches" {
  value = { for s in fleet_staged_update_run.web_r3.preview.stages : s.name => s.batches }
}

# A namespaced StagedUpdateRun of the ResourcePlacement "api" in namespace team-a.
resource "fleet_staged_update_run" "team" {
  name                        = "api-r1"
  namespace                   = "team-a"
  placement_name              = "api"
  staged_update_strategy_name = "team"
  facts                       = data.fleet_facts.this.content
}
