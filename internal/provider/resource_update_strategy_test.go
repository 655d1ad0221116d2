package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ValidateConfig reports duplicate stages and a group in two stages at their attribute paths, offline.
func TestUpdateStrategyValidateConfig(t *testing.T) {
	ctx := context.Background()
	r := &updateStrategyResource{}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	if sresp.Diagnostics.HasError() {
		t.Fatal(sresp.Diagnostics)
	}
	validate := func(t *testing.T, stages ...stageModel) diag.Diagnostics {
		t.Helper()
		m := updateStrategyModel{ID: types.StringNull(), Name: types.StringValue("s"), FleetID: types.StringNull(), Stages: stages,
			Timeouts: nullTimeouts("create", "update", "delete"), Preview: types.ObjectNull(strategyPreviewType.AttrTypes)}
		plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
		if d := plan.Set(ctx, &m); d.HasError() {
			t.Fatal(d)
		}
		var resp fwresource.ValidateConfigResponse
		r.ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: plan.Raw}}, &resp)
		return resp.Diagnostics
	}
	unknownName := stage("b", "g1")
	unknownName.Groups[0].Name = types.StringUnknown()
	t.Run("two stages", func(t *testing.T) {
		checkOneError(t, validate(t, stage("canary", "canary"), stage("prod", "prod-east", "prod-west")), "", "")
	})
	t.Run("duplicate stage", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1"), stage("b", "g2"), stage("a", "g3")), "stages[2].name", `Stage "a" is named twice`)
	})
	t.Run("group twice in a stage", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1", "g1")), "stages[0].groups[1].name", `Group "g1" is already in stage "a"`)
	})
	t.Run("group in two stages", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1"), stage("b", "g2", "g1")), "stages[1].groups[1].name", `Group "g1" is already in stage "a"`)
	})
	t.Run("unknown group name: nothing to say yet", func(t *testing.T) { checkOneError(t, validate(t, stage("a", "g1"), unknownName), "", "") })
}
