variable "name" {
  description = "Name of the update strategy, the run (\"<name>-<version>\", dots as dashes) and the auto-upgrade profile."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", var.name)) && length(var.name) <= 30
    error_message = "name: lower-case letters, digits and '-', at most 30 characters (the run's name adds the version)."
  }
}

variable "fleet_id" {
  description = "The fleet's ARM ID. Default: the provider's fleet."
  type        = string
  default     = null
}

variable "rings" {
  description = <<-EOT
    The rings in update order: each a stage of the strategy, with the fleet members' update groups it
    updates (in parallel) and the seconds to wait after it before the next ring starts.
  EOT
  type = list(object({
    name         = string
    groups       = list(string)
    wait_seconds = optional(number)
  }))
  validation {
    condition     = length(var.rings) > 0 && alltrue([for r in var.rings : length(r.groups) > 0])
    error_message = "rings: at least one ring, each with at least one group."
  }
}

variable "kubernetes_version" {
  description = "Target Kubernetes version of the update run (e.g. \"1.33.1\"); null creates no run."
  type        = string
  default     = null
}

variable "upgrade_type" {
  description = "The run's upgrade: Full, ControlPlaneOnly or NodeImageOnly."
  type        = string
  default     = "Full"
}

variable "node_image_selection" {
  description = "Latest or Consistent node images for the run."
  type        = string
  default     = "Latest"
}

variable "run_state" {
  description = "NotStarted (the default: review the preview, then set Running), Running or Stopped."
  type        = string
  default     = "NotStarted"
}

variable "wait_for" {
  description = "none, started or completed: how long apply waits for the run."
  type        = string
  default     = "none"
}

variable "channel" {
  description = "Auto-upgrade channel (Stable, Rapid, NodeImage or TargetKubernetesVersion) of a profile that follows the same rings; null creates no profile."
  type        = string
  default     = null
}

variable "target_kubernetes_version" {
  description = "major.minor for the TargetKubernetesVersion channel."
  type        = string
  default     = null
}
