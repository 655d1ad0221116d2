package shared

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// ActionBase is ResourceBase for actions (Terraform >= 1.14).
type ActionBase struct {
	named
	Clients *session.Session
}

// Configure implements action.ActionWithConfigure.
func (a *ActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.Clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
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

// ActionTimeouts is the timeouts block every action has; its configuration model embeds it.
type ActionTimeouts struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (t *ActionTimeouts) actionTimeouts() *ActionTimeouts { return t }

// ActionModel is the pointer to an action's configuration model M, which embeds ActionTimeouts.
type ActionModel[M any] interface {
	*M
	actionTimeouts() *ActionTimeouts
}

// InvokeAction is how every action's Invoke starts: it reads the configuration into M, bounds ctx
// by timeouts.invoke (def when unset) and calls do with the invocation's Progress.
func InvokeAction[M any, P ActionModel[M]](ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse, def time.Duration,
	do func(ctx context.Context, m *M, progress Progress)) {
	var m M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := WithTimeout(ctx, P(&m).actionTimeouts().Timeouts.Invoke, def, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	do(ctx, &m, newProgress(resp))
}

// Progress sends one progress line to the CLI ("Action action.x.y: <msg>") and logs it.
type Progress func(format string, args ...any)

// newProgress is the Progress of an invocation; a line equal to the previous one is not repeated,
// so a poll loop may report its state every round.
func newProgress(resp *action.InvokeResponse) Progress {
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
