package typoacc

// The valid configuration each case starts from: one per resource, data source, ephemeral
// resource, action and list resource (its body; for actions and list resources, the body of
// `config`). A type without one fails TestTypoCatalogue, so a new type gets a baseline, and with
// it every argument of its schema gets cases, the day it is added. Each baseline must validate
// without a diagnostic.

const armFleet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f"

var resourceBaselines = map[string]string{
	"fleet_auto_upgrade_profile": `
  name    = "stable"
  channel = "Stable"`,
	"fleet_cluster_resource_override": `
  name = "env-label"
  placement {
    name = "web"
  }
  resource_selector {
    group   = ""
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
      path  = "/metadata/labels/env"
      value = jsonencode("prod")
    }
  }`,
	"fleet_envelope": `
  name      = "config"
  namespace = "web"
  manifests = [jsonencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "c", namespace = "web" } })]`,
	"fleet_managed_namespace": `
  fleet_id = "` + armFleet + `"
  name     = "team-a"
  location = "eastus"
  tags     = { owner = "team-a" }
  labels   = { team = "a" }
  annotations = { "example.com/contact" = "a@example.com" }
  adoption_policy = "IfIdentical"
  delete_policy   = "Delete"
  resource_quota {
    cpu_request    = "2"
    cpu_limit      = "4"
    memory_request = "4Gi"
    memory_limit   = "8Gi"
  }
  network_policy {
    ingress = "AllowSameNamespace"
    egress  = "AllowAll"
  }
  placement {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
      label_expression {
        key      = "tier"
        operator = "In"
        values   = ["gold"]
      }
      property_expression {
        name     = "kubernetes-fleet.io/node-count"
        operator = "Ge"
        values   = ["3"]
      }
    }
    toleration {
      key      = "dedicated"
      operator = "Equal"
      value    = "gpu"
      effect   = "NoSchedule"
    }
  }
  timeouts {
    create = "30m"
  }`,
	"fleet_member": `
  name                = "member-1"
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c1"`,
	"fleet_member_cluster_taints": `
  member_cluster = "member-1"
  taint {
    key    = "maintenance"
    value  = "true"
    effect = "NoSchedule"
  }`,
	"fleet_nodepool_disruption": `
  cluster   = "member-1"
  node_pool = "default"
  budget {
    nodes = "10%"
  }`,
	"fleet_placement": `
  name = "web"
  resource_selector {
    group   = ""
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
  strategy {
    type = "RollingUpdate"
  }`,
	"fleet_placement_disruption_budget": `
  placement       = "web"
  max_unavailable = 1`,
	"fleet_resource_override": `
  name      = "replicas"
  namespace = "web"
  placement {
    name  = "web"
    scope = "Namespaced"
  }
  resource_selector {
    group   = "apps"
    version = "v1"
    kind    = "Deployment"
    name    = "web"
  }
  rule {
    json_patch {
      op    = "replace"
      path  = "/spec/replicas"
      value = jsonencode(3)
    }
  }`,
	"fleet_resource_placement": `
  name      = "web"
  namespace = "web"
  resource_selector {
    group   = "apps"
    version = "v1"
    kind    = "Deployment"
    name    = "web"
  }`,
	"fleet_staged_update_run": `
  name                        = "web-run"
  placement_name              = "web"
  staged_update_strategy_name = "web-stages"`,
	"fleet_staged_update_strategy": `
  name = "web-stages"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
  }`,
	"fleet_update_run": `
  name = "release"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }`,
	"fleet_update_strategy": `
  name = "rings"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
  }`,
}

var dataSourceBaselines = map[string]string{
	"fleet_auto_upgrade_profile": `
  name = "stable"`,
	"fleet_facts":               ``,
	"fleet_kubernetes_versions": ``,
	"fleet_members":             ``,
	"fleet_placement_preview": `
  policy {
    placement_type = "PickAll"
  }`,
	"fleet_update_run": `
  name = "release"`,
	"fleet_update_strategy": `
  name = "rings"`,
}

var ephemeralBaselines = map[string]string{
	"fleet_hub_credentials": ``,
	"fleet_managed_namespace_credentials": `
    managed_namespace = "team-a"`,
	"fleet_member_credentials": `
    member = "member-1"`,
}

var actionBaselines = map[string]string{
	"fleet_auto_upgrade_profile_generate_run": `
    auto_upgrade_profile = "stable"`,
	"fleet_gate_approve": `
    update_run = "release"
    stage      = "canary"
    timing     = "After"`,
	"fleet_placement_evict": `
    placement = "web"
    cluster   = "member-1"`,
	"fleet_staged_update_run_approve": `
    update_run = "web-run"
    stage      = "canary"`,
	"fleet_update_run_skip": `
    update_run = "release"
    target {
      type = "Member"
      name = "member-1"
    }`,
	"fleet_update_run_start": `
    update_run = "release"`,
	"fleet_update_run_stop": `
    update_run = "release"`,
}

var listBaselines = map[string]string{
	"fleet_auto_upgrade_profile":   ``,
	"fleet_envelope":               ``,
	"fleet_member":                 ``,
	"fleet_placement":              ``,
	"fleet_staged_update_run":      ``,
	"fleet_staged_update_strategy": ``,
	"fleet_update_run":             ``,
	"fleet_update_strategy":        ``,
}

// providerBaseline is the body of the provider blocks the provider's cases start from.
const providerBaseline = `
  preview_detail = "summary"`
