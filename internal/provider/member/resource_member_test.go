package member

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func memberSchema(t *testing.T) rschema.Schema {
	t.Helper()
	var resp resource.SchemaResponse
	(&memberResource{}).Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp.Schema
}

// labels is Optional and Computed, so labels set outside Terraform (or before a move from azurerm)
// stay when unset; timeouts has azurerm_kubernetes_fleet_member's four operations and defaults.
func TestMemberSchemaLabelsAndTimeouts(t *testing.T) {
	s := memberSchema(t)
	labels, ok := s.Attributes["labels"].(rschema.MapAttribute)
	if !ok || !labels.Optional || !labels.Computed || labels.Required {
		t.Fatalf("labels %+v: want Optional and Computed", s.Attributes["labels"])
	}
	if len(labels.PlanModifiers) != 1 || !strings.Contains(labels.Description, "`labels = {}`") {
		t.Errorf("labels: plan modifiers %v, description %q: want keptWhenUnset and how to remove them", labels.PlanModifiers, labels.Description)
	}
	b, ok := s.Blocks["timeouts"].(rschema.SingleNestedBlock)
	if !ok {
		t.Fatalf("timeouts block %T, want a single nested block (`timeouts { create = \"30m\" }`)", s.Blocks["timeouts"])
	}
	for _, op := range []string{"create", "read", "update", "delete"} {
		if _, ok := b.Attributes[op]; !ok {
			t.Errorf("timeouts has no %s", op)
		}
	}
	if want := "Defaults: create 30m, read 5m, update 30m, delete 30m."; !strings.Contains(b.Description, want) {
		t.Errorf("timeouts description %q, want %q", b.Description, want)
	}
}

// keptWhenUnset: unset labels plan at their state (also null); configured ones as configured; a
// new member's stay unknown until apply.
func TestKeptWhenUnset(t *testing.T) {
	ctx := context.Background()
	s := memberSchema(t)
	typ := s.Type().TerraformType(ctx)
	created := tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}
	existing := tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}
	if d := existing.SetAttribute(ctx, path.Root("name"), "spare-1"); d.HasError() {
		t.Fatal(d)
	}
	m := func(kv ...string) types.Map {
		vals := map[string]attr.Value{}
		for i := 0; i < len(kv); i += 2 {
			vals[kv[i]] = types.StringValue(kv[i+1])
		}
		return types.MapValueMust(types.StringType, vals)
	}
	null, unknown := types.MapNull(types.StringType), types.MapUnknown(types.StringType)
	for _, tc := range []struct {
		name                string
		state               tfsdk.State
		config, prior, want types.Map
	}{
		{"outside labels kept", existing, null, m("team", "payments"), m("team", "payments")},
		{"no labels stay none", existing, null, null, null},
		{"removed from configuration: kept", existing, null, m("ring", "2"), m("ring", "2")},
		{"configured", existing, m("ring", "3"), m("ring", "2"), m("ring", "3")},
		{"configured empty removes them", existing, m(), m("ring", "2"), m()},
		{"new member", created, null, null, unknown},
	} {
		req := planmodifier.MapRequest{ConfigValue: tc.config, StateValue: tc.prior, PlanValue: unknown, State: tc.state}
		if !tc.config.IsNull() {
			req.PlanValue = tc.config
		}
		resp := &planmodifier.MapResponse{PlanValue: req.PlanValue}
		keptWhenUnset{}.PlanModifyMap(ctx, req, resp)
		if !resp.PlanValue.Equal(tc.want) {
			t.Errorf("%s: planned %s, want %s", tc.name, resp.PlanValue, tc.want)
		}
	}
}

// memberFromAPI: what the Fleet API holds, with no labels null unless `{}` was configured or
// planned from state.
func TestMemberFromAPILabels(t *testing.T) {
	ctx := context.Background()
	null, unknown := types.MapNull(types.StringType), types.MapUnknown(types.StringType)
	empty := types.MapValueMust(types.StringType, map[string]attr.Value{})
	one := types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("payments")})
	for _, tc := range []struct {
		name  string
		model types.Map
		api   map[string]string
		want  types.Map
	}{
		{"new member without labels", unknown, nil, null},
		{"unset, none", null, nil, null},
		{"configured {}", empty, nil, empty},
		{"removed outside Terraform", one, nil, null},
		{"set outside Terraform", null, map[string]string{"team": "payments"}, one},
	} {
		m := fleetMemberModel{ClusterResourceID: types.StringValue("c"), Labels: tc.model}
		var diags diag.Diagnostics
		memberFromAPI(ctx, &m, &fleetapi.FleetMember{Properties: &fleetapi.FleetMemberProperties{ClusterResourceID: "c", Labels: tc.api}}, &diags)
		if diags.HasError() || !m.Labels.Equal(tc.want) {
			t.Errorf("%s: labels %s (%v), want %s", tc.name, m.Labels, diags, tc.want)
		}
	}
}

// The model's timeouts are what backend.FleetOp bounds each operation by: a configured create timeout
// bounds the join, an unset one is azurerm's 30 minutes.
func TestMemberTimeoutsBoundTheJoin(t *testing.T) {
	ctx := context.Background()
	attrTypes := map[string]attr.Type{"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType}
	tv := func(create attr.Value) timeouts.Value {
		return timeouts.Value{Object: types.ObjectValueMust(attrTypes, map[string]attr.Value{
			"create": create, "read": types.StringNull(), "update": types.StringNull(), "delete": types.StringNull()})}
	}
	for _, tc := range []struct {
		create attr.Value
		want   time.Duration
	}{{types.StringValue("45m"), 45 * time.Minute}, {types.StringNull(), memberTimeouts.Create}} {
		_, got := fleetMemberModel{Timeouts: tv(tc.create)}.FleetAndTimeouts()
		d, diags := got.Create(ctx, memberTimeouts.Create)
		if diags.HasError() || d != tc.want {
			t.Errorf("create = %s: %s (%v), want %s", tc.create, d, diags, tc.want)
		}
	}
	if memberTimeouts.Create != 30*time.Minute {
		t.Errorf("default create timeout %s, want azurerm's 30m", memberTimeouts.Create)
	}
}
