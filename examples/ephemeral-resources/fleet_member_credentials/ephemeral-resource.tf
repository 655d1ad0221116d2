# A member cluster's connection (its managed cluster's user credentials), e.g. for helm.
ephemeral "fleet_member_credentials" "canary" {
  member = "canary-east"
}

provider "helm" {
  alias = "canary"
  kubernetes = {
    host                   = ephemeral.fleet_member_credentials.canary.host
    cluster_ca_certificate = ephemeral.fleet_member_credentials.canary.cluster_ca_certificate
    token                  = ephemeral.fleet_member_credentials.canary.token
    client_certificate     = ephemeral.fleet_member_credentials.canary.client_certificate
    client_key             = ephemeral.fleet_member_credentials.canary.client_key
  }
}
