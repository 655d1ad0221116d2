# Label the placed namespace (and everything in it) with the member cluster's name, and keep it off
# dev clusters. "$${...}" is HCL for KubeFleet's "${...}" variables.
resource "fleet_cluster_resource_override" "web" {
  name               = "web-served-by"
  placement          = { name = fleet_placement.web.name }
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "web" }]
  rules = [
    {
      cluster_selector = {} # every cluster
      json_patches     = [{ op = "add", path = "/metadata/labels/served-by", value = jsonencode("$${MEMBER-CLUSTER-NAME}") }]
    },
    {
      cluster_selector = { terms = [{ labels = { env = "dev" } }] }
      type             = "Delete" # dev clusters do not get the namespace
    },
  ]
}
