package member

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ ephemeral.EphemeralResourceWithConfigure = (*memberCredentialsEphemeral)(nil)

// hubCredentialsEphemeral is fleet_hub_credentials: the fleet hub's
// connection from the Fleet API's listCredentials, never stored in state.
type hubCredentialsEphemeral struct{ shared.EphemeralBase }

// memberCredentialsEphemeral is fleet_member_credentials: a member
// cluster's connection from AKS's listClusterUserCredential.
type memberCredentialsEphemeral struct{ shared.EphemeralBase }

// credentialsModel is what both give: the kubernetes and helm providers'
// connection attributes.
type credentialsModel struct {
	FleetID              types.String `tfsdk:"fleet_id"`
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Kubeconfig           types.String `tfsdk:"kubeconfig"`
}

// credentials is the connection in a model (credentialsModel itself, or embedded), for openCredentials.
func (m *credentialsModel) credentials() *credentialsModel { return m }

type memberCredentialsModel struct {
	Member string `tfsdk:"member"`
	credentialsModel
}

const credentialsUsage = " Use it to configure the `kubernetes` or `helm` provider (`host`, `cluster_ca_certificate`, and `token` or " +
	"`client_certificate` and `client_key`) without the credentials ever being written to the plan or state. Needs Terraform 1.10 or later. " +
	"A kubeconfig that logs in through Entra ID (kubelogin) is turned into a bearer `token` for the provider's own Azure credential, " +
	"valid for about an hour: enough for one plan or apply."

func credentialsAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"fleet_id": schema.StringAttribute{
			Optional: true, Computed: true,
			Description: "The fleet's ARM resource ID. Default: the provider's fleet (`azure.resource_group_name` and `azure.fleet_name`).",
		},
		"host": schema.StringAttribute{Computed: true, Description: "The API server URL of " + what + "."},
		"cluster_ca_certificate": schema.StringAttribute{
			Computed: true, Description: "PEM-encoded CA certificate of " + what + "'s API server; null when the kubeconfig has none (the system roots apply).",
		},
		"token": schema.StringAttribute{
			Computed: true, Sensitive: true, Description: "Bearer token, when the kubeconfig authenticates with a token or through Entra ID; otherwise null.",
		},
		"client_certificate": schema.StringAttribute{
			Computed: true, Description: "PEM-encoded client certificate, when the kubeconfig authenticates with one; otherwise null.",
		},
		"client_key": schema.StringAttribute{
			Computed: true, Sensitive: true, Description: "PEM-encoded client key that goes with `client_certificate`; otherwise null.",
		},
		"kubeconfig": schema.StringAttribute{
			Computed: true, Sensitive: true,
			Description: "The kubeconfig as the API returned it (for tools that take a file; an Entra ID one still needs kubelogin).",
		},
	}
}

func (e *hubCredentialsEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The fleet hub's Kubernetes connection, from the Fleet API's `fleets/listCredentials` (what " +
			"`az fleet get-credentials` fetches; the caller needs `Microsoft.ContainerService/fleets/listCredentials/action`)." + credentialsUsage,
		Attributes: credentialsAttributes("the hub"),
	}
}

func (e *hubCredentialsEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	openCredentials(ctx, e.Clients, req, resp, func(_ *credentialsModel, fleet fleetapi.FleetID, fc *fleetapi.Client) ([]byte, bool) {
		kc, err := fc.ListCredentials(ctx, fleet)
		if err != nil {
			resp.Diagnostics.AddError("Getting the hub's credentials", fmt.Sprintf("listCredentials of %s: %v", fleet, err))
			return nil, false
		}
		return kc, true
	})
}

// openCredentials is what both Opens do: the configuration into M, the fleet and its Fleet API
// client, the kubeconfig that kubeconfig fetches (false once it reported why it could not), and the
// connection read from it into the result.
func openCredentials[M any, P interface {
	*M
	credentials() *credentialsModel
}](ctx context.Context, c *session.Session, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse,
	kubeconfig func(m *M, fleet fleetapi.FleetID, fc *fleetapi.Client) ([]byte, bool)) {
	var m M
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	creds := P(&m).credentials()
	fleet, fc, ok := credentialsFleet(c, creds.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	kc, ok := kubeconfig(&m, fleet, fc)
	if !ok {
		return
	}
	creds.FleetID = types.StringValue(fleet.String())
	resp.Diagnostics.Append(fillCredentials(ctx, c, kc, creds)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, m)...)
}

func (e *memberCredentialsEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attrs := credentialsAttributes("the member's cluster")
	attrs["member"] = schema.StringAttribute{
		Required:    true,
		Description: "The fleet member's name; its managed cluster (`clusterResourceId`) is the cluster connected to.",
		Validators:  []validator.String{stringvalidator.LengthBetween(1, 50)},
	}
	resp.Schema = schema.Schema{
		Description: "A fleet member cluster's Kubernetes connection: the member's managed cluster's user credentials from AKS's " +
			"`managedClusters/listClusterUserCredential` (what `az aks get-credentials` fetches; the caller needs " +
			"`Microsoft.ContainerService/managedClusters/listClusterUserCredential/action` on the cluster and read access to the fleet's members)." +
			credentialsUsage,
		Attributes: attrs,
	}
}

func (e *memberCredentialsEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	openCredentials(ctx, e.Clients, req, resp, func(m *memberCredentialsModel, fleet fleetapi.FleetID, fc *fleetapi.Client) ([]byte, bool) {
		member, err := fc.GetMember(ctx, fleet, m.Member)
		if err != nil {
			if fleetapi.IsNotFound(err) {
				resp.Diagnostics.AddError("Fleet member not found", fmt.Sprintf("Fleet %s has no member %q.", fleet, m.Member))
				return nil, false
			}
			resp.Diagnostics.AddError("Reading the fleet member", err.Error())
			return nil, false
		}
		if member.Properties == nil || member.Properties.ClusterResourceID == "" {
			resp.Diagnostics.AddError("Fleet member has no cluster", fmt.Sprintf("Member %q of %s has no clusterResourceId.", m.Member, fleet))
			return nil, false
		}
		cid, err := aks.ParseClusterID(member.Properties.ClusterResourceID)
		if err != nil {
			resp.Diagnostics.AddError("Fleet member's cluster", fmt.Sprintf("Member %q: %v", m.Member, err))
			return nil, false
		}
		ac, err := e.Clients.AKS()
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Reaching AKS", err)
			return nil, false
		}
		kc, err := ac.ClusterUserKubeconfig(ctx, cid)
		if err != nil {
			resp.Diagnostics.AddError("Getting the member's credentials", fmt.Sprintf("listClusterUserCredential of %s (member %q): %v", cid, m.Member, err))
			return nil, false
		}
		return kc, true
	})
}

// credentialsFleet resolves the fleet (fleet_id or the provider's) and the
// Fleet API client.
func credentialsFleet(c *session.Session, fleetID types.String, diags *diag.Diagnostics) (fleetapi.FleetID, *fleetapi.Client, bool) {
	if c == nil {
		diags.AddError("Provider not configured", "The fleet provider was not configured before the ephemeral resource was opened.")
		return fleetapi.FleetID{}, nil, false
	}
	fleet, err := c.ResolveFleet(fleetID.ValueString())
	if err != nil {
		backend.AddBackendError(diags, "Resolving the fleet", err)
		return fleetapi.FleetID{}, nil, false
	}
	fc, err := c.Fleet()
	if err != nil {
		backend.AddBackendError(diags, "Reaching the Fleet API", err)
		return fleetapi.FleetID{}, nil, false
	}
	return fleet, fc, true
}

// fillCredentials reads the connection out of a kubeconfig the Fleet API or
// AKS returned. An Entra ID (kubelogin) kubeconfig gets a bearer token from
// the provider's Azure credential for the server application it names.
func fillCredentials(ctx context.Context, c *session.Session, kc []byte, m *credentialsModel) diag.Diagnostics {
	var diags diag.Diagnostics
	cfg, err := kube.FromKubeconfig(kc)
	if err != nil {
		diags.AddError("Reading the kubeconfig", err.Error())
		return diags
	}
	token := cfg.BearerToken
	if serverID, ok := kube.KubeloginServerID(cfg); ok {
		s, err := c.AzureSession()
		if err != nil {
			backend.AddBackendError(&diags, "Getting an Entra ID token for the cluster", err)
			return diags
		}
		if token, err = s.Token(ctx, serverID+"/.default"); err != nil {
			diags.AddError("Getting an Entra ID token for the cluster", err.Error())
			return diags
		}
	} else if cfg.ExecProvider != nil || cfg.AuthProvider != nil {
		diags.AddError("Unsupported kubeconfig", "The kubeconfig authenticates through an exec plugin or auth provider other than kubelogin; use `kubeconfig` with a tool that runs it.")
		return diags
	}
	m.Host = types.StringValue(cfg.Host)
	m.ClusterCACertificate = shared.StringOrNull(string(cfg.CAData))
	m.ClientCertificate = shared.StringOrNull(string(cfg.CertData))
	m.ClientKey = shared.StringOrNull(string(cfg.KeyData))
	m.Token = shared.StringOrNull(token)
	m.Kubeconfig = types.StringValue(string(kc))
	return diags
}
