// Package disruption is the provider's Karpenter domain: fleet_nodepool_disruption, a NodePool's
// disruption settings with what its budgets allow now.
package disruption

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Resources are the resources the provider registers for this domain.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		shared.NewResource[nodePoolDisruptionResource]("_nodepool_disruption"),
	}
}
