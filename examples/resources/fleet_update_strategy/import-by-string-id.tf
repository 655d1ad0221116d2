# Or with an import block: the ID is the strategy's ARM resource ID.
import {
  to = fleet_update_strategy.canary_then_prod
  id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/updateStrategies/canary-then-prod"
}
