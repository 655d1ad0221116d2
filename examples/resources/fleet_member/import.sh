# A fleet member is imported by its ARM resource ID.
terraform import fleet_member.payments_east /subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/members/payments-east
