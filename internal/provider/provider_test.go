package provider

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// unknown marks a value unknown at plan in a test configuration.
type unknown struct{}

func providerSchema(t *testing.T) schema.Schema {
	t.Helper()
	p := New("test")()
	var resp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp.Schema
}

// value builds a tftypes value of typ from Go values: nil is null, unknown{}
// is unknown, map[string]any fills objects and maps, []string lists, []any
// lists of objects (list blocks).
func value(t *testing.T, typ tftypes.Type, v any) tftypes.Value {
	t.Helper()
	if v == nil {
		return tftypes.NewValue(typ, nil)
	}
	if _, ok := v.(unknown); ok {
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch ty := typ.(type) {
	case tftypes.Object:
		in, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("object value %#v is not a map[string]any", v)
		}
		vals := map[string]tftypes.Value{}
		for name, at := range ty.AttributeTypes {
			vals[name] = value(t, at, in[name])
		}
		for name := range in {
			if _, ok := ty.AttributeTypes[name]; !ok {
				t.Fatalf("no attribute %q", name)
			}
		}
		return tftypes.NewValue(ty, vals)
	case tftypes.Map:
		in, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("map value %#v is not a map[string]any", v)
		}
		vals := map[string]tftypes.Value{}
		for k, e := range in {
			vals[k] = value(t, ty.ElementType, e)
		}
		return tftypes.NewValue(ty, vals)
	case tftypes.List:
		var vals []tftypes.Value
		switch in := v.(type) {
		case []string:
			for _, e := range in {
				vals = append(vals, tftypes.NewValue(ty.ElementType, e))
			}
		case []any: // a list block's objects
			for _, e := range in {
				vals = append(vals, value(t, ty.ElementType, e))
			}
		default:
			t.Fatalf("list value %#v is not a []string or []any", v)
		}
		return tftypes.NewValue(ty, vals)
	}
	return tftypes.NewValue(typ, v)
}

type result struct {
	clients *session.Session
	diags   diag.Diagnostics
	logs    string
}

// configure runs Configure on cfg (the provider block as Go values) with
// env as the whole environment.
func configure(t *testing.T, cfg map[string]any, env map[string]string, opts ...Option) result {
	t.Helper()
	s := providerSchema(t)
	ctx := context.Background()
	raw := value(t, s.Type().TerraformType(ctx), cfg)
	opts = append(opts, WithGetenv(func(k string) string { return env[k] }))
	p := New("1.2.3", opts...)()
	var logs bytes.Buffer
	ctx = tflogtest.RootLogger(ctx, &logs)
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{TerraformVersion: "1.11.4", Config: tfsdk.Config{Schema: s, Raw: raw}}, &resp)
	r := result{diags: resp.Diagnostics, logs: logs.String()}
	if !resp.Diagnostics.HasError() {
		c, ok := resp.ResourceData.(*session.Session)
		if !ok || resp.DataSourceData != resp.ResourceData {
			t.Fatalf("ResourceData = %T, DataSourceData = %T", resp.ResourceData, resp.DataSourceData)
		}
		r.clients = c
	}
	return r
}

// errorAt returns the error diagnostic at p.
func errorAt(t *testing.T, diags diag.Diagnostics, p path.Path) diag.Diagnostic {
	t.Helper()
	for _, d := range diags.Errors() {
		if wp, ok := d.(diag.DiagnosticWithPath); ok && wp.Path().Equal(p) {
			return d
		}
	}
	t.Fatalf("no error at %s in %v", p, diags)
	return nil
}

func TestMetadataAndSchema(t *testing.T) {
	p := New("9.9.9")()
	var md provider.MetadataResponse
	p.Metadata(context.Background(), provider.MetadataRequest{}, &md)
	if md.TypeName != "fleet" || md.Version != "9.9.9" {
		t.Errorf("metadata = %+v", md)
	}
	s := providerSchema(t)
	if diags := s.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatal(diags)
	}
	// every attribute and block is described (tfplugindocs writes the docs from them)
	var walk func(prefix string, attrs map[string]schema.Attribute, blocks map[string]schema.Block)
	count := 0
	walk = func(prefix string, attrs map[string]schema.Attribute, blocks map[string]schema.Block) {
		for name, a := range attrs {
			count++
			if strings.TrimSpace(a.GetDescription()) == "" {
				t.Errorf("%s%s has no description", prefix, name)
			}
			if _, nested := a.(schema.NestedAttribute); nested {
				t.Errorf("%s%s is a nested attribute: the provider's nested arguments are blocks", prefix, name)
			}
		}
		for name, b := range blocks {
			count++
			if strings.TrimSpace(b.GetDescription()) == "" {
				t.Errorf("%s%s has no description", prefix, name)
			}
			switch n := b.(type) {
			case schema.SingleNestedBlock:
				walk(prefix+name+".", n.Attributes, n.Blocks)
			case schema.ListNestedBlock:
				walk(prefix+name+".", n.NestedObject.Attributes, n.NestedObject.Blocks)
			}
		}
	}
	walk("", s.Attributes, s.Blocks)
	// preview_detail, fleet_api_version, saved_plan_warning; the blocks azure (19), hub (11 and exec's 4) and cluster (name, 11 and exec's 4)
	if count != 3+3+19+(11+1+4)+(12+1+4) {
		t.Errorf("%d attributes and blocks", count)
	}
	if s.Description == "" {
		t.Error("provider has no description")
	}
	azure, ok := s.Blocks["azure"].(schema.SingleNestedBlock)
	if !ok {
		t.Fatalf("azure is %T, want schema.SingleNestedBlock", s.Blocks["azure"])
	}
	hub, ok := s.Blocks["hub"].(schema.SingleNestedBlock)
	if !ok {
		t.Fatalf("hub is %T, want schema.SingleNestedBlock", s.Blocks["hub"])
	}
	cluster, ok := s.Blocks["cluster"].(schema.ListNestedBlock)
	if !ok {
		t.Fatalf("cluster is %T, want schema.ListNestedBlock", s.Blocks["cluster"])
	}
	if _, ok := hub.Blocks["exec"].(schema.SingleNestedBlock); !ok {
		t.Errorf("hub.exec is %T, want schema.SingleNestedBlock", hub.Blocks["exec"])
	}
	if _, ok := cluster.NestedObject.Blocks["exec"].(schema.SingleNestedBlock); !ok {
		t.Errorf("cluster.exec is %T, want schema.SingleNestedBlock", cluster.NestedObject.Blocks["exec"])
	}
	azureAttrs := azure.Attributes
	hubAttrs := hub.Attributes
	clusterAttrs := cluster.NestedObject.Attributes
	if n, ok := clusterAttrs["name"].(schema.StringAttribute); !ok || !n.Required {
		t.Errorf("cluster.name is %#v, want a Required string", clusterAttrs["name"])
	}
	for what, a := range map[string]schema.Attribute{
		"azure.client_secret": azureAttrs["client_secret"], "hub.token": hubAttrs["token"], "hub.client_key": hubAttrs["client_key"],
		"cluster.token": clusterAttrs["token"], "cluster.client_key": clusterAttrs["client_key"],
	} {
		if !a.IsSensitive() {
			t.Errorf("%s is not sensitive", what)
		}
	}
	for _, name := range []string{"subscription_id", "resource_group_name", "fleet_name", "tenant_id", "client_id", "client_secret",
		"use_oidc", "oidc_token_file_path", "use_msi", "use_cli", "environment", "metadata_host"} {
		if _, ok := azureAttrs[name]; !ok {
			t.Errorf("azure.%s missing", name)
		}
	}
}

func TestNameValidators(t *testing.T) {
	for s, want := range map[string]bool{"demo": true, "fleet-1": true, "a": true, "Demo": false, "-x": false, "x-": false, "a_b": false} {
		if fleetNameRe.MatchString(s) != want {
			t.Errorf("fleet name %q: %v", s, !want)
		}
	}
	for s, want := range map[string]bool{"rg-fleet": true, "rg.(x)_1": true, "rg.": false, "rg/x": false, "grupo-ñ": true} {
		if resourceGroupRe.MatchString(s) != want {
			t.Errorf("resource group %q: %v", s, !want)
		}
	}
	for s, want := range map[string]bool{"management.local:8443": true, "https://x.example/": true, "http://x": false, "x/y": false} {
		if metadataHostRe.MatchString(s) != want {
			t.Errorf("metadata host %q: %v", s, !want)
		}
	}
}

func TestConfigureNothing(t *testing.T) {
	r := configure(t, map[string]any{}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if _, err := r.clients.Fleet(); !session.IsNotConfigured(err) || !strings.Contains(err.Error(), "azure block (or ARM_* environment) is not configured") {
		t.Errorf("Fleet: %v", err)
	}
	if _, err := r.clients.Hub(context.Background()); !session.IsNotConfigured(err) {
		t.Errorf("Hub: %v", err)
	}
	if _, err := r.clients.Cluster(context.Background(), "aks-east-1"); !session.IsNotConfigured(err) {
		t.Errorf("Cluster: %v", err)
	}
}

func TestConfigureAzureFromEnvironment(t *testing.T) {
	env := map[string]string{
		"ARM_SUBSCRIPTION_ID": "env-sub", "ARM_TENANT_ID": "tenant", "ARM_CLIENT_ID": "app", "ARM_CLIENT_SECRET": "env-s3cret",
		"FLEET_RESOURCE_GROUP_NAME": "rg-fleet", "FLEET_NAME": "demo", "ARM_ENVIRONMENT": "China",
	}
	r := configure(t, map[string]any{}, env)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	s, err := r.clients.AzureSession()
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != azure.AuthClientSecret || s.SubscriptionID != "env-sub" || s.ResourceManagerEndpoint() != "https://management.chinacloudapi.cn" {
		t.Errorf("session: %s %s %s", s.Method, s.SubscriptionID, s.ResourceManagerEndpoint())
	}
	f, err := r.clients.DefaultFleet()
	if err != nil || f != (fleetapi.FleetID{SubscriptionID: "env-sub", ResourceGroupName: "rg-fleet", Name: "demo"}) {
		t.Errorf("DefaultFleet = %+v %v", f, err)
	}
	if strings.Contains(r.logs, "env-s3cret") {
		t.Error("the client secret was logged")
	}
	if !strings.Contains(r.logs, "client_secret") || !strings.Contains(r.logs, "fleet provider configured") {
		t.Errorf("expected debug logs, got %s", r.logs)
	}

	// the configuration wins over the environment
	r = configure(t, map[string]any{"azure": map[string]any{"subscription_id": "cfg-sub", "fleet_name": "other", "use_cli": true, "client_secret": nil}}, map[string]string{
		"ARM_SUBSCRIPTION_ID": "env-sub", "FLEET_RESOURCE_GROUP_NAME": "rg-fleet", "FLEET_NAME": "demo", "ARM_USE_CLI": "false",
	})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	f, _ = r.clients.DefaultFleet()
	s, _ = r.clients.AzureSession()
	if f.SubscriptionID != "cfg-sub" || f.Name != "other" || f.ResourceGroupName != "rg-fleet" || s.Method != azure.AuthCLI {
		t.Errorf("precedence: %+v %s", f, s.Method)
	}
}

func TestConfigureAzureErrors(t *testing.T) {
	r := configure(t, map[string]any{"azure": map[string]any{"fleet_name": "demo", "resource_group_name": "rg"}}, nil)
	d := errorAt(t, r.diags, path.Root("azure").AtName("subscription_id"))
	if d.Summary() != "Missing Azure subscription" || !strings.Contains(d.Detail(), "set azure.subscription_id or ARM_SUBSCRIPTION_ID") {
		t.Errorf("diag = %s: %s", d.Summary(), d.Detail())
	}

	r = configure(t, map[string]any{}, map[string]string{"ARM_SUBSCRIPTION_ID": "s", "ARM_USE_OIDC": "maybe"})
	d = errorAt(t, r.diags, path.Root("azure").AtName("use_oidc"))
	if !strings.Contains(d.Detail(), `ARM_USE_OIDC="maybe"`) {
		t.Errorf("use_oidc: %s", d.Detail())
	}

	r = configure(t, map[string]any{}, map[string]string{"ARM_SUBSCRIPTION_ID": "s", "FLEET_NAME": "demo"})
	d = errorAt(t, r.diags, path.Root("azure").AtName("resource_group_name"))
	if !strings.Contains(d.Detail(), "FLEET_NAME") {
		t.Errorf("incomplete fleet: %s", d.Detail())
	}

	r = configure(t, map[string]any{}, map[string]string{"ARM_SUBSCRIPTION_ID": "s", "ARM_CLIENT_SECRET": "x", "ARM_CLIENT_ID": "c"})
	d = errorAt(t, r.diags, path.Root("azure").AtName("tenant_id"))
	if !strings.Contains(d.Detail(), "ARM_TENANT_ID") {
		t.Errorf("tenant: %s", d.Detail())
	}

	missing := filepath.Join(t.TempDir(), "token")
	r = configure(t, map[string]any{}, map[string]string{"ARM_SUBSCRIPTION_ID": "s", "ARM_USE_OIDC": "true", "ARM_TENANT_ID": "t",
		"ARM_CLIENT_ID": "c", "ARM_OIDC_TOKEN_FILE_PATH": missing})
	d = errorAt(t, r.diags, path.Root("azure").AtName("oidc_token_file_path"))
	if !strings.Contains(d.Detail(), "no such file") || !strings.Contains(d.Detail(), "ARM_OIDC_TOKEN_FILE_PATH") {
		t.Errorf("oidc file: %s", d.Detail())
	}
	// ARM_OIDC_TOKEN stands in for the file
	r = configure(t, map[string]any{}, map[string]string{"ARM_SUBSCRIPTION_ID": "s", "ARM_USE_OIDC": "true", "ARM_TENANT_ID": "t",
		"ARM_CLIENT_ID": "c", "ARM_OIDC_TOKEN": "jwt"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if s, _ := r.clients.AzureSession(); s.Method != azure.AuthOIDC {
		t.Errorf("method = %s", s.Method)
	}
}

func TestConfigureCustomCloud(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metadata/endpoints" {
			http.NotFound(w, r)
			return
		}
		base := "https://" + r.Host
		fmt.Fprintf(w, `[{"name":"Local","resourceManager":"%s","authentication":{"loginEndpoint":"%s/","audiences":["https://management.local/"]}}]`, base, base)
	}))
	host := strings.TrimPrefix(srv.URL, "https://")
	env := map[string]string{"ARM_SUBSCRIPTION_ID": "s", "ARM_METADATA_HOSTNAME": host, "ARM_TENANT_ID": "t", "ARM_CLIENT_ID": "c", "ARM_CLIENT_SECRET": "x"}
	r := configure(t, map[string]any{}, env, WithAzureTransport(srv.Client()))
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	s, _ := r.clients.AzureSession()
	if !s.CustomCloud || s.ResourceManagerEndpoint() != srv.URL {
		t.Errorf("custom cloud: %v %s", s.CustomCloud, s.ResourceManagerEndpoint())
	}
	srv.Close()
	r = configure(t, map[string]any{}, env, WithAzureTransport(srv.Client()))
	d := errorAt(t, r.diags, path.Root("azure").AtName("metadata_host"))
	if !strings.Contains(d.Detail(), host) || !strings.Contains(d.Detail(), "ARM_METADATA_HOSTNAME") {
		t.Errorf("unreachable metadata host: %s", d.Detail())
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
current-context: hub
clusters: [{name: hub, cluster: {server: "https://hub.example:6443"}}]
users: [{name: u, user: {token: kc-token}}]
contexts: [{name: hub, context: {cluster: hub, user: u}}, {name: other, context: {cluster: hub, user: u}}]
`

func TestConfigureHub(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "hub.yaml")
	if err := os.WriteFile(kc, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// FLEET_HUB_CONFIG_PATH and FLEET_HUB_CONTEXT
	r := configure(t, map[string]any{}, map[string]string{"FLEET_HUB_CONFIG_PATH": kc, "FLEET_HUB_CONTEXT": "other"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	h, err := r.clients.Hub(ctx)
	if err != nil || h.Config.Host != "https://hub.example:6443" || h.Config.BearerToken != "kc-token" {
		t.Fatalf("hub from FLEET_HUB_CONFIG_PATH: %v %v", h, err)
	}
	if !strings.HasPrefix(h.Config.UserAgent, "terraform-provider-fleet/1.2.3") {
		t.Errorf("user agent %q", h.Config.UserAgent)
	}

	// FLEET_HUB_CONFIG_PATH holds a list: the files are merged, the first
	// one's values winning (here the second file adds the context "extra").
	kc2 := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(kc2, []byte(strings.ReplaceAll(strings.ReplaceAll(kubeconfig, "hub.example", "extra.example"), "name: other", "name: extra")), 0o600); err != nil {
		t.Fatal(err)
	}
	r = configure(t, map[string]any{}, map[string]string{"FLEET_HUB_CONFIG_PATH": kc + string(os.PathListSeparator) + kc2, "FLEET_HUB_CONFIG_CONTEXT": "extra"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if h, err = r.clients.Hub(ctx); err != nil || h.Config.Host != "https://hub.example:6443" {
		t.Fatalf("hub from two merged kubeconfigs: %v %v", h, err)
	}
	r = configure(t, map[string]any{"hub": map[string]any{"config_paths": []string{kc2, kc}}}, nil)
	if h, err = r.clients.Hub(ctx); err != nil || h.Config.Host != "https://extra.example:6443" {
		t.Fatalf("hub from config_paths (first wins): %v %v", h, err)
	}
	r = configure(t, map[string]any{"hub": map[string]any{"config_paths": []string{kc}, "config_path": kc}}, nil)
	errorAt(t, r.diags, path.Root("hub").AtName("config_paths"))

	// proxy_url and tls_server_name, from the block and the environment
	r = configure(t, map[string]any{"hub": map[string]any{"host": "https://10.0.0.1", "token": "t", "proxy_url": "http://proxy.example:3128"}},
		map[string]string{"FLEET_HUB_TLS_SERVER_NAME": "hub.internal", "FLEET_HUB_PROXY_URL": "http://ignored.example"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	h, err = r.clients.Hub(ctx)
	if err != nil || h.Config.ServerName != "hub.internal" || h.Config.Proxy == nil {
		t.Fatalf("proxy and server name: %v %v", h, err)
	}
	if u, _ := h.Config.Proxy(&http.Request{URL: mustURL(t, "https://10.0.0.1")}); u == nil || u.Host != "proxy.example:3128" {
		t.Errorf("proxy: the block's value must win over FLEET_HUB_PROXY_URL, got %v", u)
	}
	r = configure(t, map[string]any{"hub": map[string]any{"host": "https://h", "proxy_url": "ftp://p"}}, nil)
	errorAt(t, r.diags, path.Root("hub").AtName("proxy_url"))

	r = configure(t, map[string]any{}, map[string]string{"FLEET_HUB_HOST": "https://env.example", "FLEET_HUB_TOKEN": "env-token", "FLEET_HUB_INSECURE": "true"})
	h, err = r.clients.Hub(ctx)
	if err != nil || h.Config.Host != "https://env.example" || h.Config.BearerToken != "env-token" || !h.Config.Insecure {
		t.Fatalf("hub from FLEET_HUB_HOST: %v %v", h, err)
	}
	if strings.Contains(r.logs, "env-token") {
		t.Error("the hub token was logged")
	}
	// the block's attributes win over FLEET_HUB_*
	r = configure(t, map[string]any{"hub": map[string]any{"host": "https://block.example", "token": "block-token"}},
		map[string]string{"FLEET_HUB_HOST": "https://env.example", "FLEET_HUB_TOKEN": "env-token"})
	if h, err = r.clients.Hub(ctx); err != nil || h.Config.Host != "https://block.example" || h.Config.BearerToken != "block-token" {
		t.Fatalf("block over environment: %v %v", h, err)
	}

	// The kubernetes provider's KUBE_* variables never make a hub: they are
	// only named in the log as ignored.
	r = configure(t, map[string]any{}, map[string]string{"KUBE_CONFIG_PATH": kc, "KUBE_CTX": "other", "KUBE_HOST": "https://member.example", "KUBE_TOKEN": "kube-token"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if _, err := r.clients.Hub(ctx); !session.IsNotConfigured(err) {
		t.Fatalf("KUBE_* made a hub: %v", err)
	}
	if !strings.Contains(r.logs, "KUBE_CONFIG_PATH") || strings.Contains(r.logs, "kube-token") {
		t.Errorf("ignored KUBE_* not logged by name (or a token logged): %s", r.logs)
	}

	missing := filepath.Join(dir, "missing.yaml")
	r = configure(t, map[string]any{"hub": map[string]any{"config_path": missing}}, nil)
	d := errorAt(t, r.diags, path.Root("hub").AtName("config_path"))
	if !strings.Contains(d.Detail(), missing) || !strings.Contains(d.Detail(), "no such file or directory") {
		t.Errorf("unreadable kubeconfig: %s", d.Detail())
	}
	r = configure(t, map[string]any{}, map[string]string{"FLEET_HUB_CONFIG_PATH": missing})
	d = errorAt(t, r.diags, path.Root("hub").AtName("config_path"))
	if !strings.Contains(d.Detail(), "FLEET_HUB_CONFIG_PATH") {
		t.Errorf("env source not named: %s", d.Detail())
	}
	r = configure(t, map[string]any{"hub": map[string]any{"config_path": kc, "config_context": "nope"}}, nil)
	errorAt(t, r.diags, path.Root("hub").AtName("config_context"))

	r = configure(t, map[string]any{"hub": map[string]any{"host": "https://h", "exec": map[string]any{
		"api_version": "client.authentication.k8s.io/v1", "command": "kubelogin", "args": []string{"get-token"}, "env": map[string]any{"A": "1"}}}}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	h, err = r.clients.Hub(ctx)
	if err != nil || h.Config.ExecProvider == nil || h.Config.ExecProvider.Command != "kubelogin" || len(h.Config.ExecProvider.Env) != 1 {
		t.Fatalf("exec hub: %v %v", h, err)
	}

	// a hub whose host is known only after apply
	r = configure(t, map[string]any{"hub": map[string]any{"host": unknown{}}}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if _, err := r.clients.Hub(ctx); !session.IsConfigUnknown(err) {
		t.Errorf("unknown hub: %v", err)
	}
}

func TestConfigureClusters(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	ctx := context.Background()
	r := configure(t, map[string]any{"cluster": []any{
		map[string]any{"name": "aks-east-1", "host": srv.URL, "token": "t1", "cluster_ca_certificate": ca},
		map[string]any{"name": "aks-west-1", "host": unknown{}},
	}}, map[string]string{"FLEET_HUB_HOST": "https://hub-only.example"})
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	c, err := r.clients.Cluster(ctx, "aks-east-1")
	if err != nil || c.Config.Host != srv.URL || c.Config.BearerToken != "t1" {
		t.Fatalf("cluster: %v %v", c, err)
	}
	if _, err := r.clients.Cluster(ctx, "aks-west-1"); !session.IsConfigUnknown(err) {
		t.Errorf("unknown cluster: %v", err)
	}
	if _, err := r.clients.Cluster(ctx, "aks-north-1"); !session.IsNotConfigured(err) {
		t.Errorf("unlisted cluster without azure: %v", err)
	}

	r = configure(t, map[string]any{"cluster": []any{
		map[string]any{"name": "empty"},
		map[string]any{"name": "bad", "host": "https://h", "cluster_ca_certificate": "nope"},
	}}, nil)
	d := errorAt(t, r.diags, path.Root("cluster").AtListIndex(0))
	if !strings.Contains(d.Detail(), `"empty" (cluster[0])`) {
		t.Errorf("detail: %s", d.Detail())
	}
	d = errorAt(t, r.diags, path.Root("cluster").AtListIndex(1).AtName("cluster_ca_certificate"))
	if !strings.Contains(d.Detail(), `cluster "bad"`) || !strings.Contains(d.Detail(), "cluster[1].cluster_ca_certificate") {
		t.Errorf("detail: %s", d.Detail())
	}

	// Two blocks of one name: an error on the second's name, naming both.
	r = configure(t, map[string]any{"cluster": []any{
		map[string]any{"name": "aks-east-1", "host": srv.URL, "token": "t1", "cluster_ca_certificate": ca},
		map[string]any{"name": "aks-east-1", "host": "https://other.example", "token": "t2"},
	}}, nil)
	d = errorAt(t, r.diags, path.Root("cluster").AtListIndex(1).AtName("name"))
	if d.Summary() != "Duplicate cluster name" || !strings.Contains(d.Detail(), `cluster[0] and cluster[1] are both named "aks-east-1"`) {
		t.Errorf("duplicate: %s: %s", d.Summary(), d.Detail())
	}
	// A name unknown until apply: which cluster each block is is unknown, so every configured cluster is.
	r = configure(t, map[string]any{"cluster": []any{map[string]any{"name": unknown{}, "host": "https://h"}}}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if _, err := r.clients.Cluster(ctx, "aks-east-1"); !session.IsConfigUnknown(err) {
		t.Errorf("cluster with an unknown name: %v", err)
	}
}

// validateProvider runs the served ValidateProviderConfig on cfg (nested maps and slices, as
// schema_constraints_test.go builds them) and returns each error as "path: summary: detail".
func validateProvider(t *testing.T, cfg map[string]any) []string {
	t.Helper()
	s := mustServer(t)
	ctx := context.Background()
	schemaResp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemaResp.Provider.ValueType()
	v, err := toTF(typ, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			errs = append(errs, tfPathString(d.Attribute)+": "+d.Summary+": "+d.Detail)
		}
	}
	return errs
}

// The provider block's blocks at validate: every block may be left out (exec's api_version and
// command are required only in an exec block), exec without its command and two cluster blocks
// of one name fail with the path.
func TestValidateProviderBlocks(t *testing.T) {
	exec := map[string]any{"api_version": "client.authentication.k8s.io/v1", "command": "kubelogin"}
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want string // the path of the one error; "" for none
	}{
		{"nothing", map[string]any{}, ""},
		{"hub without exec", map[string]any{"hub": map[string]any{"host": "https://h"}}, ""},
		{"hub with exec", map[string]any{"hub": map[string]any{"host": "https://h", "exec": exec}}, ""},
		{"clusters with and without exec", map[string]any{"cluster": []any{
			map[string]any{"name": "a", "host": "https://a", "exec": exec}, map[string]any{"name": "b", "host": "https://b"}}}, ""},
		{"exec without command", map[string]any{"hub": map[string]any{"exec": map[string]any{"api_version": "client.authentication.k8s.io/v1"}}}, "hub.exec"},
		{"cluster exec without api_version", map[string]any{"cluster": []any{
			map[string]any{"name": "a", "exec": map[string]any{"command": "kubelogin"}}}}, "cluster[0].exec"},
		{"cluster without a name", map[string]any{"cluster": []any{map[string]any{"host": "https://a"}}}, "cluster[0].name"},
		{"empty cluster name", map[string]any{"cluster": []any{map[string]any{"name": "", "host": "https://a"}}}, "cluster[0].name"},
		{"duplicate cluster names", map[string]any{"cluster": []any{
			map[string]any{"name": "a", "host": "https://a"}, map[string]any{"name": "b"}, map[string]any{"name": "a", "host": "https://c"}}}, "cluster[2].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateProvider(t, tc.cfg)
			switch {
			case tc.want == "" && len(errs) != 0:
				t.Errorf("want no error, got %q", errs)
			case tc.want != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0], tc.want+": ")):
				t.Errorf("want one error at %s, got %q", tc.want, errs)
			}
		})
	}
}

func TestConfigureUnknownAzure(t *testing.T) {
	r := configure(t, map[string]any{"azure": map[string]any{"subscription_id": unknown{}}}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if _, err := r.clients.Fleet(); !session.IsConfigUnknown(err) {
		t.Errorf("Fleet: %v", err)
	}
	if _, err := r.clients.Hub(context.Background()); !session.IsConfigUnknown(err) {
		t.Errorf("Hub through unknown azure: %v", err)
	}
}

// preview_detail: summary (20 per list) by default, full from the attribute or FLEET_PREVIEW_DETAIL,
// the attribute over the environment, and a bad environment value is an error naming it.
func TestConfigurePreviewDetail(t *testing.T) {
	cases := []struct {
		cfg  map[string]any
		env  map[string]string
		want int
	}{
		{map[string]any{}, nil, 20},
		{map[string]any{"preview_detail": "full"}, nil, 0},
		{map[string]any{}, map[string]string{"FLEET_PREVIEW_DETAIL": "full"}, 0},
		{map[string]any{"preview_detail": "summary"}, map[string]string{"FLEET_PREVIEW_DETAIL": "full"}, 20},
	}
	for _, c := range cases {
		r := configure(t, c.cfg, c.env)
		if r.diags.HasError() {
			t.Fatal(r.diags)
		}
		if got := r.clients.ListLimit(); got != c.want {
			t.Errorf("%v %v: ListLimit %d, want %d", c.cfg, c.env, got, c.want)
		}
	}
	r := configure(t, map[string]any{}, map[string]string{"FLEET_PREVIEW_DETAIL": "everything"})
	d := errorAt(t, r.diags, path.Root("preview_detail"))
	if !strings.Contains(d.Detail(), `FLEET_PREVIEW_DETAIL="everything"`) {
		t.Errorf("error %q does not name the variable and its value", d.Detail())
	}
}

// TestConfigureFleetAPIVersion: fleet_api_version chooses the api-version of every Fleet API
// request and is a preview setting (the facts pin it); unset is the stable version, with no
// environment fallback (it decides what a plan may say).
func TestConfigureFleetAPIVersion(t *testing.T) {
	for _, c := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{}, "2026-06-01"},
		{map[string]any{"fleet_api_version": "2026-06-01"}, "2026-06-01"},
		{map[string]any{"fleet_api_version": "2026-11-01-preview"}, "2026-11-01-preview"},
	} {
		r := configure(t, c.cfg, map[string]string{"FLEET_API_VERSION": "2026-11-01-preview"})
		if r.diags.HasError() {
			t.Fatal(r.diags)
		}
		if got := r.clients.FleetAPIVersion(); got != c.want {
			t.Errorf("%v: FleetAPIVersion %s, want %s", c.cfg, got, c.want)
		}
		pinned := r.clients.Settings().FleetAPIVersion
		if (c.want == "2026-06-01") != (pinned == "") {
			t.Errorf("%v: settings record %q", c.cfg, pinned)
		}
	}
	r := configure(t, map[string]any{"fleet_api_version": unknown{}}, nil)
	errorAt(t, r.diags, path.Root("fleet_api_version"))
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestNestedArgumentsAreBlocks: every nested argument a user writes — in the provider block, a
// resource, data source, ephemeral resource, list resource or action — is a block, whose unknown
// arguments Terraform rejects by name (a nested attribute's object drops them silently,
// hashicorp/terraform#33570). Computed-only nested attributes (previews, status) stay attributes.
func TestNestedArgumentsAreBlocks(t *testing.T) {
	resp, err := mustServer(t).GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*tfprotov6.Schema{"provider": resp.Provider}
	for kind, m := range map[string]map[string]*tfprotov6.Schema{
		"resource": resp.ResourceSchemas, "data": resp.DataSourceSchemas, "ephemeral": resp.EphemeralResourceSchemas, "list": resp.ListResourceSchemas,
	} {
		for name, s := range m {
			schemas[kind+" "+name] = s
		}
	}
	for name, s := range resp.ActionSchemas {
		schemas["action "+name] = s.Schema
	}
	var walk func(at string, b *tfprotov6.SchemaBlock)
	walk = func(at string, b *tfprotov6.SchemaBlock) {
		for _, a := range b.Attributes {
			if a.NestedType != nil && (a.Required || a.Optional) {
				t.Errorf("%s%s is a configurable nested attribute: make it a block", at, a.Name)
			}
		}
		for _, nb := range b.BlockTypes {
			walk(at+nb.TypeName+".", nb.Block)
		}
	}
	checked := 0
	for name, s := range schemas {
		if s == nil || s.Block == nil {
			continue
		}
		checked++
		walk(name+": ", s.Block)
	}
	if checked < 35 {
		t.Errorf("checked %d schemas: the provider registers more", checked)
	}
}
