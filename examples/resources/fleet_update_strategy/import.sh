# An update strategy is imported by its ARM resource ID.
terraform import fleet_update_strategy.canary_then_prod /subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/updateStrategies/canary-then-prod
