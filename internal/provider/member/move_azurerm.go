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

// azurermFleetMember is azurerm's state of a member. Its fleet is kubernetes_fleet_id in the
// documented schema and kubernetes_fleet_manager_id in some versions' code; `id` names it first.
type azurermFleetMember struct {
	ID                       string `json:"id"`
	Name                     string `json:"name"`
	KubernetesFleetID        string `json:"kubernetes_fleet_id"`
	KubernetesFleetManagerID string `json:"kubernetes_fleet_manager_id"`
	KubernetesClusterID      string `json:"kubernetes_cluster_id"`
	Group                    string `json:"group"`
}

// MoveState accepts azurerm_kubernetes_fleet_member (kubernetes_fleet_id, kubernetes_cluster_id,
// group; the timeouts block as AzurermMover carries it). Labels, which azurerm never manages, stay
// null until refresh reads them: `labels` unset keeps them, so the first plan is empty.
func (r *memberResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.AzurermMover(azurermFleetMemberType, func(ctx context.Context, src azurermFleetMember, st *tfsdk.State) diag.Diagnostics {
		fleetID := src.KubernetesFleetID
		if fleetID == "" {
			fleetID = src.KubernetesFleetManagerID
		}
		fleet, name, diags := shared.AzurermChild(src.ID, fleetID, src.Name, "members")
		if diags.HasError() {
			return diags
		}
		diags.Append(shared.SetAll(ctx, st, map[string]any{
			"id": fleet.ChildID("members", name), "name": name, "fleet_id": fleet.String(),
			"cluster_resource_id": shared.StringOrNull(src.KubernetesClusterID), "group": shared.StringOrNull(src.Group),
			"labels": types.MapNull(types.StringType),
		})...)
		return diags
	})}
}

var _ resource.ResourceWithMoveState = (*memberResource)(nil)
