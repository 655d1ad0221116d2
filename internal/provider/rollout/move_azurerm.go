package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The movers of fleet_update_strategy, fleet_update_run and fleet_auto_upgrade_profile from azurerm
// (azurermMover frames them).

// The azurerm resource types each of ours accepts.
const (
	azurermUpdateStrategyType     = "azurerm_kubernetes_fleet_update_strategy"
	azurermUpdateRunType          = "azurerm_kubernetes_fleet_update_run"
	azurermAutoUpgradeProfileType = "azurerm_kubernetes_fleet_auto_upgrade_profile"
)

// azurermStage is a stage of azurerm's strategies and runs.
type azurermStage struct {
	Name                    string `json:"name"`
	AfterStageWaitInSeconds int64  `json:"after_stage_wait_in_seconds"`
	Group                   []struct {
		Name string `json:"name"`
	} `json:"group"`
}

// stagesFromAzurerm maps azurerm's `stage { name, group { name },
// after_stage_wait_in_seconds }` blocks onto our `stage` blocks (the same shape, and
// `group` keeps its name); a wait of 0 (azurerm's
// value when unset) is null. Nil for no stages.
func stagesFromAzurerm(in []azurermStage) []stageModel {
	if len(in) == 0 {
		return nil
	}
	out := make([]stageModel, 0, len(in))
	for _, s := range in {
		st := stageModel{Name: types.StringValue(s.Name), AfterStageWaitInSeconds: types.Int64Null()}
		if s.AfterStageWaitInSeconds != 0 {
			st.AfterStageWaitInSeconds = types.Int64Value(s.AfterStageWaitInSeconds)
		}
		for _, g := range s.Group {
			st.Groups = append(st.Groups, groupModel{Name: types.StringValue(g.Name)})
		}
		out = append(out, st)
	}
	return out
}

type azurermUpdateStrategy struct {
	ID                       string         `json:"id"`
	Name                     string         `json:"name"`
	KubernetesFleetManagerID string         `json:"kubernetes_fleet_manager_id"`
	Stage                    []azurermStage `json:"stage"`
}

// MoveState accepts azurerm_kubernetes_fleet_update_strategy.
func (r *updateStrategyResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.AzurermMover(azurermUpdateStrategyType, func(ctx context.Context, src azurermUpdateStrategy, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := shared.AzurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "updateStrategies")
		if diags.HasError() {
			return diags
		}
		diags.Append(shared.SetAll(ctx, st, map[string]any{
			"id": fleet.ChildID("updateStrategies", name), "fleet_id": fleet.String(), "name": name,
			"stage": stagesFromAzurerm(src.Stage), "preview": types.ObjectNull(strategyPreviewType.AttrTypes),
		})...)
		return diags
	})}
}

type azurermUpdateRun struct {
	ID                       string         `json:"id"`
	Name                     string         `json:"name"`
	KubernetesFleetManagerID string         `json:"kubernetes_fleet_manager_id"`
	FleetUpdateStrategyID    string         `json:"fleet_update_strategy_id"`
	Stage                    []azurermStage `json:"stage"`
	ManagedClusterUpdate     []struct {
		Upgrade []struct {
			Type              string `json:"type"`
			KubernetesVersion string `json:"kubernetes_version"`
		} `json:"upgrade"`
		NodeImageSelection []struct {
			Type string `json:"type"`
		} `json:"node_image_selection"`
	} `json:"managed_cluster_update"`
}

// MoveState accepts azurerm_kubernetes_fleet_update_run. azurerm never starts
// a run; `state` is NotStarted here and refresh reads the run's actual state.
// A configuration that leaves `state` at its default (Running) then plans to
// start the run: the guide says so.
func (r *updateRunResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.AzurermMover(azurermUpdateRunType, func(ctx context.Context, src azurermUpdateRun, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := shared.AzurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "updateRuns")
		if diags.HasError() {
			return diags
		}
		var mcu *mcuModel
		if len(src.ManagedClusterUpdate) > 0 && len(src.ManagedClusterUpdate[0].Upgrade) > 0 {
			u := src.ManagedClusterUpdate[0]
			mcu = &mcuModel{Upgrade: &upgradeModel{Type: types.StringValue(u.Upgrade[0].Type), KubernetesVersion: shared.StringOrNull(u.Upgrade[0].KubernetesVersion)}}
			if len(u.NodeImageSelection) > 0 && u.NodeImageSelection[0].Type != "" {
				mcu.NodeImageSelection = &nisModel{Type: types.StringValue(u.NodeImageSelection[0].Type)}
			}
		} else {
			diags.AddAttributeError(path.Root("managed_cluster_update"), "Unable to move the update run",
				"azurerm's state has no managed_cluster_update.upgrade, which the run requires.")
			return diags
		}
		stages := stagesFromAzurerm(src.Stage)
		if src.FleetUpdateStrategyID != "" {
			// The Fleet API copies the strategy's stages into the run; the
			// configuration names the strategy, as azurerm's did.
			stages = nil
		}
		diags.Append(shared.SetAll(ctx, st, map[string]any{
			"id": fleet.ChildID("updateRuns", name), "fleet_id": fleet.String(), "name": name,
			"update_strategy_id": shared.StringOrNull(src.FleetUpdateStrategyID), "stage": stages, "managed_cluster_update": mcu,
			"state": runStateNotStarted, "wait_for": shared.WaitNone,
			"preview": types.ObjectNull(runPreviewType.AttrTypes), "status": types.ObjectNull(runStatusType.AttrTypes),
		})...)
		return diags
	})}
}

type azurermAutoUpgradeProfile struct {
	ID                       string  `json:"id"`
	Name                     string  `json:"name"`
	KubernetesFleetManagerID string  `json:"kubernetes_fleet_manager_id"`
	Channel                  string  `json:"channel"`
	NodeImageSelectionType   *string `json:"node_image_selection_type"`
	UpdateStrategyID         *string `json:"update_strategy_id"`
	Enabled                  *bool   `json:"enabled"`
	// Not in azurerm's schema at the time of writing; read if a later version adds them.
	TargetKubernetesVersion *string `json:"target_kubernetes_version"`
	LongTermSupport         *bool   `json:"long_term_support_enabled"`
}

// MoveState accepts azurerm_kubernetes_fleet_auto_upgrade_profile; azurerm's
// `enabled` is our `disabled` negated.
func (r *autoUpgradeProfileResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.AzurermMover(azurermAutoUpgradeProfileType, func(ctx context.Context, src azurermAutoUpgradeProfile, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := shared.AzurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "autoUpgradeProfiles")
		if diags.HasError() {
			return diags
		}
		m := aupNullModel()
		m.ID, m.Name, m.FleetID = types.StringValue(fleet.ChildID("autoUpgradeProfiles", name)), types.StringValue(name), types.StringValue(fleet.String())
		m.Channel = shared.StringOrNull(src.Channel)
		if src.NodeImageSelectionType != nil {
			m.NodeImageSelectionType = shared.StringOrNull(*src.NodeImageSelectionType)
		}
		if src.UpdateStrategyID != nil {
			m.UpdateStrategyID = shared.StringOrNull(*src.UpdateStrategyID)
		}
		if src.TargetKubernetesVersion != nil {
			m.TargetKubernetesVersion = shared.StringOrNull(*src.TargetKubernetesVersion)
		}
		m.Disabled = types.BoolValue(src.Enabled != nil && !*src.Enabled)
		m.LongTermSupport = types.BoolValue(src.LongTermSupport != nil && *src.LongTermSupport)
		diags.Append(st.Set(ctx, m)...)
		return diags
	})}
}

var (
	_ resource.ResourceWithMoveState = (*updateStrategyResource)(nil)
	_ resource.ResourceWithMoveState = (*updateRunResource)(nil)
	_ resource.ResourceWithMoveState = (*autoUpgradeProfileResource)(nil)
)
