package staged

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_staged_update_strategy's list resource.

var stagedStrategyListSchema = lschema.Schema{
	Description: "Finds the hub's staged update strategies for `terraform query` (Terraform 1.14 or later): " +
		"ClusterStagedUpdateStrategies, or with `namespace` the StagedUpdateStrategies of that namespace. Requires `list` on " +
		"`clusterstagedupdatestrategies` (or `stagedupdatestrategies`) `.placement.kubernetes-fleet.io` on the hub.",
	Attributes: map[string]lschema.Attribute{
		"namespace":   lschema.StringAttribute{Optional: true, Description: "The namespace of namespaced strategies; absent for cluster-scoped ones."},
		"name_prefix": shared.ListNamePrefixAttribute("strategies"),
	},
}

type stagedStrategyListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func listStagedStrategies(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m stagedStrategyListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	h, ok := shared.HubAPI(ctx, clients, diags)
	if !ok {
		return nil
	}
	ns := m.Namespace.ValueString()
	got, err := h.Strategies(ctx, ns)
	if err != nil {
		shared.AddListError(diags, "staged update strategies", "list on "+hub.StagedKind("strategy", ns)+" objects of placement.kubernetes-fleet.io", err)
		return nil
	}
	var out []shared.ListEntry
	for _, s := range got {
		if shared.HasPrefix(s.Name, m.NamePrefix) {
			out = append(out, shared.ListEntry{ID: hub.Key(ns, s.Name), DisplayName: hub.Key(ns, s.Name)})
		}
	}
	return out
}
