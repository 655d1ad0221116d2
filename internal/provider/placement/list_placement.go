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

// fleet_placement's list resource: the hub's ClusterResourcePlacements.

var placementListSchema = lschema.Schema{
	Description: "Finds the hub's ClusterResourcePlacements for `terraform query` (Terraform 1.14 or later). Requires `list` " +
		"on `clusterresourceplacements.placement.kubernetes-fleet.io` on the hub.",
	Attributes: map[string]lschema.Attribute{
		"name_prefix": shared.ListNamePrefixAttribute("placements"),
		"labels":      lschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Only placements with all these labels."},
	},
}

type placementListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Labels     types.Map    `tfsdk:"labels"`
}

func listPlacements(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m placementListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	var want map[string]string
	if diags.Append(m.Labels.ElementsAs(ctx, &want, true)...); diags.HasError() {
		return nil
	}
	h, ok := shared.HubAPI(ctx, clients, diags)
	if !ok {
		return nil
	}
	got, err := h.Placements(ctx, "")
	if err != nil {
		shared.AddListError(diags, "placements", "list on clusterresourceplacements.placement.kubernetes-fleet.io", err)
		return nil
	}
	var out []shared.ListEntry
	for _, p := range got {
		if shared.HasPrefix(p.Name, m.NamePrefix) && hasLabels(p.Labels, want) {
			out = append(out, shared.ListEntry{ID: p.Name, DisplayName: p.Name})
		}
	}
	return out
}

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
