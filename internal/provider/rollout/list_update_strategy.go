package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_update_strategy's list resource.

var updateStrategyListSchema = shared.FleetListSchema("Finds the fleet's update strategies for `terraform query` (Terraform 1.14 or later). Requires "+
	"`Microsoft.ContainerService/fleets/updateStrategies/read`.", "strategies", nil)

func listUpdateStrategies(ctx context.Context, clients *session.Session, m shared.FleetListConfig, diags *diag.Diagnostics) []shared.ListEntry {
	got, fleet, ok := backend.ListFleetChildren(ctx, clients, m.FleetID, diags, (*fleetapi.Client).ListUpdateStrategies,
		"update strategies", "Microsoft.ContainerService/fleets/updateStrategies/read")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(s *fleetapi.FleetUpdateStrategy) (shared.ListEntry, bool) {
		return shared.ListEntry{ID: fleet.ChildID("updateStrategies", s.Name), DisplayName: s.Name}, shared.HasPrefix(s.Name, m.NamePrefix)
	})
}
