# Join a managed cluster to the fleet in update group "ring2", with labels the hub's MemberCluster
# gets (placements select on them): exactly these. Without `labels`, the member's labels are left
# as they are, including those set outside Terraform.
resource "fleet_member" "payments_east" {
  name                = "payments-east"
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/managedClusters/payments-east"
  group               = "ring2"
  labels              = { env = "prod", team = "payments" }

  timeouts {
    create = "45m" # the join; default 30m
  }
}
