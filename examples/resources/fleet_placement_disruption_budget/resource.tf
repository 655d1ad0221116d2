resource "fleet_placement" "web" {
  name               = "web"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "web" }]
  policy             = { placement_type = "PickN", number_of_clusters = 3 }
}

# Evictions (fleet_placement_evict) may take one of web's three clusters at a time: the plan's
# preview says how many KubeFleet's eviction controller would let go now.
resource "fleet_placement_disruption_budget" "web" {
  placement     = fleet_placement.web.name
  min_available = "2" # or max_unavailable = "34%" (of number_of_clusters, rounded up)
}
