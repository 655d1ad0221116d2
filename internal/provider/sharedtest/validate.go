package sharedtest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ConfigValidator returns what r's ValidateConfig says of a configuration
// given as its model M, as `terraform validate` runs it (offline, no
// provider configuration).
func ConfigValidator[M any](t *testing.T, r resource.ResourceWithValidateConfig) func(*testing.T, M) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	if sresp.Diagnostics.HasError() {
		t.Fatal(sresp.Diagnostics)
	}
	return func(t *testing.T, m M) diag.Diagnostics {
		t.Helper()
		plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
		if d := plan.Set(ctx, &m); d.HasError() {
			t.Fatal(d)
		}
		var resp resource.ValidateConfigResponse
		r.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: plan.Raw}}, &resp)
		return resp.Diagnostics
	}
}
