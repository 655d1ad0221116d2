# A ClusterResourceOverride is imported by its name.
terraform import fleet_cluster_resource_override.web web-served-by
