package rollout

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

func nullTimeouts(kinds ...string) timeouts.Value {
	at := map[string]attr.Type{}
	for _, k := range kinds {
		at[k] = types.StringType
	}
	return timeouts.Value{Object: types.ObjectNull(at)}
}

func stage(name string, groups ...string) stageModel {
	s := stageModel{Name: types.StringValue(name), AfterStageWaitInSeconds: types.Int64Null()}
	for _, g := range groups {
		s.Groups = append(s.Groups, groupModel{Name: types.StringValue(g)})
	}
	return s
}

func runModel(typ string) updateRunModel {
	return updateRunModel{
		ID: types.StringNull(), Name: types.StringValue("r"), FleetID: types.StringNull(), UpdateStrategyID: types.StringNull(),
		ManagedClusterUpdate: &mcuModel{Upgrade: &upgradeModel{Type: types.StringValue(typ), KubernetesVersion: types.StringNull()}},
		State:                types.StringValue(runStateRunning), WaitFor: types.StringValue(shared.WaitNone),
		Triggers: types.MapNull(types.StringType), Timeouts: nullTimeouts("create", "update", "delete"),
		Preview: types.ObjectNull(runPreviewType.AttrTypes), Status: types.ObjectNull(runStatusType.AttrTypes),
	}
}

// checkOneError: want "" → no error; else exactly one error at path whose detail contains in.
func checkOneError(t *testing.T, d diag.Diagnostics, path, in string) {
	t.Helper()
	if path == "" {
		if d.HasError() {
			t.Fatalf("unexpected %v", d)
		}
		return
	}
	errs := d.Errors()
	if len(errs) != 1 {
		t.Fatalf("%d errors, want 1 at %s: %v", len(errs), path, d)
	}
	e, ok := errs[0].(diag.DiagnosticWithPath)
	if !ok || e.Path().String() != path || !strings.Contains(e.Detail(), in) {
		t.Errorf("error %v, want at %s containing %q", errs[0], path, in)
	}
}

// ValidateConfig reports each invalid combination at its attribute path, offline.
func TestUpdateRunValidateConfig(t *testing.T) {
	validate := sharedtest.ConfigValidator[updateRunModel](t, &updateRunResource{})
	with := func(typ, version string, f func(*updateRunModel)) updateRunModel {
		m := runModel(typ)
		if version != "" {
			m.ManagedClusterUpdate.Upgrade.KubernetesVersion = types.StringValue(version)
		}
		if f != nil {
			f(&m)
		}
		return m
	}
	const strategyID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateStrategies/two"
	nis := func(typ string, custom ...string) func(*updateRunModel) {
		return func(m *updateRunModel) {
			m.ManagedClusterUpdate.NodeImageSelection = &nisModel{Type: types.StringValue(typ)}
			for _, c := range custom {
				m.ManagedClusterUpdate.NodeImageSelection.CustomVersions = append(m.ManagedClusterUpdate.NodeImageSelection.CustomVersions, types.StringValue(c))
			}
		}
	}
	cases := []struct {
		name     string
		m        updateRunModel
		path, in string
	}{
		{"full with a version", with("Full", "1.33.1", nil), "", ""},
		{"node image only", with("NodeImageOnly", "", nil), "", ""},
		{"inline stages", with("Full", "1.33.1", func(m *updateRunModel) { m.Stages = []stageModel{stage("a", "g1"), stage("b", "g2")} }), "", ""},
		{"a strategy", with("Full", "1.33.1", func(m *updateRunModel) { m.UpdateStrategyID = types.StringValue(strategyID) }), "", ""},
		{"custom images", with("NodeImageOnly", "", nis("Custom", "AKSUbuntu-2204gen2containerd-202511.04.0")), "", ""},
		{"full without a version", with("Full", "", nil), "managed_cluster_update.upgrade.kubernetes_version", "required with the Full upgrade"},
		{"control plane without a version", with("ControlPlaneOnly", "", nil), "managed_cluster_update.upgrade.kubernetes_version", "required with the ControlPlaneOnly upgrade"},
		{"node image only with a version", with("NodeImageOnly", "1.33.1", nil), "managed_cluster_update.upgrade.kubernetes_version", "not allowed with the NodeImageOnly"},
		{"strategy and stages", with("Full", "1.33.1", func(m *updateRunModel) {
			m.UpdateStrategyID = types.StringValue(strategyID)
			m.Stages = []stageModel{stage("a", "g1")}
		}), "stage", "not both"},
		{"a run ID as strategy", with("Full", "1.33.1", func(m *updateRunModel) {
			m.UpdateStrategyID = types.StringValue(strings.Replace(strategyID, "updateStrategies", "updateRuns", 1))
		}), "update_strategy_id", ""},
		{"duplicate stage", with("Full", "1.33.1", func(m *updateRunModel) { m.Stages = []stageModel{stage("a", "g1"), stage("a", "g2")} }), "stage[1].name", `Stage "a" is named twice`},
		{"group in two stages", with("Full", "1.33.1", func(m *updateRunModel) { m.Stages = []stageModel{stage("a", "g1"), stage("b", "g2", "g1")} }), "stage[1].group[1].name", `Group "g1" is already in stage "a"`},
		{"custom without versions", with("NodeImageOnly", "", nis("Custom")), "managed_cluster_update.node_image_selection.custom_versions", "required with the Custom"},
		{"versions without custom", with("Full", "1.33.1", nis("Consistent", "AKSUbuntu-2204gen2containerd-202511.04.0")), "managed_cluster_update.node_image_selection.custom_versions", "only with the Custom"},
		{"unknown version: nothing to say yet", with("Full", "", func(m *updateRunModel) { m.ManagedClusterUpdate.Upgrade.KubernetesVersion = types.StringUnknown() }), "", ""},
		{"unknown strategy ID: nothing to say yet", with("Full", "1.33.1", func(m *updateRunModel) { m.UpdateStrategyID = types.StringUnknown() }), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkOneError(t, validate(t, tc.m), tc.path, tc.in) })
	}
}
