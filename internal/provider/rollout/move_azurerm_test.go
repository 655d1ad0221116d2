package rollout_test

import (
	"context"
	"strings"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

func TestMoveFromAzurermUpdateStrategy(t *testing.T) {
	// azurerm's state: id, timeouts and every stage attribute, 0 for an unset wait.
	src := `{
  "id": "` + acctest.ExampleFleetID + `/updateStrategies/rings",
  "kubernetes_fleet_manager_id": "` + acctest.ExampleFleetID + `",
  "name": "rings",
  "stage": [
    {"name": "canary", "group": [{"name": "canary"}], "after_stage_wait_in_seconds": 3600},
    {"name": "prod", "group": [{"name": "prod-east"}, {"name": "prod-west"}], "after_stage_wait_in_seconds": 0}
  ],
  "timeouts": null
}`
	var m rollout.UpdateStrategyModel
	if d := acctest.MoveState(t, shared.AzurermProviderAddress, rollout.AzurermUpdateStrategyType, "fleet_update_strategy", &rollout.UpdateStrategyResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	if m.ID.ValueString() != acctest.ExampleFleetID+"/updateStrategies/rings" || m.FleetID.ValueString() != acctest.ExampleFleetID || m.Name.ValueString() != "rings" {
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

// azurermRun is azurerm's state of the update run name of the example fleet, with the further JSON
// fields.
func azurermRun(name, fields string) string {
	return `{"id": "` + acctest.ExampleFleetID + `/updateRuns/` + name + `", "name": "` + name + `", "kubernetes_fleet_manager_id": "` + acctest.ExampleFleetID + `",` +
		fields + "\n}"
}

// movedRun is the fleet_update_run that azurerm's update run state src moves to.
func movedRun(t *testing.T, src string) rollout.UpdateRunModel {
	t.Helper()
	var m rollout.UpdateRunModel
	if d := acctest.MoveState(t, shared.AzurermProviderAddress, rollout.AzurermUpdateRunType, "fleet_update_run", &rollout.UpdateRunResource{}, src, &m); len(d) > 0 {
		t.Fatal(d)
	}
	return m
}

func TestMoveFromAzurermUpdateRun(t *testing.T) {
	t.Run("strategy, NodeImageOnly, no node image selection", func(t *testing.T) {
		src := azurermRun("weekly", `
  "fleet_update_strategy_id": "`+acctest.ExampleFleetID+`/updateStrategies/rings",
  "managed_cluster_update": [{"upgrade": [{"type": "NodeImageOnly", "kubernetes_version": ""}], "node_image_selection": []}],
  "stage": [{"name": "copied", "group": [{"name": "g"}], "after_stage_wait_in_seconds": 0}],
  "timeouts": {"create": null, "read": null, "update": null, "delete": null}`)
		m := movedRun(t, src)
		if m.UpdateStrategyID.ValueString() != acctest.ExampleFleetID+"/updateStrategies/rings" || len(m.Stages) != 0 {
			t.Errorf("update_strategy_id %s, stages %+v: the strategy's stages are the API's copy, not configuration", m.UpdateStrategyID, m.Stages)
		}
		if u := m.ManagedClusterUpdate; u == nil || u.Upgrade.Type.ValueString() != "NodeImageOnly" || !u.Upgrade.KubernetesVersion.IsNull() || u.NodeImageSelection != nil {
			t.Errorf("managed_cluster_update %+v", m.ManagedClusterUpdate)
		}
		if m.State.ValueString() != rollout.RunStateNotStarted || m.WaitFor.ValueString() != shared.WaitNone {
			t.Errorf("state %s, wait_for %s: azurerm never starts a run", m.State, m.WaitFor)
		}
	})
	t.Run("inline stages, Full with Consistent images", func(t *testing.T) {
		src := azurermRun("inline", `
  "fleet_update_strategy_id": "",
  "managed_cluster_update": [{"upgrade": [{"type": "Full", "kubernetes_version": "1.33.1"}], "node_image_selection": [{"type": "Consistent"}]}],
  "stage": [{"name": "all", "group": [{"name": "canary"}, {"name": "prod"}], "after_stage_wait_in_seconds": 60}]`)
		m := movedRun(t, src)
		if !m.UpdateStrategyID.IsNull() || len(m.Stages) != 1 || len(m.Stages[0].Groups) != 2 || m.Stages[0].AfterStageWaitInSeconds.ValueInt64() != 60 {
			t.Errorf("update_strategy_id %s, stages %+v", m.UpdateStrategyID, m.Stages)
		}
		u := m.ManagedClusterUpdate
		if u == nil || u.Upgrade.KubernetesVersion.ValueString() != "1.33.1" || u.NodeImageSelection == nil || u.NodeImageSelection.Type.ValueString() != "Consistent" {
			t.Errorf("managed_cluster_update %+v", u)
		}
	})
	t.Run("timeouts carried over, read dropped", func(t *testing.T) {
		src := azurermRun("t", `
  "managed_cluster_update": [{"upgrade": [{"type": "Full", "kubernetes_version": "1.33.1"}]}],
  "timeouts": {"create": "30m", "read": "5m", "update": null, "delete": ""}`)
		m := movedRun(t, src)
		ctx := context.Background()
		create, d1 := m.Timeouts.Create(ctx, time.Hour)
		del, d2 := m.Timeouts.Delete(ctx, time.Hour)
		if d1.HasError() || d2.HasError() || create != 30*time.Minute || del != time.Hour {
			t.Errorf("timeouts %s: create %s, delete %s; want 30m and the default", m.Timeouts, create, del)
		}
	})
	t.Run("no managed_cluster_update", func(t *testing.T) {
		d := acctest.MoveState(t, shared.AzurermProviderAddress, rollout.AzurermUpdateRunType, "fleet_update_run", &rollout.UpdateRunResource{},
			azurermRun("x", `"managed_cluster_update": []`), &rollout.UpdateRunModel{})
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
  "id": "` + acctest.ExampleFleetID + `/autoUpgradeProfiles/stable",
  "kubernetes_fleet_manager_id": "` + acctest.ExampleFleetID + `",
  "name": "stable",
  "channel": "Stable",
  "node_image_selection_type": "Consistent",
  "update_strategy_id": "` + acctest.ExampleFleetID + `/updateStrategies/rings",
  "enabled": ` + tc.enabled + `
}`
		var m rollout.AutoUpgradeProfileModel
		if d := acctest.MoveState(t, shared.AzurermProviderAddress, rollout.AzurermAutoUpgradeProfileType, "fleet_auto_upgrade_profile", &rollout.AutoUpgradeProfileResource{}, src, &m); len(d) > 0 {
			t.Fatal(d)
		}
		if m.Disabled.ValueBool() != tc.wantDisabled || m.Channel.ValueString() != "Stable" || m.NodeImageSelectionType.ValueString() != "Consistent" ||
			m.UpdateStrategyID.ValueString() != acctest.ExampleFleetID+"/updateStrategies/rings" || m.ID.ValueString() != acctest.ExampleFleetID+"/autoUpgradeProfiles/stable" ||
			m.LongTermSupport.ValueBool() || !m.TargetKubernetesVersion.IsNull() || !m.GenerateUpdateRun.IsNull() {
			t.Errorf("enabled = %s: %+v", tc.enabled, m)
		}
	}
}

// Sources we do not move from are refused with an error, not moved wrongly.
func TestMoveFromOtherSources(t *testing.T) {
	strategy := `{"id": "` + acctest.ExampleFleetID + `/updateStrategies/s", "name": "s", "kubernetes_fleet_manager_id": "` + acctest.ExampleFleetID + `", "stage": []}`
	for name, tc := range map[string]struct{ address, source string }{
		"strategy into a run":         {shared.AzurermProviderAddress, rollout.AzurermUpdateStrategyType},
		"another provider's namesake": {"registry.terraform.io/example/azurerm", rollout.AzurermUpdateStrategyType},
	} {
		t.Run(name, func(t *testing.T) {
			target, r := "fleet_update_strategy", fwresource.Resource(&rollout.UpdateStrategyResource{})
			if tc.source == rollout.AzurermUpdateStrategyType && tc.address == shared.AzurermProviderAddress {
				target, r = "fleet_update_run", &rollout.UpdateRunResource{}
			}
			d := acctest.MoveState(t, tc.address, tc.source, target, r, strategy, &struct{}{})
			if len(d) == 0 || d[0].Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(d[0].Summary+d[0].Detail, "Move") {
				t.Errorf("diagnostics %+v", d)
			}
		})
	}
	t.Run("not azurerm's shape", func(t *testing.T) {
		d := acctest.MoveState(t, shared.AzurermProviderAddress, rollout.AzurermUpdateStrategyType, "fleet_update_strategy", &rollout.UpdateStrategyResource{}, `{"stage": "x"}`, &struct{}{})
		if len(d) != 1 || !strings.Contains(d[0].Detail, "not in azurerm's shape") {
			t.Errorf("diagnostics %+v", d)
		}
	})
}
