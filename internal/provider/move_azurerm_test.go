package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

const testFleetID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo"

// moveState drives the provider server's MoveResourceState RPC as Terraform
// does for a `moved` block from sourceType (azurerm) to targetType, with the
// source state as azurerm's typed SDK writes it, and decodes the result into
// model.
func moveState(t *testing.T, address, sourceType, targetType string, r fwresource.Resource, sourceJSON string, model any) []*tfprotov6.Diagnostic {
	t.Helper()
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: address, SourceTypeName: sourceType, SourceSchemaVersion: 0,
		SourceState: &tfprotov6.RawState{JSON: []byte(sourceJSON)}, TargetTypeName: targetType,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return resp.Diagnostics
		}
	}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	raw, err := resp.TargetState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if d := (tfsdk.State{Schema: sresp.Schema, Raw: raw}).Get(ctx, model); d.HasError() {
		t.Fatal(d)
	}
	return resp.Diagnostics
}

func TestMoveFromAzurermUpdateStrategy(t *testing.T) {
	// azurerm's state: id, timeouts and every stage attribute, 0 for an unset wait.
	src := `{
  "id": "` + testFleetID + `/updateStrategies/rings",
  "kubernetes_fleet_manager_id": "` + testFleetID + `",
  "name": "rings",
  "stage": [
    {"name": "canary", "group": [{"name": "canary"}], "after_stage_wait_in_seconds": 3600},
    {"name": "prod", "group": [{"name": "prod-east"}, {"name": "prod-west"}], "after_stage_wait_in_seconds": 0}
  ],
  "timeouts": null
}`
	var m updateStrategyModel
	if d := moveState(t, azurermProviderAddress, azurermUpdateStrategyType, "fleet_update_strategy", &updateStrategyResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	if m.ID.ValueString() != testFleetID+"/updateStrategies/rings" || m.FleetID.ValueString() != testFleetID || m.Name.ValueString() != "rings" {
		t.Errorf("id %s, fleet_id %s, name %s", m.ID, m.FleetID, m.Name)
	}
	if len(m.Stages) != 2 || m.Stages[0].Name.ValueString() != "canary" || m.Stages[0].AfterStageWaitInSeconds.ValueInt64() != 3600 ||
		!m.Stages[1].AfterStageWaitInSeconds.IsNull() || len(m.Stages[1].Groups) != 2 || m.Stages[1].Groups[1].Name.ValueString() != "prod-west" {
		t.Errorf("stages %+v", m.Stages)
	}
	if !m.Preview.IsNull() {
		t.Errorf("preview %s: want null until the configuration changes, as after an import", m.Preview)
	}
}

func TestMoveFromAzurermUpdateRun(t *testing.T) {
	t.Run("strategy, NodeImageOnly, no node image selection", func(t *testing.T) {
		src := `{
  "id": "` + testFleetID + `/updateRuns/weekly",
  "kubernetes_fleet_manager_id": "` + testFleetID + `",
  "name": "weekly",
  "fleet_update_strategy_id": "` + testFleetID + `/updateStrategies/rings",
  "managed_cluster_update": [{"upgrade": [{"type": "NodeImageOnly", "kubernetes_version": ""}], "node_image_selection": []}],
  "stage": [{"name": "copied", "group": [{"name": "g"}], "after_stage_wait_in_seconds": 0}],
  "timeouts": {"create": null, "read": null, "update": null, "delete": null}
}`
		var m updateRunModel
		if d := moveState(t, azurermProviderAddress, azurermUpdateRunType, "fleet_update_run", &updateRunResource{}, src, &m); len(d) > 0 {
			t.Fatal(d)
		}
		if m.UpdateStrategyID.ValueString() != testFleetID+"/updateStrategies/rings" || m.Stages != nil {
			t.Errorf("update_strategy_id %s, stages %+v: the strategy's stages are the API's copy, not configuration", m.UpdateStrategyID, m.Stages)
		}
		if u := m.ManagedClusterUpdate; u == nil || u.Upgrade.Type.ValueString() != "NodeImageOnly" || !u.Upgrade.KubernetesVersion.IsNull() || u.NodeImageSelection != nil {
			t.Errorf("managed_cluster_update %+v", m.ManagedClusterUpdate)
		}
		if m.State.ValueString() != runStateNotStarted || m.WaitFor.ValueString() != waitNone {
			t.Errorf("state %s, wait_for %s: azurerm never starts a run", m.State, m.WaitFor)
		}
	})
	t.Run("inline stages, Full with Consistent images", func(t *testing.T) {
		src := `{
  "id": "` + testFleetID + `/updateRuns/inline",
  "kubernetes_fleet_manager_id": "` + testFleetID + `",
  "name": "inline",
  "fleet_update_strategy_id": "",
  "managed_cluster_update": [{"upgrade": [{"type": "Full", "kubernetes_version": "1.33.1"}], "node_image_selection": [{"type": "Consistent"}]}],
  "stage": [{"name": "all", "group": [{"name": "canary"}, {"name": "prod"}], "after_stage_wait_in_seconds": 60}]
}`
		var m updateRunModel
		if d := moveState(t, azurermProviderAddress, azurermUpdateRunType, "fleet_update_run", &updateRunResource{}, src, &m); len(d) > 0 {
			t.Fatal(d)
		}
		if !m.UpdateStrategyID.IsNull() || len(m.Stages) != 1 || len(m.Stages[0].Groups) != 2 || m.Stages[0].AfterStageWaitInSeconds.ValueInt64() != 60 {
			t.Errorf("update_strategy_id %s, stages %+v", m.UpdateStrategyID, m.Stages)
		}
		u := m.ManagedClusterUpdate
		if u == nil || u.Upgrade.KubernetesVersion.ValueString() != "1.33.1" || u.NodeImageSelection == nil || u.NodeImageSelection.Type.ValueString() != "Consistent" {
			t.Errorf("managed_cluster_update %+v", u)
		}
	})
	t.Run("no managed_cluster_update", func(t *testing.T) {
		src := `{"id": "` + testFleetID + `/updateRuns/x", "name": "x", "kubernetes_fleet_manager_id": "` + testFleetID + `", "managed_cluster_update": []}`
		d := moveState(t, azurermProviderAddress, azurermUpdateRunType, "fleet_update_run", &updateRunResource{}, src, &updateRunModel{})
		if len(d) != 1 || !strings.Contains(d[0].Detail, "managed_cluster_update.upgrade") {
			t.Errorf("diagnostics %v", d)
		}
	})
}

func TestMoveFromAzurermAutoUpgradeProfile(t *testing.T) {
	for _, tc := range []struct {
		enabled      string
		wantDisabled bool
	}{{"true", false}, {"false", true}, {"null", false}} {
		src := `{
  "id": "` + testFleetID + `/autoUpgradeProfiles/stable",
  "kubernetes_fleet_manager_id": "` + testFleetID + `",
  "name": "stable",
  "channel": "Stable",
  "node_image_selection_type": "Consistent",
  "update_strategy_id": "` + testFleetID + `/updateStrategies/rings",
  "enabled": ` + tc.enabled + `
}`
		var m autoUpgradeProfileModel
		if d := moveState(t, azurermProviderAddress, azurermAutoUpgradeProfileType, "fleet_auto_upgrade_profile", &autoUpgradeProfileResource{}, src, &m); len(d) > 0 {
			t.Fatal(d)
		}
		if m.Disabled.ValueBool() != tc.wantDisabled || m.Channel.ValueString() != "Stable" || m.NodeImageSelectionType.ValueString() != "Consistent" ||
			m.UpdateStrategyID.ValueString() != testFleetID+"/updateStrategies/rings" || m.ID.ValueString() != testFleetID+"/autoUpgradeProfiles/stable" ||
			m.LongTermSupport.ValueBool() || !m.TargetKubernetesVersion.IsNull() || !m.GenerateUpdateRun.IsNull() {
			t.Errorf("enabled = %s: %+v", tc.enabled, m)
		}
	}
}

func TestMoveFromAzurermFleetMember(t *testing.T) {
	cluster := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks-1"
	src := `{
  "id": "` + testFleetID + `/members/aks-1",
  "name": "aks-1",
  "kubernetes_fleet_id": "` + testFleetID + `",
  "kubernetes_cluster_id": "` + cluster + `",
  "group": "ring2"
}`
	var m fleetMemberModel
	if d := moveState(t, azurermProviderAddress, azurermFleetMemberType, "fleet_member", &memberResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	if m.ID.ValueString() != testFleetID+"/members/aks-1" || m.Name.ValueString() != "aks-1" || m.FleetID.ValueString() != testFleetID ||
		m.ClusterResourceID.ValueString() != cluster || m.Group.ValueString() != "ring2" || !m.Labels.IsNull() {
		t.Errorf("moved member %+v", m)
	}
}

// Sources we do not move from are refused with an error, not moved wrongly.
func TestMoveFromOtherSources(t *testing.T) {
	strategy := `{"id": "` + testFleetID + `/updateStrategies/s", "name": "s", "kubernetes_fleet_manager_id": "` + testFleetID + `", "stage": []}`
	for name, tc := range map[string]struct{ address, source string }{
		"strategy into a run":         {azurermProviderAddress, azurermUpdateStrategyType},
		"another provider's namesake": {"registry.terraform.io/example/azurerm", azurermUpdateStrategyType},
	} {
		t.Run(name, func(t *testing.T) {
			target, r := "fleet_update_strategy", fwresource.Resource(&updateStrategyResource{})
			if tc.source == azurermUpdateStrategyType && tc.address == azurermProviderAddress {
				target, r = "fleet_update_run", &updateRunResource{}
			}
			d := moveState(t, tc.address, tc.source, target, r, strategy, &struct{}{})
			if len(d) == 0 || d[0].Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(d[0].Summary+d[0].Detail, "Move") {
				t.Errorf("diagnostics %+v", d)
			}
		})
	}
	t.Run("not azurerm's shape", func(t *testing.T) {
		d := moveState(t, azurermProviderAddress, azurermUpdateStrategyType, "fleet_update_strategy", &updateStrategyResource{}, `{"stage": "x"}`, &struct{}{})
		if len(d) != 1 || !strings.Contains(d[0].Detail, "not in azurerm's shape") {
			t.Errorf("diagnostics %+v", d)
		}
	})
}
