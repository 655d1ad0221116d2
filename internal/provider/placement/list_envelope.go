package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_envelope's list resource: ClusterResourceEnvelopes, or the ResourceEnvelopes of a namespace.

var envelopeListSchema = shared.HubListSchema("Finds the hub's envelopes for `terraform query` (Terraform 1.14 or later): ClusterResourceEnvelopes, or with "+
	"`namespace` the ResourceEnvelopes of that namespace. Requires `list` on `clusterresourceenvelopes` (or "+
	"`resourceenvelopes`) `.placement.kubernetes-fleet.io` on the hub.",
	"The namespace of ResourceEnvelopes; absent for ClusterResourceEnvelopes.", "envelopes", nil)

func listEnvelopes(ctx context.Context, clients *session.Session, m shared.HubListConfig, diags *diag.Diagnostics) []shared.ListEntry {
	ns := m.Namespace.ValueString()
	names, ok := backend.ListHubObjects(ctx, clients, ns, diags, (*hub.Client).EnvelopeNames,
		"envelopes", "list on clusterresourceenvelopes / resourceenvelopes.placement.kubernetes-fleet.io")
	if !ok {
		return nil
	}
	return shared.ListEntries(names, func(n *string) (shared.ListEntry, bool) {
		return shared.ListEntry{ID: envelopeID(ns, *n), DisplayName: envelopeID(ns, *n)}, shared.HasPrefix(*n, m.NamePrefix)
	})
}
