package rollout

import (
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func TestSpecDiffStrategies(t *testing.T) {
	two := func() *fleetapi.UpdateRunStrategy {
		return &fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{
			{Name: "canary", Groups: []fleetapi.UpdateGroup{{Name: "canary"}}, AfterStageWaitInSeconds: 60,
				BeforeGates: []fleetapi.GateConfiguration{{Type: "Approval", DisplayName: "change board"}}},
			{Name: "prod", Groups: []fleetapi.UpdateGroup{{Name: "prod"}}},
		}}
	}
	for _, tc := range []struct {
		name   string
		change func(*fleetapi.UpdateRunStrategy)
		want   string
	}{
		{"equal", func(*fleetapi.UpdateRunStrategy) {}, ""},
		{"group", func(s *fleetapi.UpdateRunStrategy) { s.Stages[1].Groups[0].Name = "prod-eu" },
			`stage[1].group[0].name is "prod" in the plan, "prod-eu" in the fleet`},
		{"wait unset in the fleet", func(s *fleetapi.UpdateRunStrategy) { s.Stages[0].AfterStageWaitInSeconds = 0 },
			`stage[0].after_stage_wait_in_seconds is 60 in the plan, unset in the fleet`},
		{"gate", func(s *fleetapi.UpdateRunStrategy) { s.Stages[0].BeforeGates[0].DisplayName = "cab" },
			`stage[0].before_gate[0].display_name is "change board" in the plan, "cab" in the fleet`},
		{"a stage more", func(s *fleetapi.UpdateRunStrategy) { s.Stages = append(s.Stages, fleetapi.UpdateStage{Name: "late"}) },
			`stage has 2 entries in the plan, 3 in the fleet`},
		{"field the provider does not set", func(s *fleetapi.UpdateRunStrategy) { s.Stages[1].MaxConcurrency = "25%" },
			`stage[1].max_concurrency is unset in the plan, "25%" in the fleet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := two()
			tc.change(have)
			if got := specDiff(strategySpec(two()), strategySpec(have)); got != tc.want {
				t.Fatalf("specDiff = %q, want %q", got, tc.want)
			}
		})
	}
	if got := specDiff(strategySpec(&fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{}}), strategySpec(nil)); got != "" {
		t.Fatalf("no stages vs an absent strategy: %q, want equal", got)
	}
}

func TestSpecDiffRuns(t *testing.T) {
	const strategyID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateStrategies/two"
	planned := func() *fleetapi.UpdateRunProperties {
		return &fleetapi.UpdateRunProperties{
			Strategy:             &fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{{Name: "one", Groups: []fleetapi.UpdateGroup{{Name: "a"}}}}},
			ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull, KubernetesVersion: "1.33.1"}},
		}
	}
	for _, tc := range []struct {
		name    string
		planned func(*fleetapi.UpdateRunProperties)
		fleet   func(*fleetapi.UpdateRunProperties)
		want    string
	}{
		{"equal; the API's default node image selection", nil, func(p *fleetapi.UpdateRunProperties) {
			p.ManagedClusterUpdate.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionLatest}
			p.ProvisioningState, p.Status = "Succeeded", &fleetapi.UpdateRunStatus{}
		}, ""},
		{"version", nil, func(p *fleetapi.UpdateRunProperties) { p.ManagedClusterUpdate.Upgrade.KubernetesVersion = "1.32.5" },
			`managed_cluster_update.upgrade.kubernetes_version is "1.33.1" in the plan, "1.32.5" in the fleet`},
		{"upgrade type", nil, func(p *fleetapi.UpdateRunProperties) {
			p.ManagedClusterUpdate.Upgrade = fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeNodeImageOnly}
		}, `managed_cluster_update.upgrade.kubernetes_version is "1.33.1" in the plan, unset in the fleet`},
		{"custom images", func(p *fleetapi.UpdateRunProperties) {
			p.ManagedClusterUpdate.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionCustom,
				CustomNodeImageVersions: []fleetapi.NodeImageVersion{{Version: "AKSUbuntu-2204gen2containerd-202511.04.0"}}}
		}, func(p *fleetapi.UpdateRunProperties) {
			p.ManagedClusterUpdate.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionCustom,
				CustomNodeImageVersions: []fleetapi.NodeImageVersion{{Version: "AKSUbuntu-2204gen2containerd-202510.01.0"}}}
		}, `managed_cluster_update.node_image_selection.custom_versions[0] is "AKSUbuntu-2204gen2containerd-202511.04.0" in the plan, "AKSUbuntu-2204gen2containerd-202510.01.0" in the fleet`},
		{"stages", nil, func(p *fleetapi.UpdateRunProperties) { p.Strategy.Stages[0].Groups[0].Name = "b" },
			`stage[0].group[0].name is "a" in the plan, "b" in the fleet`},
		{"by strategy ID: the run's copy of the strategy is not compared, the ID's case is not either", func(p *fleetapi.UpdateRunProperties) {
			p.UpdateStrategyID, p.Strategy = strategyID, nil
		}, func(p *fleetapi.UpdateRunProperties) {
			p.UpdateStrategyID = strings.ToUpper(strategyID)
			p.Strategy.Stages[0].Name = "copied"
		}, ""},
		{"inline stages planned, a strategy ID in the fleet", nil, func(p *fleetapi.UpdateRunProperties) { p.UpdateStrategyID = strategyID },
			`stage is a list of 1 in the plan, unset in the fleet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, f := planned(), planned()
			if tc.planned != nil {
				tc.planned(p)
			}
			if tc.fleet != nil {
				tc.fleet(f)
			}
			if got := specDiff(runSpec(p), runSpec(f)); got != tc.want {
				t.Fatalf("specDiff = %q, want %q", got, tc.want)
			}
		})
	}
}
