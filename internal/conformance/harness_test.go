package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"go.goms.io/fleet/pkg/utils/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// appNamespace is the namespace every placement selects. Namespaces are never deleted: the local
// hub runs no namespace controller to finalize them.
const appNamespace = "conformance-app"

// maxUnselectedDecisions is how many unselected clusters v0.18.9's scheduler lists in a policy
// snapshot's decisions (pkg/scheduler/framework/framework.go: maxUnselectedClusterDecisionCount).
const maxUnselectedDecisions = 20

// tally counts what the test compared, over all subtests.
type tally struct {
	policies   atomic.Int64 // placements (or placement updates) compared
	decisions  atomic.Int64 // per-cluster verdicts compared
	mismatches atomic.Int64
}

// hub talks to the local fleet's hub (an uncached controller-runtime client) and its admin API.
type hub struct {
	c        client.Client
	adminURL string
}

func connect(t testing.TB, env map[string]string) *hub {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBE_CONFIG_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	c, err := client.New(cfg, client.Options{Scheme: localfleet.HubScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return &hub{c: c, adminURL: env[localfleet.EnvAdminURL]}
}

func (h *hub) members(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	var list clusterv1.MemberClusterList
	if err := h.c.List(ctx, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitFleetSettled waits until the hub's MemberClusters say what the fleet file says: every member
// present with its properties, healthy members eligible and unhealthy ones not (the hub agent copies
// each member agent's report into the MemberCluster).
func (h *hub) waitFleetSettled(ctx context.Context, f *fleetfile.File) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		mcs, err := h.members(ctx)
		if err != nil {
			return false, err
		}
		byName := map[string]*clusterv1.MemberCluster{}
		for i := range mcs {
			byName[mcs[i].Name] = &mcs[i]
		}
		now := time.Now()
		for _, m := range f.Members {
			mc, ok := byName[m.Name]
			if !ok {
				last = m.Name + " missing"
				return false, nil
			}
			if _, ok := mc.Status.Properties[PropNodeCount]; !ok {
				last = m.Name + " reports no properties yet"
				return false, nil
			}
			if eligible, why := scheduling.Eligible(mc, now); eligible != m.IsHealthy() {
				last = fmt.Sprintf("%s: eligible=%v (%s), healthy in the file=%v", m.Name, eligible, why, m.IsHealthy())
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the hub's member clusters did not settle (%s): %w", last, err)
	}
	return nil
}

// setUnhealthy turns members unhealthy through the local fleet's admin API and waits until the
// hub's MemberClusters show it.
//
// The simulated member agents heartbeat in sweeps over a copy of the members taken when the sweep
// starts, so a sweep already running when a member turns unhealthy can still report it healthy
// afterwards (internal/localfleet/memberagent.go: run). To be immune, this waits until that sweep
// is over (the last healthy member in the fleet file has a heartbeat newer than the change; later
// sweeps skip unhealthy members) and then reports the members unhealthy once more.
func (h *hub) setUnhealthy(ctx context.Context, f *fleetfile.File, names ...string) error {
	patch := func() error {
		for _, name := range names {
			if _, err := localfleet.AdminPatchMember(ctx, h.adminURL, name, map[string]any{"healthy": false}); err != nil {
				return err
			}
		}
		return nil
	}
	changed := time.Now()
	if err := patch(); err != nil {
		return err
	}
	skip := map[string]bool{}
	for _, n := range names {
		skip[n] = true
	}
	last := ""
	for _, m := range f.Members {
		if m.IsHealthy() && !skip[m.Name] {
			last = m.Name
		}
	}
	// Heartbeats are stored with second precision: a stored time after the change's second means
	// the report came after the change.
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		imc := &clusterv1.InternalMemberCluster{}
		if err := h.c.Get(ctx, client.ObjectKey{Namespace: "fleet-member-" + last, Name: last}, imc); err != nil {
			return false, err
		}
		st := imc.GetAgentStatus(clusterv1.MemberAgent)
		return st != nil && st.LastReceivedHeartbeat.After(changed.Truncate(time.Second)), nil
	})
	if err != nil {
		return fmt.Errorf("no heartbeat sweep after the change: %w", err)
	}
	if err := patch(); err != nil {
		return err
	}
	return h.waitEligible(ctx, false, names...)
}

// waitEligible waits until the hub's MemberClusters of names are (or are not) eligible.
func (h *hub) waitEligible(ctx context.Context, eligible bool, names ...string) error {
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			mc := &clusterv1.MemberCluster{}
			if err := h.c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
				return false, err
			}
			if ok, _ := scheduling.Eligible(mc, time.Now()); ok != eligible {
				return false, nil
			}
		}
		return true, nil
	})
}

// setLabel changes one label of a member through the admin API ("" deletes it) and waits until the
// hub's MemberCluster has it.
func (h *hub) setLabel(ctx context.Context, name, key, value string) error {
	var v any = value
	if value == "" {
		v = nil
	}
	if _, err := localfleet.AdminPatchMember(ctx, h.adminURL, name, map[string]any{"labels": map[string]any{key: v}}); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		mc := &clusterv1.MemberCluster{}
		if err := h.c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			return false, err
		}
		got, ok := mc.Labels[key]
		return (value == "" && !ok) || (value != "" && got == value), nil
	})
}

func (h *hub) ensureNamespace(ctx context.Context) error {
	err := h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: appNamespace}})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// createPlacement creates a placement of the app namespace. External rollouts keep the hub light
// (no Works) and every binding Scheduled until the test binds it.
func (h *hub) createPlacement(ctx context.Context, name string, policy *placementv1.PlacementPolicy) error {
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: appNamespace}},
			Policy:            policy.DeepCopy(),
			Strategy:          placementv1.RolloutStrategy{Type: placementv1.ExternalRolloutStrategyType},
		},
	}
	return h.c.Create(ctx, crp)
}

func (h *hub) deletePlacement(ctx context.Context, name string) error {
	err := h.c.Delete(ctx, &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteWait bounds the wait for the hub agent to clean up a deleted placement: a PickAll one has a
// binding per member (220 here) for its scheduler to delete one by one, which took over 2 minutes
// with six such deletions in flight on two cores shared with other test packages (a CI run of
// 2026-11-28, load 14).
const deleteWait = 6 * time.Minute

// deletePlacementAndWait deletes a placement and waits until the hub agent has cleaned it up (its
// scheduler deletes the bindings one by one), so that deleted placements' bindings do not pile up:
// the scheduler lists a placement's bindings with an uncached label-selector list, whose cost grows
// with every binding on the hub.
func (h *hub) deletePlacementAndWait(ctx context.Context, name string) error {
	if err := h.deletePlacement(ctx, name); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, deleteWait, true, func(ctx context.Context) (bool, error) {
		_, err := h.placement(ctx, name)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

func (h *hub) placement(ctx context.Context, name string) (*placementv1.ClusterResourcePlacement, error) {
	crp := &placementv1.ClusterResourcePlacement{}
	return crp, h.c.Get(ctx, client.ObjectKey{Name: name}, crp)
}

// setPolicy replaces a placement's policy, retrying on conflicts with the hub agent's status writes.
func (h *hub) setPolicy(ctx context.Context, name string, policy *placementv1.PlacementPolicy) error {
	for range 20 {
		crp, err := h.placement(ctx, name)
		if err != nil {
			return err
		}
		crp.Spec.Policy = policy.DeepCopy()
		err = h.c.Update(ctx, crp)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return errors.New("too many conflicts")
}

func (h *hub) bindings(ctx context.Context, crpName string) ([]placementv1.ClusterResourceBinding, error) {
	var list placementv1.ClusterResourceBindingList
	if err := h.c.List(ctx, &list, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: crpName}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

var errNoLatestSnapshot = errors.New("no single latest policy snapshot")

func (h *hub) latestPolicySnapshot(ctx context.Context, crpName string) (*placementv1.ClusterSchedulingPolicySnapshot, error) {
	var list placementv1.ClusterSchedulingPolicySnapshotList
	if err := h.c.List(ctx, &list, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: crpName, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%w: %d of them", errNoLatestSnapshot, len(list.Items))
	}
	return &list.Items[0], nil
}

// bind marks bindings Bound with the placement's latest resource snapshot, as an external rollout
// (a staged update run) does. v0.18.9's placement controller cuts no resource snapshot for an
// External-strategy placement (pkg/controllers/placement/controller.go:
// handleResourceSnapshotByStrategy); the staged update run does when it initializes, so bind
// first cuts it the way the run does (ensureResourceSnapshot).
func (h *hub) bind(ctx context.Context, crpName string, clusters []string) error {
	snap, err := h.ensureResourceSnapshot(ctx, crpName)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, c := range clusters {
		want[c] = true
	}
	bs, err := h.bindings(ctx, crpName)
	if err != nil {
		return err
	}
	for i := range bs {
		b := &bs[i]
		if !want[b.Spec.TargetCluster] {
			continue
		}
		b.Spec.State = placementv1.BindingStateBound
		b.Spec.ResourceSnapshotName = snap.Name
		if err := h.c.Update(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// ensureResourceSnapshot returns the placement's latest resource snapshot, creating the first one
// as a v0.18.9 staged update run does when none exists (pkg/controllers/updaterun/initialization.go
// calls pkg/utils/controller/resource_snapshot_resolver.go: GetOrCreateResourceSnapshot, whose
// BuildMasterResourceSnapshot names, labels and annotates it, owned by the placement): index 0,
// one snapshot in the group, no enveloped objects, the selected Namespace as its content.
func (h *hub) ensureResourceSnapshot(ctx context.Context, crpName string) (*placementv1.ClusterResourceSnapshot, error) {
	var snaps placementv1.ClusterResourceSnapshotList
	if err := h.c.List(ctx, &snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: crpName, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
		return nil, err
	}
	switch len(snaps.Items) {
	case 1:
		return &snaps.Items[0], nil
	case 0:
	default:
		return nil, fmt.Errorf("%d latest resource snapshots", len(snaps.Items))
	}
	crp, err := h.placement(ctx, crpName)
	if err != nil {
		return nil, err
	}
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": appNamespace}}
	raw, err := json.Marshal(ns)
	if err != nil {
		return nil, err
	}
	spec := placementv1.ResourceSnapshotSpec{SelectedResources: []placementv1.ResourceContent{{RawExtension: runtime.RawExtension{Raw: raw}}}}
	hash, err := resource.HashOf(spec)
	if err != nil {
		return nil, err
	}
	snap := &placementv1.ClusterResourceSnapshot{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf(placementv1beta1.ResourceSnapshotNameFmt, crpName, 0),
			Labels: map[string]string{
				placementv1beta1.PlacementTrackingLabel: crpName,
				placementv1beta1.IsLatestSnapshotLabel:  "true",
				placementv1beta1.ResourceIndexLabel:     "0",
			},
			Annotations: map[string]string{
				placementv1beta1.ResourceGroupHashAnnotation:         hash,
				placementv1beta1.NumberOfResourceSnapshotsAnnotation: "1",
				placementv1beta1.NumberOfEnvelopedObjectsAnnotation:  "0",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: placementv1.GroupVersion.String(), Kind: "ClusterResourcePlacement", Name: crp.Name, UID: crp.UID,
				Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true),
			}},
		},
		Spec: spec,
	}
	if err := h.c.Create(ctx, snap); err != nil {
		return nil, fmt.Errorf("creating the resource snapshot a staged run would: %w", err)
	}
	return snap, nil
}

// observation is what the hub agent made of a placement.
type observation struct {
	crp      *placementv1.ClusterResourcePlacement
	snapshot *placementv1.ClusterSchedulingPolicySnapshot
	bindings []placementv1.ClusterResourceBinding
}

// active are the clusters with a scheduled or bound binding.
func active(bs []placementv1.ClusterResourceBinding) map[string]*placementv1.ClusterResourceBinding {
	out := map[string]*placementv1.ClusterResourceBinding{}
	for i := range bs {
		b := &bs[i]
		if b.DeletionTimestamp.IsZero() && b.Spec.State != placementv1.BindingStateUnscheduled {
			out[b.Spec.TargetCluster] = b
		}
	}
	return out
}

// waitScheduled waits until the hub agent has scheduled the placement's current generation: its
// Scheduled condition is current (the placement controller copies it from the latest policy
// snapshot once the scheduler has written that snapshot's status for this generation), and the
// bindings and per-cluster statuses agree with the snapshot's decisions. accept, when set, must also
// hold (used when no generation changes: a member change reschedules a PickAll placement).
func (h *hub) waitScheduled(ctx context.Context, name string, accept func(*observation) bool) (*observation, error) {
	var obs *observation
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		crp, err := h.placement(ctx, name)
		if err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1.ClusterResourcePlacementScheduledConditionType))
		if cond == nil || cond.ObservedGeneration != crp.Generation || cond.Status == metav1.ConditionUnknown {
			last = "the placement's Scheduled condition is not current"
			return false, nil
		}
		snap, err := h.latestPolicySnapshot(ctx, name)
		if errors.Is(err, errNoLatestSnapshot) {
			last = err.Error() // a new snapshot is being cut
			return false, nil
		}
		if err != nil {
			return false, err
		}
		scond := meta.FindStatusCondition(snap.Status.Conditions, string(placementv1.PolicySnapshotScheduled))
		if scond == nil || scond.ObservedGeneration != snap.Generation || snap.Status.ObservedCRPGeneration != crp.Generation {
			last = "the policy snapshot's status is not current"
			return false, nil
		}
		bs, err := h.bindings(ctx, name)
		if err != nil {
			return false, err
		}
		obs = &observation{crp: crp, snapshot: snap, bindings: bs}
		selected := map[string]bool{}
		for _, d := range snap.Status.ClusterDecisions {
			if d.Selected {
				selected[d.ClusterName] = true
			}
		}
		act := active(bs)
		if !sameKeys(selected, act) {
			last = fmt.Sprintf("bindings %v and decisions %v disagree", sortedKeys(act), sortedKeys(selected))
			return false, nil
		}
		named := map[string]bool{}
		for _, ps := range crp.Status.PerClusterPlacementStatuses {
			if ps.ClusterName != "" {
				named[ps.ClusterName] = true
			}
		}
		if !sameKeys(selected, named) {
			last = "the placement's per-cluster statuses lag the snapshot's decisions"
			return false, nil
		}
		if accept != nil && !accept(obs) {
			last = "not yet rescheduled"
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return obs, fmt.Errorf("placement %s: the hub agent did not schedule it (%s): %w", name, last, err)
	}
	return obs, nil
}

// preview runs the scheduling engine over the hub's member clusters as they are now.
func (h *hub) preview(ctx context.Context, in scheduling.Input) (scheduling.Result, error) {
	clusters, err := h.members(ctx)
	if err != nil {
		return scheduling.Result{}, err
	}
	in.Clusters = clusters
	in.Now = time.Now()
	return scheduling.Schedule(in)
}

// before is a placement's state before an update: the bindings the preview starts from, and how
// many of them are scheduled or bound for the policy snapshot the update keeps (0 when the update
// cuts a new snapshot).
type before struct {
	bindings []placementv1.ClusterResourceBinding
	present  int
	// memberChange: the hub reschedules on its own after member events, in as
	// many cycles as the events it batched; how many filtered clusters its
	// truncated (20-entry) list then shows depends on those cycles, so only the
	// picks and the listed reasons are compared, not that count.
	memberChange bool
}

// verdict wording for mismatch messages.
func pickedVerdict(p scheduling.Pick) (string, string) {
	return "selected", fmt.Sprintf("affinity score: %d, topology spread score: %d, %s", p.AffinityScore, p.TopologySpreadScore, p.Change)
}

var (
	// Heartbeat and health reasons carry the time since the event ("last received 10.03 minutes
	// ago"), which differs between the hub agent's cycle and the preview by the seconds between
	// them; such reasons are compared with the number masked.
	minutesAgo = regexp.MustCompile(`\d+(\.\d+)? minutes ago`)
	scoreText  = regexp.MustCompile(`\(affinity score: (-?\d+), topology spread score: (-?\d+)\)`)
)

func normalizeReason(s string) string { return minutesAgo.ReplaceAllString(s, "N minutes ago") }

const notPickedMarker = "does not score high enough"

// comparison collects the mismatches between one preview and what the hub agent did.
type comparison struct {
	policy     string
	spec       string // the policy as JSON, printed with the mismatches
	mismatches []string
	decisions  int
}

func (c *comparison) mismatch(cluster, previewVerdict, previewReason, hubVerdict, hubReason string) {
	c.mismatches = append(c.mismatches, fmt.Sprintf("policy %s: cluster %s:\n    preview:   %s (%s)\n    hub agent: %s (%s)",
		c.policy, cluster, previewVerdict, previewReason, hubVerdict, hubReason))
}

func (c *comparison) general(format string, args ...any) {
	c.mismatches = append(c.mismatches, fmt.Sprintf("policy %s: ", c.policy)+fmt.Sprintf(format, args...))
}

// compare checks a preview against the hub agent's outcome: the picked clusters (and their scores),
// the reason for every unselected cluster the hub lists, which unselected clusters it lists, the
// Scheduled condition, and, after an update (prev != nil), which picks were kept and trimmed.
func compare(name string, policy *placementv1.PlacementPolicy, preview scheduling.Result, obs *observation, prev *before) *comparison {
	c := &comparison{policy: name}
	if b, err := json.Marshal(policy); err == nil {
		c.spec = string(b)
	}
	defaulted := scheduling.Defaulted(policy)
	pickType := placementv1.PickAllPlacementType
	if defaulted != nil {
		pickType = defaulted.PlacementType
	}

	previewPick := map[string]scheduling.Pick{}
	for _, p := range preview.Selected {
		previewPick[p.Cluster] = p
	}
	previewExcluded := map[string]string{}
	var previewNotPicked, previewFilteredNames []string
	previewFiltered := 0
	for _, e := range preview.Excluded {
		previewExcluded[e.Cluster] = e.Reason
		switch {
		case strings.Contains(e.Reason, notPickedMarker):
			previewNotPicked = append(previewNotPicked, e.Cluster)
		case strings.HasPrefix(e.Reason, "ClusterUnschedulable, "):
			previewFiltered++
			previewFilteredNames = append(previewFilteredNames, e.Cluster)
		}
	}
	previewTrimmed := map[string]bool{}
	for _, n := range preview.Trimmed {
		previewTrimmed[n] = true
	}
	previewOf := func(cluster string) (string, string) {
		if p, ok := previewPick[cluster]; ok {
			return pickedVerdict(p)
		}
		r, excluded := previewExcluded[cluster]
		switch {
		case previewTrimmed[cluster] && excluded:
			return "trimmed", r
		case previewTrimmed[cluster]:
			return "trimmed", "its binding is unscheduled"
		case excluded:
			return "not selected", r
		}
		return "not mentioned", "-"
	}

	hubSelected := map[string]placementv1.ClusterDecision{}
	var hubSelectedOrder, hubNotPicked, hubFilteredNames []string
	hubFiltered := 0
	for _, d := range obs.snapshot.Status.ClusterDecisions {
		if d.Selected {
			hubSelected[d.ClusterName] = d
			hubSelectedOrder = append(hubSelectedOrder, d.ClusterName)
			continue
		}
		// An unselected decision: the preview must give the same reason.
		c.decisions++
		reason, excluded := previewExcluded[d.ClusterName]
		if !excluded || normalizeReason(reason) != normalizeReason(d.Reason) {
			pv, pr := previewOf(d.ClusterName)
			c.mismatch(d.ClusterName, pv, pr, "not selected", d.Reason)
		}
		if strings.Contains(d.Reason, notPickedMarker) {
			hubNotPicked = append(hubNotPicked, d.ClusterName)
		} else if strings.HasPrefix(d.Reason, "ClusterUnschedulable, ") {
			hubFiltered++
			hubFilteredNames = append(hubFilteredNames, d.ClusterName)
		}
	}
	hubOf := func(cluster string) (string, string) {
		if d, ok := hubSelected[cluster]; ok {
			return "selected", d.Reason
		}
		for _, d := range obs.snapshot.Status.ClusterDecisions {
			if d.ClusterName == cluster {
				return "not selected", d.Reason
			}
		}
		for _, b := range obs.bindings {
			if b.Spec.TargetCluster == cluster {
				return "not selected", fmt.Sprintf("no decision; binding %s", b.Spec.State)
			}
		}
		return "not selected", "no decision, no binding"
	}

	// The picks: the same clusters, with the same scores.
	all := map[string]bool{}
	for n := range previewPick {
		all[n] = true
	}
	for n := range hubSelected {
		all[n] = true
	}
	for _, n := range sortedKeys(all) {
		c.decisions++
		p, inPreview := previewPick[n]
		d, inHub := hubSelected[n]
		if inPreview != inHub {
			pv, pr := previewOf(n)
			hv, hr := hubOf(n)
			c.mismatch(n, pv, pr, hv, hr)
			continue
		}
		if d.ClusterScore == nil {
			if pickType == placementv1.PickNPlacementType {
				pv, pr := pickedVerdict(p)
				c.mismatch(n, pv, pr, "selected without a score", d.Reason)
			}
			continue
		}
		aff, tsc := int32(0), int32(0)
		if d.ClusterScore.AffinityScore != nil {
			aff = *d.ClusterScore.AffinityScore
		}
		if d.ClusterScore.TopologySpreadScore != nil {
			tsc = *d.ClusterScore.TopologySpreadScore
		}
		if aff != p.AffinityScore || tsc != p.TopologySpreadScore {
			pv, pr := pickedVerdict(p)
			c.mismatch(n, pv, pr, "selected", d.Reason)
		}
	}

	// The scores the placement's status shows per cluster.
	for _, ps := range obs.crp.Status.PerClusterPlacementStatuses {
		if ps.ClusterName == "" {
			continue
		}
		cond := meta.FindStatusCondition(ps.Conditions, string(placementv1.PerClusterScheduledConditionType))
		p, ok := previewPick[ps.ClusterName]
		if cond == nil || !ok {
			continue // reported above
		}
		m := scoreText.FindStringSubmatch(cond.Message)
		if m == nil {
			if pickType == placementv1.PickNPlacementType {
				pv, pr := pickedVerdict(p)
				c.mismatch(ps.ClusterName, pv, pr, "placed without scores in the placement status", cond.Message)
			}
			continue
		}
		if m[1] != strconv.Itoa(int(p.AffinityScore)) || m[2] != strconv.Itoa(int(p.TopologySpreadScore)) {
			pv, pr := pickedVerdict(p)
			c.mismatch(ps.ClusterName, pv, pr, "placed (placement status)", cond.Message)
		}
	}

	// Which unselected clusters the hub lists: the best maxUnselectedDecisions clusters that did not
	// score high enough, in rank order, then the first filtered clusters by name (v0.18.9 sorts them
	// before listing: pkg/scheduler/framework/framework.go: updatePolicySnapshotStatusFromBindings;
	// v0.14.0 listed them in the order its parallel filter finished). A filtered cluster that keeps a
	// binding takes a slot without being listed (pkg/scheduler/framework/frameworkutils.go:
	// newSchedulingDecisionsFromBindings), so the hub's list is a prefix of the preview's filtered
	// clusters, by name. A PickN placement that has as many picks as it needs, or more, runs no
	// scheduling cycle and lists none.
	ranCycle := true
	if pickType == placementv1.PickNPlacementType {
		present := 0
		if prev != nil {
			present = prev.present
		}
		ranCycle = int(*defaulted.NumberOfClusters) > present
	}
	switch {
	case !ranCycle:
		if n := len(obs.snapshot.Status.ClusterDecisions) - len(hubSelected); n > 0 {
			c.general("the hub lists %d unselected clusters although no scheduling cycle ran", n)
		}
	case pickType != placementv1.PickFixedPlacementType:
		want := previewNotPicked
		if len(want) > maxUnselectedDecisions {
			want = want[:maxUnselectedDecisions]
		}
		if strings.Join(want, ",") != strings.Join(hubNotPicked, ",") {
			c.general("clusters listed as not scoring high enough:\n    preview:   %v\n    hub agent: %v", want, hubNotPicked)
		}
		if wantFiltered := min(maxUnselectedDecisions-len(hubNotPicked), previewFiltered); wantFiltered != hubFiltered && (prev == nil || !prev.memberChange) {
			c.general("the hub lists %d filtered clusters, the preview has %d (so the hub should list %d)", hubFiltered, previewFiltered, wantFiltered)
		}
		if !sort.StringsAreSorted(hubFilteredNames) {
			c.general("the hub lists filtered clusters out of name order: %v", hubFilteredNames)
		} else if (prev == nil || !prev.memberChange) && !isPrefix(hubFilteredNames, previewFilteredNames) {
			c.general("filtered clusters listed:\n    preview (first by name): %v\n    hub agent:               %v",
				previewFilteredNames[:min(len(previewFilteredNames), len(hubFilteredNames))], hubFilteredNames)
		}
	default:
		problems := 0
		for _, e := range preview.Excluded {
			if !strings.Contains(e.Reason, "is not in the policy's clusterNames") {
				problems++
			}
		}
		if hubUnselected := len(obs.snapshot.Status.ClusterDecisions) - len(hubSelected); problems != hubUnselected {
			c.general("the hub lists %d listed clusters it cannot pick, the preview %d", hubUnselected, problems)
		}
	}

	// Rank order, where the hub's decisions keep it: a placement scheduled in one cycle from no
	// bindings lists its picks in the order it picked them.
	if prev == nil && preview.Cycles == 1 {
		var want []string
		for _, p := range preview.Selected {
			want = append(want, p.Cluster)
		}
		if strings.Join(want, ",") != strings.Join(hubSelectedOrder, ",") {
			c.general("picks in rank order:\n    preview:   %v\n    hub agent: %v", want, hubSelectedOrder)
		}
	}

	// The Scheduled condition: the snapshot's, and the placement's copy of it.
	scond := meta.FindStatusCondition(obs.snapshot.Status.Conditions, string(placementv1.PolicySnapshotScheduled))
	wantStatus := metav1.ConditionFalse
	if preview.Fulfilled {
		wantStatus = metav1.ConditionTrue
	}
	if scond.Status != wantStatus || scond.Reason != preview.Reason || scond.Message != preview.Message {
		c.general("Scheduled condition:\n    preview:   %s %s %q\n    hub agent: %s %s %q", wantStatus, preview.Reason, preview.Message, scond.Status, scond.Reason, scond.Message)
	}
	if ccond := meta.FindStatusCondition(obs.crp.Status.Conditions, string(placementv1.ClusterResourcePlacementScheduledConditionType)); ccond.Status != scond.Status || ccond.Reason != scond.Reason || ccond.Message != scond.Message {
		c.general("the placement's Scheduled condition (%s %s %q) differs from its policy snapshot's (%s %s %q)", ccond.Status, ccond.Reason, ccond.Message, scond.Status, scond.Reason, scond.Message)
	}

	// After an update: kept and added picks, and trimmed bindings.
	if prev != nil {
		was := active(prev.bindings)
		now := active(obs.bindings)
		for _, p := range preview.Selected {
			c.decisions++
			_, placed := was[p.Cluster]
			if (p.Change == scheduling.ChangeKept) != placed {
				pv, pr := pickedVerdict(p)
				hv := "added"
				if placed {
					hv = "kept"
				}
				c.mismatch(p.Cluster, pv, pr, hv, "binding before the update: "+fmt.Sprint(placed))
			}
		}
		hubTrimmed := map[string]bool{}
		for n := range was {
			if _, still := now[n]; !still {
				hubTrimmed[n] = true
			}
		}
		if !sameKeys(hubTrimmed, previewTrimmed) {
			c.general("trimmed bindings:\n    preview:   %v\n    hub agent: %v", preview.Trimmed, sortedKeys(hubTrimmed))
		}
		c.decisions += len(hubTrimmed)
	}
	return c
}

// isPrefix: a is b's beginning.
func isPrefix(a, b []string) bool {
	return len(a) <= len(b) && strings.Join(a, "\x00") == strings.Join(b[:len(a)], "\x00")
}

func sameKeys[A, B any](a map[string]A, b map[string]B) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
