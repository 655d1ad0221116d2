package backend

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// InvokeHubAction is shared.InvokeAction for an action on the hub's objects: do gets the hub's client.
func InvokeHubAction[M any, P shared.ActionModel[M]](ctx context.Context, clients *session.Session, req action.InvokeRequest, resp *action.InvokeResponse,
	def time.Duration, do func(ctx context.Context, m *M, h *hub.Client, progress shared.Progress)) {
	shared.InvokeAction[M, P](ctx, req, resp, def, func(ctx context.Context, m *M, progress shared.Progress) {
		h, ok := HubAPI(ctx, clients, &resp.Diagnostics)
		if !ok {
			return
		}
		do(ctx, m, h, progress)
	})
}
