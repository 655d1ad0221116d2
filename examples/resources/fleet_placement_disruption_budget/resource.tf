# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 3
  }
  facts = data.fleet_facts.this.content
}

# Evictions (fleet_placement_evict) may take one of web's three clusters at a time: the plan's
# preview says how many KubeFleet's eviction controller would let go now.
resource "fleet_placement_disruption_budget" "web" {
  placement     = fleet_placement.web.name
  min_available = "2" # or max_unavailable = "34%" (of number_of_clusters, rounded up)
  facts         = data.fleet_facts.this.content
}
