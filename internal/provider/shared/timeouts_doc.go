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

// TimeoutDefault is an operation's default timeout, for the docs.
type TimeoutDefault struct {
	Op      string
	Default time.Duration
}

// TimeoutsBlock is timeouts.Block — `timeouts { create = "60m" }`, the form azurerm users write
// (and the form a configuration moved from azurerm already has) — with the defaults stated in its
// description, so each resource's page says how long apply waits by default.
func TimeoutsBlock(ctx context.Context, opts timeouts.Opts, defaults ...TimeoutDefault) rschema.Block {
	b, ok := timeouts.Block(ctx, opts).(rschema.SingleNestedBlock)
	if !ok {
		return timeouts.Block(ctx, opts)
	}
	parts := make([]string, 0, len(defaults))
	for _, d := range defaults {
		parts = append(parts, fmt.Sprintf("%s %s", d.Op, formatTimeout(d.Default)))
	}
	b.Description = "How long each operation may take, as Go durations (`\"90m\"`, `\"2h\"`), written as a block: " +
		"`timeouts { create = \"90m\" }`. Defaults: " + strings.Join(parts, ", ") + "."
	return b
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

// WithTimeout bounds ctx by an operation's configured timeout (timeouts.Value's Create, Read,
// Update or Delete method), def when unset. ok is false when the timeout does not parse; the
// diagnostics say why.
func WithTimeout(ctx context.Context, configured func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	timeout, d := configured(ctx, def)
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, !d.HasError()
}
