# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {
  override_placements = ["web"] # what the override's preview reads of its placement
}

# Per-cluster replicas and image registry for one Deployment of the web namespace.
resource "fleet_resource_override" "frontend" {
  namespace = "web"
  name      = "frontend"
  placement { name = "web" } # scope = "Namespaced" for a fleet_resource_placement
  resource_selector {
    group   = "apps"
    version = "v1"
    kind    = "Deployment"
    name    = "frontend"
  }
  rule {
    cluster_selector {
      term {
        labels = { env = "prod" }
      }
    }
    json_patch {
      op    = "replace"
      path  = "/spec/replicas"
      value = jsonencode(5)
    }
    json_patch {
      op    = "replace"
      path  = "/spec/template/spec/containers/0/image"
      value = jsonencode("$${MEMBER-CLUSTER-LABEL-KEY-registry}/frontend:1.4")
    }
  }
  facts = data.fleet_facts.this.content
}
