package backend

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// HubAPI is the hub's typed client, or false once the reason it cannot be reached is reported.
func HubAPI(ctx context.Context, c *session.Session, diags *diag.Diagnostics) (*hub.Client, bool) {
	if c == nil {
		diags.AddError("Reaching the fleet hub", "The provider is not configured.")
		return nil, false
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		AddBackendError(diags, "Reaching the fleet hub", err)
		return nil, false
	}
	return h, true
}

// PlanHubAPI is HubAPI at plan time: false without a word while the provider's configuration is
// unknown (the apply reaches the hub, the plan cannot yet), false with the reason otherwise.
func PlanHubAPI(ctx context.Context, clients *session.Session, diags *diag.Diagnostics) (*hub.Client, bool) {
	h, err := clients.HubAPI(ctx)
	if err != nil {
		if !session.IsConfigUnknown(err) {
			AddBackendError(diags, "Reaching the fleet hub", err)
		}
		return nil, false
	}
	return h, true
}
