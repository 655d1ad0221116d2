package staged

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_staged_update_strategy's list resource.

var stagedStrategyListSchema = shared.HubListSchema("Finds the hub's staged update strategies for `terraform query` (Terraform 1.14 or later): "+
	"ClusterStagedUpdateStrategies, or with `namespace` the StagedUpdateStrategies of that namespace. Requires `list` on "+
	"`clusterstagedupdatestrategies` (or `stagedupdatestrategies`) `.placement.kubernetes-fleet.io` on the hub.",
	"The namespace of namespaced strategies; absent for cluster-scoped ones.", "strategies", nil)

func listStagedStrategies(ctx context.Context, clients *session.Session, m shared.HubListConfig, diags *diag.Diagnostics) []shared.ListEntry {
	ns := m.Namespace.ValueString()
	got, ok := backend.ListHubObjects(ctx, clients, ns, diags, (*hub.Client).Strategies,
		"staged update strategies", "list on "+hub.StagedKind("strategy", ns)+" objects of placement.kubernetes-fleet.io")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(s *placementv1.ClusterStagedUpdateStrategy) (shared.ListEntry, bool) {
		return shared.ListEntry{ID: hub.Key(ns, s.Name), DisplayName: hub.Key(ns, s.Name)}, shared.HasPrefix(s.Name, m.NamePrefix)
	})
}
