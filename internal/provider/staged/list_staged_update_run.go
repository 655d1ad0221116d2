package staged

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_staged_update_run's list resource: by name prefix, placement and state.

var stagedRunListSchema = shared.HubListSchema("Finds the hub's staged update runs for `terraform query` (Terraform 1.14 or later): ClusterStagedUpdateRuns, "+
	"or with `namespace` the StagedUpdateRuns of that namespace. Requires `list` on `clusterstagedupdateruns` (or "+
	"`stagedupdateruns`) `.placement.kubernetes-fleet.io` on the hub.",
	"The namespace of namespaced runs; absent for cluster-scoped ones.", "runs", map[string]lschema.Attribute{
		"placement": lschema.StringAttribute{Optional: true, Description: "Only runs of this placement."},
		"state": lschema.StringAttribute{Optional: true, Description: "Only runs in this state, as `status.state` reads it " +
			"(`Initializing`, `Initialized`, `Progressing`, `Waiting`, `Stopping`, `Stopped`, `Succeeded`, `Failed`, `InitializationFailed`)."},
	})

type stagedRunListModel struct {
	shared.HubListConfig
	Placement types.String `tfsdk:"placement"`
	State     types.String `tfsdk:"state"`
}

func listStagedRuns(ctx context.Context, clients *session.Session, m stagedRunListModel, diags *diag.Diagnostics) []shared.ListEntry {
	ns := m.Namespace.ValueString()
	got, ok := backend.ListHubObjects(ctx, clients, ns, diags, (*hub.Client).Runs,
		"staged update runs", "list on "+hub.StagedKind("run", ns)+" objects of placement.kubernetes-fleet.io")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(r *placementv1.ClusterStagedUpdateRun) (shared.ListEntry, bool) {
		state, _ := staged.RunState(r)
		if !shared.HasPrefix(r.Name, m.NamePrefix) || (!m.Placement.IsNull() && r.Spec.PlacementName != m.Placement.ValueString()) ||
			(!m.State.IsNull() && string(state) != m.State.ValueString()) {
			return shared.ListEntry{}, false
		}
		return shared.ListEntry{ID: hub.Key(ns, r.Name), DisplayName: hub.Key(ns, r.Name) + " (" + string(state) + ")"}, true
	})
}
