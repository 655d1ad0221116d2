package rollout

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_run's list resource: the fleet's update runs, those auto-upgrade profiles
// generated included, by name prefix, state and profile.

func listFleetIDAttribute() lschema.StringAttribute {
	return lschema.StringAttribute{Optional: true, Description: "The fleet's ARM resource ID. Default: the provider's fleet."}
}

var updateRunListSchema = lschema.Schema{
	Description: "Finds the fleet's update runs, those auto-upgrade profiles generated included, for `terraform query` " +
		"(Terraform 1.14 or later): each result is a `fleet_update_run` identified by its ARM ID. Requires " +
		"`Microsoft.ContainerService/fleets/updateRuns/read`.",
	Attributes: map[string]lschema.Attribute{
		"fleet_id":    listFleetIDAttribute(),
		"name_prefix": shared.ListNamePrefixAttribute("runs"),
		"state": lschema.StringAttribute{Optional: true, Description: "Only runs in this state (`NotStarted`, `Running`, `Stopping`, `Stopped`, `Skipped`, `Failed`, `Completed`).",
			Validators: []validator.String{stringvalidator.OneOf("NotStarted", "Running", "Stopping", "Stopped", "Skipped", "Failed", "Completed")}},
		"auto_upgrade_profile": lschema.StringAttribute{Optional: true, Description: "Only runs this auto-upgrade profile (its name) generated."},
	},
}

type updateRunListModel struct {
	FleetID            types.String `tfsdk:"fleet_id"`
	NamePrefix         types.String `tfsdk:"name_prefix"`
	State              types.String `tfsdk:"state"`
	AutoUpgradeProfile types.String `tfsdk:"auto_upgrade_profile"`
}

func listUpdateRuns(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m updateRunListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	fc, fleet, ok := shared.FleetClient(clients, m.FleetID, diags)
	if !ok {
		return nil
	}
	runs, err := fc.ListUpdateRuns(ctx, fleet)
	if err != nil {
		shared.AddListError(diags, "update runs", "Microsoft.ContainerService/fleets/updateRuns/read", err)
		return nil
	}
	var out []shared.ListEntry
	for _, r := range runs {
		if !shared.HasPrefix(r.Name, m.NamePrefix) || (!m.State.IsNull() && string(runState(&r)) != m.State.ValueString()) {
			continue
		}
		if !m.AutoUpgradeProfile.IsNull() && (r.Properties == nil || r.Properties.AutoUpgradeProfileID != fleet.ChildID("autoUpgradeProfiles", m.AutoUpgradeProfile.ValueString())) {
			continue
		}
		out = append(out, shared.ListEntry{ID: fleet.ChildID("updateRuns", r.Name), DisplayName: r.Name + " (" + string(runState(&r)) + ")"})
	}
	slices.SortFunc(out, func(a, b shared.ListEntry) int { return strings.Compare(a.ID, b.ID) })
	return out
}
