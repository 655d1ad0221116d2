package member

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_member's list resource: the fleet's members, by name prefix, update group and labels.

var memberListSchema = shared.FleetListSchema("Finds the fleet's members for `terraform query` (Terraform 1.14 or later): each result is a `fleet_member` "+
	"identified by its ARM ID. Requires `Microsoft.ContainerService/fleets/members/read`.", "members", map[string]lschema.Attribute{
	"group":  lschema.StringAttribute{Optional: true, Description: "Only members of this update group."},
	"labels": lschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Only members with all these labels."},
})

type memberListModel struct {
	shared.FleetListConfig
	Group  types.String `tfsdk:"group"`
	Labels types.Map    `tfsdk:"labels"`
}

func listMembers(ctx context.Context, clients *session.Session, m memberListModel, diags *diag.Diagnostics) []shared.ListEntry {
	var want map[string]string
	if diags.Append(m.Labels.ElementsAs(ctx, &want, true)...); diags.HasError() {
		return nil
	}
	got, fleet, ok := backend.ListFleetChildren(ctx, clients, m.FleetID, diags, (*fleetapi.Client).ListMembers,
		"fleet members", "Microsoft.ContainerService/fleets/members/read")
	if !ok {
		return nil
	}
	return shared.ListEntries(got, func(mb *fleetapi.FleetMember) (shared.ListEntry, bool) {
		var group string
		var labels map[string]string
		if mb.Properties != nil {
			group, labels = mb.Properties.Group, mb.Properties.Labels
		}
		if !shared.HasPrefix(mb.Name, m.NamePrefix) || (!m.Group.IsNull() && group != m.Group.ValueString()) {
			return shared.ListEntry{}, false
		}
		for k, v := range want {
			if labels[k] != v {
				return shared.ListEntry{}, false
			}
		}
		return shared.ListEntry{ID: fleet.ChildID("members", mb.Name), DisplayName: mb.Name}, true
	})
}
