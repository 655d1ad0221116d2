package rollout_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// The preview API's arguments through the provider's protocol server, as `terraform validate`
// runs it (offline, the provider unconfigured): every bad value fails with its attribute path,
// schema validators and ValidateConfig alike, on the strategy and on a run's inline stages.
func TestPreviewArgumentsValidate(t *testing.T) {
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	stages := func() []any {
		return []any{
			map[string]any{"name": "canary", "max_allowed_failures": "1", "member_selector": map[string]any{"by_label": "ring=canary"},
				"before_gate": []any{map[string]any{"type": "ScheduledStart",
					"scheduled_start": map[string]any{"start_day": "Friday", "start_time": "18:00", "utc_offset": "-05:00"}}}},
			map[string]any{"name": "prod", "group": []any{
				map[string]any{"name": "east", "max_allowed_failures": "25%", "member_selector": map[string]any{"by_label": "region in (east,eastus2)"}},
				map[string]any{"name": "west"}}},
		}
	}
	bases := map[string]func() map[string]any{
		"fleet_update_strategy": func() map[string]any { return map[string]any{"name": "s", "stage": stages()} },
		"fleet_update_run": func() map[string]any {
			return map[string]any{"name": "r", "stage": stages(), "accepted_failures": 1,
				"managed_cluster_update": map[string]any{"upgrade": map[string]any{"type": "NodeImageOnly"}}}
		},
	}
	stage := func(i int, set map[string]any) func(map[string]any) {
		return func(c map[string]any) {
			for k, v := range set {
				c["stage"].([]any)[i].(map[string]any)[k] = v
			}
		}
	}
	group := func(set map[string]any) func(map[string]any) {
		return func(c map[string]any) {
			for k, v := range set {
				c["stage"].([]any)[1].(map[string]any)["group"].([]any)[0].(map[string]any)[k] = v
			}
		}
	}
	gate := func(set map[string]any) func(map[string]any) {
		return func(c map[string]any) {
			g := c["stage"].([]any)[0].(map[string]any)["before_gate"].([]any)[0].(map[string]any)
			for k, v := range set {
				g["scheduled_start"].(map[string]any)[k] = v
			}
		}
	}
	cases := map[string]struct {
		change   func(map[string]any)
		at, says string
	}{
		"101%":                      {stage(0, map[string]any{"max_allowed_failures": "101%"}), "stage[0].max_allowed_failures", `"101%" must be a count`},
		"-1":                        {group(map[string]any{"max_allowed_failures": "-1"}), "stage[1].group[0].max_allowed_failures", `"-1" must be a count`},
		"past int32":                {stage(0, map[string]any{"max_allowed_failures": "2147483648"}), "stage[0].max_allowed_failures", "is larger than 2147483647"},
		"513-character selector":    {group(map[string]any{"member_selector": map[string]any{"by_label": "k=v" + strings.Repeat(",k=v", 127) + "vv"}}), "stage[1].group[0].member_selector.by_label", "string length must be at most 512"},
		"unparsable selector":       {stage(0, map[string]any{"member_selector": map[string]any{"by_label": "region in (east"}}), "stage[0].member_selector.by_label", "is not a Kubernetes label selector"},
		"selector without by_label": {stage(0, map[string]any{"member_selector": map[string]any{}}), "stage[0].member_selector", `by_label" must be specified`},
		"ScheduledStart as after-gate": {stage(1, map[string]any{"after_gate": []any{map[string]any{"type": "ScheduledStart",
			"scheduled_start": map[string]any{"start_day": "Friday", "start_time": "18:00", "utc_offset": "-05:00"}}}}), "stage[1].after_gate[0].type", "works only as a before-gate"},
		"bad utc_offset":    {gate(map[string]any{"utc_offset": "+14:30"}), "stage[0].before_gate[0].scheduled_start.utc_offset", "must be a UTC offset"},
		"bad start_time":    {gate(map[string]any{"start_time": "24:00"}), "stage[0].before_gate[0].scheduled_start.start_time", "must be a 24-hour time"},
		"bad start_day":     {gate(map[string]any{"start_day": "Fri"}), "stage[0].before_gate[0].scheduled_start.start_day", "value must be one of"},
		"unknown gate type": {stage(1, map[string]any{"before_gate": []any{map[string]any{"type": "Timer"}}}), "stage[1].before_gate[0].type", "value must be one of"},
		"stage of nothing":  {stage(0, map[string]any{"member_selector": nil}), "stage[0].group", "needs at least one group block, or a member_selector"},
	}
	for typeName, base := range bases {
		typ := schemas.ResourceSchemas[typeName].ValueType()
		validate := func(t *testing.T, cfg map[string]any) []*tfprotov6.Diagnostic {
			t.Helper()
			v, err := tfValue(typ, cfg)
			if err != nil {
				t.Fatal(err)
			}
			dv, err := tfprotov6.NewDynamicValue(typ, v)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &dv})
			if err != nil {
				t.Fatal(err)
			}
			var errs []*tfprotov6.Diagnostic
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d)
				}
			}
			return errs
		}
		if errs := validate(t, base()); len(errs) != 0 {
			t.Fatalf("%s: the base configuration is invalid: %s", typeName, describe(errs))
		}
		for name, tc := range cases {
			t.Run(typeName+"/"+name, func(t *testing.T) {
				cfg := base()
				tc.change(cfg)
				errs := validate(t, cfg)
				if len(errs) != 1 || hcl(errs[0].Attribute) != tc.at || !strings.Contains(errs[0].Detail, tc.says) {
					t.Errorf("want one error at %s saying %q, got %s", tc.at, tc.says, describe(errs))
				}
			})
		}
	}
}

func describe(ds []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s: %s: %s", hcl(d.Attribute), d.Summary, d.Detail))
	}
	return fmt.Sprintf("%q", out)
}

// hcl is an attribute path as a configuration spells it: a.b[0]["key"] (copied from
// internal/provider/placement's managed_namespace_validate_test.go: domains share no test code).
func hcl(p *tftypes.AttributePath) string {
	if p == nil {
		return "(resource)"
	}
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", s)
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		}
	}
	return b.String()
}

// tfValue builds a value of type t from nested maps, slices and scalars; absent is null (as hcl's source).
func tfValue(t tftypes.Type, v any) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(t, nil), nil
	}
	switch tt := t.(type) {
	case tftypes.Object:
		m, _ := v.(map[string]any)
		vals := map[string]tftypes.Value{}
		for k := range m {
			if _, ok := tt.AttributeTypes[k]; !ok {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", k)
			}
		}
		for k, at := range tt.AttributeTypes {
			x, err := tfValue(at, m[k])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.List:
		l, _ := v.([]any)
		var vals []tftypes.Value
		for _, e := range l {
			x, err := tfValue(tt.ElementType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals = append(vals, x)
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.Map:
		m, _ := v.(map[string]any)
		vals := map[string]tftypes.Value{}
		for k, e := range m {
			x, err := tfValue(tt.ElementType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	}
	if n, ok := v.(int); ok {
		return tftypes.NewValue(t, big.NewFloat(float64(n))), nil
	}
	return tftypes.NewValue(t, v), nil
}
