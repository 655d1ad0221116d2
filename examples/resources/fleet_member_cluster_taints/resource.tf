# Keep new placements off a member during a kernel maintenance. The plan lists the placements bound to
# it that would not pick it again on their next scheduling; what they have bound stays (KubeFleet's
# taints do not evict: use fleet_placement_evict to move them). Taints kubectl set are kept.
resource "fleet_member_cluster_taints" "prod_west_maintenance" {
  member_cluster = "prod-west-1"
  taint = [
    { key = "maintenance", value = "kernel", effect = "NoSchedule" },
  ]
}
