# The quickstart: run `make demo` from the repository root. It starts the
# local fleet described in fleet.yaml, sources .localfleet/env (the ARM_*
# variables), and runs terraform init/plan/apply here.
terraform {
  required_providers {
    fleet = {
      source = "fleetops/fleet"
    }
    # Built from the Go module proxy into the local mirror by `make demo` (1.13.4 is the release the
    # proxy serves). With the registry, use a 2.x release and drop `load_config_file`.
    kubernetes = {
      source  = "hashicorp/kubernetes"
      version = "1.13.4"
    }
  }
}

# Empty: with the ARM_* environment set, the provider reaches the Fleet API
# and gets the hub's and members' credentials from it.
provider "fleet" {}

# The hub's connection from the Fleet API (listCredentials), opened for each plan and apply and
# never written to the plan or state: the kubernetes provider is configured from it.
ephemeral "fleet_hub_credentials" "hub" {}

provider "kubernetes" {
  load_config_file       = false # 1.x only: do not read ~/.kube/config
  host                   = ephemeral.fleet_hub_credentials.hub.host
  cluster_ca_certificate = ephemeral.fleet_hub_credentials.hub.cluster_ca_certificate
  client_certificate     = ephemeral.fleet_hub_credentials.hub.client_certificate
  client_key             = ephemeral.fleet_hub_credentials.hub.client_key
  token                  = ephemeral.fleet_hub_credentials.hub.token # set instead for Entra ID hubs
}

# The namespace the placement below selects, created on the hub.
resource "kubernetes_namespace" "web" {
  metadata {
    name   = "web"
    labels = { app = "web" }
  }
}

data "fleet_members" "all" {}

# The fleet as this plan reads it. Each previewed resource below takes it in `facts`: its preview is
# computed from it at plan and again when a saved plan (terraform plan -out, CI, a reviewed pull
# request) is applied, so the reviewed plan applies after the fleet moved, and apply says what moved.
data "fleet_facts" "this" {
  clusters            = ["canary-east"] # fleet_nodepool_disruption's Karpenter picture
  override_placements = ["web"]         # what fleet_cluster_resource_override.web previews
  staged_run {
    placement_name              = "api"
    staged_update_strategy_name = "rings"
  }
}

output "members" {
  description = "Each member: update group, location, Kubernetes version, maintenance window state and health."
  value = {
    for m in data.fleet_members.all.members : m.name => {
      group              = m.group
      location           = m.location
      kubernetes_version = m.kubernetes_version
      node_pools         = { for p in m.node_pools : p.name => "${p.count} x ${p.node_image_version}" }
      maintenance_window = m.maintenance_window
      window_opens_at    = m.window_opens_at
      healthy            = m.healthy
      node_count         = lookup(m.properties, "kubernetes-fleet.io/node-count", null)
    }
  }
}

# A placement: the plan's preview shows which clusters KubeFleet's scheduler will pick, in which
# order and with which scores, and why each other cluster is left out. It places the namespace
# created above (and what is in it) on the picked clusters.
resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    preferred_cluster_selector {
      weight = 50
      property_sorter {
        name       = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
  }
  wait_for_rollout = true
  depends_on       = [kubernetes_namespace.web]
  facts            = data.fleet_facts.this.content
}

output "web_placement" {
  description = "Where the web namespace goes: the picks in rank order with their scores, how many clusters are left out and why."
  value = {
    fulfilled          = fleet_placement.web.preview.fulfilled
    picks              = [for s in fleet_placement.web.preview.selected : "${s.cluster}: affinity ${s.affinity_score}, topology spread ${s.topology_spread_score} (${s.change})"]
    left_out_by_reason = fleet_placement.web.preview.excluded_by_reason
    left_out           = fleet_placement.web.preview.excluded # cluster => the scheduler's reason (20 at most by default)
  }
}

# An override (KubeFleet's ClusterResourceOverride): the web namespace, and everything in it, gets
# a label naming the cluster it runs on, and a region label from the member's env label on prod
# clusters. "$${...}" is HCL for KubeFleet's "${...}" variables. The preview shows what each picked
# cluster's Work will hold, grouped by distinct result with a JSON patch per group: here one group
# per cluster, since every cluster's name differs.
resource "fleet_cluster_resource_override" "web" {
  name = "web-served-by"
  placement { name = fleet_placement.web.name }
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
        labels = { env = "prod" }
      }
    }
    json_patch {
      op    = "add"
      path  = "/metadata/labels/env"
      value = jsonencode("$${MEMBER-CLUSTER-LABEL-KEY-env}")
    }
  }
  facts = data.fleet_facts.this.content
}

output "web_override" {
  description = "What each picked cluster gets of the web namespace: distinct renderings, their clusters and JSON patches."
  value = fleet_cluster_resource_override.web.preview == null ? null : {
    for r in fleet_cluster_resource_override.web.preview.resources : r.resource => [
      for g in r.groups : "${g.clusters_count} cluster(s) ${join(", ", g.clusters)}: ${g.outcome} ${coalesce(g.patch, g.error, "")}"
    ]
  }
}

# A managed namespace (the Fleet API's fleets/managedNamespaces): Fleet Manager writes the namespace,
# its quota and its network policy on the hub and places them through a generated placement. The plan's
# preview shows which members get it and why each other member does not, by the hub agent's own rules,
# and `objects` what every picked member gets.
resource "fleet_managed_namespace" "shop" {
  name     = "shop"
  location = "eastus"
  labels   = { team = "shop" }
  resource_quota {
    cpu_limit    = "8"
    memory_limit = "32Gi"
  }
  network_policy {
    ingress = "AllowSameNamespace"
  }
  placement {
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
  facts = data.fleet_facts.this.content
}

output "shop_namespace" {
  description = "Where the shop team's namespace goes (the plan's preview), what each member gets, and where it went."
  value = {
    goes_to            = [for s in fleet_managed_namespace.shop.preview.selected : s.cluster]
    left_out_by_reason = fleet_managed_namespace.shop.preview.excluded_by_reason
    left_out           = fleet_managed_namespace.shop.preview.excluded
    objects            = [for o in fleet_managed_namespace.shop.objects : "${o.kind}/${o.name}"]
    placed_on          = fleet_managed_namespace.shop.placed_members
  }
}

# A placement applied for real: canary-east has its own kube-apiserver, where the local fleet runs
# KubeFleet's real member agent (v0.18.9), so the tools namespace is applied there by KubeFleet's
# work applier with the apply strategy below, and status.apply says what it did per cluster (applied,
# failed, drifted on the member, or diffed with ReportDiff).
resource "kubernetes_namespace" "tools" {
  metadata {
    name   = "tools"
    labels = { app = "tools" }
  }
}

resource "fleet_placement" "tools" {
  name = "tools"
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
  wait_for_rollout = true
  depends_on       = [kubernetes_namespace.tools]
  facts            = data.fleet_facts.this.content
}

# canary-east's own API server, through the member's credentials from the Fleet API: the namespace
# is read back from the member, not from the hub.
ephemeral "fleet_member_credentials" "canary_east" {
  member = "canary-east"
}

provider "kubernetes" {
  alias                  = "canary_east"
  load_config_file       = false
  host                   = ephemeral.fleet_member_credentials.canary_east.host
  cluster_ca_certificate = ephemeral.fleet_member_credentials.canary_east.cluster_ca_certificate
  client_certificate     = ephemeral.fleet_member_credentials.canary_east.client_certificate
  client_key             = ephemeral.fleet_member_credentials.canary_east.client_key
  token                  = ephemeral.fleet_member_credentials.canary_east.token
}

data "kubernetes_namespace" "tools_on_canary_east" {
  provider = kubernetes.canary_east
  metadata {
    name = "tools"
  }
  depends_on = [fleet_placement.tools] # read once the placement has rolled out
}

output "tools_applied_on_canary_east" {
  description = "The tools namespace as canary-east's API server has it, and what KubeFleet's member agent reported."
  value = {
    labels_on_member = data.kubernetes_namespace.tools_on_canary_east.metadata[0].labels
    applied_count    = fleet_placement.tools.status.apply.applied_count
    clusters         = [for c in fleet_placement.tools.status.apply.clusters : "${c.cluster}: ${c.result} (${c.message})"]
  }
}

# A staged rollout (KubeFleet v0.18): the api namespace goes to every canary and prod cluster, but
# only as a staged update run rolls it out: canary first, then prod two clusters at a time. The
# plan's preview shows each stage's clusters in the batches KubeFleet updates them, and what it
# waits for between stages.
resource "kubernetes_namespace" "api" {
  metadata {
    name = "api"
  }
}

resource "fleet_placement" "api" {
  name = "api"
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
    toleration { # prod-east-2 is tainted for GPU work
      key   = "dedicated"
      value = "gpu"
    }
  }
  strategy { type = "External" }
  depends_on = [kubernetes_namespace.api]
  facts      = data.fleet_facts.this.content
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
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
    max_concurrency = "2" # two clusters at a time
  }
  facts = data.fleet_facts.this.content
}

resource "fleet_staged_update_run" "api_v1" {
  name                        = "api-v1"
  placement_name              = fleet_placement.api.id
  staged_update_strategy_name = fleet_staged_update_strategy.rings.id
  wait_for                    = "completed"
  facts                       = data.fleet_facts.this.content
}

output "api_rollout" {
  description = "The staged run: each stage's clusters in the batches KubeFleet updates them, and the run's state."
  value = {
    batches = { for s in fleet_staged_update_run.api_v1.preview.stages : s.name => s.batches }
  }
}

# Karpenter disruption budgets on canary-east's NodePool "default": a weekday business-hours
# freeze (UTC) and 20% otherwise. The plan's preview shows how many nodes Karpenter may disrupt now
# for each reason, which nodes it would take now (empty, drifted, expired) and what holds the rest
# (karpenter.sh/do-not-disrupt, the budgets), when the freeze opens and closes, and which nodes
# expire within 24 hours.
resource "fleet_nodepool_disruption" "default" {
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes    = "0"
    schedule = "0 9 * * 1-5"
    duration = "8h"
  }
  budget { nodes = "20%" }
  facts = data.fleet_facts.this.content
}

output "canary_east_disruption" {
  description = "Karpenter on canary-east/default: nodes counted and disrupting, what each reason allows now, the freeze windows, expiring nodes."
  value = {
    nodes           = fleet_nodepool_disruption.default.preview.nodes
    disrupting      = fleet_nodepool_disruption.default.preview.disrupting
    allowed_now     = { for r in fleet_nodepool_disruption.default.preview.reasons : r.reason => r.unbounded ? "unbounded" : tostring(r.allowed) }
    windows         = [for w in fleet_nodepool_disruption.default.preview.windows : "budget ${w.budget}: ${w.opens_at} to ${coalesce(w.closes_at, "open-ended")}"]
    expiring_nodes  = { for n in fleet_nodepool_disruption.default.preview.expiring_nodes : n.node => n.expires_at }
    summary         = fleet_nodepool_disruption.default.preview.summary
    disruptable_now = fleet_nodepool_disruption.default.preview.disruptable_now
    blocked_nodes   = fleet_nodepool_disruption.default.preview.blocked_nodes
    warnings        = fleet_nodepool_disruption.default.preview.warnings
  }
}

# An auto-upgrade profile on the Stable channel (the latest GA patch of minor N-1). The plan's
# preview says which version the channel resolves to now and, for each member, whether a run would
# upgrade it, leave it (already there) or skip it, and why (more than one minor behind, a downgrade,
# outside the support window). Creating it triggers nothing: Fleet starts a run when AKS releases a
# new version in the channel.
resource "fleet_auto_upgrade_profile" "stable" {
  name    = "stable"
  channel = "Stable"
  facts   = data.fleet_facts.this.content
}

output "stable_channel" {
  description = "The Stable channel's target now, and what a run would do with each member and why."
  value = {
    target  = fleet_auto_upgrade_profile.stable.preview.target_kubernetes_version
    actions = fleet_auto_upgrade_profile.stable.preview.actions # action → number of members
    members = { for name, m in fleet_auto_upgrade_profile.stable.preview.members : name => "${m.action}: ${m.reason}" }
  }
}

# A two-stage rollout: the canary group first, then an hour's wait (one second on the quickstart's
# clock, which runs 3600 times faster), then the prod group. The strategy's preview lists the
# members each group resolves to now and the members no group selects (staging-west). The stages
# are data here, and both the strategy and the run below write them with a dynamic "stage" block.
locals {
  rollout_stages = [
    { name = "canary", groups = ["canary"], after_stage_wait_in_seconds = 3600 },
    { name = "prod", groups = ["prod"], after_stage_wait_in_seconds = null },
  ]
}

resource "fleet_update_strategy" "rollout" {
  name = "canary-then-prod-rollout"
  dynamic "stage" {
    for_each = local.rollout_stages
    content {
      name                        = stage.value.name
      after_stage_wait_in_seconds = stage.value.after_stage_wait_in_seconds
      dynamic "group" {
        for_each = stage.value.groups
        content {
          name = group.value
        }
      }
    }
  }
  facts = data.fleet_facts.this.content
}

# An update run over the same stages (written in the run too, so that its preview is known at the
# first plan: update_strategy_id is unknown until the strategy exists), bringing every member to
# Kubernetes 1.32.5 on the node image every region has (Consistent:
# 202510.01.0, the newest image both eastus and westeurope offer). The plan's preview shows, stage by
# stage, which cluster is upgraded when and to what, and which are skipped and why: prod-east-2 goes
# from 1.31.9 to 1.32.5 (keeping its newer image — never a downgrade); the others are already there,
# so prod-west-1 is skipped rather than waiting for its Saturday window. Apply starts the run and
# waits until it completes, logging each state change (TF_LOG=INFO).
resource "fleet_update_run" "k8s_1_32_5" {
  name = "k8s-1-32-5"
  dynamic "stage" {
    for_each = local.rollout_stages
    content {
      name                        = stage.value.name
      after_stage_wait_in_seconds = stage.value.after_stage_wait_in_seconds
      dynamic "group" {
        for_each = stage.value.groups
        content {
          name = group.value
        }
      }
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.32.5"
    }
    node_image_selection { type = "Consistent" }
  }
  wait_for = "completed"
  facts    = data.fleet_facts.this.content
}

output "k8s_1_32_5_rollout" {
  description = "The run's plan (stage → group → members in update order: action, versions, reason) and how it ended."
  value = {
    planned = {
      for s in fleet_update_run.k8s_1_32_5.preview.stages : s.name => {
        wait_after_seconds = s.after_stage_wait_in_seconds
        actions            = s.actions
        members = flatten([for g in s.groups : [
          for m in(g.members == null ? [] : g.members) : "${g.name} #${m.position} ${m.name}: ${m.action} ${m.current_kubernetes_version} -> ${m.target_kubernetes_version}${m.reason == null ? "" : " (${m.reason})"}"
        ]])
      }
    }
    consistent_images = fleet_update_run.k8s_1_32_5.preview.consistent_node_image_versions
    never_updated     = fleet_update_run.k8s_1_32_5.preview.unselected_members
    expected_outcome  = fleet_update_run.k8s_1_32_5.preview.outcome
    final_state       = fleet_update_run.k8s_1_32_5.status.state
    members = {
      for m in flatten([for s in fleet_update_run.k8s_1_32_5.status.stages : [for g in s.groups : g.members]]) : m.name => m.state
    }
  }
}
