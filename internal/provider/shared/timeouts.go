package shared

import (
	"context"
	"fmt"
	"strings"
	"time"

	atimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// OpTimeouts are a resource's default timeouts; an operation left zero has no timeout.
type OpTimeouts struct{ Create, Read, Update, Delete time.Duration }

// TimeoutsBlocks is a resource schema's Blocks: timeouts.Block — `timeouts { create = "60m" }`, the
// form azurerm users write (and the form a configuration moved from azurerm already has) — for the
// operations d gives a default, with the defaults stated in its description, so each resource's
// page says how long apply waits by default.
func TimeoutsBlocks(ctx context.Context, d OpTimeouts) map[string]rschema.Block {
	opts := timeouts.Opts{Create: d.Create > 0, Read: d.Read > 0, Update: d.Update > 0, Delete: d.Delete > 0}
	b, ok := timeouts.Block(ctx, opts).(rschema.SingleNestedBlock)
	if !ok {
		return map[string]rschema.Block{"timeouts": timeouts.Block(ctx, opts)}
	}
	var parts []string
	for _, op := range []struct {
		name string
		d    time.Duration
	}{{"create", d.Create}, {"read", d.Read}, {"update", d.Update}, {"delete", d.Delete}} {
		if op.d > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", op.name, formatTimeout(op.d)))
		}
	}
	b.Description = "How long each operation may take, as Go durations (`\"90m\"`, `\"2h\"`), written as a block: " +
		"`timeouts { create = \"90m\" }`. Defaults: " + strings.Join(parts, ", ") + "."
	return map[string]rschema.Block{"timeouts": b}
}

// ActionTimeoutsBlock is an action's `timeouts { invoke = "2h" }` block with its default stated.
func ActionTimeoutsBlock(ctx context.Context, what string, def time.Duration) aschema.Block {
	b, ok := atimeouts.Block(ctx).(aschema.SingleNestedBlock)
	if !ok {
		return atimeouts.Block(ctx)
	}
	b.Description = "How long the action may " + what + ", as a Go duration (`\"30m\"`, `\"2h\"`), written as a block: " +
		"`timeouts { invoke = \"30m\" }`. Default: invoke " + formatTimeout(def) + "."
	return b
}

func formatTimeout(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dm", d/time.Minute)
}

// TimeoutOp is one operation's configured timeout: timeouts.Value's Create, Read, Update or Delete,
// as a method expression (timeouts.Value.Create).
type TimeoutOp = func(timeouts.Value, context.Context, time.Duration) (time.Duration, diag.Diagnostics)

// Configured is op's timeout in the block t, as WithTimeout reads it.
func Configured(op TimeoutOp, t timeouts.Value) func(context.Context, time.Duration) (time.Duration, diag.Diagnostics) {
	return func(ctx context.Context, def time.Duration) (time.Duration, diag.Diagnostics) { return op(t, ctx, def) }
}

// WithTimeout bounds ctx by an operation's configured timeout (timeouts.Value's Create, Read,
// Update or Delete method), def when unset. ok is false when the timeout does not parse; the
// diagnostics say why.
func WithTimeout(ctx context.Context, configured func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	timeout, d := configured(ctx, def)
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, !d.HasError()
}
