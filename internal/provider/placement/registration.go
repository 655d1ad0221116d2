// Package placement is the provider's placement domain: fleet_placement (KubeFleet's
// ClusterResourcePlacement, with the scheduler's preview), fleet_resource_placement (the
// namespaced ResourcePlacement, the same implementation), fleet_envelope and the
// fleet_placement_preview data source.
package placement

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
		shared.NewResource[placementResource]("_placement"),
		newScopedPlacement("_resource_placement", namespacedPlacementScope),
		shared.NewResource[envelopeResource]("_envelope"),
		newOverride("_cluster_resource_override", false),
		newOverride("_resource_override", true),
		shared.NewResource[disruptionBudgetResource]("_placement_disruption_budget"),
	}
}

// DataSources are the data sources the provider registers for this domain.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		shared.NewDataSource[placementPreviewDataSource]("_placement_preview"),
	}
}

// Actions are the actions the provider registers for this domain (Terraform >= 1.14).
func Actions() []func() action.Action {
	return []func() action.Action{
		shared.NewAction[placementEvictAction]("_placement_evict"),
	}
}

// ListResources are the list resources the provider registers for this domain (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{
		shared.NewListResource("_placement", shared.NewResource[placementResource]("_placement"), placementListSchema, listPlacements),
		shared.NewListResource("_envelope", shared.NewResource[envelopeResource]("_envelope"), envelopeListSchema, listEnvelopes),
	}
}
