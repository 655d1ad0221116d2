package disruption_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// A version-0 state (nested attributes: `budgets = [...]`, `field_manager = {...}`) upgrades, through
// the provider server's UpgradeResourceState as Terraform calls it, to the blocks' state: `budgets`
// becomes `budget`, everything else stays as it was (field_manager keeps its name and shape).
func TestNodePoolDisruptionUpgradeFromAttributes(t *testing.T) {
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemaResp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := schemaResp.ResourceSchemas["fleet_nodepool_disruption"]
	if s.Version != 1 {
		t.Errorf("schema version = %d, want 1", s.Version)
	}
	v0 := `{"id":"canary-east/default","cluster":"canary-east","node_pool":"default",
		"consolidation_policy":"WhenEmpty","consolidate_after":"30s","expire_after":null,"termination_grace_period":null,
		"budgets":[{"nodes":"1","schedule":"@daily","duration":"8h","reasons":["Drifted"]},{"nodes":"10%","schedule":null,"duration":null,"reasons":null}],
		"do_not_disrupt":true,"field_manager":{"name":"platform-team","force_conflicts":null},"facts":null,"preview":null,"timeouts":null}`
	for name, tc := range map[string]struct{ in, wantBudget string }{
		"budgets":      {v0, `[{"nodes":"1","schedule":"@daily","duration":"8h","reasons":["Drifted"]},{"nodes":"10%","schedule":null,"duration":null,"reasons":null}]`},
		"budgets null": {`{"id":"c/p","cluster":"c","node_pool":"p","budgets":null,"field_manager":null}`, `null`},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
				TypeName: "fleet_nodepool_disruption", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(tc.in)}})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
			}
			if resp.UpgradedState == nil {
				t.Fatal("no upgraded state")
			}
			v, err := resp.UpgradedState.Unmarshal(s.ValueType())
			if err != nil {
				t.Fatal(err)
			}
			// As JSON: the same attributes, budgets under budget.
			var attrs map[string]any
			got, _ := json.Marshal(tfJSON(t, v))
			_ = json.Unmarshal(got, &attrs)
			if _, ok := attrs["budgets"]; ok {
				t.Errorf("budgets is still in the state: %s", got)
			}
			var want any
			_ = json.Unmarshal([]byte(tc.wantBudget), &want)
			if want == nil && reflect.DeepEqual(attrs["budget"], []any{}) {
				want = []any{} // no budget block: Terraform's own form of an absent list block
			}
			if !reflect.DeepEqual(attrs["budget"], want) {
				t.Errorf("budget = %v, want %s", attrs["budget"], tc.wantBudget)
			}
			var in map[string]any
			_ = json.Unmarshal([]byte(tc.in), &in)
			for k, w := range in {
				if k != "budgets" && !reflect.DeepEqual(attrs[k], w) {
					t.Errorf("%s = %v, want %v (unchanged)", k, attrs[k], w)
				}
			}
		})
	}
}

// tfJSON is v as encoding/json would decode its JSON (null attributes included).
func tfJSON(t *testing.T, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.Object{}) || typ.Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for k, e := range m {
			out[k] = tfJSON(t, e)
		}
		return out
	case typ.Is(tftypes.List{}) || typ.Is(tftypes.Set{}) || typ.Is(tftypes.Tuple{}):
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			t.Fatal(err)
		}
		out := []any{}
		for _, e := range l {
			out = append(out, tfJSON(t, e))
		}
		return out
	case typ.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case typ.Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case typ.Is(tftypes.Number):
		var f float64
		_ = v.As(&f)
		return f
	}
	t.Fatalf("unexpected type %s", typ)
	return nil
}
