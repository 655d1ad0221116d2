# A staged update strategy is imported by its name on the fleet hub, a namespaced one by <namespace>/<name>.
terraform import fleet_staged_update_strategy.rings rings
terraform import fleet_staged_update_strategy.team team-a/team-rings
