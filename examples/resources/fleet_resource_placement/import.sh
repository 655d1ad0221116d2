# A ResourcePlacement is imported by <namespace>/<name> on the fleet hub.
terraform import fleet_resource_placement.web team-web/web
