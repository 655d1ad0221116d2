package shared

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TimeoutDefault is an operation's default timeout, for the docs.
type TimeoutDefault struct {
	Op      string
	Default time.Duration
}

// TimeoutsAttribute is timeouts.Attributes with the defaults stated in its
// description, so each resource's page says how long apply waits by default.
func TimeoutsAttribute(ctx context.Context, opts timeouts.Opts, defaults ...TimeoutDefault) rschema.Attribute {
	a, ok := timeouts.Attributes(ctx, opts).(rschema.SingleNestedAttribute)
	if !ok {
		return timeouts.Attributes(ctx, opts)
	}
	parts := make([]string, 0, len(defaults))
	for _, d := range defaults {
		parts = append(parts, fmt.Sprintf("%s %s", d.Op, formatTimeout(d.Default)))
	}
	a.Description = "How long each operation may take, as Go durations (`\"90m\"`, `\"2h\"`). Defaults: " + strings.Join(parts, ", ") + "."
	return a
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
