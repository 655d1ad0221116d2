list "fleet_member" "prod" {
  provider = fleet
  config {
    group  = "prod"
    labels = { env = "prod" }
  }
}
