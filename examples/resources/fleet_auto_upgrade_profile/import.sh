# An auto-upgrade profile is imported by its ARM resource ID.
terraform import fleet_auto_upgrade_profile.stable /subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/autoUpgradeProfiles/stable
