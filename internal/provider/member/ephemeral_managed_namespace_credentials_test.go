package member_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// fleet_managed_namespace_credentials refuses at validate what the Fleet API's path parameters
// refuse (fleets.json managedNamespaceName: 1–63 characters, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`;
// a member's name: 1–50, the same pattern), naming the attribute.
func TestManagedNamespaceCredentialsValidate(t *testing.T) {
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.EphemeralResourceSchemas["fleet_managed_namespace_credentials"].ValueType()
	cfg := func(ns, member any) *tfprotov6.DynamicValue {
		vals := map[string]tftypes.Value{}
		for name, at := range typ.(tftypes.Object).AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		vals["managed_namespace"] = tftypes.NewValue(tftypes.String, ns)
		vals["member"] = tftypes.NewValue(tftypes.String, member)
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	for name, tc := range map[string]struct {
		config *tfprotov6.DynamicValue
		want   string // the attribute the one error names; "" for none
	}{
		"hub":             {cfg("team-a", nil), ""},
		"member":          {cfg(strings.Repeat("a", 63), "prod-east-1"), ""},
		"upper case":      {cfg("Team_A", nil), "managed_namespace"},
		"leading dash":    {cfg("-team", nil), "managed_namespace"},
		"64 characters":   {cfg(strings.Repeat("a", 64), nil), "managed_namespace"},
		"member pattern":  {cfg("team-a", "Prod_East"), "member"},
		"member too long": {cfg("team-a", strings.Repeat("m", 51)), "member"},
	} {
		resp, err := srv.ValidateEphemeralResourceConfig(ctx, &tfprotov6.ValidateEphemeralResourceConfigRequest{TypeName: "fleet_managed_namespace_credentials", Config: tc.config})
		if err != nil {
			t.Fatal(err)
		}
		var at []string
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				at = append(at, d.Attribute.String())
			}
		}
		if tc.want == "" && len(at) != 0 || tc.want != "" && (len(at) != 1 || !strings.Contains(at[0], tc.want)) {
			t.Errorf("%s: errors at %q, want one at %q", name, at, tc.want)
		}
	}
}
