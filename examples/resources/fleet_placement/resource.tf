# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# Place the "web" namespace, with everything in it, on three production clusters: the ones with
# the most nodes first, spread over the regions. `terraform plan` shows the picks in `preview`:
# each cluster's scores, and why every other cluster is left out.
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

    # A cluster must match one of these terms (ORed, one block each); within a term everything
    # is ANDed.
    required_cluster_selector {
      labels = { env = "prod" }
    }

    # Rank by node count: the fleet's largest cluster scores 60, its smallest 0.
    preferred_cluster_selector {
      weight = 60
      property_sorter {
        name       = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }

    # Never one pick more in a region than in another.
    topology_spread_constraint {
      topology_key       = "fleet.azure.com/location"
      max_skew           = 1
      when_unsatisfiable = "DoNotSchedule"
    }

    # prod-east-2 is tainted dedicated=gpu:NoSchedule; tolerate it. Tolerations can only be
    # added later, never removed (KubeFleet rejects it, so the plan fails).
    toleration {
      key    = "dedicated"
      value  = "gpu"
      effect = "NoSchedule"
    }
  }

  # Optional: these are the defaults.
  strategy {
    type            = "RollingUpdate"
    max_unavailable = "25%"
    max_surge       = "25%"
  }

  # How the member agents apply it: here they leave an object changed on a member alone and report
  # the drift in status.apply instead of overwriting it. type = "ReportDiff" applies nothing and
  # only reports differences.
  apply_strategy {
    type          = "ServerSideApply"
    when_to_apply = "IfNotDrifted"
  }

  # Apply returns once every picked cluster reports the namespace applied and available.
  wait_for_rollout = true

  timeouts {
    create = "10m"
    update = "10m"
  }
  facts = data.fleet_facts.this.content
}

output "web_picks" {
  description = "The clusters the scheduler picks, in rank order."
  value       = [for s in fleet_placement.web.preview.selected : "${s.cluster}: affinity ${s.affinity_score}, topology ${s.topology_spread_score} (${s.change})"]
}

# With the External strategy the hub only cuts resource snapshots; staged update runs roll a
# chosen snapshot index out. Refresh shows the indices the hub keeps and which one each cluster runs.
resource "fleet_placement" "api" {
  name = "api"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "api"
  }
  strategy { type = "External" }
  facts = data.fleet_facts.this.content
}

output "api_versions" {
  description = "The latest resource snapshot index, the ones the hub keeps, and each cluster's."
  value = {
    latest   = fleet_placement.api.latest_resource_snapshot_index
    kept     = [for s in fleet_placement.api.resource_snapshots : "${s.index} (${s.created_at})"]
    clusters = { for s in fleet_placement.api.status.placement_statuses : s.cluster => s.resource_snapshot_index if s.cluster != null }
  }
}
