package rollout

import (
	"strings"
	"testing"
)

func TestAggregate(t *testing.T) {
	// concepts-update-orchestration.md "Update Run states".
	tests := []struct {
		name     string
		children []State
		want     State
	}{
		{"nothing to update", nil, Completed},
		{"all not started", []State{NotStarted, NotStarted}, NotStarted},
		// Running: "Update run is in progress for at least one cluster."
		{"one running", []State{Completed, Running, NotStarted}, Running},
		{"running beside pending", []State{Running, Pending}, Running},
		// "Update Group: if all clusters in the group are Pending or not started"
		{"all pending or not started", []State{Pending, NotStarted}, Pending},
		// Choice: finished children do not prevent Pending.
		{"the rest pending", []State{Completed, Pending, Skipped}, Pending},
		{"between steps", []State{Completed, NotStarted}, Running},
		// Skipped: "a user marked the group, or all clusters in the group as Skipped".
		{"all skipped", []State{Skipped, Skipped}, Skipped},
		{"completed and skipped", []State{Completed, Skipped}, Completed},
		// Failed: "at least one cluster in the group failed".
		{"one failed", []State{Completed, Failed, NotStarted}, Failed},
		// "The update run status shows as Stopping until all in-progress cluster updates finish."
		{"failed while another runs", []State{Failed, Running}, Stopping},
		{"stopping", []State{Stopping, Completed}, Stopping},
		{"stopped", []State{Completed, Stopped, NotStarted}, Stopped},
		{"stopped while another runs", []State{Stopped, Running}, Stopping},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Aggregate(tc.children); got != tc.want {
				t.Fatalf("Aggregate(%v) = %s, want %s", tc.children, got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	tests := []struct {
		name string
		u    Update
		err  string
	}{
		{"full", full("1.33.1"), ""},
		// ManagedClusterUpgradeType: Full "Requires the ManagedClusterUpgradeSpec.KubernetesVersion property to be set."
		{"full without version", Update{Upgrade: Full}, "managedClusterUpdate.upgrade.kubernetesVersion: required when type is Full"},
		{"control plane only without version", Update{Upgrade: ControlPlaneOnly}, "managedClusterUpdate.upgrade.kubernetesVersion: required when type is ControlPlaneOnly"},
		// NodeImageOnly "Requires the ManagedClusterUpgradeSpec.KubernetesVersion property to NOT be set."
		{"node image only with version", Update{Upgrade: NodeImageOnly, KubernetesVersion: "1.33.1"}, "managedClusterUpdate.upgrade.kubernetesVersion: must not be set when type is NodeImageOnly"},
		{"bad version", full("latest"), `managedClusterUpdate.upgrade.kubernetesVersion: "latest" is not a Kubernetes version (major.minor.patch)`},
		{"bad type", Update{Upgrade: "Partial"}, `managedClusterUpdate.upgrade.type: "Partial" is not Full, ControlPlaneOnly or NodeImageOnly`},
		// customNodeImageVersions: "required if node image selection type is Custom. Otherwise, it must be empty."
		{"custom without versions", Update{Upgrade: NodeImageOnly, NodeImageSelection: Custom}, "managedClusterUpdate.nodeImageSelection.customNodeImageVersions: required when type is Custom"},
		{"versions without custom", Update{Upgrade: NodeImageOnly, NodeImageSelection: Latest, CustomNodeImageVersions: []string{newImg}}, "managedClusterUpdate.nodeImageSelection.customNodeImageVersions: must be empty unless type is Custom"},
		// "For each node image family ..., this field can contain at most one version"
		{"two versions of one type", Update{Upgrade: NodeImageOnly, NodeImageSelection: Custom, CustomNodeImageVersions: []string{oldImg, newImg}},
			"managedClusterUpdate.nodeImageSelection.customNodeImageVersions[1]: \"" + oldImg + "\" and \"" + newImg + "\" are both of image type " + ubuntu + "; at most one version per type"},
		{"bad selection", Update{Upgrade: NodeImageOnly, NodeImageSelection: "Newest"}, `managedClusterUpdate.nodeImageSelection.type: "Newest" is not Latest, Consistent or Custom`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := ValidateUpdate(tc.u); err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Fatalf("ValidateUpdate = %q, want %q", got, tc.err)
			}
		})
	}
}

func TestValidateStrategy(t *testing.T) {
	g := func(n string) Group { return Group{Name: n} }
	many := make([]Group, 51)
	for i := range many {
		many[i] = Group{Name: "g" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26))}
	}
	tests := []struct {
		name string
		s    *Strategy
		err  string
	}{
		{"nil: one by one", nil, ""},
		{"valid", &Strategy{Stages: []Stage{{Name: "canary", Groups: []Group{g("a")}, MaxConcurrency: "25%", AfterGates: []Gate{{Type: Approval}}}}}, ""},
		// UpdateRunStrategy.stages "Min size: 1."
		{"no stages", &Strategy{}, "strategy.stages: at least one stage is required"},
		// UpdateStage.name pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
		{"bad stage name", &Strategy{Stages: []Stage{{Name: "Canary", Groups: []Group{g("a")}}}}, `strategy.stages[0].name: "Canary" must be 1-50 lowercase letters, digits and '-', starting and ending with a letter or digit`},
		// UpdateStage.name "Must be unique within the UpdateRun."
		{"duplicate stage", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{g("a")}}, {Name: "s", Groups: []Group{g("b")}}}}, `strategy.stages[1].name: stage "s" is defined twice`},
		{"no groups", &Strategy{Stages: []Stage{{Name: "s"}}}, "strategy.stages[0].groups: at least one group is required"},
		// concepts-update-orchestration.md: "The maximum number of Update Groups in each Update Stage is 50."
		{"51 groups", &Strategy{Stages: []Stage{{Name: "s", Groups: many}}}, "strategy.stages[0].groups: 51 groups; a stage holds at most 50"},
		// UpdateRunStrategy: "A valid strategy contains no duplicate groups within or across stages."
		{"group in two stages", &Strategy{Stages: []Stage{{Name: "s1", Groups: []Group{g("a")}}, {Name: "s2", Groups: []Group{g("a")}}}}, `strategy.stages[1].groups[0].name: group "a" is already in stage "s1"`},
		{"negative wait", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{g("a")}, AfterStageWaitInSeconds: -1}}}, "strategy.stages[0].afterStageWaitInSeconds: must not be negative"},
		// maxConcurrency pattern ^(?:([1-9]\d*)|([1-9]\d?|100)%)$
		{"bad concurrency", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "a", MaxConcurrency: "0"}}}}}, `strategy.stages[0].groups[0].maxConcurrency: "0" is not a count ("3") or a percentage from 1% to 100% ("25%")`},
		{"bad gate", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "a", BeforeGates: []Gate{{Type: "ScheduledStart"}}}}}}}, `strategy.stages[0].groups[0].beforeGates[0].type: "ScheduledStart" is not Approval`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := ValidateStrategy(tc.s); err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Fatalf("ValidateStrategy = %q, want %q", got, tc.err)
			}
		})
	}
}

func TestResolveConcurrency(t *testing.T) {
	// concepts-update-orchestration.md Example 3: stage "25%" of 20 → 5, group A "50%" of 8 → 4,
	// group B "25%" of 12 → 3; "rounded down, and enforced with a minimum resolved value of 1".
	for _, tc := range []struct {
		v       string
		of, def int
		want    int
	}{
		{"25%", 20, 50, 5}, {"50%", 8, 1, 4}, {"25%", 12, 1, 3}, {"10%", 3, 1, 1}, {"", 7, 1, 1}, {"", 7, 50, 50}, {"3", 10, 1, 3},
	} {
		if got := resolveConcurrency(tc.v, tc.of, tc.def); got != tc.want {
			t.Errorf("resolveConcurrency(%q, %d) = %d, want %d", tc.v, tc.of, got, tc.want)
		}
	}
}
