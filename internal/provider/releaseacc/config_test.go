package releaseacc

// savedPlanConfig is every resource and data source of the README's feature list but members and
// taints (they change the fleet the other previews read: they come in a later apply), planned once
// with the fleet's facts and applied from the saved plan.
const savedPlanConfig = `
data "fleet_facts" "at_plan" {
  clusters            = ["canary-east"]
  override_placements = ["web", "team-web/web"]
}

data "fleet_members" "all" {}

data "fleet_kubernetes_versions" "eastus" {
  locations = ["eastus"]
}

data "fleet_placement_preview" "prod" {
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_managed_namespace" "shop" {
  name     = "shop"
  location = "eastus"
  facts    = data.fleet_facts.at_plan.content
  resource_quota {
    cpu_limit = "4"
  }
  placement {
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_placement" "web" {
  name  = "web"
  facts = data.fleet_facts.at_plan.content
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_placement_disruption_budget" "web" {
  placement     = fleet_placement.web.name
  min_available = "1"
}

resource "fleet_cluster_resource_override" "web" {
  name  = "web-served-by"
  facts = data.fleet_facts.at_plan.content
  placement {
    name = fleet_placement.web.name
  }
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  rule {
    cluster_selector {
      term {
        labels = { env = "prod" }
      }
    }
    json_patch {
      op    = "add"
      path  = "/metadata/labels/served-by"
      value = jsonencode("$${MEMBER-CLUSTER-NAME}")
    }
  }
}

resource "fleet_placement" "tools" {
  name             = "tools"
  wait_for_rollout = true
  facts            = data.fleet_facts.at_plan.content
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "tools"
  }
  policy {
    placement_type = "PickFixed"
    cluster_names  = ["canary-east"]
  }
  apply_strategy {
    type          = "ServerSideApply"
    when_to_apply = "IfNotDrifted"
  }
}

resource "fleet_placement" "team_web" {
  name  = "team-web"
  facts = data.fleet_facts.at_plan.content
  resource_selector {
    version         = "v1"
    kind            = "Namespace"
    name            = "team-web"
    selection_scope = "NamespaceOnly"
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_resource_placement" "web" {
  namespace  = "team-web"
  name       = "web"
  facts      = data.fleet_facts.at_plan.content
  depends_on = [fleet_placement.team_web]
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    label_selector {
      match_labels = { app = "web" }
    }
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_resource_override" "web" {
  namespace = "team-web"
  name      = "web-config"
  facts     = data.fleet_facts.at_plan.content
  placement {
    name  = fleet_resource_placement.web.name
    scope = "Namespaced"
  }
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "web-config"
  }
  rule {
    cluster_selector {
      term {
        labels = { tier = "gold" }
      }
    }
    json_patch {
      op    = "add"
      path  = "/data/tier"
      value = jsonencode("gold")
    }
  }
}

resource "fleet_envelope" "guardrails" {
  name = "web-reader"
  manifests = [yamlencode({
    apiVersion = "rbac.authorization.k8s.io/v1"
    kind       = "ClusterRole"
    metadata   = { name = "web-reader" }
    rules      = [{ apiGroups = ["apps"], resources = ["deployments"], verbs = ["get", "list", "watch"] }]
  })]
}

resource "fleet_placement" "api" {
  name  = "api"
  facts = data.fleet_facts.at_plan.content
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "api"
  }
  policy {
    required_cluster_selector {
      label_expression {
        key      = "env"
        operator = "In"
        values   = ["canary", "prod"]
      }
    }
  }
  strategy {
    type = "External"
  }
}

resource "fleet_staged_update_strategy" "rings" {
  name = "rings"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
    after_stage_task {
      type      = "TimedWait"
      wait_time = "1s"
    }
  }
  stage {
    name            = "prod"
    max_concurrency = "2"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
}

resource "fleet_staged_update_run" "api_v1" {
  name                        = "api-v1"
  placement_name              = fleet_placement.api.id
  staged_update_strategy_name = fleet_staged_update_strategy.rings.id
  wait_for                    = "completed"
  facts                       = data.fleet_facts.at_plan.content
}

resource "fleet_update_strategy" "rings" {
  name  = "rel-rings"
  facts = data.fleet_facts.at_plan.content
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 60
    group {
      name = "canary"
    }
  }
  stage {
    name = "prod"
    group {
      name            = "prod"
      max_concurrency = "2"
    }
  }
}

resource "fleet_update_run" "k8s" {
  name  = "rel-k8s"
  state = "NotStarted"
  facts = data.fleet_facts.at_plan.content
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 60
    group {
      name = "canary"
    }
  }
  stage {
    name = "prod"
    group {
      name            = "prod"
      max_concurrency = "2"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  lifecycle {
    ignore_changes = [state]
  }
}

resource "fleet_auto_upgrade_profile" "stable" {
  name    = "stable"
  channel = "Stable"
  facts   = data.fleet_facts.at_plan.content
}

resource "fleet_nodepool_disruption" "default" {
  cluster   = "canary-east"
  node_pool = "default"
  facts     = data.fleet_facts.at_plan.content
  budget {
    nodes    = "0"
    schedule = "0 9 * * 1-5"
    duration = "8h"
  }
  budget {
    nodes = "20%"
  }
}

output "previews" {
  value = {
    members          = length(data.fleet_members.all.members)
    eastus_versions  = length(data.fleet_kubernetes_versions.eastus.location_versions[0].versions)
    would_pick       = data.fleet_placement_preview.prod.preview.selected[*].cluster
  }
}
`

// joinConfig is what the second apply adds: a managed cluster joined as a member, the data sources
// that read back what Terraform did not create, and the action that starts the run.
const joinConfig = `
resource "fleet_member" "spare" {
  name                = "spare-1"
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000009/resourceGroups/rg-release/providers/Microsoft.ContainerService/managedClusters/spare-1"
  group               = "spare"
  labels              = { env = "spare" }
}


action "fleet_update_run_start" "k8s" {
  config {
    update_run = fleet_update_run.k8s.name
    wait_for   = "completed"
  }
}

data "fleet_update_run" "k8s" {
  name = fleet_update_run.k8s.name
}

data "fleet_update_strategy" "rings" {
  name = fleet_update_strategy.rings.name
}

data "fleet_auto_upgrade_profile" "stable" {
  name = fleet_auto_upgrade_profile.stable.name
}

output "read_back" {
  value = {
    run_state       = data.fleet_update_run.k8s.status.state
    strategy_stages = length(data.fleet_update_strategy.rings.stage)
    profile_channel = data.fleet_auto_upgrade_profile.stable.channel
  }
}
`

// adoptQuery is the adoption's query: the prod members, with a limit sized to the fleet.
const adoptQuery = `
list "fleet_member" "prod" {
  provider = fleet
  limit    = 1000
  config {
    group = "prod"
  }
}
`

// taintConfig taints the member joined by joinConfig.
const taintConfig = `
resource "fleet_member_cluster_taints" "spare" {
  member_cluster = fleet_member.spare.name
  taint {
    key    = "maintenance"
    value  = "kernel"
    effect = "NoSchedule"
  }
}
`
