package hub

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
)

// FuzzResponses decodes arbitrary hub objects as the typed client does
// (placements with their selection scopes, snapshots, staged runs and
// approval requests) and runs the reads built on them: no panic, and a
// refused object is an error that names what was decoded.
func FuzzResponses(f *testing.F) {
	for _, s := range []string{
		`{"kind":"ClusterResourcePlacement","metadata":{"name":"p"},"spec":{"resourceSelectors":[{"group":"","version":"v1","kind":"Namespace","name":"a","selectionScope":"NamespaceOnly"}],"policy":{"placementType":"PickN","numberOfClusters":2}}}`,
		`{"kind":"ClusterResourceSnapshot","metadata":{"name":"p-3-snapshot","labels":{"kubernetes-fleet.io/resource-index":"3","kubernetes-fleet.io/is-latest-snapshot":"true"},"annotations":{"kubernetes-fleet.io/number-of-resource-snapshots":"2"}}}`,
		`{"kind":"ClusterStagedUpdateRun","metadata":{"name":"r","generation":2},"status":{"conditions":[{"type":"Initialized","status":"False","reason":"x","message":"m","observedGeneration":2}],"stagesStatus":[{"stageName":"s","clusters":[{"clusterName":"a","conditions":[{"type":"Succeeded","status":"False","message":"boom","observedGeneration":2}]}],"afterStageTaskStatus":[{"type":"Approval","approvalRequestName":"r-s"}]}],"deletionStageStatus":{"stageName":"kubernetes-fleet.io/deleteStage"}}}`,
		`{"kind":"ClusterApprovalRequest","metadata":{"name":"r-s","labels":{"kubernetes-fleet.io/targetUpdateRun":"r","kubernetes-fleet.io/taskStage":"s"}},"spec":{"parentStageRollout":"r","targetStage":"s"}}`,
		`{"spec":{"resourceSelectors":[7,{"selectionScope":3}],"policy":"x"},"status":{"stagesStatus":[null]}}`,
		`{"metadata":{"labels":{"kubernetes-fleet.io/resource-index":"-1"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		if p, err := placementFromUnstructured(u); err == nil {
			for i := range p.Spec.ResourceSelectors {
				_ = p.SelectionScope(i)
			}
		} else if err.Error() == "" {
			t.Fatal("a refused placement without a message")
		}
		if snap, err := decode[placementv1.ClusterResourceSnapshot](u); err == nil {
			_, _ = SnapshotIndex(snap), IsMasterSnapshot(snap)
			_ = LatestResourceSnapshotIndex([]placementv1.ClusterResourceSnapshot{*snap, *snap})
		}
		run, err := decode[placementv1.ClusterStagedUpdateRun](u)
		if err != nil {
			return
		}
		state, _ := staged.RunState(run)
		_ = state.Ended()
		_ = staged.Steps(run)
		_ = staged.FailedClusters(run)
		for _, s := range staged.AllStages(run) {
			_ = staged.StageStep(s, run.Generation)
			for i := range s.Clusters {
				_ = staged.ClusterStep(&s.Clusters[i], run.Generation)
			}
		}
		if req, err := decode[placementv1.ClusterApprovalRequest](u); err == nil {
			_ = staged.WaitingApprovals(run, []placementv1.ClusterApprovalRequest{*req})
		}
	})
}
