package backend

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// ResolveFleet resolves fleet_id (null: the provider's default fleet). A provider
// configuration known only after apply is a warning, not an error: at plan
// the caller leaves fleet_id and the preview unknown (at apply it is known).
func ResolveFleet(clients *session.Session, fleetID types.String, diags *diag.Diagnostics) (fleetapi.FleetID, bool) {
	f, err := clients.ResolveFleet(fleetID.ValueString())
	if err != nil {
		if session.IsConfigUnknown(err) {
			// Planned, not an error: fleet_id and the preview stay unknown until apply knows the fleet.
			shared.AddPreviewUnknownWarning(diags, path.Root("preview"), err.Error())
			return fleetapi.FleetID{}, false
		}
		if session.IsNotConfigured(err) {
			AddBackendError(diags, "No fleet", err)
		} else {
			diags.AddAttributeError(path.Root("fleet_id"), "Invalid fleet ID", err.Error())
		}
		return fleetapi.FleetID{}, false
	}
	return f, true
}

// FleetClient resolves fleet_id (the provider's fleet when null) and the Fleet API client.
func FleetClient(clients *session.Session, fleetID types.String, diags *diag.Diagnostics) (*fleetapi.Client, fleetapi.FleetID, bool) {
	if clients == nil {
		diags.AddError("Provider not configured", "The fleet provider was not configured. Please report this issue to the provider developers.")
		return nil, fleetapi.FleetID{}, false
	}
	fleet, ok := ResolveFleet(clients, fleetID, diags)
	if !ok {
		return nil, fleet, false
	}
	fc, err := clients.Fleet()
	if err != nil {
		AddBackendError(diags, "Reaching the Fleet API", err)
		return nil, fleetapi.FleetID{}, false
	}
	return fc, fleet, true
}
