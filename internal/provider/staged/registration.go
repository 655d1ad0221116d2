// Package staged is the provider's staged-rollout domain: fleet_staged_update_strategy and
// fleet_staged_update_run (KubeFleet's staged update runs of a placement).
package staged

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Resources are the resources the provider registers for this domain.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		shared.NewResource[stagedStrategyResource]("_staged_update_strategy"),
		shared.NewResource[stagedRunResource]("_staged_update_run"),
	}
}

// Actions are the actions the provider registers for this domain (Terraform >= 1.14).
func Actions() []func() action.Action {
	return []func() action.Action{
		shared.NewAction[stagedApproveAction]("_staged_update_run_approve"),
	}
}

// ListResources are the list resources the provider registers for this domain (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{
		shared.NewListResource("_staged_update_strategy", shared.NewResource[stagedStrategyResource]("_staged_update_strategy"), stagedStrategyListSchema, listStagedStrategies),
		shared.NewListResource("_staged_update_run", shared.NewResource[stagedRunResource]("_staged_update_run"), stagedRunListSchema, listStagedRuns),
	}
}
