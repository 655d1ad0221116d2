# Or with an import block: the ID is the run's ARM resource ID. Set
# `state` to what the run is (NotStarted for a run nobody started), or apply starts it.
import {
  to = fleet_update_run.k8s_1_33
  id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/updateRuns/k8s-1-33-1"
}
