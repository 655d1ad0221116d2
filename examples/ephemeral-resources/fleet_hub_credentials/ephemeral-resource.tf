# The hub's connection, opened for each plan and apply and never stored: configure the kubernetes
# (or helm) provider from it and manage what placements select.
ephemeral "fleet_hub_credentials" "hub" {}

provider "kubernetes" {
  host                   = ephemeral.fleet_hub_credentials.hub.host
  cluster_ca_certificate = ephemeral.fleet_hub_credentials.hub.cluster_ca_certificate
  token                  = ephemeral.fleet_hub_credentials.hub.token # Entra ID hubs
  client_certificate     = ephemeral.fleet_hub_credentials.hub.client_certificate
  client_key             = ephemeral.fleet_hub_credentials.hub.client_key
}

resource "kubernetes_namespace" "web" {
  metadata {
    name = "web"
  }
}

resource "fleet_placement" "web" {
  name = "web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = kubernetes_namespace.web.metadata[0].name
  }
}
