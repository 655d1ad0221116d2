package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Moving state from azurerm (Terraform >= 1.8 `moved` blocks across resource
// types): Terraform hands the target provider the source resource's state as
// JSON, in the schema of the azurerm version that wrote it. The shapes below
// are azurerm's (internal/services/containers/kubernetes_fleet_*_resource.go,
// typed SDK resources: every attribute in state, "" / 0 / [] for unset
// optionals); unknown attributes are ignored, so newer azurerm versions that
// add attributes still move. Refresh then reads the object from the Fleet API,
// as after an import.

// azurermProviderAddress is the source provider a move is accepted from.
const azurermProviderAddress = "registry.terraform.io/hashicorp/azurerm"

// The azurerm resource types each of ours accepts.
const (
	azurermUpdateStrategyType     = "azurerm_kubernetes_fleet_update_strategy"
	azurermUpdateRunType          = "azurerm_kubernetes_fleet_update_run"
	azurermAutoUpgradeProfileType = "azurerm_kubernetes_fleet_auto_upgrade_profile"
	azurermFleetMemberType        = "azurerm_kubernetes_fleet_member"
)

// azurermMover is a StateMover for sourceType that decodes azurerm's JSON
// state into src and hands it to move; other sources are left to the
// framework, which reports that no mover took them.
func azurermMover[T any](sourceType string, move func(ctx context.Context, src T, st *tfsdk.State) diag.Diagnostics) resource.StateMover {
	return resource.StateMover{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if req.SourceTypeName != sourceType || !strings.EqualFold(req.SourceProviderAddress, azurermProviderAddress) {
			return
		}
		if req.SourceRawState == nil || req.SourceRawState.JSON == nil {
			resp.Diagnostics.AddError("Unable to move "+sourceType, "Terraform sent no JSON state for the source resource.")
			return
		}
		var src T
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			resp.Diagnostics.AddError("Unable to move "+sourceType,
				fmt.Sprintf("The source state is not in azurerm's shape for %s: %v", sourceType, err))
			return
		}
		resp.Diagnostics.Append(move(ctx, src, &resp.TargetState)...)
	}}
}

// azurermStage is a stage of azurerm's strategies and runs.
type azurermStage struct {
	Name                    string `json:"name"`
	AfterStageWaitInSeconds int64  `json:"after_stage_wait_in_seconds"`
	Group                   []struct {
		Name string `json:"name"`
	} `json:"group"`
}

// stagesFromAzurerm maps azurerm's `stage { name, group { name },
// after_stage_wait_in_seconds }` blocks onto `stages`; a wait of 0 (azurerm's
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

// azurermChild resolves the fleet and name of a moved child resource from
// azurerm's `id`, or else from `kubernetes_fleet_manager_id` and `name`.
func azurermChild(id, fleetID, name, childType string) (fleetapi.FleetID, string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if id != "" {
		f, n, err := fleetapi.ParseChildID(id, childType)
		if err != nil {
			diags.AddAttributeError(path.Root("id"), "Unable to move the resource", "azurerm's id: "+err.Error())
		}
		return f, n, diags
	}
	f, err := fleetapi.ParseFleetID(fleetID)
	if err != nil {
		diags.AddAttributeError(path.Root("fleet_id"), "Unable to move the resource", "azurerm's kubernetes_fleet_manager_id: "+err.Error())
	}
	return f, name, diags
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func setAll(ctx context.Context, st *tfsdk.State, attrs map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	for name, v := range attrs {
		diags.Append(st.SetAttribute(ctx, path.Root(name), v)...)
	}
	return diags
}

// --- fleet_update_strategy <- azurerm_kubernetes_fleet_update_strategy

type azurermUpdateStrategy struct {
	ID                       string         `json:"id"`
	Name                     string         `json:"name"`
	KubernetesFleetManagerID string         `json:"kubernetes_fleet_manager_id"`
	Stage                    []azurermStage `json:"stage"`
}

// MoveState accepts azurerm_kubernetes_fleet_update_strategy.
func (r *updateStrategyResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{azurermMover(azurermUpdateStrategyType, func(ctx context.Context, src azurermUpdateStrategy, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := azurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "updateStrategies")
		if diags.HasError() {
			return diags
		}
		diags.Append(setAll(ctx, st, map[string]any{
			"id": fleet.ChildID("updateStrategies", name), "fleet_id": fleet.String(), "name": name,
			"stages": stagesFromAzurerm(src.Stage), "preview": types.ObjectNull(strategyPreviewType.AttrTypes),
		})...)
		return diags
	})}
}

// --- fleet_update_run <- azurerm_kubernetes_fleet_update_run

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
	return []resource.StateMover{azurermMover(azurermUpdateRunType, func(ctx context.Context, src azurermUpdateRun, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := azurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "updateRuns")
		if diags.HasError() {
			return diags
		}
		var mcu *mcuModel
		if len(src.ManagedClusterUpdate) > 0 && len(src.ManagedClusterUpdate[0].Upgrade) > 0 {
			u := src.ManagedClusterUpdate[0]
			mcu = &mcuModel{Upgrade: upgradeModel{Type: types.StringValue(u.Upgrade[0].Type), KubernetesVersion: stringOrNull(u.Upgrade[0].KubernetesVersion)}}
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
		diags.Append(setAll(ctx, st, map[string]any{
			"id": fleet.ChildID("updateRuns", name), "fleet_id": fleet.String(), "name": name,
			"update_strategy_id": stringOrNull(src.FleetUpdateStrategyID), "stages": stages, "managed_cluster_update": mcu,
			"state": runStateNotStarted, "wait_for": waitNone,
			"preview": types.ObjectNull(runPreviewType.AttrTypes), "status": types.ObjectNull(runStatusType.AttrTypes),
		})...)
		return diags
	})}
}

// --- fleet_auto_upgrade_profile <- azurerm_kubernetes_fleet_auto_upgrade_profile

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
	return []resource.StateMover{azurermMover(azurermAutoUpgradeProfileType, func(ctx context.Context, src azurermAutoUpgradeProfile, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := azurermChild(src.ID, src.KubernetesFleetManagerID, src.Name, "autoUpgradeProfiles")
		if diags.HasError() {
			return diags
		}
		m := aupNullModel()
		m.ID, m.Name, m.FleetID = types.StringValue(fleet.ChildID("autoUpgradeProfiles", name)), types.StringValue(name), types.StringValue(fleet.String())
		m.Channel = stringOrNull(src.Channel)
		if src.NodeImageSelectionType != nil {
			m.NodeImageSelectionType = stringOrNull(*src.NodeImageSelectionType)
		}
		if src.UpdateStrategyID != nil {
			m.UpdateStrategyID = stringOrNull(*src.UpdateStrategyID)
		}
		if src.TargetKubernetesVersion != nil {
			m.TargetKubernetesVersion = stringOrNull(*src.TargetKubernetesVersion)
		}
		m.Disabled = types.BoolValue(src.Enabled != nil && !*src.Enabled)
		m.LongTermSupport = types.BoolValue(src.LongTermSupport != nil && *src.LongTermSupport)
		diags.Append(st.Set(ctx, m)...)
		return diags
	})}
}

// --- fleet_member <- azurerm_kubernetes_fleet_member

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
	return []resource.StateMover{azurermMover(azurermFleetMemberType, func(ctx context.Context, src azurermFleetMember, st *tfsdk.State) diag.Diagnostics {
		fleet, name, diags := azurermChild(src.ID, src.KubernetesFleetID, src.Name, "members")
		if diags.HasError() {
			return diags
		}
		m := fleetMemberModel{
			ID: types.StringValue(fleet.ChildID("members", name)), Name: types.StringValue(name), FleetID: types.StringValue(fleet.String()),
			ClusterResourceID: stringOrNull(src.KubernetesClusterID), Group: stringOrNull(src.Group), Labels: types.MapNull(types.StringType),
		}
		diags.Append(st.Set(ctx, m)...)
		return diags
	})}
}

var (
	_ resource.ResourceWithMoveState = (*memberResource)(nil)
	_ resource.ResourceWithMoveState = (*updateStrategyResource)(nil)
	_ resource.ResourceWithMoveState = (*updateRunResource)(nil)
	_ resource.ResourceWithMoveState = (*autoUpgradeProfileResource)(nil)
)
