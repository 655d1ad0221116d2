package shared

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
)

// ActionBase is ResourceBase for actions (Terraform >= 1.14).
type ActionBase struct {
	named
	Clients *engine.Clients
}

// Configure implements action.ActionWithConfigure.
func (a *ActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.Clients = ClientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Metadata implements action.Action.
func (a *ActionBase) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + a.typeName
}

// NewAction is NewResource for actions.
func NewAction[T any, P interface {
	*T
	action.ActionWithConfigure
	setTypeName(string)
}](suffix string) func() action.Action {
	return func() action.Action { return withTypeName(P(new(T)), suffix) }
}

// Progress sends one progress line to the CLI ("Action action.x.y: <msg>") and logs it.
type Progress func(format string, args ...any)

// NewProgress is the Progress of an invocation; a line equal to the previous one is not repeated,
// so a poll loop may report its state every round.
func NewProgress(resp *action.InvokeResponse) Progress {
	last := ""
	return func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if msg == last || resp.SendProgress == nil {
			return
		}
		last = msg
		resp.SendProgress(action.InvokeProgressEvent{Message: msg})
	}
}

// PollEvery reads until done reports true, every interval, or fails with ctx's cause.
func PollEvery(ctx context.Context, every time.Duration, read func(context.Context) (bool, error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		done, err := read(ctx)
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// ActionWaitFor is an action's wait_for: "none" returns once the request is accepted.
func ActionWaitFor(v types.String, def string) string {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueString()
}
