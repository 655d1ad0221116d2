package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_auto_upgrade_profile's list resource.

var autoUpgradeProfileListSchema = shared.FleetListSchema("Finds the fleet's auto-upgrade profiles for `terraform query` (Terraform 1.14 or later). Requires "+
	"`Microsoft.ContainerService/fleets/autoUpgradeProfiles/read`.", "profiles", map[string]lschema.Attribute{
	"channel": lschema.StringAttribute{Optional: true, Description: "Only profiles of this channel (`Stable`, `Rapid`, `NodeImage`, `TargetKubernetesVersion`)."},
})

type autoUpgradeProfileListModel struct {
	shared.FleetListConfig
	Channel types.String `tfsdk:"channel"`
}

func listAutoUpgradeProfiles(ctx context.Context, clients *session.Session, m autoUpgradeProfileListModel, diags *diag.Diagnostics) []shared.ListEntry {
	got, fleet, ok := backend.ListFleetChildren(ctx, clients, m.FleetID, diags, (*fleetapi.Client).ListAutoUpgradeProfiles,
		"auto-upgrade profiles", "Microsoft.ContainerService/fleets/autoUpgradeProfiles/read")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(p *fleetapi.AutoUpgradeProfile) (shared.ListEntry, bool) {
		keep := shared.HasPrefix(p.Name, m.NamePrefix) && (m.Channel.IsNull() || (p.Properties != nil && string(p.Properties.Channel) == m.Channel.ValueString()))
		return shared.ListEntry{ID: fleet.ChildID("autoUpgradeProfiles", p.Name), DisplayName: p.Name}, keep
	})
}
