# A staged update run is imported by its name on the fleet hub. Imported runs wait for nothing (wait_for = "none").
terraform import fleet_staged_update_run.web_r3 web-r3
