# With the ARM_* environment set (as the azurerm provider reads it) and
# FLEET_RESOURCE_GROUP_NAME / FLEET_NAME naming the fleet, an empty block
# reaches everything:
#
#   provider "fleet" {}
#
# Every attribute below is optional and falls back to the environment variable
# named beside it, as the azurerm and kubernetes providers do.
provider "fleet" {
  azure {
    subscription_id     = "00000000-0000-0000-0000-000000000001" # ARM_SUBSCRIPTION_ID
    resource_group_name = "rg-fleet"                             # FLEET_RESOURCE_GROUP_NAME; default fleet for resources without fleet_id
    fleet_name          = "demo"                                 # FLEET_NAME

    # Credentials: pick one way, as with azurerm.
    # tenant_id     = "..."        # ARM_TENANT_ID
    # client_id     = "..."        # ARM_CLIENT_ID
    # client_secret = "..."        # ARM_CLIENT_SECRET
    # use_oidc             = true  # ARM_USE_OIDC: GitHub Actions / Azure DevOps (ARM_OIDC_REQUEST_URL, ARM_OIDC_REQUEST_TOKEN), or ARM_OIDC_TOKEN_FILE_PATH
    # client_certificate_path = "sp.pfx" # ARM_CLIENT_CERTIFICATE_PATH, with ARM_CLIENT_CERTIFICATE_PASSWORD
    # use_aks_workload_identity = true   # ARM_USE_AKS_WORKLOAD_IDENTITY
    # use_msi              = true  # ARM_USE_MSI
    use_cli = true # ARM_USE_CLI

    # environment   = "public"                 # ARM_ENVIRONMENT: public | usgovernment | china
    # metadata_host = "management.example.com" # ARM_METADATA_HOSTNAME: a custom cloud
  }

  # Optional: without it, the hub's kubeconfig comes from the Fleet API
  # (fleets/listCredentials), as `az fleet get-credentials` does.
  hub {
    config_path    = "~/.kube/config" # FLEET_HUB_CONFIG_PATH (KUBE_* are not read)
    config_context = "hub"            # FLEET_HUB_CONFIG_CONTEXT
  }

  # Optional: member clusters by name, one block each, for
  # fleet_nodepool_disruption. Without a block naming it, a member's kubeconfig
  # comes from its AKS managed cluster (listClusterUserCredential), as
  # `az aks get-credentials` does.
  cluster {
    name                   = "aks-east-1"
    host                   = "https://aks-east-1.example.com:443"
    cluster_ca_certificate = file("${path.module}/aks-east-1-ca.pem")
    exec {
      api_version = "client.authentication.k8s.io/v1beta1"
      command     = "kubelogin"
      args        = ["get-token", "--login", "azurecli", "--server-id", "6dae42f8-4368-4678-94ff-3960e28e3630"]
    }
  }
}
