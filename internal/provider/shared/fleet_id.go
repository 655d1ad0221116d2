package shared

import (
	"context"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// FleetIDAttribute is fleet_id of a Fleet API resource: the provider's fleet by default.
func FleetIDAttribute(what string) rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true, Computed: true,
		Description: "The fleet's ARM resource ID. Default: the provider's fleet (`azure.resource_group_name` and `azure.fleet_name`). " +
			"Changing it replaces the " + what + ".",
		Validators: []validator.String{fleetIDValidator{}},
	}
}

// fleetIDValidator checks a fleet ID at validate: its form and the fleet name's pattern and length
// (fleets.json's fleetName parameter), rather than at plan when the fleet is resolved.
type fleetIDValidator struct{}

func (fleetIDValidator) Description(context.Context) string {
	return "must be a fleet's ARM ID whose name is 1 to 63 lower-case letters, digits and '-'"
}

func (v fleetIDValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (fleetIDValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := fleetapi.ParseFleetID(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid fleet ID", err.Error())
	}
}
