package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// placementPreview computes, from the live hub, what the hub agent's scheduler will do with
// policy; existing names a placement already on the hub whose current bindings and latest policy
// snapshot (read with hc) the scheduler will start from (the zero key for a new one: hc unused).
// Both scopes are scheduled by the same rules: KubeFleet v0.18.9 runs one scheduler and one
// profile for ClusterResourcePlacements and ResourcePlacements (pkg/scheduler/scheduler.go,
// pkg/scheduler/profile/profile.go).
func placementPreview(ctx context.Context, hc *hub.Client, v view.Fleet, existing hub.PlacementKey, policy *placementv1.PlacementPolicy) (placementPreviewModel, []string, error) {
	var sched *schedulingState
	if existing.Name != "" {
		var err error
		if sched, err = readSchedulingState(ctx, hc, existing); err != nil {
			return placementPreviewModel{}, nil, err
		}
	}
	return placementPreviewFrom(ctx, v, sched, policy)
}

// placementPreviewSpec and resourcePlacementPreviewSpec are the placement preview of each scope:
// the same computation, recomputed on the scope's configured attributes.
var (
	placementPreviewSpec = preview.Spec[placementPreviewInput]{
		What: "the placement preview", AttrTypes: placementPreviewAttrTypes,
		Follows: clusterPlacementScope.configAttributes(), Reads: placementPreviewReads, Compute: computePlacementPreview,
	}
	resourcePlacementPreviewSpec = preview.Spec[placementPreviewInput]{
		What: "the placement preview", AttrTypes: placementPreviewAttrTypes,
		Follows: namespacedPlacementScope.configAttributes(), Reads: placementPreviewReads, Compute: computePlacementPreview,
	}
)

// placementPreviewReads: the hub's member clusters on the provider's clock (the scheduler), and
// for an existing placement its latest resources and the hub's override snapshots (the override
// snapshots of each pick).
var placementPreviewReads = []facts.Input{facts.InputClock, facts.InputSettings, facts.InputHubMembers,
	facts.InputSelectedResources, facts.InputOverrideSnapshots}

// placementPreviewInput is what the placement preview is computed from besides the fleet: the
// planned model and what ModifyPlan (or apply) read of the hub that the view does not hold.
type placementPreviewInput struct {
	*placementModel
	namespaced bool
	// existing is the placement on the hub the plan updates (zero for a new one); sched its
	// scheduling state, or schedErr why it could not be read.
	existing hub.PlacementKey
	sched    *schedulingState
	schedErr error
	// overrides: list each pick's override snapshots (an existing placement's).
	overrides bool
	// selected is set by the preview: the clusters it picks, for the overrides of the placement
	// planned after it (recordPlannedSelection).
	selected []string
}

// computePlacementPreview is the placement preview over the fleet v.
func computePlacementPreview(ctx context.Context, v view.Fleet, in *placementPreviewInput, d *diag.Diagnostics) (attr.Value, error) {
	p, warnings, err := placementPreviewFrom(ctx, v, in.sched, in.Policy.toAPI())
	if err == nil {
		err = in.schedErr // after the reads: apply still says what of them moved
	}
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		d.AddAttributeWarning(path.Root("policy"), "Placement will not schedule", w)
	}
	if in.namespaced {
		warnNamespaceCollection(ctx, d, v, in.Namespace.ValueString())
	}
	in.selected = make([]string, 0, len(p.Selected))
	for _, s := range p.Selected {
		in.selected = append(in.selected, s.Cluster)
	}
	if in.overrides {
		p.OverrideSnapshots = placementOverrideSnapshots(ctx, v, in.existing, p)
	}
	obj, ds := p.object(v.ListLimit())
	d.Append(ds...)
	return obj, nil
}

// knownOrFailed is s as apply compares its preview with the reviewed one (WarnMoved): a preview
// that would stay unknown now is one it cannot compare, as one that fails.
func knownOrFailed[M any](s preview.Spec[M]) preview.Spec[M] {
	compute := s.Compute
	s.Compute = func(ctx context.Context, v view.Fleet, m *M, diags *diag.Diagnostics) (attr.Value, error) {
		obj, err := compute(ctx, v, m, diags)
		if err == nil && obj != nil && obj.IsUnknown() {
			return nil, errors.New("the preview would stay unknown")
		}
		return obj, err
	}
	return s
}

// schedulingState is what the hub's scheduler starts from for an existing placement: its bindings
// and latest policy snapshot. The view does not hold it: ModifyPlan reads it (the plan's refresh
// keeps it in private state, Read, so that with `facts` the apply's re-plan previews an update
// from what the plan saw) and passes it to the preview (placementPreviewInput).
type schedulingState struct {
	// Unsettled says why the hub agent had not finished scheduling the current spec ("" when it had).
	Unsettled string `json:"unsettled,omitempty"`
	// Policy is the latest policy snapshot's policy; HasSnapshot says there was one.
	HasSnapshot bool                         `json:"hasSnapshot"`
	Policy      *placementv1.PlacementPolicy `json:"policy,omitempty"`
	Bindings    []scheduling.Binding         `json:"bindings,omitempty"`
}

// schedulingStateKey keeps its earlier name: private state already saved carries it.
const schedulingStateKey = "scheduling_facts"

// readSchedulingState reads an existing placement's scheduling state from the hub.
func readSchedulingState(ctx context.Context, hc *hub.Client, key hub.PlacementKey) (*schedulingState, error) {
	snapshot, bindings, err := placementSchedulingState(ctx, hc, key)
	if err != nil {
		return nil, err
	}
	out := &schedulingState{}
	latest := ""
	if snapshot != nil {
		latest, out.HasSnapshot, out.Policy = snapshot.Name, true, snapshot.Spec.Policy
	}
	out.Bindings = scheduling.BindingsFromAPI(bindings, latest)
	return out, nil
}

func saveSchedulingState(ctx context.Context, p shared.PrivateSetter, s *schedulingState) diag.Diagnostics {
	b, err := json.Marshal(s)
	if err != nil {
		var d diag.Diagnostics
		d.AddError("Saving the placement's scheduling state", err.Error())
		return d
	}
	return p.SetKey(ctx, schedulingStateKey, b)
}

// loadSchedulingState is what the plan's refresh saved, or nil.
func loadSchedulingState(ctx context.Context, p shared.PrivateGetter) *schedulingState {
	b, diags := p.GetKey(ctx, schedulingStateKey)
	if diags.HasError() || len(b) == 0 {
		return nil
	}
	var s schedulingState
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// placementPreviewFrom is the scheduler's answer over the fleet v, from the scheduling state sched
// (nil for a new placement).
func placementPreviewFrom(ctx context.Context, v view.Fleet, sched *schedulingState, policy *placementv1.PlacementPolicy) (placementPreviewModel, []string, error) {
	members, err := v.HubMemberClusters(ctx)
	if err != nil {
		return placementPreviewModel{}, nil, err
	}
	in := scheduling.Input{Policy: policy, Clusters: members, Now: v.Now()}
	if sched != nil {
		if sched.HasSnapshot {
			in.PolicyChanged = scheduling.NeedsNewSnapshot(sched.Policy, policy)
		}
		in.Bindings = sched.Bindings
	}
	res, err := scheduling.Schedule(in)
	if err != nil {
		// The hub accepts the placement but its scheduler fails every cycle: nothing is picked.
		var ce *scheduling.CycleError
		why := err.Error()
		if errors.As(err, &ce) {
			why = ce.Error()
		}
		return placementPreviewModel{
			Message: "the hub agent's scheduler fails every scheduling cycle of this placement: " + why,
		}, []string{"The hub agent's scheduler will fail every scheduling cycle of this placement, so it places nothing: " + why}, nil
	}
	return stableReasons(placementPreviewFromResult(res), members), scheduling.UnknownPropertiesWarning(policy, members), nil
}

// agoRe matches the elapsed time the eligibility checker puts in its reasons.
var agoRe = regexp.MustCompile(`\((last received|last transitioned) [0-9.]+ minutes ago\)`)

// stableReasons words the scheduler's "last received 20.79 minutes ago" as the time it happened:
// the planned preview must come out the same when Terraform plans again at apply, seconds later.
func stableReasons(p placementPreviewModel, members []clusterv1.MemberCluster) placementPreviewModel {
	byName := make(map[string]*clusterv1.MemberCluster, len(members))
	for i := range members {
		byName[members[i].Name] = &members[i]
	}
	for i, e := range p.Excluded {
		reason := e.Reason
		mc := byName[e.Cluster]
		if mc == nil || !agoRe.MatchString(reason) {
			continue
		}
		reason = agoRe.ReplaceAllStringFunc(reason, func(m string) string {
			what := agoRe.FindStringSubmatch(m)[1]
			at := eligibilityTime(mc, what == "last received")
			if at.IsZero() {
				return m
			}
			return fmt.Sprintf("(%s at %s)", what, at.UTC().Format(time.RFC3339))
		})
		p.Excluded[i].Reason = reason
	}
	return p
}

// eligibilityTime is the member agent's last heartbeat, or the last transition of its Healthy
// condition.
func eligibilityTime(mc *clusterv1.MemberCluster, heartbeat bool) time.Time {
	for _, a := range mc.Status.AgentStatus {
		if a.Type != clusterv1.MemberAgent {
			continue
		}
		if heartbeat {
			return a.LastReceivedHeartbeat.Time
		}
		if c := meta.FindStatusCondition(a.Conditions, string(clusterv1.AgentHealthy)); c != nil {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func placementPreviewFromResult(res scheduling.Result) placementPreviewModel {
	p := placementPreviewModel{
		Fulfilled: res.Fulfilled,
		Message:   res.Message,
		Selected:  make([]placementPickModel, 0, len(res.Selected)),
		Trimmed:   res.Trimmed,
		Excluded:  res.Excluded,
	}
	for _, s := range res.Selected {
		p.Selected = append(p.Selected, placementPickModel{
			Cluster: s.Cluster, AffinityScore: int64(s.AffinityScore), TopologySpreadScore: int64(s.TopologySpreadScore), Change: string(s.Change),
		})
	}
	return p
}

// placementSchedulingState reads what the scheduler starts from for an existing placement: its latest
// policy snapshot (nil before the hub agent made one) and its bindings (by name: the scheduler reads
// them in no particular order; a stable one keeps previews stable).
func placementSchedulingState(ctx context.Context, hc *hub.Client, key hub.PlacementKey) (*placementv1.ClusterSchedulingPolicySnapshot, []placementv1.ClusterResourceBinding, error) {
	snaps, err := hc.LatestPolicySnapshotsAt(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	var snapshot *placementv1.ClusterSchedulingPolicySnapshot
	for i := range snaps {
		if snapshot == nil || placementPolicyIndex(&snaps[i]) > placementPolicyIndex(snapshot) {
			snapshot = &snaps[i]
		}
	}
	bindings, err := hc.BindingsAt(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	return snapshot, bindings, nil
}

func placementPolicyIndex(s *placementv1.ClusterSchedulingPolicySnapshot) int {
	n, err := strconv.Atoi(s.Labels[placementv1beta1.PolicyIndexLabel])
	if err != nil {
		return -1
	}
	return n
}
