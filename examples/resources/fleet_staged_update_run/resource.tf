# A placement rolled out by staged update runs rather than all at once.
resource "fleet_placement" "web" {
  name               = "web"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "web" }]
  strategy           = { type = "External" }
}

# One release: the placement's resource snapshot 3, stage by stage as the strategy says. The plan's
# `preview` lists each stage's clusters in update order, what it waits for and which approval
# request it needs — or why KubeFleet would refuse to start the run. Destroying the run abandons
# the release: clusters already updated keep the new version.
resource "fleet_staged_update_run" "web_r3" {
  name                        = "web-r3"
  placement_name              = fleet_placement.web.id
  staged_update_strategy_name = fleet_staged_update_strategy.rings.id
  resource_snapshot_index     = "3"      # optional: the placement's latest
  approvals                   = ["prod"] # approve the prod stage's approval request when the run makes it
  wait_for                    = "completed"
}

output "web_r3_order" {
  value = { for s in fleet_staged_update_run.web_r3.preview.stages : s.name => s.clusters }
}
