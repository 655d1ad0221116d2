package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// providerModel is the provider block.
type providerModel struct {
	Azure    types.Object `tfsdk:"azure"`
	Hub      types.Object `tfsdk:"hub"`
	Clusters types.List   `tfsdk:"cluster"`

	PreviewDetail    types.String `tfsdk:"preview_detail"`
	FleetAPIVersion  types.String `tfsdk:"fleet_api_version"`
	SavedPlanWarning types.Bool   `tfsdk:"saved_plan_warning"`
}

// azureModel is the azure block.
type azureModel struct {
	SubscriptionID    types.String `tfsdk:"subscription_id"`
	ResourceGroupName types.String `tfsdk:"resource_group_name"`
	FleetName         types.String `tfsdk:"fleet_name"`
	TenantID          types.String `tfsdk:"tenant_id"`
	ClientID          types.String `tfsdk:"client_id"`
	ClientSecret      types.String `tfsdk:"client_secret"`
	UseOIDC           types.Bool   `tfsdk:"use_oidc"`
	OIDCTokenFilePath types.String `tfsdk:"oidc_token_file_path"`
	OIDCRequestURL    types.String `tfsdk:"oidc_request_url"`
	OIDCRequestToken  types.String `tfsdk:"oidc_request_token"`
	ADOConnectionID   types.String `tfsdk:"ado_pipeline_service_connection_id"`
	CertPath          types.String `tfsdk:"client_certificate_path"`
	Cert              types.String `tfsdk:"client_certificate"`
	CertPassword      types.String `tfsdk:"client_certificate_password"`
	UseAKSWorkloadID  types.Bool   `tfsdk:"use_aks_workload_identity"`
	UseMSI            types.Bool   `tfsdk:"use_msi"`
	UseCLI            types.Bool   `tfsdk:"use_cli"`
	Environment       types.String `tfsdk:"environment"`
	MetadataHost      types.String `tfsdk:"metadata_host"`
}

// kubeModel is the hub block, and each cluster block without its name.
type kubeModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigPaths          types.List   `tfsdk:"config_paths"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	ProxyURL             types.String `tfsdk:"proxy_url"`
	TLSServerName        types.String `tfsdk:"tls_server_name"`
	Exec                 types.Object `tfsdk:"exec"`
}

// execModel is an exec credential plugin.
type execModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// Environment variables, as azurerm and the kubernetes provider read them.
const (
	envSubscriptionID    = "ARM_SUBSCRIPTION_ID"
	envTenantID          = "ARM_TENANT_ID"
	envClientID          = "ARM_CLIENT_ID"
	envClientSecret      = "ARM_CLIENT_SECRET"
	envUseOIDC           = "ARM_USE_OIDC"
	envOIDCToken         = "ARM_OIDC_TOKEN"
	envOIDCTokenFilePath = "ARM_OIDC_TOKEN_FILE_PATH"
	envOIDCRequestURL    = "ARM_OIDC_REQUEST_URL"
	envOIDCRequestToken  = "ARM_OIDC_REQUEST_TOKEN"
	envADOConnectionID   = "ARM_ADO_PIPELINE_SERVICE_CONNECTION_ID"
	envADOConnectionID2  = "ARM_OIDC_AZURE_SERVICE_CONNECTION_ID"
	envGitHubRequestURL  = "ACTIONS_ID_TOKEN_REQUEST_URL"
	envGitHubRequestTok  = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
	envADORequestURL     = "SYSTEM_OIDCREQUESTURI"
	envADOAccessToken    = "SYSTEM_ACCESSTOKEN"
	envCertPath          = "ARM_CLIENT_CERTIFICATE_PATH"
	envCert              = "ARM_CLIENT_CERTIFICATE"
	envCertPassword      = "ARM_CLIENT_CERTIFICATE_PASSWORD"
	envUseAKSWorkloadID  = "ARM_USE_AKS_WORKLOAD_IDENTITY"
	envAzureTenantID     = "AZURE_TENANT_ID"
	envAzureClientID     = "AZURE_CLIENT_ID"
	envAzureTokenFile    = "AZURE_FEDERATED_TOKEN_FILE"
	envUseMSI            = "ARM_USE_MSI"
	envUseCLI            = "ARM_USE_CLI"
	envEnvironment       = "ARM_ENVIRONMENT"
	envMetadataHost      = "ARM_METADATA_HOSTNAME"
	envResourceGroupName = "FLEET_RESOURCE_GROUP_NAME"
	envFleetName         = "FLEET_NAME"

	// The hub's variables are our own: the kubernetes provider's KUBE_*
	// variables (often set for a member cluster) never change where the hub
	// is. Each hub attribute X comes from FLEET_HUB_<X>.
	envHubConfigPath    = "FLEET_HUB_CONFIG_PATH"
	envHubConfigPaths   = "FLEET_HUB_CONFIG_PATHS"
	envHubConfigContext = "FLEET_HUB_CONFIG_CONTEXT"
	envHubContext       = "FLEET_HUB_CONTEXT" // alias of FLEET_HUB_CONFIG_CONTEXT
	envHubHost          = "FLEET_HUB_HOST"
	envHubToken         = "FLEET_HUB_TOKEN"
	envHubCACert        = "FLEET_HUB_CLUSTER_CA_CERTIFICATE"
	envHubClientCert    = "FLEET_HUB_CLIENT_CERTIFICATE"
	envHubClientKey     = "FLEET_HUB_CLIENT_KEY"
	envHubInsecure      = "FLEET_HUB_INSECURE"
	envHubProxyURL      = "FLEET_HUB_PROXY_URL"
	envHubTLSServerName = "FLEET_HUB_TLS_SERVER_NAME"
)

// resolver applies environment fallbacks and collects diagnostics.
type resolver struct {
	getenv func(string) string
	diags  diag.Diagnostics
	// fromEnv records which attribute took its value from which variable,
	// so errors can say where a bad value came from.
	fromEnv map[string]string
}

func (r *resolver) str(p path.Path, v types.String, envs ...string) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	for _, e := range envs {
		if s := strings.TrimSpace(r.getenv(e)); s != "" {
			r.fromEnv[p.String()] = e
			return s
		}
	}
	return ""
}

func (r *resolver) boolean(p path.Path, v types.Bool, def bool, env string) bool {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueBool()
	}
	if env == "" {
		return def
	}
	s := strings.TrimSpace(r.getenv(env))
	if s == "" {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		r.diags.AddAttributeError(p, "Invalid "+env,
			fmt.Sprintf("%s=%q is not a boolean (true or false), so %s cannot be taken from it.", env, s, p))
		return def
	}
	r.fromEnv[p.String()] = env
	return b
}

func (r *resolver) source(p path.Path) string {
	if e, ok := r.fromEnv[p.String()]; ok {
		return " (the value comes from " + e + ")"
	}
	return ""
}

// isUnknown reports whether v or anything inside it is unknown.
func isUnknown(v attr.Value) bool {
	if v == nil || v.IsNull() {
		return false
	}
	if v.IsUnknown() {
		return true
	}
	switch x := v.(type) {
	case basetypes.ObjectValue:
		for _, a := range x.Attributes() {
			if isUnknown(a) {
				return true
			}
		}
	case basetypes.MapValue:
		for _, e := range x.Elements() {
			if isUnknown(e) {
				return true
			}
		}
	case basetypes.ListValue:
		for _, e := range x.Elements() {
			if isUnknown(e) {
				return true
			}
		}
	}
	return false
}

// azureSettings is the resolved azure block.
type azureSettings struct {
	// Config is nil when Azure is not configured (no azure block, no
	// ARM_SUBSCRIPTION_ID).
	Config       *azure.Config
	DefaultFleet *fleetapi.FleetID
	Unknown      bool
}

// resolveAzure applies the ARM_* / FLEET_* fallbacks to the azure block.
func (r *resolver) resolveAzure(ctx context.Context, obj types.Object) azureSettings {
	root := path.Root("azure")
	if isUnknown(obj) {
		return azureSettings{Unknown: true}
	}
	var m azureModel
	if !obj.IsNull() {
		r.diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...)
		if r.diags.HasError() {
			return azureSettings{}
		}
	}
	at := func(name string) path.Path { return root.AtName(name) }
	// AKS workload identity: the pod's AZURE_* variables fill in what the
	// ARM_* ones leave out, as azurerm does.
	useWI := r.boolean(at("use_aks_workload_identity"), m.UseAKSWorkloadID, false, envUseAKSWorkloadID)
	wi := func(env string) []string {
		if useWI {
			return []string{env}
		}
		return nil
	}
	c := azure.Config{
		SubscriptionID:            r.str(at("subscription_id"), m.SubscriptionID, envSubscriptionID),
		TenantID:                  r.str(at("tenant_id"), m.TenantID, append([]string{envTenantID}, wi(envAzureTenantID)...)...),
		ClientID:                  r.str(at("client_id"), m.ClientID, append([]string{envClientID}, wi(envAzureClientID)...)...),
		ClientSecret:              r.str(at("client_secret"), m.ClientSecret, envClientSecret),
		ClientCertificatePath:     r.str(at("client_certificate_path"), m.CertPath, envCertPath),
		ClientCertificate:         r.str(at("client_certificate"), m.Cert, envCert),
		ClientCertificatePassword: r.str(at("client_certificate_password"), m.CertPassword, envCertPassword),
		UseOIDC:                   r.boolean(at("use_oidc"), m.UseOIDC, false, envUseOIDC),
		OIDCTokenFilePath:         r.str(at("oidc_token_file_path"), m.OIDCTokenFilePath, append([]string{envOIDCTokenFilePath}, wi(envAzureTokenFile)...)...),
		UseAKSWorkloadIdentity:    useWI,
		UseMSI:                    r.boolean(at("use_msi"), m.UseMSI, false, envUseMSI),
		UseCLI:                    r.boolean(at("use_cli"), m.UseCLI, true, envUseCLI),
		Environment:               r.str(at("environment"), m.Environment, envEnvironment),
		MetadataHost:              r.str(at("metadata_host"), m.MetadataHost, envMetadataHost),
	}
	if c.UseOIDC {
		// GitHub Actions and Azure DevOps set their own variables; the ARM_*
		// ones win.
		c.OIDCRequestURL = r.str(at("oidc_request_url"), m.OIDCRequestURL, envOIDCRequestURL, envGitHubRequestURL, envADORequestURL)
		c.OIDCRequestToken = r.str(at("oidc_request_token"), m.OIDCRequestToken, envOIDCRequestToken, envGitHubRequestTok, envADOAccessToken)
		c.ADOServiceConnectionID = r.str(at("ado_pipeline_service_connection_id"), m.ADOConnectionID, envADOConnectionID, envADOConnectionID2)
	}
	if c.UseOIDC && c.OIDCTokenFilePath == "" {
		c.OIDCToken = strings.TrimSpace(r.getenv(envOIDCToken))
	}
	if env, ok := azure.NormalizeEnvironment(c.Environment); ok {
		c.Environment = env
	}
	rg := r.str(at("resource_group_name"), m.ResourceGroupName, envResourceGroupName)
	name := r.str(at("fleet_name"), m.FleetName, envFleetName)

	// Azure counts as configured as soon as anything of it is set (an azure
	// block, or any ARM_* / FLEET_* variable), so a forgotten subscription is
	// reported by name instead of as "Azure not configured".
	anySet := c.SubscriptionID != "" || c.TenantID != "" || c.ClientID != "" || c.ClientSecret != "" ||
		c.ClientCertificatePath != "" || c.ClientCertificate != "" ||
		c.MetadataHost != "" || c.OIDCTokenFilePath != "" || rg != "" || name != ""
	if obj.IsNull() && !anySet {
		// Azure is not configured: resources that need it say so at plan.
		return azureSettings{}
	}
	out := azureSettings{Config: &c}
	switch {
	case rg != "" && name != "":
		out.DefaultFleet = &fleetapi.FleetID{SubscriptionID: c.SubscriptionID, ResourceGroupName: rg, Name: name}
	case rg != "":
		r.diags.AddAttributeError(at("fleet_name"), "Incomplete default fleet",
			"azure.resource_group_name"+r.source(at("resource_group_name"))+" is set without the fleet's name: set azure.fleet_name or FLEET_NAME too, or neither.")
	case name != "":
		r.diags.AddAttributeError(at("resource_group_name"), "Incomplete default fleet",
			"azure.fleet_name"+r.source(at("fleet_name"))+" is set without its resource group: set azure.resource_group_name or FLEET_RESOURCE_GROUP_NAME too, or neither.")
	}
	if err := azure.CheckConfig(c); err != nil {
		r.addAzureError(err)
	}
	return out
}

func (r *resolver) addAzureError(err error) {
	if fe, ok := err.(*azure.FieldError); ok {
		p := path.Root("azure").AtName(fe.Field)
		r.diags.AddAttributeError(p, fe.Summary, fe.Detail+r.source(p))
		return
	}
	r.diags.AddAttributeError(path.Root("azure"), "Invalid Azure configuration", err.Error())
}

// kubeSettings is a resolved hub or cluster connection.
type kubeSettings struct {
	Config  kube.Config
	Unknown bool
}

// hubEnv lists the hub's environment variables, by attribute.
var hubEnv = map[string][]string{
	"config_path":            {envHubConfigPath},
	"config_paths":           {envHubConfigPaths},
	"config_context":         {envHubConfigContext, envHubContext},
	"host":                   {envHubHost},
	"token":                  {envHubToken},
	"cluster_ca_certificate": {envHubCACert},
	"client_certificate":     {envHubClientCert},
	"client_key":             {envHubClientKey},
	"insecure":               {envHubInsecure},
	"proxy_url":              {envHubProxyURL},
	"tls_server_name":        {envHubTLSServerName},
}

// resolveKube reads a hub or cluster object; withEnv applies the FLEET_HUB_*
// fallbacks (the hub only). An attribute set in the block wins over its
// variable.
func (r *resolver) resolveKube(ctx context.Context, root path.Path, obj types.Object, withEnv bool) kubeSettings {
	if isUnknown(obj) {
		return kubeSettings{Unknown: true}
	}
	var m kubeModel
	if !obj.IsNull() {
		r.diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...)
		if r.diags.HasError() {
			return kubeSettings{}
		}
	}
	env := func(name string) []string {
		if withEnv {
			return hubEnv[name]
		}
		return nil
	}
	var insecureEnv string
	if withEnv {
		insecureEnv = envHubInsecure
	}
	at := func(name string) path.Path { return root.AtName(name) }
	c := kube.Config{
		ConfigContext:        r.str(at("config_context"), m.ConfigContext, env("config_context")...),
		Host:                 r.str(at("host"), m.Host, env("host")...),
		Token:                r.str(at("token"), m.Token, env("token")...),
		ClusterCACertificate: r.str(at("cluster_ca_certificate"), m.ClusterCACertificate, env("cluster_ca_certificate")...),
		ClientCertificate:    r.str(at("client_certificate"), m.ClientCertificate, env("client_certificate")...),
		ClientKey:            r.str(at("client_key"), m.ClientKey, env("client_key")...),
		Insecure:             r.boolean(at("insecure"), m.Insecure, false, insecureEnv),
		ProxyURL:             r.str(at("proxy_url"), m.ProxyURL, env("proxy_url")...),
		TLSServerName:        r.str(at("tls_server_name"), m.TLSServerName, env("tls_server_name")...),
	}
	c.ConfigPath = r.str(at("config_path"), m.ConfigPath)
	if !m.ConfigPaths.IsNull() {
		r.diags.Append(m.ConfigPaths.ElementsAs(ctx, &c.ConfigPaths, false)...)
	}
	if c.ConfigPath == "" && len(c.ConfigPaths) == 0 && withEnv {
		// FLEET_HUB_CONFIG_PATH(S) may hold a list, as KUBECONFIG: the files
		// are merged.
		for _, e := range []string{envHubConfigPath, envHubConfigPaths} {
			var paths []string
			for _, p := range filepath.SplitList(r.getenv(e)) {
				if p = strings.TrimSpace(p); p != "" {
					paths = append(paths, p)
				}
			}
			if len(paths) == 0 {
				continue
			}
			if len(paths) == 1 {
				c.ConfigPath = paths[0]
				r.fromEnv[at("config_path").String()] = e
			} else {
				c.ConfigPaths = paths
				r.fromEnv[at("config_paths").String()] = e
			}
			break
		}
	}
	if !m.Exec.IsNull() {
		var e execModel
		r.diags.Append(m.Exec.As(ctx, &e, basetypes.ObjectAsOptions{})...)
		if r.diags.HasError() {
			return kubeSettings{}
		}
		ec := &kube.ExecConfig{APIVersion: e.APIVersion.ValueString(), Command: e.Command.ValueString()}
		if !e.Args.IsNull() {
			r.diags.Append(e.Args.ElementsAs(ctx, &ec.Args, false)...)
		}
		if !e.Env.IsNull() {
			r.diags.Append(e.Env.ElementsAs(ctx, &ec.Env, false)...)
		}
		c.Exec = ec
	}
	return kubeSettings{Config: c}
}

// ignoredKubeEnv lists the kubernetes provider's variables that are set:
// the provider does not read them (they name a member cluster as often as
// the hub), and says so in its log.
func (r *resolver) ignoredKubeEnv() []string {
	var set []string
	for _, e := range []string{"KUBE_CONFIG_PATH", "KUBE_CONFIG_PATHS", "KUBE_CTX", "KUBE_HOST", "KUBE_TOKEN",
		"KUBE_CLUSTER_CA_CERT_DATA", "KUBE_CLIENT_CERT_DATA", "KUBE_CLIENT_KEY_DATA", "KUBE_INSECURE", "KUBE_PROXY_URL", "KUBE_TLS_SERVER_NAME"} {
		if strings.TrimSpace(r.getenv(e)) != "" {
			set = append(set, e)
		}
	}
	return set
}

// addKubeError reports a kube.RESTConfig error on the attribute it names.
func (r *resolver) addKubeError(root path.Path, what string, err error) {
	if ae, ok := err.(*kube.AttributeError); ok {
		p := root.AtName(ae.Attribute)
		r.diags.AddAttributeError(p, ae.Summary, fmt.Sprintf("The %s connection cannot be built from %s%s: %v", what, p, r.source(p), ae.Err))
		return
	}
	r.diags.AddAttributeError(root, "Invalid "+what+" connection", err.Error())
}

// clusterSettings is a resolved cluster block.
type clusterSettings struct {
	kubeSettings
	// Path is the block's path, cluster[i].
	Path path.Path
}

// resolveClusters reads the cluster blocks (no environment fallbacks), by name; unknown is true when
// the blocks or a name are unknown (the names, and so which cluster a block is, are not known yet).
// A name two blocks give is an error on the second block's name.
func (r *resolver) resolveClusters(ctx context.Context, l types.List) (out map[string]clusterSettings, unknown bool) {
	if l.IsUnknown() {
		return nil, true
	}
	out = map[string]clusterSettings{}
	for i, e := range l.Elements() {
		root := path.Root("cluster").AtListIndex(i)
		obj, ok := e.(types.Object)
		if !ok {
			r.diags.AddAttributeError(root, "Unexpected cluster value", "Please report this issue to the provider developers.")
			continue
		}
		if obj.IsUnknown() {
			return nil, true
		}
		attrs := obj.Attributes()
		name, ok := attrs["name"].(types.String)
		if !ok || name.IsUnknown() {
			return nil, true
		}
		if prev, dup := out[name.ValueString()]; dup {
			r.diags.AddAttributeError(root.AtName("name"), "Duplicate cluster name", duplicateClusterDetail(name.ValueString(), prev.Path, root))
			continue
		}
		kube := make(map[string]attr.Value, len(attrs)-1)
		kubeTypes := make(map[string]attr.Type, len(attrs)-1)
		for k, v := range attrs {
			if k != "name" {
				kube[k], kubeTypes[k] = v, v.Type(ctx)
			}
		}
		kobj, d := types.ObjectValue(kubeTypes, kube)
		r.diags.Append(d...)
		if d.HasError() {
			continue
		}
		out[name.ValueString()] = clusterSettings{kubeSettings: r.resolveKube(ctx, root, kobj, false), Path: root}
	}
	return out, false
}

// duplicateClusterDetail says which two cluster blocks give name.
func duplicateClusterDetail(name string, first, second path.Path) string {
	return fmt.Sprintf("%s and %s are both named %q: each cluster block needs a name of its own.", first, second, name)
}

// uniqueClusterNames checks at validate that no two cluster blocks share a known name; the error is
// on the later block's name.
type uniqueClusterNames struct{}

func (uniqueClusterNames) Description(context.Context) string {
	return "each cluster block has a name of its own"
}

func (v uniqueClusterNames) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (uniqueClusterNames) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	seen := map[string]path.Path{}
	for i, e := range req.ConfigValue.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() {
			continue
		}
		name, ok := obj.Attributes()["name"].(types.String)
		if !ok || name.IsNull() || name.IsUnknown() {
			continue
		}
		at := req.Path.AtListIndex(i)
		if first, dup := seen[name.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(at.AtName("name"), "Duplicate cluster name", duplicateClusterDetail(name.ValueString(), first, at))
			continue
		}
		seen[name.ValueString()] = at
	}
}

// previewDetail resolves preview_detail: the attribute, else FLEET_PREVIEW_DETAIL, else summary.
func (r *resolver) previewDetail(v types.String) string {
	p := path.Root("preview_detail")
	s := r.str(p, v, preview.EnvPreviewDetail)
	switch s {
	case "":
		return preview.PreviewDetailSummary
	case preview.PreviewDetailSummary, preview.PreviewDetailFull:
		return s
	}
	r.diags.AddAttributeError(p, "Invalid "+preview.EnvPreviewDetail,
		fmt.Sprintf("%s=%q: preview_detail must be %q or %q.", preview.EnvPreviewDetail, s, preview.PreviewDetailSummary, preview.PreviewDetailFull))
	return preview.PreviewDetailSummary
}
