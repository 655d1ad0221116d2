# A managed namespace is imported by its ARM resource ID.
terraform import fleet_managed_namespace.team_a /subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/managedNamespaces/team-a
