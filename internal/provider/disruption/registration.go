// Package disruption is the provider's Karpenter domain: fleet_nodepool_disruption, a NodePool's
// disruption settings with what its budgets allow now.
package disruption

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Registration is what this domain offers the provider.
var Registration = shared.Registration{
	Resources: []func() resource.Resource{
		shared.NewResource[nodePoolDisruptionResource]("_nodepool_disruption"),
	},
}
