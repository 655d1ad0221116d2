// Package rollout is the provider's Fleet Manager update domain: fleet_update_strategy,
// fleet_update_run and fleet_auto_upgrade_profile, their data sources, fleet_kubernetes_versions,
// and their moves from azurerm.
package rollout

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	newUpdateStrategy     = shared.NewResource[updateStrategyResource]("_update_strategy")
	newUpdateRun          = shared.NewResource[updateRunResource]("_update_run")
	newAutoUpgradeProfile = shared.NewResource[autoUpgradeProfileResource]("_auto_upgrade_profile")
)

// Registration is what this domain offers the provider.
var Registration = shared.Registration{
	Resources: []func() resource.Resource{newUpdateStrategy, newUpdateRun, newAutoUpgradeProfile},
	DataSources: []func() datasource.DataSource{
		shared.NewDataSource[autoUpgradeProfileDataSource]("_auto_upgrade_profile"),
		shared.NewDataSource[kubernetesVersionsDataSource]("_kubernetes_versions"),
		shared.NewDataSource[updateRunDataSource]("_update_run"),
		shared.NewDataSource[updateStrategyDataSource]("_update_strategy"),
	},
	Actions: []func() action.Action{
		shared.NewAction[updateRunStartAction]("_update_run_start"),
		shared.NewAction[updateRunStopAction]("_update_run_stop"),
		shared.NewAction[updateRunSkipAction]("_update_run_skip"),
		shared.NewAction[gateApproveAction]("_gate_approve"),
		shared.NewAction[generateRunAction]("_auto_upgrade_profile_generate_run"),
	},
	ListResources: []func() list.ListResource{
		shared.NewListResource("_update_run", newUpdateRun, updateRunListSchema, listUpdateRuns),
		shared.NewListResource("_update_strategy", newUpdateStrategy, updateStrategyListSchema, listUpdateStrategies),
		shared.NewListResource("_auto_upgrade_profile", newAutoUpgradeProfile, autoUpgradeProfileListSchema, listAutoUpgradeProfiles),
	},
}
