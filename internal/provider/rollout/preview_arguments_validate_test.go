package rollout_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
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
			v, err := sharedtest.TFValue(typ, cfg)
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
			t.Fatalf("%s: the base configuration is invalid: %s", typeName, sharedtest.Describe(errs))
		}
		for name, tc := range cases {
			t.Run(typeName+"/"+name, func(t *testing.T) {
				cfg := base()
				tc.change(cfg)
				errs := validate(t, cfg)
				if len(errs) != 1 || sharedtest.HCLPath(errs[0].Attribute) != tc.at || !strings.Contains(errs[0].Detail, tc.says) {
					t.Errorf("want one error at %s saying %q, got %s", tc.at, tc.says, sharedtest.Describe(errs))
				}
			})
		}
	}
}
