package preview

import (
	"sync"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// Placements planned in this provider process, by the clients that planned them and the
// placement's key ("name" or "namespace/name"): the clusters their preview selects. Terraform plans
// a resource after those its configuration refers to, so an override of a placement planned in the
// same configuration finds it here even before the placement is on the hub.
var plannedPlacements sync.Map // plannedKey -> []string

type plannedKey struct {
	clients *session.Session
	key     string
}

// RecordPlannedPlacement records the clusters the planned preview of placement key selects.
func RecordPlannedPlacement(c *session.Session, key string, clusters []string) {
	plannedPlacements.Store(plannedKey{c, key}, append([]string(nil), clusters...))
}

// PlannedPlacement is the selection recorded for placement key, if it was planned in this process.
func PlannedPlacement(c *session.Session, key string) ([]string, bool) {
	v, ok := plannedPlacements.Load(plannedKey{c, key})
	if !ok {
		return nil, false
	}
	clusters, _ := v.([]string)
	return clusters, true
}
