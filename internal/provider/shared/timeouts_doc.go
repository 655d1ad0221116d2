package shared

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
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
