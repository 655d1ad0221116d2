package member_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/member"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

func TestMoveFromAzurermFleetMember(t *testing.T) {
	cluster := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks-1"
	src := `{
  "id": "` + acctest.ExampleFleetID + `/members/aks-1",
  "name": "aks-1",
  "kubernetes_fleet_id": "` + acctest.ExampleFleetID + `",
  "kubernetes_cluster_id": "` + cluster + `",
  "group": "ring2"
}`
	var m member.FleetMemberModel
	if d := acctest.MoveState(t, shared.AzurermProviderAddress, member.AzurermFleetMemberType, "fleet_member", &member.MemberResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	if m.ID.ValueString() != acctest.ExampleFleetID+"/members/aks-1" || m.Name.ValueString() != "aks-1" || m.FleetID.ValueString() != acctest.ExampleFleetID ||
		m.ClusterResourceID.ValueString() != cluster || m.Group.ValueString() != "ring2" || !m.Labels.IsNull() {
		t.Errorf("moved member %+v", m)
	}
}
