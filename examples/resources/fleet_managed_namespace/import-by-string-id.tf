# Or with an import block: the ID is the managed namespace's ARM resource ID.
import {
  to = fleet_managed_namespace.team_a
  id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/managedNamespaces/team-a"
}
