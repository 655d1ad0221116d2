package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// The namespace-scoped ResourcePlacement's previews against KubeFleet v0.18.9's hub agent. The
// provider previews both kinds with the same scheduling engine, because v0.18.9 schedules both
// with one scheduler and one profile (pkg/scheduler/scheduler.go, pkg/scheduler/profile/profile.go;
// the one plugin that tells them apart, namespaceaffinity, filters only on members that report
// namespace collection, which the local fleet's members, like member agents without
// --enable-namespace-collection, do not). This test checks that claim against the real hub agent:
// every generated policy of the cluster-scoped test, as a ResourcePlacement selecting a ConfigMap
// of the app namespace, compared with the same compare().

// appConfigMap is the ConfigMap every ResourcePlacement here selects.
const appConfigMap = "conformance-config"

// rpRandomPolicies is how many random policies the ResourcePlacement phase adds to the hand-written
// ones (every filter, score and pick feature): a ResourcePlacement is scheduled by the same framework
// and plugins as a ClusterResourcePlacement, whose phase compares all 60, so a dozen mixed ones check
// the namespaced path without doubling the package's time (about 4 s a policy on two cores).
const rpRandomPolicies = 12

// TestResourcePlacementConformance compares, for every generated policy, the scheduling preview
// with what the hub agent does with a ResourcePlacement of that policy: the picks and their scores,
// the reason for every unselected cluster the hub lists, and the Scheduled condition; then one
// stateful step (scaling a PickN out and in) previewed from the placement's ResourceBindings.
// Agreement must be 100 %.
func TestResourcePlacementConformance(t *testing.T) {
	if fleetEnv == nil {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	h := connectRP(t)
	if err := h.waitFleetSettled(ctx, fleet); err != nil {
		t.Fatal(err)
	}
	if err := h.ensureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	err := h.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: appNamespace, Name: appConfigMap}, Data: map[string]string{"k": "v"}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var n tally
	report := func(t *testing.T, c *comparison) {
		t.Helper()
		n.policies.Add(1)
		n.decisions.Add(int64(c.decisions))
		n.mismatches.Add(int64(len(c.mismatches)))
		if len(c.mismatches) > 0 {
			t.Logf("policy %s: %s", c.policy, c.spec)
		}
		for _, m := range c.mismatches {
			t.Error(m)
		}
	}

	t.Run("policies", func(t *testing.T) {
		policies := interleave(Policies(fleet, seed, rpRandomPolicies))
		jobs := make(chan Policy)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range jobs {
					t.Run(p.Name, func(t *testing.T) {
						c, err := h.runOnceRP(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						report(t, c)
					})
				}
			}()
		}
		for _, p := range policies {
			jobs <- p
		}
		close(jobs)
		wg.Wait()
	})
	generated := n.policies.Load()

	t.Run("scale", func(t *testing.T) {
		// PickN 3, then 6 (kept picks stay, three are added), then 2 (the lowest-scored are
		// trimmed): each step previewed from the ResourceBindings the placement has.
		name := "rp-scale"
		defer func() { _ = h.deleteRP(ctx, name) }()
		policy := pickN(3, preferred(pref(40, sorter(PropNodeCount, placementv1.Descending))))
		c, err := h.runStepRP(ctx, name, nil, policy)
		if err != nil {
			t.Fatal(err)
		}
		report(t, c)
		for _, k := range []int32{6, 2} {
			prev := policy
			policy = policy.DeepCopy()
			policy.NumberOfClusters = &k
			c, err := h.runStepRP(ctx, name, prev, policy)
			if err != nil {
				t.Fatal(err)
			}
			report(t, c)
		}
	})

	t.Logf("compared %d ResourcePlacement scheduling outcomes (%d generated policies, %d stateful steps) and %d per-cluster decisions in %s: %d mismatches",
		n.policies.Load(), generated, n.policies.Load()-generated, n.decisions.Load(), time.Since(start).Round(time.Millisecond), n.mismatches.Load())
	if n.policies.Load() == 0 {
		t.Error("nothing compared")
	}
	if n.mismatches.Load() > 0 {
		t.Errorf("the preview disagrees with the hub agent %d times on ResourcePlacements; 100 %% agreement required", n.mismatches.Load())
	}
}

// runOnceRP previews a policy, creates its ResourcePlacement, waits for the hub agent, compares
// and deletes it.
func (h *hub) runOnceRP(ctx context.Context, p Policy) (*comparison, error) {
	preview, err := h.preview(ctx, scheduling.Input{Policy: p.Policy})
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	name := "rp-" + p.Name
	if err := h.createRP(ctx, name, p.Policy); err != nil {
		return nil, err
	}
	obs, err := h.waitScheduledRP(ctx, name)
	if err != nil {
		_ = h.deleteRP(ctx, name)
		return nil, err
	}
	c := compare(p.Name, p.Policy, preview, obs, nil)
	if err := h.deleteRPAndWait(ctx, name); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	return c, nil
}

// runStepRP creates the ResourcePlacement (prev nil) or updates its policy, previewing from the
// bindings and latest policy snapshot it has before, and compares.
func (h *hub) runStepRP(ctx context.Context, name string, prev, policy *placementv1.PlacementPolicy) (*comparison, error) {
	in := scheduling.Input{Policy: policy}
	var bf *before
	if prev != nil {
		bs, err := h.rpBindings(ctx, name)
		if err != nil {
			return nil, err
		}
		snap, err := h.rpLatestPolicySnapshot(ctx, name)
		if err != nil {
			return nil, err
		}
		in.PolicyChanged = scheduling.NeedsNewSnapshot(prev, policy)
		in.Bindings = scheduling.BindingsFromAPI(bs, snap.Name)
		bf = &before{bindings: bs}
		for _, b := range active(bs) {
			if b.Spec.SchedulingPolicySnapshotName == snap.Name {
				bf.present++
			}
		}
	}
	preview, err := h.preview(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	if prev == nil {
		err = h.createRP(ctx, name, policy)
	} else {
		err = h.setRPPolicy(ctx, name, policy)
	}
	if err != nil {
		return nil, err
	}
	obs, err := h.waitScheduledRP(ctx, name)
	if err != nil {
		return nil, err
	}
	return compare(name, policy, preview, obs, bf), nil
}

// createRP creates a ResourcePlacement of the app namespace selecting its ConfigMap, with the
// External strategy (no Works; bindings stay Scheduled).
func (h *hub) createRP(ctx context.Context, name string, policy *placementv1.PlacementPolicy) error {
	return h.c.Create(ctx, &placementv1.ResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Namespace: appNamespace, Name: name},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "ConfigMap", Name: appConfigMap}},
			Policy:            policy.DeepCopy(),
			Strategy:          placementv1.RolloutStrategy{Type: placementv1.ExternalRolloutStrategyType},
		},
	})
}

func (h *hub) rp(ctx context.Context, name string) (*placementv1.ResourcePlacement, error) {
	rp := &placementv1.ResourcePlacement{}
	return rp, h.c.Get(ctx, client.ObjectKey{Namespace: appNamespace, Name: name}, rp)
}

func (h *hub) setRPPolicy(ctx context.Context, name string, policy *placementv1.PlacementPolicy) error {
	for range 20 {
		rp, err := h.rp(ctx, name)
		if err != nil {
			return err
		}
		rp.Spec.Policy = policy.DeepCopy()
		err = h.c.Update(ctx, rp)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return errors.New("too many conflicts")
}

func (h *hub) deleteRP(ctx context.Context, name string) error {
	err := h.c.Delete(ctx, &placementv1.ResourcePlacement{ObjectMeta: metav1.ObjectMeta{Namespace: appNamespace, Name: name}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (h *hub) deleteRPAndWait(ctx context.Context, name string) error {
	if err := h.deleteRP(ctx, name); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, deleteWait, true, func(ctx context.Context) (bool, error) {
		_, err := h.rp(ctx, name)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// connectRP is connect with KubeFleet's v1beta1 types too: v0.18.9 serves a ResourcePlacement's
// ResourceBindings and SchedulingPolicySnapshots in v1beta1 only
// (config/crd/bases/placement.kubernetes-fleet.io_{resourcebindings,schedulingpolicysnapshots}.yaml).
func connectRP(t testing.TB) *hub {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", fleetEnv["KUBE_CONFIG_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	s := localfleet.HubScheme()
	if err := placementv1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return &hub{c: c, adminURL: fleetEnv[localfleet.EnvAdminURL]}
}

// asV1 re-decodes a v1beta1 object as its v1 twin (the same JSON: both versions are served from
// one stored object without conversion).
func asV1[T any](from any) (T, error) {
	var out T
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// rpBindings are the ResourcePlacement's ResourceBindings as ClusterResourceBindings (the two
// kinds share spec and status: apis/placement/v1beta1/binding_types.go).
func (h *hub) rpBindings(ctx context.Context, name string) ([]placementv1.ClusterResourceBinding, error) {
	var list placementv1beta1.ResourceBindingList
	if err := h.c.List(ctx, &list, client.InNamespace(appNamespace), client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name}); err != nil {
		return nil, err
	}
	out := make([]placementv1.ClusterResourceBinding, 0, len(list.Items))
	for i := range list.Items {
		b, err := asV1[placementv1.ClusterResourceBinding](&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// rpLatestPolicySnapshot is the ResourcePlacement's latest SchedulingPolicySnapshot as a
// ClusterSchedulingPolicySnapshot (same spec and status: apis/placement/v1beta1/policysnapshot_types.go).
func (h *hub) rpLatestPolicySnapshot(ctx context.Context, name string) (*placementv1.ClusterSchedulingPolicySnapshot, error) {
	var list placementv1beta1.SchedulingPolicySnapshotList
	if err := h.c.List(ctx, &list, client.InNamespace(appNamespace),
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%w: %d of them", errNoLatestSnapshot, len(list.Items))
	}
	s, err := asV1[placementv1.ClusterSchedulingPolicySnapshot](&list.Items[0])
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// asClusterPlacement is the ResourcePlacement as the ClusterResourcePlacement compare() reads: the
// same spec and status, with the placement-level condition types renamed (ResourcePlacementX →
// ClusterResourcePlacementX; apis/placement/v1/clusterresourceplacement_types.go). Per-cluster
// conditions are the same for both kinds.
func asClusterPlacement(rp *placementv1.ResourcePlacement) *placementv1.ClusterResourcePlacement {
	crp := &placementv1.ClusterResourcePlacement{ObjectMeta: rp.ObjectMeta, Spec: *rp.Spec.DeepCopy(), Status: *rp.Status.DeepCopy()}
	for i := range crp.Status.Conditions {
		if t := crp.Status.Conditions[i].Type; strings.HasPrefix(t, "ResourcePlacement") {
			crp.Status.Conditions[i].Type = "Cluster" + t
		}
	}
	return crp
}

// waitScheduledRP is waitScheduled for a ResourcePlacement: its ResourcePlacementScheduled
// condition is current, its latest SchedulingPolicySnapshot's status is, and its ResourceBindings
// and per-cluster statuses agree with the snapshot's decisions.
func (h *hub) waitScheduledRP(ctx context.Context, name string) (*observation, error) {
	var obs *observation
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		rp, err := h.rp(ctx, name)
		if err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(rp.Status.Conditions, string(placementv1.ResourcePlacementScheduledConditionType))
		if cond == nil || cond.ObservedGeneration != rp.Generation || cond.Status == metav1.ConditionUnknown {
			last = "the placement's ResourcePlacementScheduled condition is not current"
			return false, nil
		}
		snap, err := h.rpLatestPolicySnapshot(ctx, name)
		if errors.Is(err, errNoLatestSnapshot) {
			last = err.Error()
			return false, nil
		}
		if err != nil {
			return false, err
		}
		scond := meta.FindStatusCondition(snap.Status.Conditions, string(placementv1.PolicySnapshotScheduled))
		if scond == nil || scond.ObservedGeneration != snap.Generation || snap.Status.ObservedCRPGeneration != rp.Generation {
			last = "the policy snapshot's status is not current"
			return false, nil
		}
		bs, err := h.rpBindings(ctx, name)
		if err != nil {
			return false, err
		}
		obs = &observation{crp: asClusterPlacement(rp), snapshot: snap, bindings: bs}
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
		for _, ps := range rp.Status.PerClusterPlacementStatuses {
			if ps.ClusterName != "" {
				named[ps.ClusterName] = true
			}
		}
		if !sameKeys(selected, named) {
			last = "the placement's per-cluster statuses lag the snapshot's decisions"
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return obs, fmt.Errorf("ResourcePlacement %s/%s: the hub agent did not schedule it (%s): %w", appNamespace, name, last, err)
	}
	return obs, nil
}
