# A staged update run is imported by its name on the fleet hub, a namespaced one by <namespace>/<name>.
# Imported runs wait for nothing (wait_for = "none").
terraform import fleet_staged_update_run.web_r3 web-r3
terraform import fleet_staged_update_run.team team-a/api-r1
