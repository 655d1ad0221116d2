// Package staged is the provider's staged-rollout domain: fleet_staged_update_strategy and
// fleet_staged_update_run (KubeFleet's staged update runs of a placement).
package staged

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	newStagedStrategy = shared.NewResource[stagedStrategyResource]("_staged_update_strategy")
	newStagedRun      = shared.NewResource[stagedRunResource]("_staged_update_run")
)

// Registration is what this domain offers the provider.
var Registration = shared.Registration{
	Resources: []func() resource.Resource{newStagedStrategy, newStagedRun},
	Actions: []func() action.Action{
		shared.NewAction[stagedApproveAction]("_staged_update_run_approve"),
	},
	ListResources: []func() list.ListResource{
		shared.NewListResource("_staged_update_strategy", newStagedStrategy, stagedStrategyListSchema, listStagedStrategies),
		shared.NewListResource("_staged_update_run", newStagedRun, stagedRunListSchema, listStagedRuns),
	},
}
