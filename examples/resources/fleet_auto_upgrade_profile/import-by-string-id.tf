# Or with an import block:
import {
  to = fleet_auto_upgrade_profile.stable
  id = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/autoUpgradeProfiles/stable"
}
