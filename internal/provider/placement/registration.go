// Package placement is the provider's placement domain: fleet_placement (KubeFleet's
// ClusterResourcePlacement, with the scheduler's preview), fleet_resource_placement (the
// namespaced ResourcePlacement, the same implementation), fleet_envelope and the
// fleet_placement_preview data source.
package placement

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
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
	}
}

// DataSources are the data sources the provider registers for this domain.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		shared.NewDataSource[placementPreviewDataSource]("_placement_preview"),
	}
}
