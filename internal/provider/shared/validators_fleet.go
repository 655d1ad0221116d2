package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

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
