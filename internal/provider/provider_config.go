package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// providerModel is the provider block.
type providerModel struct {
	Azure    types.Object `tfsdk:"azure"`
	Hub      types.Object `tfsdk:"hub"`
	Clusters types.Map    `tfsdk:"clusters"`

	PreviewDetail types.String `tfsdk:"preview_detail"`
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
	UseMSI            types.Bool   `tfsdk:"use_msi"`
	UseCLI            types.Bool   `tfsdk:"use_cli"`
	Environment       types.String `tfsdk:"environment"`
	MetadataHost      types.String `tfsdk:"metadata_host"`
}

// kubeModel is the hub block and each value of clusters.
type kubeModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Insecure             types.Bool   `tfsdk:"insecure"`
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
	envUseMSI            = "ARM_USE_MSI"
	envUseCLI            = "ARM_USE_CLI"
	envEnvironment       = "ARM_ENVIRONMENT"
	envMetadataHost      = "ARM_METADATA_HOSTNAME"
	envResourceGroupName = "FLEET_RESOURCE_GROUP_NAME"
	envFleetName         = "FLEET_NAME"

	envKubeConfigPath = "KUBE_CONFIG_PATH"
	envKubeContext    = "KUBE_CTX"
	envKubeHost       = "KUBE_HOST"
	envKubeToken      = "KUBE_TOKEN"
	envKubeCACert     = "KUBE_CLUSTER_CA_CERT_DATA"
	envKubeClientCert = "KUBE_CLIENT_CERT_DATA"
	envKubeClientKey  = "KUBE_CLIENT_KEY_DATA"
	envKubeInsecure   = "KUBE_INSECURE"
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
	c := azure.Config{
		SubscriptionID:    r.str(at("subscription_id"), m.SubscriptionID, envSubscriptionID),
		TenantID:          r.str(at("tenant_id"), m.TenantID, envTenantID),
		ClientID:          r.str(at("client_id"), m.ClientID, envClientID),
		ClientSecret:      r.str(at("client_secret"), m.ClientSecret, envClientSecret),
		UseOIDC:           r.boolean(at("use_oidc"), m.UseOIDC, false, envUseOIDC),
		OIDCTokenFilePath: r.str(at("oidc_token_file_path"), m.OIDCTokenFilePath, envOIDCTokenFilePath),
		UseMSI:            r.boolean(at("use_msi"), m.UseMSI, false, envUseMSI),
		UseCLI:            r.boolean(at("use_cli"), m.UseCLI, true, envUseCLI),
		Environment:       r.str(at("environment"), m.Environment, envEnvironment),
		MetadataHost:      r.str(at("metadata_host"), m.MetadataHost, envMetadataHost),
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

// resolveKube reads a hub or cluster object; withEnv applies the KUBE_*
// fallbacks (the hub only).
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
			return []string{name}
		}
		return nil
	}
	var insecureEnv string
	if withEnv {
		insecureEnv = envKubeInsecure
	}
	at := func(name string) path.Path { return root.AtName(name) }
	c := kube.Config{
		ConfigContext:        r.str(at("config_context"), m.ConfigContext, env(envKubeContext)...),
		Host:                 r.str(at("host"), m.Host, env(envKubeHost)...),
		Token:                r.str(at("token"), m.Token, env(envKubeToken)...),
		ClusterCACertificate: r.str(at("cluster_ca_certificate"), m.ClusterCACertificate, env(envKubeCACert)...),
		ClientCertificate:    r.str(at("client_certificate"), m.ClientCertificate, env(envKubeClientCert)...),
		ClientKey:            r.str(at("client_key"), m.ClientKey, env(envKubeClientKey)...),
		Insecure:             r.boolean(at("insecure"), m.Insecure, false, insecureEnv),
	}
	c.ConfigPath = r.str(at("config_path"), m.ConfigPath)
	if c.ConfigPath == "" && withEnv {
		// KUBE_CONFIG_PATH may hold a list (as KUBECONFIG): its first path.
		for _, p := range filepath.SplitList(r.getenv(envKubeConfigPath)) {
			if p = strings.TrimSpace(p); p != "" {
				c.ConfigPath = p
				r.fromEnv[at("config_path").String()] = envKubeConfigPath
				break
			}
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

// addKubeError reports a kube.RESTConfig error on the attribute it names.
func (r *resolver) addKubeError(root path.Path, what string, err error) {
	if ae, ok := err.(*kube.AttributeError); ok {
		p := root.AtName(ae.Attribute)
		r.diags.AddAttributeError(p, ae.Summary, fmt.Sprintf("The %s connection cannot be built from %s%s: %v", what, p, r.source(p), ae.Err))
		return
	}
	r.diags.AddAttributeError(root, "Invalid "+what+" connection", err.Error())
}

// resolveClusters reads the clusters map (no environment fallbacks).
func (r *resolver) resolveClusters(ctx context.Context, m types.Map) (map[string]kubeSettings, bool) {
	if m.IsUnknown() {
		return nil, true
	}
	out := map[string]kubeSettings{}
	if m.IsNull() {
		return out, false
	}
	names := make([]string, 0, len(m.Elements()))
	for k := range m.Elements() {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		obj, ok := m.Elements()[name].(types.Object)
		if !ok {
			r.diags.AddAttributeError(path.Root("clusters").AtMapKey(name), "Unexpected cluster value",
				"Please report this issue to the provider developers.")
			continue
		}
		out[name] = r.resolveKube(ctx, path.Root("clusters").AtMapKey(name), obj, false)
	}
	return out, false
}
