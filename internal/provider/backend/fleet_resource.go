package backend

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleetChild is the model of a Fleet API child resource (an update run, update strategy or
// auto-upgrade profile): the fleet it belongs to and its timeouts, which every operation on it needs.
type fleetChild interface {
	FleetAndTimeouts() (fleetID types.String, t timeouts.Value)
}

// FleetOp is how each operation on a Fleet API child resource begins, written once: the model M
// read from the plan or state (from; do gets its own copy), the operation's deadline (op, with def as its default) and
// the Fleet API client with the resolved fleet. do runs under that deadline only when all of them
// succeeded; otherwise the reason is in diags.
func FleetOp[M any, P interface {
	*M
	fleetChild
}](ctx context.Context, clients *session.Session, from shared.ModelSource, op shared.TimeoutOp, def time.Duration, diags *diag.Diagnostics,
	do func(ctx context.Context, m M, fc *fleetapi.Client, fleet fleetapi.FleetID)) {
	m := new(M)
	if diags.Append(from.Get(ctx, m)...); diags.HasError() {
		return
	}
	fleetID, t := P(m).FleetAndTimeouts()
	ctx, cancel, ok := shared.WithTimeout(ctx, shared.Configured(op, t), def, diags)
	defer cancel()
	if !ok {
		return
	}
	if fc, fleet, ok := FleetClient(clients, fleetID, diags); ok {
		do(ctx, *m, fc, fleet)
	}
}
