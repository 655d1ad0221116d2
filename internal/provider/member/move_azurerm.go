package member

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The mover of fleet_member from azurerm_kubernetes_fleet_member (azurermMover frames it).

// The azurerm resource types each of ours accepts.
// azurermFleetMemberType is the azurerm resource type fleet_member accepts.
const azurermFleetMemberType = "azurerm_kubernetes_fleet_member"

type azurermFleetMember struct {
	ID                  string `json:"id"`
	Name                string `json:"name"`
	KubernetesFleetID   string `json:"kubernetes_fleet_id"`
	KubernetesClusterID string `json:"kubernetes_cluster_id"`
	Group               string `json:"group"`
}

// MoveState accepts azurerm_kubernetes_fleet_member (kubernetes_fleet_id, kubernetes_cluster_id,
// group); labels, which azurerm does not manage, stay null until refresh reads them.
func (r *memberResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.AzurermMover(azurermFleetMemberType, func(ctx context.Context, src azurermFleetMember, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := shared.AzurermChild(src.ID, src.KubernetesFleetID, src.Name, "members")
		if diags.HasError() {
			return diags
		}
		m := fleetMemberModel{
			ID: types.StringValue(fleet.ChildID("members", name)), Name: types.StringValue(name), FleetID: types.StringValue(fleet.String()),
			ClusterResourceID: shared.StringOrNull(src.KubernetesClusterID), Group: shared.StringOrNull(src.Group), Labels: types.MapNull(types.StringType),
		}
		diags.Append(st.Set(ctx, m)...)
		return diags
	})}
}

var _ resource.ResourceWithMoveState = (*memberResource)(nil)
