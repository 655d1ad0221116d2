package member_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// The domain's nested arguments are blocks (issue 35): fleet_member_cluster_taints' taint blocks
// (at least one), data.fleet_facts' staged_run blocks.
func TestMemberBlocks(t *testing.T) {
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	block := func(s *tfprotov6.Schema, name string) *tfprotov6.SchemaNestedBlock {
		for _, b := range s.Block.BlockTypes {
			if b.TypeName == name {
				return b
			}
		}
		for _, a := range s.Block.Attributes {
			if a.Name == name {
				t.Errorf("%s is an attribute, want a block", name)
			}
		}
		return nil
	}
	taints := schemas.ResourceSchemas["fleet_member_cluster_taints"]
	if b := block(taints, "taint"); b == nil || b.Nesting != tfprotov6.SchemaNestedBlockNestingModeList {
		t.Errorf("taint: %+v, want a list block", b)
	}
	if s := schemas.ResourceSchemas["fleet_member_cluster_taints"]; s.Version != 0 {
		t.Errorf("fleet_member_cluster_taints version %d: its stored state (a list of taint objects) did not change", s.Version)
	}
	facts := schemas.DataSourceSchemas["fleet_facts"]
	if b := block(facts, "staged_run"); b == nil || b.Nesting != tfprotov6.SchemaNestedBlockNestingModeList {
		t.Errorf("staged_run: %+v, want a list block", b)
	}

	// No taint block: an error at taint, as a missing Required argument was.
	typ := taints.ValueType()
	objType := typ.(tftypes.Object).AttributeTypes["taint"].(tftypes.List).ElementType
	cfg := func(taints ...tftypes.Value) *tfprotov6.DynamicValue {
		vals := map[string]tftypes.Value{}
		for name, at := range typ.(tftypes.Object).AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		vals["member_cluster"] = tftypes.NewValue(tftypes.String, "prod-west-1")
		vals["taint"] = tftypes.NewValue(tftypes.List{ElementType: objType}, taints)
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	taint := func(key string) tftypes.Value {
		return tftypes.NewValue(objType, map[string]tftypes.Value{
			"key": tftypes.NewValue(tftypes.String, key), "value": tftypes.NewValue(tftypes.String, nil), "effect": tftypes.NewValue(tftypes.String, "NoSchedule"),
		})
	}
	for name, tc := range map[string]struct {
		config *tfprotov6.DynamicValue
		want   string
	}{
		"no taint block": {cfg(), "Block taint must have a configuration value"},
		"two taints":     {cfg(taint("a"), taint("b")), ""},
		"duplicate":      {cfg(taint("a"), taint("a")), "taint[1] repeats taint[0]"},
	} {
		resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "fleet_member_cluster_taints", Config: tc.config})
		if err != nil {
			t.Fatal(err)
		}
		var errs []string
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				errs = append(errs, d.Detail)
			}
		}
		got := strings.Join(errs, "\n")
		if tc.want == "" && got != "" || tc.want != "" && (len(errs) != 1 || !strings.Contains(got, tc.want)) {
			t.Errorf("%s: errors %q, want %q", name, got, tc.want)
		}
	}
}
