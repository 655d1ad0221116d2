package member

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_member's list resource: the fleet's members, by name prefix, update group and labels.

var memberListSchema = lschema.Schema{
	Description: "Finds the fleet's members for `terraform query` (Terraform 1.14 or later): each result is a `fleet_member` " +
		"identified by its ARM ID. Requires `Microsoft.ContainerService/fleets/members/read`.",
	Attributes: map[string]lschema.Attribute{
		"fleet_id":    lschema.StringAttribute{Optional: true, Description: "The fleet's ARM resource ID. Default: the provider's fleet."},
		"name_prefix": shared.ListNamePrefixAttribute("members"),
		"group":       lschema.StringAttribute{Optional: true, Description: "Only members of this update group."},
		"labels":      lschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Only members with all these labels."},
	},
}

type memberListModel struct {
	FleetID    types.String `tfsdk:"fleet_id"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	Group      types.String `tfsdk:"group"`
	Labels     types.Map    `tfsdk:"labels"`
}

func listMembers(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []shared.ListEntry {
	var m memberListModel
	if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
		return nil
	}
	var want map[string]string
	if diags.Append(m.Labels.ElementsAs(ctx, &want, true)...); diags.HasError() {
		return nil
	}
	fc, fleet, ok := shared.FleetClient(clients, m.FleetID, diags)
	if !ok {
		return nil
	}
	got, err := fc.ListMembers(ctx, fleet)
	if err != nil {
		shared.AddListError(diags, "fleet members", "Microsoft.ContainerService/fleets/members/read", err)
		return nil
	}
	var out []shared.ListEntry
	for _, mb := range got {
		var group string
		var labels map[string]string
		if mb.Properties != nil {
			group, labels = mb.Properties.Group, mb.Properties.Labels
		}
		if !shared.HasPrefix(mb.Name, m.NamePrefix) || (!m.Group.IsNull() && group != m.Group.ValueString()) {
			continue
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, shared.ListEntry{ID: fleet.ChildID("members", mb.Name), DisplayName: mb.Name})
		}
	}
	return out
}
