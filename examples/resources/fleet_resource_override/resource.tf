# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {
  override_placements = ["web"] # what the override's preview reads of its placement
}

# Per-cluster replicas and image registry for one Deployment of the web namespace.
resource "fleet_resource_override" "frontend" {
  namespace          = "web"
  name               = "frontend"
  placement          = { name = "web" } # scope = "Namespaced" for a fleet_resource_placement
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
  facts = data.fleet_facts.this.content
}
