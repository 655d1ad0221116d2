package placement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// fleet_managed_namespace's validation through the provider's protocol server, as `terraform
// validate` runs it (offline): every bad input fails with its attribute path, the schema's
// validators and ValidateConfig's checks alike.
func TestManagedNamespaceValidate(t *testing.T) {
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.ResourceSchemas["fleet_managed_namespace"].ValueType()
	base := func() map[string]any {
		return map[string]any{
			"fleet_id": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f",
			"name":     "team-a", "location": "eastus",
			"labels":         map[string]any{"team": "a"},
			"annotations":    map[string]any{"example.com/contact": "a@example.com"},
			"resource_quota": map[string]any{"cpu_request": "2", "memory_limit": "8Gi"},
			"network_policy": map[string]any{"ingress": "DenyAll", "egress": "AllowSameNamespace"},
			"placement": map[string]any{"placement_type": "PickAll",
				"required_cluster_selector": []any{map[string]any{"labels": map[string]any{"env": "prod"}}},
				"toleration":                []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}}},
		}
	}
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
		resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "fleet_managed_namespace", Config: &dv})
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
		t.Fatalf("the base configuration is invalid: %s", sharedtest.Describe(errs))
	}
	placement := func(set map[string]any) func(map[string]any) {
		return func(c map[string]any) {
			p, _ := c["placement"].(map[string]any)
			for k, v := range set {
				p[k] = v
			}
		}
	}
	for name, tc := range map[string]struct {
		change   func(map[string]any)
		at, says string
	}{
		"PickN":               {placement(map[string]any{"placement_type": "PickN"}), "placement.placement_type", "value must be one of"},
		"quota abc":           {func(c map[string]any) { c["resource_quota"] = map[string]any{"cpu_request": "abc"} }, "resource_quota.cpu_request", "is not a Kubernetes quantity"},
		"negative quota":      {func(c map[string]any) { c["resource_quota"] = map[string]any{"memory_limit": "-1Gi"} }, "resource_quota.memory_limit", "must be greater than or equal to 0"},
		"empty quota":         {func(c map[string]any) { c["resource_quota"] = map[string]any{} }, "resource_quota", "sets no limit"},
		"ingress Deny":        {func(c map[string]any) { c["network_policy"] = map[string]any{"ingress": "Deny"} }, "network_policy.ingress", "value must be one of"},
		"empty network":       {func(c map[string]any) { c["network_policy"] = map[string]any{} }, "network_policy", "sets no rule"},
		"64-character name":   {func(c map[string]any) { c["name"] = strings.Repeat("a", 64) }, "name", "string length must be between 1 and 63"},
		"name with uppercase": {func(c map[string]any) { c["name"] = "Team-A" }, "name", "must be lower-case letters"},
		"reserved name":       {func(c map[string]any) { c["name"] = "kube-team" }, "name", "which the fleet reserves for itself"},
		"Exists with a value": {placement(map[string]any{"toleration": []any{map[string]any{"key": "spot", "operator": "Exists", "value": "true"}}}),
			`placement.toleration[0].value`, "toleration value needs to be empty, when operator is Exists"},
		"cluster_names with PickAll": {placement(map[string]any{"required_cluster_selector": nil, "cluster_names": []any{"prod-east-1"}}),
			"placement.cluster_names", "cluster names needs to be empty for policy type PickAll"},
		"PickFixed without names": {placement(map[string]any{"placement_type": "PickFixed", "required_cluster_selector": nil, "toleration": nil}),
			"placement.cluster_names", "required with placement_type PickFixed"},
		"PickFixed with a selector": {placement(map[string]any{"placement_type": "PickFixed", "cluster_names": []any{"a"}, "toleration": nil}),
			"placement.required_cluster_selector", "affinity must be nil for policy type PickFixed"},
		"reserved label": {func(c map[string]any) { c["labels"] = map[string]any{"kubernetes.azure.com/managedByArm": "true"} },
			`labels["kubernetes.azure.com/managedByArm"]`, "Fleet Manager sets the label"},
		"bad label key":   {func(c map[string]any) { c["labels"] = map[string]any{"team a": "x"} }, `labels["team a"]`, "name part must consist of"},
		"bad label value": {func(c map[string]any) { c["labels"] = map[string]any{"team": "a b"} }, `labels["team"]`, "a valid label must be"},
		"bad annotation":  {func(c map[string]any) { c["annotations"] = map[string]any{"-x/y/z": "1"} }, `annotations["-x/y/z"]`, "a valid label key must consist of"},
		"bad fleet":       {func(c map[string]any) { c["fleet_id"] = "fleet-1" }, "fleet_id", ""},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base()
			tc.change(cfg)
			errs := validate(t, cfg)
			if len(errs) != 1 || sharedtest.HCLPath(errs[0].Attribute) != tc.at || !strings.Contains(errs[0].Detail, tc.says) {
				t.Errorf("want one error at %s saying %q, got %s", tc.at, tc.says, sharedtest.Describe(errs))
			}
		})
	}
}
