# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# The platform team places the namespace alone on every cluster (a ClusterResourcePlacement):
# a ResourcePlacement does not carry its namespace.
resource "fleet_placement" "team_web_namespace" {
  name = "team-web-namespace"
  resource_selector {
    version         = "v1"
    kind            = "Namespace"
    name            = "team-web"
    selection_scope = "NamespaceOnly"
  }
  facts = data.fleet_facts.this.content
}

# The application team's placement, without cluster-wide rights: the ConfigMaps labelled
# app = "web" of the hub namespace "team-web" go to the two production clusters with the most
# nodes. `terraform plan` shows the picks in `preview`, computed by the same rules as
# fleet_placement's (KubeFleet schedules both kinds with one scheduler).
resource "fleet_resource_placement" "web" {
  namespace = "team-web"
  name      = "web"

  # Namespaced kinds of the placement's own namespace only (no Namespace, no ClusterRole).
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    label_selector {
      match_labels = { app = "web" }
    }
  }

  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    required_cluster_selector {
      labels = { env = "prod" }
    }
    preferred_cluster_selector {
      weight = 50
      property_sorter {
        name       = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
  }

  # Apply returns once every picked cluster reports the ConfigMaps applied and available.
  wait_for_rollout = true
  facts            = data.fleet_facts.this.content
}

output "web_picks" {
  description = "The clusters the scheduler picks, in rank order, and the resource snapshot each runs."
  value = {
    picks    = [for s in fleet_resource_placement.web.preview.selected : "${s.cluster}: affinity ${s.affinity_score} (${s.change})"]
    clusters = { for s in fleet_resource_placement.web.status.placement_statuses : s.cluster => s.resource_snapshot_index if s.cluster != null }
  }
}
