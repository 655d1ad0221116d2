package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_envelope's list resource: ClusterResourceEnvelopes, or the ResourceEnvelopes of a namespace.

var envelopeListSchema = lschema.Schema{
	Description: "Finds the hub's envelopes for `terraform query` (Terraform 1.14 or later): ClusterResourceEnvelopes, or with " +
		"`namespace` the ResourceEnvelopes of that namespace. Requires `list` on `clusterresourceenvelopes` (or " +
		"`resourceenvelopes`) `.placement.kubernetes-fleet.io` on the hub.",
	Attributes: map[string]lschema.Attribute{
		"namespace":   lschema.StringAttribute{Optional: true, Description: "The namespace of ResourceEnvelopes; absent for ClusterResourceEnvelopes."},
		"name_prefix": shared.ListNamePrefixAttribute("envelopes"),
	},
}

type envelopeListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func listEnvelopes(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m envelopeListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	h, ok := shared.HubAPI(ctx, clients, diags)
	if !ok {
		return nil
	}
	ns := m.Namespace.ValueString()
	names, err := h.EnvelopeNames(ctx, ns)
	if err != nil {
		shared.AddListError(diags, "envelopes", "list on clusterresourceenvelopes / resourceenvelopes.placement.kubernetes-fleet.io", err)
		return nil
	}
	var out []shared.ListEntry
	for _, n := range names {
		if shared.HasPrefix(n, m.NamePrefix) {
			out = append(out, shared.ListEntry{ID: envelopeID(ns, n), DisplayName: envelopeID(ns, n)})
		}
	}
	return out
}
