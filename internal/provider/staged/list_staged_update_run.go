package staged

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_staged_update_run's list resource: by name prefix, placement and state.

var stagedRunListSchema = lschema.Schema{
	Description: "Finds the hub's staged update runs for `terraform query` (Terraform 1.14 or later): ClusterStagedUpdateRuns, " +
		"or with `namespace` the StagedUpdateRuns of that namespace. Requires `list` on `clusterstagedupdateruns` (or " +
		"`stagedupdateruns`) `.placement.kubernetes-fleet.io` on the hub.",
	Attributes: map[string]lschema.Attribute{
		"namespace":   lschema.StringAttribute{Optional: true, Description: "The namespace of namespaced runs; absent for cluster-scoped ones."},
		"name_prefix": shared.ListNamePrefixAttribute("runs"),
		"placement":   lschema.StringAttribute{Optional: true, Description: "Only runs of this placement."},
		"state": lschema.StringAttribute{Optional: true, Description: "Only runs in this state, as `status.state` reads it " +
			"(`Initializing`, `Initialized`, `Progressing`, `Waiting`, `Stopping`, `Stopped`, `Succeeded`, `Failed`, `InitializationFailed`)."},
	},
}

type stagedRunListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Placement  types.String `tfsdk:"placement"`
	State      types.String `tfsdk:"state"`
}

func listStagedRuns(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m stagedRunListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	h, ok := shared.HubAPI(ctx, clients, diags)
	if !ok {
		return nil
	}
	ns := m.Namespace.ValueString()
	got, err := h.Runs(ctx, ns)
	if err != nil {
		shared.AddListError(diags, "staged update runs", "list on "+hub.StagedKind("run", ns)+" objects of placement.kubernetes-fleet.io", err)
		return nil
	}
	var out []shared.ListEntry
	for i := range got {
		r := &got[i]
		state, _ := staged.RunState(r)
		if !shared.HasPrefix(r.Name, m.NamePrefix) || (!m.Placement.IsNull() && r.Spec.PlacementName != m.Placement.ValueString()) ||
			(!m.State.IsNull() && string(state) != m.State.ValueString()) {
			continue
		}
		out = append(out, shared.ListEntry{ID: hub.Key(ns, r.Name), DisplayName: hub.Key(ns, r.Name) + " (" + string(state) + ")"})
	}
	return out
}
