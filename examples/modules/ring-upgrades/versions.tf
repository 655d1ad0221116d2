terraform {
  # Terraform 1.7 for `terraform test` mocks-free runs with `expect_failures`; 1.5 is enough to use the module.
  required_version = ">= 1.5"
  required_providers {
    fleet = {
      source = "fleetops/fleet"
    }
  }
}
