# A staged update strategy is imported by its name on the fleet hub.
terraform import fleet_staged_update_strategy.rings rings
