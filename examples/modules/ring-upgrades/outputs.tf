output "update_strategy_id" {
  description = "The update strategy's ARM ID."
  value       = fleet_update_strategy.rings.id
}

output "update_run_id" {
  description = "The update run's ARM ID (null without kubernetes_version)."
  value       = one(fleet_update_run.upgrade[*].id)
}

output "auto_upgrade_profile_id" {
  description = "The auto-upgrade profile's ARM ID (null without channel)."
  value       = one(fleet_auto_upgrade_profile.rings[*].id)
}

output "rings" {
  description = "Ring → group → the members it selects now (the strategy's preview), with member counts."
  value = {
    for s in fleet_update_strategy.rings.preview.stages : s.name => {
      for g in s.groups : g.name => { members = coalesce(g.members, []), count = g.member_count }
    }
  }
}

output "unselected_members" {
  description = "Members no ring selects: runs over these rings never update them."
  value       = coalesce(fleet_update_strategy.rings.preview.unselected_members, [])
}

output "run_plan" {
  description = "The run's preview: ring → members in update order with action, versions and reason (null without kubernetes_version)."
  value = length(fleet_update_run.upgrade) == 0 ? null : {
    for s in fleet_update_run.upgrade[0].preview.stages : s.name => [
      for m in flatten([for g in s.groups : coalesce(g.members, [])]) : {
        member = m.name
        action = m.action
        from   = m.current_kubernetes_version
        to     = m.target_kubernetes_version
        reason = m.reason
      }
    ]
  }
}

output "run_actions" {
  description = "How many members the run upgrades, skips or leaves pending."
  value       = length(fleet_update_run.upgrade) == 0 ? null : fleet_update_run.upgrade[0].preview.actions
}

output "run_status" {
  description = "The run's state as last read (NotStarted until run_state = \"Running\")."
  value       = length(fleet_update_run.upgrade) == 0 ? null : fleet_update_run.upgrade[0].status.state
}

output "channel_target" {
  description = "The version the profile's channel resolves to now, and what it would do with each member (null without channel)."
  value = length(fleet_auto_upgrade_profile.rings) == 0 ? null : {
    target  = fleet_auto_upgrade_profile.rings[0].preview.target_kubernetes_version
    actions = fleet_auto_upgrade_profile.rings[0].preview.actions
  }
}
