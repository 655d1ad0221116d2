terraform {
  # The versions this provider supports: 1.11 to 1.16.
  required_version = ">= 1.11"
  required_providers {
    fleet = {
      source = "fleetops/fleet"
    }
  }
}
