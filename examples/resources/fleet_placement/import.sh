# A placement is imported by its ClusterResourcePlacement name on the fleet hub.
terraform import fleet_placement.web web
