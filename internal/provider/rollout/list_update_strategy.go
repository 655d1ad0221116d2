package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_strategy's list resource.

var updateStrategyListSchema = lschema.Schema{
	Description: "Finds the fleet's update strategies for `terraform query` (Terraform 1.14 or later). Requires " +
		"`Microsoft.ContainerService/fleets/updateStrategies/read`.",
	Attributes: map[string]lschema.Attribute{
		"fleet_id":    listFleetIDAttribute(),
		"name_prefix": shared.ListNamePrefixAttribute("strategies"),
	},
}

type fleetChildListModel struct {
	FleetID    types.String `tfsdk:"fleet_id"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func listUpdateStrategies(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m fleetChildListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	fc, fleet, ok := shared.FleetClient(clients, m.FleetID, diags)
	if !ok {
		return nil
	}
	got, err := fc.ListUpdateStrategies(ctx, fleet)
	if err != nil {
		shared.AddListError(diags, "update strategies", "Microsoft.ContainerService/fleets/updateStrategies/read", err)
		return nil
	}
	var out []shared.ListEntry
	for _, s := range got {
		if shared.HasPrefix(s.Name, m.NamePrefix) {
			out = append(out, shared.ListEntry{ID: fleet.ChildID("updateStrategies", s.Name), DisplayName: s.Name})
		}
	}
	return out
}
