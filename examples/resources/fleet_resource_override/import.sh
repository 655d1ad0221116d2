# A ResourceOverride is imported by <namespace>/<name>.
terraform import fleet_resource_override.frontend web/frontend
