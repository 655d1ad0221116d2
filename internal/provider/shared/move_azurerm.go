package shared

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Moving state from azurerm (Terraform >= 1.8 `moved` blocks across resource
// types): Terraform hands the target provider the source resource's state as
// JSON, in the schema of the azurerm version that wrote it. The shapes below
// are azurerm's (internal/services/containers/kubernetes_fleet_*_resource.go,
// typed SDK resources: every attribute in state, "" / 0 / [] for unset
// optionals); unknown attributes are ignored, so newer azurerm versions that
// add attributes still move. Refresh then reads the object from the Fleet API,
// as after an import.

// AzurermProviderAddress is the source provider a move is accepted from.
const AzurermProviderAddress = "registry.terraform.io/hashicorp/azurerm"

// AzurermMover is a StateMover for sourceType that decodes azurerm's JSON
// state into src and hands it to move; other sources are left to the
// framework, which reports that no mover took them.
func AzurermMover[T any](sourceType string, move func(ctx context.Context, src T, st *tfsdk.State) diag.Diagnostics) resource.StateMover {
	return resource.StateMover{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if req.SourceTypeName != sourceType || !strings.EqualFold(req.SourceProviderAddress, AzurermProviderAddress) {
			return
		}
		if req.SourceRawState == nil || req.SourceRawState.JSON == nil {
			resp.Diagnostics.AddError("Unable to move "+sourceType, "Terraform sent no JSON state for the source resource.")
			return
		}
		var src T
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			resp.Diagnostics.AddError("Unable to move "+sourceType,
				fmt.Sprintf("The source state is not in azurerm's shape for %s: %v", sourceType, err))
			return
		}
		resp.Diagnostics.Append(move(ctx, src, &resp.TargetState)...)
		if !resp.Diagnostics.HasError() {
			resp.Diagnostics.Append(moveAzurermTimeouts(ctx, req.SourceRawState.JSON, &resp.TargetState)...)
		}
	}}
}

// moveAzurermTimeouts carries azurerm's `timeouts` block over, key by key where ours has the key
// (azurerm's runs have `read`, ours not), and as an empty block where azurerm's was empty: a
// configuration moved with its `timeouts { … }` or `timeouts {}` block then plans no change
// (TestAccMoveFromAzurerm). A resource without a timeouts block ignores azurerm's.
func moveAzurermTimeouts(ctx context.Context, raw []byte, st *tfsdk.State) diag.Diagnostics {
	var src struct {
		Timeouts map[string]*string `json:"timeouts"`
	}
	if err := json.Unmarshal(raw, &src); err != nil || src.Timeouts == nil {
		return nil // no block in azurerm's state (or the resource's own decoding has accepted it)
	}
	t, d := st.Schema.TypeAtPath(ctx, path.Root("timeouts"))
	ot, ok := t.(interface {
		basetypes.ObjectTypable
		AttributeTypes() map[string]attr.Type
	})
	if d.HasError() || !ok {
		return nil
	}
	attrTypes := ot.AttributeTypes()
	vals := make(map[string]attr.Value, len(attrTypes))
	for k := range attrTypes {
		vals[k] = types.StringNull()
		if v := src.Timeouts[k]; v != nil && *v != "" {
			vals[k] = types.StringValue(*v)
		}
	}
	obj, diags := types.ObjectValue(attrTypes, vals)
	if diags.HasError() {
		return diags
	}
	v, d := ot.ValueFromObject(ctx, obj)
	diags.Append(d...)
	if !diags.HasError() {
		diags.Append(st.SetAttribute(ctx, path.Root("timeouts"), v)...)
	}
	return diags
}

// AzurermChild resolves the fleet and name of a moved child resource from
// azurerm's `id`, or else from `kubernetes_fleet_manager_id` and `name`.
func AzurermChild(id, fleetID, name, childType string) (fleetapi.FleetID, string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if id != "" {
		f, n, err := fleetapi.ParseChildID(id, childType)
		if err != nil {
			diags.AddAttributeError(path.Root("id"), "Unable to move the resource", "azurerm's id: "+err.Error())
		}
		return f, n, diags
	}
	f, err := fleetapi.ParseFleetID(fleetID)
	if err != nil {
		diags.AddAttributeError(path.Root("fleet_id"), "Unable to move the resource", "azurerm's kubernetes_fleet_manager_id: "+err.Error())
	}
	return f, name, diags
}

// SetAll sets the named top-level attributes of a moved state.
func SetAll(ctx context.Context, st *tfsdk.State, attrs map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	for name, v := range attrs {
		diags.Append(st.SetAttribute(ctx, path.Root(name), v)...)
	}
	return diags
}
