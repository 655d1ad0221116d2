package rollout

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ action.ActionWithConfigure = (*generateRunAction)(nil)

// generateRunAction is fleet_auto_upgrade_profile_generate_run: POST
// autoUpgradeProfiles/{name}/generateUpdateRun.
type generateRunAction struct{ shared.ActionBase }

func (a *generateRunAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = fleetActionSchema(ctx, "Asks an auto-upgrade profile for the update run its channel's current target implies (the Fleet API's "+
		"generateUpdateRun) and reports the run it made — created, not started: start it with `fleet_update_run_start`, or "+
		"adopt it with `terraform query` (list resource `fleet_update_run`, `auto_upgrade_profile` filter). A profile that does "+
		"not exist is refused before the request. Requires Terraform 1.14 or later.", map[string]aschema.Attribute{
		"auto_upgrade_profile": aschema.StringAttribute{Required: true, Description: "The auto-upgrade profile's name.",
			Validators: childNameValidators()},
	})
}

type generateRunModel struct {
	fleetActionConfig
	AutoUpgradeProfile types.String `tfsdk:"auto_upgrade_profile"`
}

func (a *generateRunAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	invokeFleetAction(ctx, a.Clients, req, resp, func(ctx context.Context, m *generateRunModel, fc *fleetapi.Client, fleet fleetapi.FleetID, progress shared.Progress) {
		name := m.AutoUpgradeProfile.ValueString()
		profile, err := fc.GetAutoUpgradeProfile(ctx, fleet, name)
		if err != nil {
			if fleetapi.IsNotFound(err) {
				resp.Diagnostics.AddAttributeError(path.Root("auto_upgrade_profile"), "Auto-upgrade profile not found", fmt.Sprintf("The fleet has no auto-upgrade profile %q.", name))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reading the auto-upgrade profile", err)
			return
		}
		channel := ""
		if profile.Properties != nil {
			channel = string(profile.Properties.Channel)
		}
		progress("generating the update run of auto-upgrade profile %s (channel %s)", name, channel)
		poller, err := fc.BeginGenerateUpdateRun(ctx, fleet, name)
		got, err := shared.PollDone(ctx, poller, err)
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Generating the update run", fmt.Errorf("auto-upgrade profile %q: %w", name, err))
			return
		}
		_, runName, err := fleetapi.ParseChildID(got.ID, "updateRuns")
		if err != nil {
			resp.Diagnostics.AddError("Generating the update run", fmt.Sprintf("The Fleet API answered with %q, not an update run's ID: %v", got.ID, err))
			return
		}
		run, err := fc.GetUpdateRun(ctx, fleet, runName)
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Reading the generated update run", err)
			return
		}
		target := ""
		if run.Properties != nil && run.Properties.ManagedClusterUpdate != nil {
			u := run.Properties.ManagedClusterUpdate.Upgrade
			target = joinNonEmpty(" ", string(u.Type), u.KubernetesVersion)
		}
		progress("generated update run %s (%s, %s): %s", runName, target, runState(run), got.ID)
	})
}
