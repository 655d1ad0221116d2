package backend

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// The reads of list resources (shared.NewListResource): what a fleet or the hub holds, and why
// it could not be listed.

// ListFleetChildren lists a fleet's children with list (a fleetapi.Client method), reporting a
// failure with addListError (what, permission).
func ListFleetChildren[T any](ctx context.Context, clients *session.Session, fleetID types.String, diags *diag.Diagnostics,
	list func(*fleetapi.Client, context.Context, fleetapi.FleetID) ([]T, error), what, permission string) ([]T, fleetapi.FleetID, bool) {
	fc, fleet, ok := FleetClient(clients, fleetID, diags)
	if !ok {
		return nil, fleet, false
	}
	got, err := list(fc, ctx, fleet)
	if err != nil {
		addListError(diags, what, permission, err)
		return nil, fleet, false
	}
	return got, fleet, true
}

// ListHubObjects lists the hub's objects in namespace ns ("": cluster-scoped) with list (a
// hub.Client method), reporting a failure with addListError (what, permission).
func ListHubObjects[T any](ctx context.Context, clients *session.Session, ns string, diags *diag.Diagnostics,
	list func(*hub.Client, context.Context, string) ([]T, error), what, permission string) ([]T, bool) {
	h, ok := HubAPI(ctx, clients, diags)
	if !ok {
		return nil, false
	}
	got, err := list(h, ctx, ns)
	if err != nil {
		addListError(diags, what, permission, err)
		return nil, false
	}
	return got, true
}

// addListError reports a listing that failed; a principal without the right to list gets one
// diagnostic naming the permission it needs.
func addListError(diags *diag.Diagnostics, what, permission string, err error) {
	if fleetapi.StatusCode(err) == http.StatusForbidden || apierrors.IsForbidden(err) {
		diags.AddError("Not allowed to list "+what,
			fmt.Sprintf("The provider's principal may not list %s: it needs %s. %v", what, permission, err))
		return
	}
	AddBackendError(diags, "Listing "+what, err)
}
