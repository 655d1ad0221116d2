// Package placement is the provider's placement domain: fleet_placement (KubeFleet's
// ClusterResourcePlacement, with the scheduler's preview), fleet_resource_placement (the
// namespaced ResourcePlacement, the same implementation), fleet_envelope, fleet_managed_namespace (a
// Fleet API resource placed by a generated ClusterResourcePlacement, previewed by the same
// scheduler) and the fleet_placement_preview data source.
package placement

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	newPlacement = shared.NewResource[placementResource]("_placement")
	newEnvelope  = shared.NewResource[envelopeResource]("_envelope")
)

// Registration is what this domain offers the provider.
var Registration = shared.Registration{
	Resources: []func() resource.Resource{
		newPlacement,
		newScopedPlacement("_resource_placement", namespacedPlacementScope),
		newEnvelope,
		newOverride("_cluster_resource_override", false),
		newOverride("_resource_override", true),
		shared.NewResource[disruptionBudgetResource]("_placement_disruption_budget"),
		shared.NewResource[managedNamespaceResource]("_managed_namespace"),
	},
	DataSources: []func() datasource.DataSource{
		shared.NewDataSource[placementPreviewDataSource]("_placement_preview"),
	},
	Actions: []func() action.Action{
		shared.NewAction[placementEvictAction]("_placement_evict"),
	},
	ListResources: []func() list.ListResource{
		shared.NewListResource("_placement", newPlacement, placementListSchema, listPlacements),
		shared.NewListResource("_envelope", newEnvelope, envelopeListSchema, listEnvelopes),
	},
}
