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

// Resources are the resources the provider registers for this domain.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		shared.NewResource[updateStrategyResource]("_update_strategy"),
		shared.NewResource[updateRunResource]("_update_run"),
		shared.NewResource[autoUpgradeProfileResource]("_auto_upgrade_profile"),
	}
}

// DataSources are the data sources the provider registers for this domain.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		shared.NewDataSource[autoUpgradeProfileDataSource]("_auto_upgrade_profile"),
		shared.NewDataSource[kubernetesVersionsDataSource]("_kubernetes_versions"),
		shared.NewDataSource[updateRunDataSource]("_update_run"),
		shared.NewDataSource[updateStrategyDataSource]("_update_strategy"),
	}
}

// Actions are the actions the provider registers for this domain (Terraform >= 1.14).
func Actions() []func() action.Action {
	return []func() action.Action{
		shared.NewAction[updateRunStartAction]("_update_run_start"),
		shared.NewAction[updateRunStopAction]("_update_run_stop"),
		shared.NewAction[updateRunSkipAction]("_update_run_skip"),
		shared.NewAction[gateApproveAction]("_gate_approve"),
		shared.NewAction[generateRunAction]("_auto_upgrade_profile_generate_run"),
	}
}

// ListResources are the list resources the provider registers for this domain (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{
		shared.NewListResource("_update_run", shared.NewResource[updateRunResource]("_update_run"), updateRunListSchema, listUpdateRuns),
		shared.NewListResource("_update_strategy", shared.NewResource[updateStrategyResource]("_update_strategy"), updateStrategyListSchema, listUpdateStrategies),
		shared.NewListResource("_auto_upgrade_profile", shared.NewResource[autoUpgradeProfileResource]("_auto_upgrade_profile"), autoUpgradeProfileListSchema, listAutoUpgradeProfiles),
	}
}
