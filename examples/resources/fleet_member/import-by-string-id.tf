import {
  to = fleet_member.payments_east
  id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/members/payments-east"
}
