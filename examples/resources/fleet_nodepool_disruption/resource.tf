# The fleet as this plan reads it: `facts` computes the preview from it at plan and again when a saved
# plan is applied, so the reviewed plan applies after the fleet moved (see the provider page, Saved plans).
data "fleet_facts" "this" {}

# A business-hours freeze on the NodePool "default" of member cluster canary-east: no voluntary
# disruption from 09:00 to 17:00 UTC on weekdays, at most 20% of the nodes at once otherwise, and
# drift replacements one node at a time. Only the fields set here are managed; destroying the
# resource gives them back to the NodePool's defaults and leaves the NodePool in place.
resource "fleet_nodepool_disruption" "default" {
  cluster   = "canary-east" # the name of a provider cluster block, or a fleet member
  node_pool = "default"

  consolidation_policy = "WhenEmptyOrUnderutilized"
  consolidate_after    = "5m" # optional; "Never" turns off consolidation and emptiness

  # Optional, in spec.template: changing any of these drifts (replaces) every node of the pool.
  # expire_after             = "720h"
  # termination_grace_period = "1h"
  # do_not_disrupt           = true # the template's karpenter.sh/do-not-disrupt, for nodes launched afterwards

  # Optional: the server-side apply field manager, as kubernetes_manifest offers it.
  # field_manager {
  #   name            = "platform-team"
  #   force_conflicts = false
  # }

  # Schedules are five-field crons in UTC; a budget limits only while its window is open. Without
  # budget blocks the NodePool keeps the server default (one 10% budget).
  budget { # the freeze
    nodes    = "0"
    schedule = "0 9 * * 1-5"
    duration = "8h"
  }
  budget { nodes = "20%" } # always
  budget {                 # node image or template updates, one by one
    nodes   = "1"
    reasons = ["Drifted"]
  }
  facts = data.fleet_facts.this.content
}

# How many nodes Karpenter may disrupt now for each reason, and when the freeze opens and closes.
output "disruption_allowed_now" {
  value = { for r in fleet_nodepool_disruption.default.preview.reasons : r.reason => r.unbounded ? "unbounded" : tostring(r.allowed) }
}

output "disruption_windows" {
  value = fleet_nodepool_disruption.default.preview.windows
}

# What Karpenter will actually take now, for which reason, and what holds the rest: nodes held by
# karpenter.sh/do-not-disrupt (a pod, the node, the NodePool template), drifted NodeClaims, and the
# Empty / Drifted / Expired candidates capped by the budgets.
output "disruption_now" {
  value = {
    summary         = fleet_nodepool_disruption.default.preview.summary
    disruptable_now = fleet_nodepool_disruption.default.preview.disruptable_now
    blocked_nodes   = fleet_nodepool_disruption.default.preview.blocked_nodes
    drifted         = fleet_nodepool_disruption.default.preview.drifted_nodes_count
  }
}
