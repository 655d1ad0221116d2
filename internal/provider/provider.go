// Package provider is the Terraform provider `fleet`: its schema and
// configuration, and the registration of what its domains offer (one package
// each below this one). HCL comes in, engine calls go out; the rules live in
// internal/engine.
package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/client-go/rest"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/member"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/placement"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/staged"
)

var (
	_ provider.Provider                       = (*FleetProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*FleetProvider)(nil)
)

// FleetProvider is the `fleet` provider.
type FleetProvider struct {
	version   string
	now       func() time.Time
	transport policy.Transporter
	getenv    func(string) string
}

// Option adjusts a provider built by New (tests, the acceptance harness).
type Option func(*FleetProvider)

// WithClock sets the provider's clock (disruption previews use it).
func WithClock(now func() time.Time) Option { return func(p *FleetProvider) { p.now = now } }

// WithAzureTransport sets the HTTP transport of every Azure request
// (metadata host, token endpoint, ARM). Default: azcore's, verifying TLS
// with the system roots (SSL_CERT_FILE).
func WithAzureTransport(t policy.Transporter) Option {
	return func(p *FleetProvider) { p.transport = t }
}

// WithGetenv replaces os.Getenv for the ARM_*, AZURE_* and FLEET_*
// fallbacks.
func WithGetenv(getenv func(string) string) Option {
	return func(p *FleetProvider) { p.getenv = getenv }
}

// New returns the provider factory providerserver serves.
func New(version string, opts ...Option) func() provider.Provider {
	return func() provider.Provider {
		p := &FleetProvider{version: version, now: time.Now, getenv: os.Getenv}
		for _, o := range opts {
			o(p)
		}
		return p
	}
}

// Metadata implements provider.Provider.
func (p *FleetProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fleet"
	resp.Version = p.version
}

var (
	fleetNameRe     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	resourceGroupRe = regexp.MustCompile(`^[-\p{L}\p{N}._()]*[-\p{L}\p{N}_()]$`)
	metadataHostRe  = regexp.MustCompile(`^(?i:https://)?[^/?#@\s]+/?$`)
)

// Schema implements provider.Provider.
func (p *FleetProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Manage Azure Kubernetes Fleet Manager, KubeFleet and Karpenter as code: placements, update strategies, " +
			"update runs, auto-upgrade profiles and node-pool disruption settings, with plans that preview what the fleet will do. " +
			"With the `ARM_*` environment set, an empty `provider \"fleet\" {}` reaches everything: the hub's and members' " +
			"credentials then come from the Fleet API and AKS.",
		Attributes: map[string]schema.Attribute{
			"preview_detail": schema.StringAttribute{
				Optional: true,
				Description: "How much per-cluster detail previews list: `summary` (default) lists at most " + fmt.Sprint(preview.SummaryListLimit) +
					" clusters or members per list (KubeFleet's own limit for listed scheduling decisions; fewer where each entry takes " +
					"several lines of plan: a placement's top " + fmt.Sprint(placement.PickLimit(preview.SummaryListLimit)) + " picks, an update run's " +
					fmt.Sprint(rollout.RunPreviewMemberLimit) + " members in all), the ones a reader needs first, with exact counts of " +
					"everything (so plans stay readable on fleets of thousands of clusters); `full` lists every one. Applies to previews computed from then on (a resource's preview is recomputed when its " +
					"configuration changes). Environment: `FLEET_PREVIEW_DETAIL`.",
				Validators: []validator.String{stringvalidator.OneOf(preview.PreviewDetailSummary, preview.PreviewDetailFull)},
			},
			"fleet_api_version": schema.StringAttribute{
				Optional: true,
				Description: "The Fleet API version the provider speaks: `" + fleetapi.APIVersion + "` (default, stable) or `" +
					fleetapi.PreviewAPIVersion + "`, which unlocks the preview API's arguments (failure thresholds, member selectors, " +
					"ScheduledStart gates, the SecurityPatch channel, member credentials); using one of those under the stable version " +
					"fails at plan, naming the argument and this setting. It has no environment variable: it decides what a plan may " +
					"say, so it is written in the configuration that is reviewed, and a saved plan's facts record it.",
				Validators: []validator.String{stringvalidator.OneOf(fleetapi.APIVersion, fleetapi.PreviewAPIVersion)},
			},
			"saved_plan_warning": schema.BoolAttribute{
				Optional: true,
				Description: "Whether a plan says, once, that a previewed resource without `facts` computed its preview from the live fleet, " +
					"so that a saved plan of it (`terraform plan -out`, HCP Terraform, Atlantis) fails to apply once the fleet moves, and how " +
					"to pin it with `data \"fleet_facts\"`. Default `true`; `false` for teams that always plan and apply in one command. " +
					"Environment: `FLEET_SAVED_PLAN_WARNING`.",
			},
		},
		Blocks: map[string]schema.Block{
			"azure": schema.SingleNestedBlock{
				Description: "Azure Resource Manager access, for the Fleet API (update strategies, update runs, auto-upgrade profiles, " +
					"members) and AKS. Every attribute also comes from the environment as in the azurerm provider. Azure is " +
					"configured when this block is present or `ARM_SUBSCRIPTION_ID` is set; otherwise resources that need it fail at plan.",
				Attributes: azureAttributes(),
			},
			"hub": schema.SingleNestedBlock{
				Description: "The fleet hub cluster's Kubernetes API (placements, member clusters), with the kubernetes provider's " +
					"attribute names. Each attribute also comes from a variable of this provider's own, `FLEET_HUB_<ATTRIBUTE>`: " +
					"`FLEET_HUB_CONFIG_PATH` (a path, or a list separated by `:` merged as `KUBECONFIG` merges), `FLEET_HUB_CONFIG_PATHS`, " +
					"`FLEET_HUB_CONFIG_CONTEXT` (or `FLEET_HUB_CONTEXT`), `FLEET_HUB_HOST`, `FLEET_HUB_TOKEN`, " +
					"`FLEET_HUB_CLUSTER_CA_CERTIFICATE`, `FLEET_HUB_CLIENT_CERTIFICATE`, `FLEET_HUB_CLIENT_KEY`, `FLEET_HUB_INSECURE`, " +
					"`FLEET_HUB_PROXY_URL` and `FLEET_HUB_TLS_SERVER_NAME`; an attribute set here wins over its variable. The kubernetes " +
					"provider's `KUBE_*` variables are not read. When neither sets a connection and Azure is configured, the hub's " +
					"kubeconfig comes from the default fleet's `listCredentials`, as `az fleet get-credentials` gets it.",
				Attributes: kubeAttributes("the hub"),
				Blocks:     kubeBlocks("the hub"),
			},
			"cluster": schema.ListNestedBlock{
				Description: "A member cluster's Kubernetes API, one block per cluster, for `fleet_nodepool_disruption`: its `name` and " +
					"the same attributes and `exec` block as `hub` (no environment fallbacks). A cluster that has no block here is looked up " +
					"as a member of the default fleet and reached with its managed cluster's user credentials (`listClusterUserCredential`), as " +
					"`az aks get-credentials` does.",
				NestedObject: schema.NestedBlockObject{Attributes: clusterAttributes(), Blocks: kubeBlocks("the cluster")},
				Validators:   []validator.List{uniqueClusterNames{}},
			},
		},
	}
}

func azureAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"subscription_id": schema.StringAttribute{
			Optional:    true,
			Description: "The subscription of the default fleet and of location-scoped calls. Environment: `ARM_SUBSCRIPTION_ID`.",
		},
		"resource_group_name": schema.StringAttribute{
			Optional: true,
			Description: "The resource group of the default fleet, used by resources that do not set `fleet_id` and to reach the " +
				"hub and members. Environment: `FLEET_RESOURCE_GROUP_NAME`.",
			Validators: []validator.String{
				stringvalidator.LengthBetween(1, 90),
				stringvalidator.RegexMatches(resourceGroupRe, "must be a resource group name: letters, digits, '-', '_', '.', '(' and ')', not ending with '.'"),
			},
		},
		"fleet_name": schema.StringAttribute{
			Optional:    true,
			Description: "The name of the default fleet. Environment: `FLEET_NAME`.",
			Validators: []validator.String{
				stringvalidator.LengthBetween(1, 63),
				stringvalidator.RegexMatches(fleetNameRe, "must be a fleet name: lower-case letters, digits and '-', starting and ending with a letter or digit"),
			},
		},
		"tenant_id": schema.StringAttribute{
			Optional:    true,
			Description: "The Microsoft Entra tenant to authenticate in. Environment: `ARM_TENANT_ID`.",
		},
		"client_id": schema.StringAttribute{
			Optional: true,
			Description: "The client (application) ID of the service principal, federated identity or user-assigned managed " +
				"identity. Environment: `ARM_CLIENT_ID`.",
		},
		"client_secret": schema.StringAttribute{
			Optional:    true,
			Sensitive:   true,
			Description: "The service principal's client secret; when set, it is the authentication method. Environment: `ARM_CLIENT_SECRET`.",
		},
		"client_certificate_path": schema.StringAttribute{
			Optional: true,
			Description: "A PKCS#12 (`.pfx`) bundle, or PEM with the certificate and its unencrypted key, of the service principal's " +
				"client certificate; when set, it is the authentication method. Environment: `ARM_CLIENT_CERTIFICATE_PATH`.",
		},
		"client_certificate": schema.StringAttribute{
			Optional:    true,
			Sensitive:   true,
			Description: "The same bundle as `client_certificate_path`, base64-encoded. Environment: `ARM_CLIENT_CERTIFICATE`.",
		},
		"client_certificate_password": schema.StringAttribute{
			Optional:    true,
			Sensitive:   true,
			Description: "The password of the PKCS#12 bundle. Environment: `ARM_CLIENT_CERTIFICATE_PASSWORD`.",
		},
		"use_oidc": schema.BoolAttribute{
			Optional: true,
			Description: "Authenticate with OIDC (workload identity federation): the token in `ARM_OIDC_TOKEN` or the file " +
				"`oidc_token_file_path`; else a fresh token requested for every access token from `oidc_request_url` with " +
				"`oidc_request_token` — GitHub Actions, or Azure DevOps when `ado_pipeline_service_connection_id` is set — so waits " +
				"longer than a CI token's lifetime keep working. Used when neither a client certificate nor a secret is set. " +
				"Environment: `ARM_USE_OIDC`. Default: false.",
		},
		"oidc_token_file_path": schema.StringAttribute{
			Optional: true,
			Description: "The file holding the OIDC token, read again for every token request. Environment: `ARM_OIDC_TOKEN_FILE_PATH` " +
				"(with `use_aks_workload_identity`, also `AZURE_FEDERATED_TOKEN_FILE`).",
		},
		"oidc_request_url": schema.StringAttribute{
			Optional: true,
			Description: "The CI system's OIDC token endpoint. Environment: `ARM_OIDC_REQUEST_URL`, else GitHub Actions' " +
				"`ACTIONS_ID_TOKEN_REQUEST_URL` or Azure DevOps' `SYSTEM_OIDCREQUESTURI`.",
		},
		"oidc_request_token": schema.StringAttribute{
			Optional:  true,
			Sensitive: true,
			Description: "The bearer token of `oidc_request_url`. Environment: `ARM_OIDC_REQUEST_TOKEN`, else " +
				"`ACTIONS_ID_TOKEN_REQUEST_TOKEN` or `SYSTEM_ACCESSTOKEN`.",
		},
		"ado_pipeline_service_connection_id": schema.StringAttribute{
			Optional: true,
			Description: "The Azure DevOps service connection (workload identity federation) to request the OIDC token for; " +
				"set, `oidc_request_url` is Azure DevOps'. Environment: `ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID` or " +
				"`ARM_OIDC_AZURE_SERVICE_CONNECTION_ID`.",
		},
		"use_aks_workload_identity": schema.BoolAttribute{
			Optional: true,
			Description: "Authenticate as the AKS workload identity of the pod Terraform runs in: the federated token file " +
				"`AZURE_FEDERATED_TOKEN_FILE` (re-read as it rotates), `AZURE_TENANT_ID` and `AZURE_CLIENT_ID` (the ARM_* " +
				"variables and attributes win). Used when no certificate, secret or OIDC is configured. Environment: " +
				"`ARM_USE_AKS_WORKLOAD_IDENTITY`. Default: false.",
		},
		"use_msi": schema.BoolAttribute{
			Optional: true,
			Description: "Authenticate with a managed identity (the user-assigned one `client_id` names, or the system-assigned " +
				"one). Used when neither a client secret nor OIDC is configured. Environment: `ARM_USE_MSI`. Default: false.",
		},
		"use_cli": schema.BoolAttribute{
			Optional:    true,
			Description: "Authenticate as the Azure CLI's signed-in account when no other method is configured. Environment: `ARM_USE_CLI`. Default: true.",
		},
		"environment": schema.StringAttribute{
			Optional: true,
			Description: "The Azure cloud: `public`, `usgovernment` or `china`. With `metadata_host`, it picks the cloud of the " +
				"metadata document (else its first). Environment: `ARM_ENVIRONMENT`. Default: `public`.",
			Validators: []validator.String{stringvalidator.OneOf(azure.Environments...)},
		},
		"metadata_host": schema.StringAttribute{
			Optional: true,
			Description: "A custom cloud's metadata host (host name and optional port, e.g. Azure Stack or the provider's local test fleet" +
				"): the resource manager and login endpoints are read from `https://<metadata_host>/metadata/endpoints`. " +
				"TLS is verified with the system roots, which `SSL_CERT_FILE` extends. Environment: `ARM_METADATA_HOSTNAME`.",
			Validators: []validator.String{
				stringvalidator.RegexMatches(metadataHostRe, "must be a host name with an optional port, reached over https (e.g. management.local:8443)"),
			},
		},
	}
}

// clusterAttributes are the attributes of a cluster block: its name and the hub's attributes.
func clusterAttributes() map[string]schema.Attribute {
	attrs := kubeAttributes("the cluster")
	attrs["name"] = schema.StringAttribute{
		Required: true,
		Description: "The cluster's name, as `fleet_nodepool_disruption`'s `cluster` names it (a fleet member's name, or any name " +
			"of your own for a cluster reached only through this block). Unique among the `cluster` blocks.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	return attrs
}

func kubeAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"config_path": schema.StringAttribute{
			Optional:    true,
			Description: "A kubeconfig file for " + what + " (a leading `~` is the home directory).",
		},
		"config_paths": schema.ListAttribute{
			Optional:    true,
			ElementType: types.StringType,
			Description: "Kubeconfig files for " + what + ", merged as `KUBECONFIG` merges them (the first file that sets a value wins). Conflicts with `config_path`.",
			Validators:  []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("config_path"))},
		},
		"config_context": schema.StringAttribute{
			Optional:    true,
			Description: "The context of the kubeconfig at `config_path` (or `config_paths`) to use (default: its current context).",
		},
		"host": schema.StringAttribute{
			Optional:    true,
			Description: "The API server of " + what + ": a URL, or a host[:port] (https when certificates or `insecure` are set).",
		},
		"token": schema.StringAttribute{
			Optional:    true,
			Sensitive:   true,
			Description: "A bearer token for " + what + ".",
		},
		"cluster_ca_certificate": schema.StringAttribute{
			Optional:    true,
			Description: "PEM-encoded CA certificate(s) that sign the API server's certificate.",
		},
		"client_certificate": schema.StringAttribute{
			Optional:    true,
			Description: "PEM-encoded client certificate for TLS client authentication (with `client_key`).",
		},
		"client_key": schema.StringAttribute{
			Optional:    true,
			Sensitive:   true,
			Description: "PEM-encoded private key of `client_certificate`.",
		},
		"insecure": schema.BoolAttribute{
			Optional: true,
			Description: "Skip the verification of the API server's certificate. Not for production; conflicts with `cluster_ca_certificate`. " +
				"This is the only setting that turns TLS verification off: a kubeconfig the Fleet API or AKS returns that asks for it is refused.",
		},
		"proxy_url": schema.StringAttribute{
			Optional:    true,
			Description: "The proxy every request to " + what + " goes through: an `http://`, `https://` or `socks5://` URL.",
		},
		"tls_server_name": schema.StringAttribute{
			Optional:    true,
			Description: "The server name the API server's certificate is verified against (and sent as SNI), instead of the host's.",
		},
	}
}

// kubeBlocks are the blocks of the hub block and of each cluster block: exec.
func kubeBlocks(what string) map[string]schema.Block {
	return map[string]schema.Block{
		"exec": schema.SingleNestedBlock{
			Description: "An exec credential plugin (e.g. `kubelogin`) that prints the credentials of " + what + ". Commands run only " +
				"when configured here or in a kubeconfig file you name: an `exec` entry in a kubeconfig the Fleet API or AKS returns is " +
				"refused (except Azure's `kubelogin`, which the provider replaces with its own Azure credential).",
			// A single block's attributes cannot be Required (the framework would require them with the block
			// absent): api_version and command are required when the block is present.
			Validators: []validator.Object{objectvalidator.AlsoRequires(
				path.MatchRelative().AtName("api_version"), path.MatchRelative().AtName("command"))},
			Attributes: map[string]schema.Attribute{
				"api_version": schema.StringAttribute{
					Optional:    true,
					Description: "The plugin's API version (required in an `exec` block): `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`.",
					Validators:  []validator.String{stringvalidator.OneOf(kube.ExecAPIVersions...)},
				},
				"command": schema.StringAttribute{
					Optional:    true,
					Description: "The command to run (a path, or a name looked up in PATH; required in an `exec` block).",
					Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"args": schema.ListAttribute{
					Optional:    true,
					ElementType: types.StringType,
					Description: "The command's arguments.",
				},
				"env": schema.MapAttribute{
					Optional:    true,
					Sensitive:   true,
					ElementType: types.StringType,
					Description: "Environment variables to set for the command.",
				},
			},
		},
	}
}

// Configure implements provider.Provider: it resolves the environment
// fallbacks, validates, and hands an *session.Session to resources and data
// sources. Nothing configured is not an error: a resource whose backend is
// missing fails at plan, naming the block.
func (p *FleetProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.FleetAPIVersion.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("fleet_api_version"), "fleet_api_version must be known at plan",
			"fleet_api_version decides what a plan may say, so it cannot depend on a value known only after apply.")
		return
	}
	r := &resolver{getenv: p.getenv, fromEnv: map[string]string{}}

	az := r.resolveAzure(ctx, cfg.Azure)
	hub := r.resolveKube(ctx, path.Root("hub"), cfg.Hub, true)
	clusters, clustersUnknown := r.resolveClusters(ctx, cfg.Clusters)
	detail := r.previewDetail(cfg.PreviewDetail)
	savedPlanWarning := r.boolean(path.Root("saved_plan_warning"), cfg.SavedPlanWarning, true, "FLEET_SAVED_PLAN_WARNING")
	resp.Diagnostics.Append(r.diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.diags = nil

	ua := fmt.Sprintf("terraform-provider-fleet/%s", p.version)
	if req.TerraformVersion != "" {
		ua += " terraform/" + req.TerraformVersion
	}
	opts := session.Options{
		AzureUnknown:    az.Unknown,
		DefaultFleet:    az.DefaultFleet,
		HubUnknown:      hub.Unknown,
		ClustersUnknown: clustersUnknown,
		UnknownClusters: map[string]bool{},
		Clusters:        map[string]*rest.Config{},
		UserAgent:       ua,
		Now:             p.now,
		ListLimit:       preview.ListLimitFor(detail),
		PreviewDetail:   detail,
		FleetAPIVersion: cfg.FleetAPIVersion.ValueString(),
		QuietSavedPlans: !savedPlanWarning,
	}

	if !hub.Unknown && !hub.Config.IsZero() {
		rc, err := kube.RESTConfig(hub.Config)
		if err != nil {
			r.addKubeError(path.Root("hub"), "hub", err)
		} else {
			opts.Hub = rc
		}
	}
	names := make([]string, 0, len(clusters))
	for name := range clusters {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cs := clusters[name]
		root := cs.Path
		switch {
		case cs.Unknown:
			opts.UnknownClusters[name] = true
		case cs.Config.IsZero():
			r.diags.AddAttributeError(root, "Empty cluster connection",
				fmt.Sprintf("The cluster block %q (%s) sets no connection attribute: set config_path, host or exec, or remove the block so the cluster's credentials come from its fleet member.", name, root))
		default:
			rc, err := kube.RESTConfig(cs.Config)
			if err != nil {
				r.addKubeError(root, fmt.Sprintf("cluster %q", name), err)
				continue
			}
			opts.Clusters[name] = rc
		}
	}
	resp.Diagnostics.Append(r.diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.diags = nil

	if az.Config != nil {
		s, err := azure.NewSession(ctx, *az.Config, azure.Options{Transport: p.transport, ProviderVersion: p.version})
		if err != nil {
			r.addAzureError(err)
			resp.Diagnostics.Append(r.diags...)
			return
		}
		opts.Azure = s
		fields := map[string]any{
			"subscription_id":  s.SubscriptionID,
			"auth_method":      string(s.Method),
			"resource_manager": s.ResourceManagerEndpoint(),
			"custom_cloud":     s.CustomCloud,
		}
		if az.DefaultFleet != nil {
			fields["default_fleet"] = az.DefaultFleet.String()
		}
		tflog.Debug(ctx, "Azure configured", fields)
	}

	hubSource := "not configured"
	switch {
	case hub.Unknown:
		hubSource = "unknown until apply"
	case opts.Hub != nil:
		hubSource = "hub block or FLEET_HUB_* environment"
	case opts.Azure != nil:
		hubSource = "Fleet API listCredentials"
	}
	fields := map[string]any{
		"azure":    opts.Azure != nil,
		"hub":      hubSource,
		"clusters": names,
	}
	if ignored := r.ignoredKubeEnv(); len(ignored) != 0 {
		// The kubernetes provider's variables often name a member cluster.
		fields["ignored_environment"] = ignored
	}
	tflog.Debug(ctx, "fleet provider configured", fields)

	clients := session.New(opts)
	resp.ResourceData = clients
	resp.DataSourceData = clients
	resp.EphemeralResourceData = clients
	resp.ActionData = clients
	resp.ListResourceData = clients
}

// domains are the provider's domains, each with what it offers (registration.go in its package).
var domains = []shared.Registration{placement.Registration, staged.Registration, rollout.Registration, member.Registration, disruption.Registration}

// Resources implements provider.Provider.
func (p *FleetProvider) Resources(_ context.Context) []func() resource.Resource {
	return shared.WithIdentity(shared.Gather(domains, func(r shared.Registration) []func() resource.Resource { return r.Resources }))
}

// EphemeralResources implements provider.ProviderWithEphemeralResources.
func (p *FleetProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return shared.Gather(domains, func(r shared.Registration) []func() ephemeral.EphemeralResource { return r.EphemeralResources })
}

// DataSources implements provider.Provider.
func (p *FleetProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return shared.Gather(domains, func(r shared.Registration) []func() datasource.DataSource { return r.DataSources })
}
