# What would a PickN of two clusters with the most available CPU pick? Nothing is created.
data "fleet_placement_preview" "cpu" {
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    preferred_cluster_selector {
      weight = 100
      property_sorter {
        name       = "resources.kubernetes-fleet.io/available-cpu"
        sort_order = "Descending"
      }
    }
  }

  # Optional: preview the policy as an update of an existing placement, starting from its
  # current picks (which it keeps, which it adds or trims).
  # placement = "web"

  # Every cluster, not just the first 20 of each list (the provider's preview_detail by default).
  detail = "full"
}

output "would_pick" {
  value = data.fleet_placement_preview.cpu.preview.selected[*].cluster
}

output "left_out" {
  description = "Every other member cluster, with the scheduler's reason."
  value       = data.fleet_placement_preview.cpu.preview.excluded
}

output "left_out_by_reason" {
  description = "How many clusters are left out, by reason: taint not tolerated, no recent heartbeat, …"
  value       = data.fleet_placement_preview.cpu.preview.excluded_by_reason
}
