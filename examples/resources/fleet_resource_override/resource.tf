# Per-cluster replicas and image registry for one Deployment of the web namespace.
resource "fleet_resource_override" "frontend" {
  namespace          = "web"
  name               = "frontend"
  placement          = { name = fleet_placement.web.name } # scope = "Namespaced" for a fleet_resource_placement
  resource_selectors = [{ group = "apps", version = "v1", kind = "Deployment", name = "frontend" }]
  rules = [
    {
      cluster_selector = { terms = [{ labels = { env = "prod" } }] }
      json_patches = [
        { op = "replace", path = "/spec/replicas", value = jsonencode(5) },
        { op = "replace", path = "/spec/template/spec/containers/0/image", value = jsonencode("$${MEMBER-CLUSTER-LABEL-KEY-registry}/frontend:1.4") },
      ]
    },
  ]
}
