# Read the fleet once, at plan, and give it to the resources whose previews read it: a plan saved
# with `terraform plan -out=tfplan` and applied after review still applies when the fleet moved
# in between, and apply warns what moved.
data "fleet_facts" "at_plan" {
  clusters            = ["canary-east"] # the Karpenter picture fleet_nodepool_disruption previews read
  override_placements = ["web"]         # the resources and override snapshots web's overrides preview
}

resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
  facts = data.fleet_facts.at_plan.content
}

resource "fleet_nodepool_disruption" "default" {
  cluster   = "canary-east"
  node_pool = "default"
  budget { nodes = "20%" }
  facts = data.fleet_facts.at_plan.content
}
