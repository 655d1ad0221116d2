# Imported by the member cluster's name; the import claims every taint the MemberCluster has.
terraform import fleet_member_cluster_taints.prod_west_maintenance prod-west-1
