package facts

import (
	"fmt"
	"slices"
	"sort"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// StagedRun names a staged update run's inputs to read: its namespace ("" for a
// ClusterStagedUpdateRun), placement and strategy.
type StagedRun struct {
	Namespace string `json:"namespace,omitempty"`
	Placement string `json:"placement"`
	Strategy  string `json:"strategy"`
}

func (s StagedRun) String() string {
	return fmt.Sprintf("placement %s with strategy %s", hub.Key(s.Namespace, s.Placement), hub.Key(s.Namespace, s.Strategy))
}

// StagedInputs are what KubeFleet's controller initializes a staged update run from
// (hub.Client.RunInputs: the placement, its latest policy snapshots, bindings and resource
// snapshots' metadata, the strategy), as fleet_staged_update_run's preview reads them, without
// the member clusters (the facts' Hub holds them) and managed fields. They are whole objects, so
// only the runs the data source names are read.
type StagedInputs struct {
	StagedRun
	Inputs hub.RunInputs `json:"inputs"`
}

// movedStaged says how each run's inputs moved: bindings (cluster, state, policy snapshot), the
// latest policy snapshot, resource snapshot indexes removed, the placement's and strategy's
// generations.
func movedStaged(planned, now []StagedInputs) []string {
	return pairUp(planned, now, func(s StagedInputs) string { return s.String() }, "staged run inputs of", "the facts",
		func(name string, b, a StagedInputs) []string {
			var out []string
			if d := mapDiff(stagedSummary(b.Inputs), stagedSummary(a.Inputs)); d != "" {
				out = append(out, fmt.Sprintf("%s: %s", name, d))
			}
			if d := mapDiff(stagedBindings(b.Inputs), stagedBindings(a.Inputs)); d != "" {
				out = append(out, fmt.Sprintf("%s: bindings %s", name, d))
			}
			// Only indexes that went count: a run that names no index cuts one itself (an External
			// placement has none until then), and a new index changes no preview of a run naming an
			// older one (the preview's own difference says when it does).
			now := resourceIndexes(a.Inputs)
			var gone []string
			for _, i := range resourceIndexes(b.Inputs) {
				if !slices.Contains(now, i) {
					gone = append(gone, i)
				}
			}
			if len(gone) > 0 {
				out = append(out, fmt.Sprintf("%s: resource snapshot indexes removed %s", name, sample(gone)))
			}
			return out
		})
}

func stagedSummary(in hub.RunInputs) map[string]string {
	out := map[string]string{}
	if in.Placement != nil {
		out["placement generation"] = fmt.Sprint(in.Placement.Generation)
	}
	if in.Strategy != nil {
		out["strategy generation"] = fmt.Sprint(in.Strategy.Generation)
	}
	for _, s := range in.PolicySnapshots {
		out["latest policy snapshot"] = s.Name
	}
	return out
}

func resourceIndexes(in hub.RunInputs) []string {
	var out []string
	for _, s := range in.ResourceSnapshots {
		if i := s.Labels[placementv1beta1.ResourceIndexLabel]; !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	sort.Strings(out)
	return out
}

func stagedBindings(in hub.RunInputs) map[string]string {
	out := map[string]string{}
	for _, b := range in.Bindings {
		out[b.Spec.TargetCluster] = string(b.Spec.State) + " for " + b.Spec.SchedulingPolicySnapshotName
	}
	return out
}

func CopyRunInputs(in hub.RunInputs) hub.RunInputs {
	out := hub.RunInputs{Placement: in.Placement.DeepCopy(), Strategy: in.Strategy.DeepCopy()}
	out.PolicySnapshots = make([]placementv1.ClusterSchedulingPolicySnapshot, len(in.PolicySnapshots))
	for i := range in.PolicySnapshots {
		in.PolicySnapshots[i].DeepCopyInto(&out.PolicySnapshots[i])
	}
	out.Bindings = make([]placementv1.ClusterResourceBinding, len(in.Bindings))
	for i := range in.Bindings {
		in.Bindings[i].DeepCopyInto(&out.Bindings[i])
	}
	out.ResourceSnapshots = make([]placementv1.ClusterResourceSnapshot, len(in.ResourceSnapshots))
	for i := range in.ResourceSnapshots {
		in.ResourceSnapshots[i].DeepCopyInto(&out.ResourceSnapshots[i])
	}
	return out
}
