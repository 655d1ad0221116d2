package backend

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// RemoveGone is Read's answer to an object that no longer exists (gone: the
// client's IsNotFound of the read's error): the resource leaves state, so the
// next plan creates it again, and the log says so. It reports whether it did.
func RemoveGone(ctx context.Context, resp *resource.ReadResponse, gone bool, what string, fields map[string]any) bool {
	if !gone {
		return false
	}
	tflog.Warn(ctx, what+" gone; removing it from state", fields)
	resp.State.RemoveResource(ctx)
	return true
}

// ReadFleetChild is Read's GET of a fleet's child (what: "update run") with get, a fleetapi.Client
// method: a gone child leaves state (RemoveGone, logFields), any other failure is an error, and ok
// comes only with the child.
func ReadFleetChild[T any](ctx context.Context, clients *session.Session, resp *resource.ReadResponse, fleetID types.String, name string,
	get func(*fleetapi.Client, context.Context, fleetapi.FleetID, string) (*T, error), what string, logFields map[string]any) (*T, fleetapi.FleetID, bool) {
	fc, fleet, ok := FleetClient(clients, fleetID, &resp.Diagnostics)
	if !ok {
		return nil, fleet, false
	}
	got, err := get(fc, ctx, fleet, name)
	if err != nil {
		if !RemoveGone(ctx, resp, fleetapi.IsNotFound(err), what, logFields) {
			resp.Diagnostics.AddError("Reading the "+what, err.Error())
		}
		return nil, fleet, false
	}
	return got, fleet, true
}
