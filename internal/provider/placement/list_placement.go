package placement

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
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

func listPlacements(ctx context.Context, clients *session.Session, m placementListModel, diags *diag.Diagnostics) []shared.ListEntry {
	var want map[string]string
	if diags.Append(m.Labels.ElementsAs(ctx, &want, true)...); diags.HasError() {
		return nil
	}
	got, ok := backend.ListHubObjects(ctx, clients, "", diags, (*hub.Client).Placements,
		"placements", "list on clusterresourceplacements.placement.kubernetes-fleet.io")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(p *placementv1.ClusterResourcePlacement) (shared.ListEntry, bool) {
		return shared.ListEntry{ID: p.Name, DisplayName: p.Name}, shared.HasPrefix(p.Name, m.NamePrefix) && hasLabels(p.Labels, want)
	})
}

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
