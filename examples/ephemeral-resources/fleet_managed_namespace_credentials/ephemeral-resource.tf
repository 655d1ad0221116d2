# The payments team's connection to its namespace on one member (preview Fleet API), e.g. for the
# kubernetes provider that deploys the team's workloads. The provider block sets
# fleet_api_version = "2026-11-01-preview".
ephemeral "fleet_managed_namespace_credentials" "payments_east" {
  managed_namespace = "payments"
  member            = "prod-east-1"
}

provider "kubernetes" {
  alias                  = "payments_east"
  host                   = ephemeral.fleet_managed_namespace_credentials.payments_east.host
  cluster_ca_certificate = ephemeral.fleet_managed_namespace_credentials.payments_east.cluster_ca_certificate
  token                  = ephemeral.fleet_managed_namespace_credentials.payments_east.token
  client_certificate     = ephemeral.fleet_managed_namespace_credentials.payments_east.client_certificate
  client_key             = ephemeral.fleet_managed_namespace_credentials.payments_east.client_key
}
