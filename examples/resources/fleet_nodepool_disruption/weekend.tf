# AKS's node auto-provisioning disruption docs, "only allow disruption at weekends"
# (https://learn.microsoft.com/azure/aks/node-autoprovision-disruption): 50% of the nodes from
# Saturday 00:00 UTC for 48 hours, plus an always-active budget of 0. Karpenter applies the most
# restrictive active budget at every moment, so the "0" wins on the weekend too: nothing is ever
# disrupted. The plan warns about it and preview.schedule shows zeros for the whole week.
resource "fleet_nodepool_disruption" "weekend" {
  cluster              = "canary-east"
  node_pool            = "guarded"
  consolidation_policy = "WhenEmpty"

  budget {
    nodes    = "50%"
    schedule = "0 0 * * 6"
    duration = "48h"
  }
  budget { nodes = "0" }
}

# To confine disruption to the weekend, give the rest of the week its own zero window instead:
#   budget {                # Monday 00:00 to Saturday 00:00
#     nodes    = "0"
#     schedule = "0 0 * * 1"
#     duration = "120h"
#   }
#   budget { nodes = "50%" } # the weekend (and the limit overall)

output "weekend_schedule" {
  value = fleet_nodepool_disruption.weekend.preview.schedule
}
