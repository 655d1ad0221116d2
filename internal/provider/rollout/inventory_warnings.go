package rollout

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// addInventoryWarnings adds, as plan warnings, what reading the fleet's
// clusters said and no earlier resource of this plan showed (for example
// that listing was forbidden and the clusters were read one by one, at what
// cost in ARM reads).
func addInventoryWarnings(clients *session.Session, diags *diag.Diagnostics) {
	if clients == nil {
		return
	}
	for _, w := range clients.TakeInventoryWarnings() {
		diags.AddWarning("Fleet read with extra requests", w)
	}
}
