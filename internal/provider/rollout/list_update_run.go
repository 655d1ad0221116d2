package rollout

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_run's list resource: the fleet's update runs, those auto-upgrade profiles
// generated included, by name prefix, state and profile.

var updateRunListSchema = shared.FleetListSchema("Finds the fleet's update runs, those auto-upgrade profiles generated included, for `terraform query` "+
	"(Terraform 1.14 or later): each result is a `fleet_update_run` identified by its ARM ID. Requires "+
	"`Microsoft.ContainerService/fleets/updateRuns/read`.", "runs", map[string]lschema.Attribute{
	"state": lschema.StringAttribute{Optional: true, Description: "Only runs in this state (`NotStarted`, `Running`, `Stopping`, `Stopped`, `Skipped`, `Failed`, `Completed`).",
		Validators: []validator.String{stringvalidator.OneOf("NotStarted", "Running", "Stopping", "Stopped", "Skipped", "Failed", "Completed")}},
	"auto_upgrade_profile": lschema.StringAttribute{Optional: true, Description: "Only runs this auto-upgrade profile (its name) generated."},
})

type updateRunListModel struct {
	shared.FleetListConfig
	State              types.String `tfsdk:"state"`
	AutoUpgradeProfile types.String `tfsdk:"auto_upgrade_profile"`
}

func listUpdateRuns(ctx context.Context, clients *session.Session, m updateRunListModel, diags *diag.Diagnostics) []shared.ListEntry {
	runs, fleet, ok := backend.ListFleetChildren(ctx, clients, m.FleetID, diags, (*fleetapi.Client).ListUpdateRuns,
		"update runs", "Microsoft.ContainerService/fleets/updateRuns/read")
	if !ok {
		return nil
	}
	out := shared.ListEntries(runs, func(r *fleetapi.UpdateRun) (shared.ListEntry, bool) {
		if !shared.HasPrefix(r.Name, m.NamePrefix) || (!m.State.IsNull() && string(runState(r)) != m.State.ValueString()) {
			return shared.ListEntry{}, false
		}
		if !m.AutoUpgradeProfile.IsNull() && (r.Properties == nil || r.Properties.AutoUpgradeProfileID != fleet.ChildID("autoUpgradeProfiles", m.AutoUpgradeProfile.ValueString())) {
			return shared.ListEntry{}, false
		}
		return shared.ListEntry{ID: fleet.ChildID("updateRuns", r.Name), DisplayName: r.Name + " (" + string(runState(r)) + ")"}, true
	})
	slices.SortFunc(out, func(a, b shared.ListEntry) int { return strings.Compare(a.ID, b.ID) })
	return out
}
