# A run Terraform did not create, e.g. one an auto-upgrade profile generated: its status tree and
# the members it has still to update.
data "fleet_update_run" "nightly" {
  name = "nightly-1-33-2"
}

output "nightly_remaining" {
  value = data.fleet_update_run.nightly.remaining_members
}
