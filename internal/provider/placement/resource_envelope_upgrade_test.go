package placement

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// envelopeOnlyProvider serves fleet_envelope alone, so the test drives the state upgrade through the
// protocol, as Terraform does when it reads state written by an earlier provider version.
type envelopeOnlyProvider struct{}

func (envelopeOnlyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fleet"
}
func (envelopeOnlyProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {
}
func (envelopeOnlyProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (envelopeOnlyProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{shared.NewResource[envelopeResource]("_envelope")}
}
func (envelopeOnlyProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// upgradeV0 runs UpgradeResourceState on a v0 state and returns the upgraded attributes.
func upgradeV0(t *testing.T, v0 map[string]any) (map[string]tftypes.Value, []*tfprotov6.Diagnostic) {
	t.Helper()
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(envelopeOnlyProvider{})()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v0)
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "fleet_envelope", Version: 0, RawState: &tfprotov6.RawState{JSON: raw}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.UpgradedState == nil {
		return nil, resp.Diagnostics
	}
	schemaResp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := schemaResp.ResourceSchemas["fleet_envelope"]
	if s.Version != 1 {
		t.Errorf("schema version = %d, want 1", s.Version)
	}
	v, err := resp.UpgradedState.Unmarshal(s.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs, resp.Diagnostics
}

func str(t *testing.T, v tftypes.Value) *string {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	var s string
	if err := v.As(&s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// State written for KubeFleet v0.14's ConfigMap envelope upgrades to the envelope object that
// replaces it, named in replaces_configmap: cluster-scoped objects make a ClusterResourceEnvelope, a
// namespaced one a ResourceEnvelope in the ConfigMap's namespace.
func TestEnvelopeStateUpgradeV0(t *testing.T) {
	for _, tc := range []struct {
		name          string
		manifests     []string
		wantNamespace *string
		wantKind      string
		wantID        string
	}{
		{"cluster-scoped", []string{testWebhook, testRole}, nil, "ClusterResourceEnvelope", "hub-safe"},
		{"namespaced", []string{testQuota}, ptr("web"), "ResourceEnvelope", "web/hub-safe"},
		{"mixed", []string{testRole, testQuota}, ptr("web"), "ResourceEnvelope", "web/hub-safe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs, diags := upgradeV0(t, map[string]any{
				"id": "web/hub-safe", "namespace": "web", "name": "hub-safe", "manifests": tc.manifests,
				"data_keys": []string{"manifest-000.yaml"},
			})
			if len(diags) != 0 || attrs == nil {
				t.Fatalf("diagnostics %s", describeDiags(diags))
			}
			ns := str(t, attrs["namespace"])
			if (ns == nil) != (tc.wantNamespace == nil) || (ns != nil && *ns != *tc.wantNamespace) {
				t.Errorf("namespace = %v, want %v", ns, tc.wantNamespace)
			}
			for attr, want := range map[string]string{"kind": tc.wantKind, "id": tc.wantID, "name": "hub-safe", "replaces_configmap": "web/hub-safe"} {
				if got := str(t, attrs[attr]); got == nil || *got != want {
					t.Errorf("%s = %v, want %q", attr, got, want)
				}
			}
			var manifests []tftypes.Value
			if err := attrs["manifests"].As(&manifests); err != nil || len(manifests) != len(tc.manifests) || *str(t, manifests[0]) != tc.manifests[0] {
				t.Errorf("manifests = %v, %v", manifests, err)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func describeDiags(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return strings.Join(out, "; ")
}
