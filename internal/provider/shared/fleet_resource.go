package shared

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// ModelSource is what an operation reads its model from: a request's plan, state or configuration.
type ModelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// TimeoutOp is one operation's configured timeout: timeouts.Value's Create, Read, Update or Delete,
// as a method expression (timeouts.Value.Create).
type TimeoutOp = func(timeouts.Value, context.Context, time.Duration) (time.Duration, diag.Diagnostics)

// Configured is op's timeout in the block t, as WithTimeout reads it.
func Configured(op TimeoutOp, t timeouts.Value) func(context.Context, time.Duration) (time.Duration, diag.Diagnostics) {
	return func(ctx context.Context, def time.Duration) (time.Duration, diag.Diagnostics) { return op(t, ctx, def) }
}

// FleetChild is the model of a Fleet API child resource (an update run, update strategy or
// auto-upgrade profile): the fleet it belongs to and its timeouts, which every operation on it needs.
type FleetChild interface {
	FleetAndTimeouts() (fleetID types.String, t timeouts.Value)
}

// FleetOp is how each operation on a Fleet API child resource begins, written once: the model M
// read from the plan or state (from; do gets its own copy), the operation's deadline (op, with def as its default) and
// the Fleet API client with the resolved fleet. do runs under that deadline only when all of them
// succeeded; otherwise the reason is in diags.
func FleetOp[M any, P interface {
	*M
	FleetChild
}](ctx context.Context, clients *session.Session, from ModelSource, op TimeoutOp, def time.Duration, diags *diag.Diagnostics,
	do func(ctx context.Context, m M, fc *fleetapi.Client, fleet fleetapi.FleetID)) {
	m := new(M)
	if diags.Append(from.Get(ctx, m)...); diags.HasError() {
		return
	}
	fleetID, t := P(m).FleetAndTimeouts()
	ctx, cancel, ok := WithTimeout(ctx, Configured(op, t), def, diags)
	defer cancel()
	if !ok {
		return
	}
	if fc, fleet, ok := FleetClient(clients, fleetID, diags); ok {
		do(ctx, *m, fc, fleet)
	}
}
