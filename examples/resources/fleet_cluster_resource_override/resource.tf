# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {
  override_placements = ["web"] # what the override's preview reads of its placement
}

# Label the placed namespace (and everything in it) with the member cluster's name, and keep it off
# dev clusters. "$${...}" is HCL for KubeFleet's "${...}" variables.
resource "fleet_cluster_resource_override" "web" {
  name = "web-served-by"
  placement { name = "web" } # an existing fleet_placement
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  rule {
    cluster_selector {} # every cluster
    json_patch {
      op    = "add"
      path  = "/metadata/labels/served-by"
      value = jsonencode("$${MEMBER-CLUSTER-NAME}")
    }
  }
  rule {
    cluster_selector {
      term {
        labels = { env = "dev" }
      }
    }
    type = "Delete" # dev clusters do not get the namespace
  }
  facts = data.fleet_facts.this.content
}
