package shared

import (
	"context"
	"regexp"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// childNameRe is fleets.json's name pattern of update runs and strategies.
var childNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ChildNameValidators check the name of an update run, strategy or stage (fleets.json's pattern and length).
func ChildNameValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, 50),
		stringvalidator.RegexMatches(childNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit"),
	}
}

// lroFrequency is how often a long-running operation is polled when the
// service sends no Retry-After (the Fleet API, and the emulator, send one).
const lroFrequency = 2 * time.Second

// PollDone waits for a long-running operation begun with err; the poll interval is the
// service's Retry-After, else lroFrequency.
func PollDone[T any](ctx context.Context, p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: lroFrequency})
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// ResolveFleet resolves fleet_id (null: the provider's default fleet). A provider
// configuration known only after apply is a warning, not an error: at plan
// the caller leaves fleet_id and the preview unknown (at apply it is known).
func ResolveFleet(clients *session.Session, fleetID types.String, diags *diag.Diagnostics) (fleetapi.FleetID, bool) {
	f, err := clients.ResolveFleet(fleetID.ValueString())
	if err != nil {
		if session.IsConfigUnknown(err) {
			// Planned, not an error: fleet_id and the preview stay unknown until apply knows the fleet.
			AddPreviewUnknownWarning(diags, path.Root("preview"), err.Error())
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

// FleetIDAttribute is fleet_id of a Fleet API resource: the provider's fleet by default.
func FleetIDAttribute(what string) rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true, Computed: true,
		Description: "The fleet's ARM resource ID. Default: the provider's fleet (`azure.resource_group_name` and `azure.fleet_name`). " +
			"Changing it replaces the " + what + ".",
		Validators: []validator.String{fleetIDValidator{}},
	}
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

// AddInventoryWarnings adds, as plan warnings, what reading the fleet's
// clusters said and no earlier resource of this plan showed (for example
// that listing was forbidden and the clusters were read one by one, at what
// cost in ARM reads).
func AddInventoryWarnings(clients *session.Session, diags *diag.Diagnostics) {
	if clients == nil {
		return
	}
	for _, w := range clients.TakeInventoryWarnings() {
		diags.AddWarning("Fleet read with extra requests", w)
	}
}
