# Imported by the name of the ClusterResourcePlacement the budget is for.
terraform import fleet_placement_disruption_budget.web web
