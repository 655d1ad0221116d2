package member_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/member"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

const movedCluster = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks-1"

// movedMember is fleet_member's state moved from azurerm's with the given attributes after name.
func movedMember(t *testing.T, attrs string) member.FleetMemberModel {
	t.Helper()
	src := `{
  "name": "aks-1",
  "kubernetes_cluster_id": "` + movedCluster + `",
  "group": "ring2"` + attrs + `
}`
	var m member.FleetMemberModel
	if d := acctest.MoveState(t, shared.AzurermProviderAddress, member.AzurermFleetMemberType, "fleet_member", &member.MemberResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	return m
}

func TestMoveFromAzurermFleetMember(t *testing.T) {
	ctx := context.Background()
	t.Run("labels left to refresh, no timeouts block", func(t *testing.T) {
		m := movedMember(t, `,
  "id": "`+acctest.ExampleFleetID+`/members/aks-1",
  "kubernetes_fleet_id": "`+acctest.ExampleFleetID+`",
  "timeouts": null`)
		if m.ID.ValueString() != acctest.ExampleFleetID+"/members/aks-1" || m.Name.ValueString() != "aks-1" || m.FleetID.ValueString() != acctest.ExampleFleetID ||
			m.ClusterResourceID.ValueString() != movedCluster || m.Group.ValueString() != "ring2" || !m.Labels.IsNull() || !m.Timeouts.IsNull() {
			t.Errorf("moved member %+v", m)
		}
	})
	t.Run("timeouts carried over", func(t *testing.T) {
		m := movedMember(t, `,
  "id": "`+acctest.ExampleFleetID+`/members/aks-1",
  "timeouts": {"create": "45m", "read": "10m", "update": null, "delete": ""}`)
		create, d1 := m.Timeouts.Create(ctx, time.Hour)
		read, d2 := m.Timeouts.Read(ctx, time.Hour)
		del, d3 := m.Timeouts.Delete(ctx, time.Hour)
		if d1.HasError() || d2.HasError() || d3.HasError() || create != 45*time.Minute || read != 10*time.Minute || del != time.Hour {
			t.Errorf("timeouts %s: create %s, read %s, delete %s; want 45m, 10m and the default", m.Timeouts, create, read, del)
		}
	})
	t.Run("an empty timeouts block stays a block", func(t *testing.T) {
		// `timeouts {}` in azurerm's configuration, kept in the moved one: the block must not plan a change.
		m := movedMember(t, `,
  "id": "`+acctest.ExampleFleetID+`/members/aks-1",
  "timeouts": {"create": null, "read": null, "update": null, "delete": null}`)
		if m.Timeouts.IsNull() || len(m.Timeouts.Attributes()) != 4 {
			t.Fatalf("timeouts %s: want an empty block", m.Timeouts)
		}
		for op, v := range m.Timeouts.Attributes() {
			if !v.IsNull() {
				t.Errorf("timeouts.%s = %s, want null", op, v)
			}
		}
	})
	t.Run("fleet from kubernetes_fleet_manager_id when no id", func(t *testing.T) {
		m := movedMember(t, `,
  "kubernetes_fleet_manager_id": "`+acctest.ExampleFleetID+`"`)
		if m.ID.ValueString() != acctest.ExampleFleetID+"/members/aks-1" || m.FleetID.ValueString() != acctest.ExampleFleetID {
			t.Errorf("moved member id %s, fleet_id %s", m.ID, m.FleetID)
		}
	})
}
