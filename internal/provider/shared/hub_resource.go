package shared

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// ResourceTimeouts is the timeouts block of a hub resource with one; its model embeds it where
// the field stood, so WithHubModelTimeout finds it.
type ResourceTimeouts struct {
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

func (t *ResourceTimeouts) resourceTimeouts() *ResourceTimeouts { return t }

// TimedModel is the pointer to a resource's model M, which embeds ResourceTimeouts.
type TimedModel[M any] interface {
	*M
	resourceTimeouts() *ResourceTimeouts
}

// WithHubModel is how the CRUD methods of the resources kept on the fleet hub start: it decodes
// their model M from src and reaches the hub, and calls do with both. Nothing more happens when
// M does not decode (the hub is not reached) or the hub cannot be reached; diags say why.
func WithHubModel[M any](ctx context.Context, clients *session.Session, src ModelSource, diags *diag.Diagnostics,
	do func(ctx context.Context, m *M, h *hub.Client)) {
	var m M
	if diags.Append(src.Get(ctx, &m)...); diags.HasError() {
		return
	}
	withHub(ctx, clients, &m, diags, do)
}

// WithHubModelTimeout is WithHubModel for an operation with a timeouts block: ctx, with which the
// hub is reached and do runs, is bounded by op's timeout in M's block, def when unset
// (WithTimeout).
func WithHubModelTimeout[M any, P TimedModel[M]](ctx context.Context, clients *session.Session, src ModelSource, diags *diag.Diagnostics,
	op TimeoutOp, def time.Duration, do func(ctx context.Context, m *M, h *hub.Client)) {
	var m M
	if diags.Append(src.Get(ctx, &m)...); diags.HasError() {
		return
	}
	ctx, cancel, ok := WithTimeout(ctx, Configured(op, P(&m).resourceTimeouts().Timeouts), def, diags)
	defer cancel()
	if !ok {
		return
	}
	withHub(ctx, clients, &m, diags, do)
}

func withHub[M any](ctx context.Context, clients *session.Session, m *M, diags *diag.Diagnostics, do func(ctx context.Context, m *M, h *hub.Client)) {
	h, ok := HubAPI(ctx, clients, diags)
	if !ok {
		return
	}
	do(ctx, m, h)
}

// ReadGoneOrFailed is Read's answer to the error of reading a hub object: a gone object leaves
// state (RemoveGone, with what and its log fields), another failure is reported by failed. It
// reports whether there was an error, that is whether Read is done.
func ReadGoneOrFailed(ctx context.Context, resp *resource.ReadResponse, err error, what string, fields map[string]any, failed func(err error)) bool {
	if err == nil {
		return false
	}
	if !RemoveGone(ctx, resp, hub.IsNotFound(err), what, fields) {
		failed(err)
	}
	return true
}

// ReadGoneOrBackendError is ReadGoneOrFailed where another failure is the backend's error,
// reported as "Reading the <what>" (AddBackendError).
func ReadGoneOrBackendError(ctx context.Context, resp *resource.ReadResponse, err error, what string, fields map[string]any) bool {
	return ReadGoneOrFailed(ctx, resp, err, what, fields, func(err error) { AddBackendError(&resp.Diagnostics, "Reading the "+what, err) })
}
