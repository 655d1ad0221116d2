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

// fleet_auto_upgrade_profile's list resource.

var autoUpgradeProfileListSchema = lschema.Schema{
	Description: "Finds the fleet's auto-upgrade profiles for `terraform query` (Terraform 1.14 or later). Requires " +
		"`Microsoft.ContainerService/fleets/autoUpgradeProfiles/read`.",
	Attributes: map[string]lschema.Attribute{
		"fleet_id":    listFleetIDAttribute(),
		"name_prefix": shared.ListNamePrefixAttribute("profiles"),
		"channel":     lschema.StringAttribute{Optional: true, Description: "Only profiles of this channel (`Stable`, `Rapid`, `NodeImage`, `TargetKubernetesVersion`)."},
	},
}

type autoUpgradeProfileListModel struct {
	FleetID    types.String `tfsdk:"fleet_id"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Channel    types.String `tfsdk:"channel"`
}

func listAutoUpgradeProfiles(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m autoUpgradeProfileListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	fc, fleet, ok := shared.FleetClient(clients, m.FleetID, diags)
	if !ok {
		return nil
	}
	got, err := fc.ListAutoUpgradeProfiles(ctx, fleet)
	if err != nil {
		shared.AddListError(diags, "auto-upgrade profiles", "Microsoft.ContainerService/fleets/autoUpgradeProfiles/read", err)
		return nil
	}
	var out []shared.ListEntry
	for _, p := range got {
		if !shared.HasPrefix(p.Name, m.NamePrefix) || (!m.Channel.IsNull() && (p.Properties == nil || string(p.Properties.Channel) != m.Channel.ValueString())) {
			continue
		}
		out = append(out, shared.ListEntry{ID: fleet.ChildID("autoUpgradeProfiles", p.Name), DisplayName: p.Name})
	}
	return out
}
