package staged

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// timed is the timeouts block of a staged resource; its model embeds it where the field stood,
// so withHubModelTimeout finds it.
type timed struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (t *timed) timeoutsBlock() timeouts.Value { return t.Timeouts }

// timedModel is the pointer to a resource's model M, which embeds timed.
type timedModel[M any] interface {
	*M
	timeoutsBlock() timeouts.Value
}

// withHubModelTimeout is backend.WithHubModel for an operation with a timeouts block: ctx, with
// which the hub is reached and do runs, is bounded by op's timeout in M's block, def when unset
// (shared.WithTimeout).
func withHubModelTimeout[M any, P timedModel[M]](ctx context.Context, clients *session.Session, src shared.ModelSource, diags *diag.Diagnostics,
	op shared.TimeoutOp, def time.Duration, do func(ctx context.Context, m *M, h *hub.Client)) {
	var m M
	if diags.Append(src.Get(ctx, &m)...); diags.HasError() {
		return
	}
	ctx, cancel, ok := shared.WithTimeout(ctx, shared.Configured(op, P(&m).timeoutsBlock()), def, diags)
	defer cancel()
	if !ok {
		return
	}
	if h, ok := backend.HubAPI(ctx, clients, diags); ok {
		do(ctx, &m, h)
	}
}
