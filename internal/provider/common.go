package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// clientsFromProviderData is the Configure step every resource and data
// source shares: the provider hands over *engine.Clients, or nil before the
// provider is configured (validate).
func clientsFromProviderData(data any, diags *diag.Diagnostics) *engine.Clients {
	if data == nil {
		return nil
	}
	c, ok := data.(*engine.Clients)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *engine.Clients, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return c
}

// addBackendError reports an engine error; a missing backend names the
// provider block to configure.
func addBackendError(diags *diag.Diagnostics, summary string, err error) {
	if engine.IsNotConfigured(err) {
		diags.AddError("Provider backend not configured", err.Error())
		return
	}
	diags.AddError(summary, err.Error())
}

// timeString formats times the way every preview and status does: RFC 3339 in UTC.
func timeString(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// objectType is the object type of a nested attribute, for building its
// values; a schema that is not an object is a programming error.
func objectType(t attr.Type, what string) types.ObjectType {
	o, ok := t.(types.ObjectType)
	if !ok {
		panic(what + " is not an object attribute")
	}
	return o
}

// hubAPI is the hub's typed client, or false once the reason it cannot be reached is reported.
func hubAPI(ctx context.Context, c *engine.Clients, diags *diag.Diagnostics) (*hub.Client, bool) {
	if c == nil {
		diags.AddError("Reaching the fleet hub", "The provider is not configured.")
		return nil, false
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		addBackendError(diags, "Reaching the fleet hub", err)
		return nil, false
	}
	return h, true
}
