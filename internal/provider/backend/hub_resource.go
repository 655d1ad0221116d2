package backend

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// WithHubModel is how the CRUD methods of the resources kept on the fleet hub start: it decodes
// their model M from src and reaches the hub, and calls do with both. Nothing more happens when
// M does not decode (the hub is not reached) or the hub cannot be reached; diags say why.
func WithHubModel[M any](ctx context.Context, clients *session.Session, src shared.ModelSource, diags *diag.Diagnostics,
	do func(ctx context.Context, m *M, h *hub.Client)) {
	var m M
	if diags.Append(src.Get(ctx, &m)...); diags.HasError() {
		return
	}
	if h, ok := HubAPI(ctx, clients, diags); ok {
		do(ctx, &m, h)
	}
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
