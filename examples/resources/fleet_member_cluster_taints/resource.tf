# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Keep new placements off a member during a kernel maintenance. The plan lists the placements bound to
# it that would not pick it again on their next scheduling; what they have bound stays (KubeFleet's
# taints do not evict: use fleet_placement_evict to move them). Taints kubectl set are kept.
resource "fleet_member_cluster_taints" "prod_west_maintenance" {
  member_cluster = "prod-west-1"
  taint {
    key    = "maintenance"
    value  = "kernel"
    effect = "NoSchedule"
  }
  facts = data.fleet_facts.this.content
}
