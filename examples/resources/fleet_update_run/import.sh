# An update run is imported by its ARM resource ID. Imported runs wait for nothing (wait_for = "none").
terraform import fleet_update_run.k8s_1_33 /subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo/updateRuns/k8s-1-33-1
