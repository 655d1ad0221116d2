package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/override"
)

const (
	overrideSeed  = 20261126
	overrideCases = 110
)

// overrideTally counts what TestOverrideConformance compared.
type overrideTally struct {
	cases, clusters, manifests, failures, deletes, patched, groups, mismatches atomic.Int64
}

// TestOverrideConformance places generated resources with generated ClusterResourceOverrides and
// ResourceOverrides through KubeFleet v0.18.9's real hub agent and compares, for every cluster of
// every placement, the override preview (internal/engine/override.Preview) with what the hub agent
// did: the override snapshots on the cluster's binding, and either the manifests of the Work it
// wrote in fleet-member-<cluster> (normalised: JSON keys sorted) or its Overridden=False message.
// Agreement must be 100 %.
func TestOverrideConformance(t *testing.T) {
	if fleetEnv == nil {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	h := connect(t, fleetEnv)
	if err := h.waitFleetSettled(ctx, fleet); err != nil {
		t.Fatal(err)
	}
	healthy, _, _ := sampleMembers(fleet)
	cases := OverrideCases(overrideSeed, overrideCases, healthy)
	var tl overrideTally
	jobs := make(chan OverrideCase)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				if errs := runOverrideCase(ctx, h, c, &tl); len(errs) > 0 {
					tl.mismatches.Add(int64(len(errs)))
					cro, _ := json.Marshal(c.CROs)
					ro, _ := json.Marshal(c.ROs)
					t.Errorf("%s on %v (CROs %s, ROs %s):\n  %s", c.Name, c.Members, cro, ro, strings.Join(errs, "\n  "))
				}
				tl.cases.Add(1)
			}
		}()
	}
	for _, c := range cases {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	t.Logf("overrides: %d placements, %d clusters, %d manifests compared with the hub agent's Works (%d patched, %d deleted), %d clusters refused by the hub agent, %d distinct renderings in the previews; %d mismatches, in %s",
		tl.cases.Load(), tl.clusters.Load(), tl.manifests.Load(), tl.patched.Load(), tl.deletes.Load(), tl.failures.Load(), tl.groups.Load(), tl.mismatches.Load(), time.Since(start).Round(time.Millisecond))
	if tl.failures.Load() == 0 || tl.deletes.Load() == 0 || tl.patched.Load() == 0 {
		t.Errorf("the generated cases must hold refusals, deletes and patches")
	}
}

// runOverrideCase creates the case's objects, overrides and placement, waits for the hub agent's
// verdict on every binding, compares it with the preview and removes what it created. It returns
// the mismatches.
func runOverrideCase(ctx context.Context, h *hub, c OverrideCase, tl *overrideTally) []string {
	fail := func(format string, args ...any) []string { return []string{fmt.Sprintf(format, args...)} }
	objs := caseObjects(c)
	for i, o := range objs {
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON([]byte(o)); err != nil {
			return fail("%v", err)
		}
		if err := h.c.Create(ctx, &u); err != nil && (i != 0 || !apierrors.IsAlreadyExists(err)) {
			return fail("creating %s: %v", o, err)
		}
		if i > 0 {
			defer func() { _ = h.c.Delete(context.Background(), &u) }()
		}
	}
	var overrides []override.Override
	for i := range c.CROs {
		cro := c.CROs[i].DeepCopy()
		if err := h.c.Create(ctx, cro); err != nil {
			return fail("creating %s: %v", cro.Name, err)
		}
		defer func() { _ = h.c.Delete(context.Background(), cro) }()
		o, err := asEngineOverride("", cro.Name, cro.Spec, nil)
		if err != nil {
			return fail("%v", err)
		}
		overrides = append(overrides, o)
	}
	for i := range c.ROs {
		ro := c.ROs[i].DeepCopy()
		if err := h.c.Create(ctx, ro); err != nil {
			return fail("creating %s: %v", ro.Name, err)
		}
		defer func() { _ = h.c.Delete(context.Background(), ro) }()
		spec := placementv1.ClusterResourceOverrideSpec{Placement: ro.Spec.Placement, Policy: ro.Spec.Policy}
		o, err := asEngineOverride(ro.Namespace, ro.Name, spec, ro.Spec.ResourceSelectors)
		if err != nil {
			return fail("%v", err)
		}
		overrides = append(overrides, o)
	}
	// The override controller snapshots each override; the placement comes after, so its first
	// rollout sees them.
	for _, o := range overrides {
		var snap client.Object = &placementv1.ClusterResourceOverrideSnapshot{}
		if o.Namespace != "" {
			snap = &placementv1.ResourceOverrideSnapshot{}
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			err := h.c.Get(ctx, types.NamespacedName{Namespace: o.Namespace, Name: o.Snapshot}, snap)
			return err == nil, client.IgnoreNotFound(err)
		}); err != nil {
			return fail("waiting for override snapshot %s: %v", o.Snapshot, err)
		}
	}
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{
				{Version: "v1", Kind: "Namespace", Name: c.Name},
				{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: c.Name},
			},
			Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: c.Members},
		},
	}
	if err := h.c.Create(ctx, crp); err != nil {
		return fail("creating the placement: %v", err)
	}
	defer func() { _ = h.deletePlacementAndWait(context.Background(), c.Name) }()

	// The hub agent's verdict: every binding synchronised its Work or failed to override.
	var bindings []placementv1.ClusterResourceBinding
	var last string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var bl placementv1.ClusterResourceBindingList
		if err := h.c.List(ctx, &bl, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: c.Name}); err != nil {
			return false, err
		}
		if len(bl.Items) != len(c.Members) {
			last = fmt.Sprintf("%d bindings", len(bl.Items))
			return false, nil
		}
		for _, b := range bl.Items {
			ov := meta.FindStatusCondition(b.Status.Conditions, string(placementv1.ResourceBindingOverridden))
			ws := meta.FindStatusCondition(b.Status.Conditions, string(placementv1.ResourceBindingWorkSynchronized))
			done := ov != nil && ov.ObservedGeneration == b.Generation &&
				(ov.Status == metav1.ConditionFalse || ws != nil && ws.ObservedGeneration == b.Generation && ws.Status == metav1.ConditionTrue)
			if b.Spec.State != placementv1.BindingStateBound || !done {
				last = fmt.Sprintf("binding %s (%s): not synchronised", b.Name, b.Spec.State)
				return false, nil
			}
		}
		bindings = bl.Items
		return true, nil
	})
	if err != nil {
		return fail("waiting for the hub agent: %s: %v", last, err)
	}
	var snaps placementv1.ClusterResourceSnapshotList
	if err := h.c.List(ctx, &snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: c.Name}); err != nil || len(snaps.Items) != 1 {
		return fail("resource snapshots: %d, %v", len(snaps.Items), err)
	}
	var resources [][]byte
	for _, r := range snaps.Items[0].Spec.SelectedResources {
		resources = append(resources, r.Raw)
	}
	members, err := h.members(ctx)
	if err != nil {
		return fail("%v", err)
	}
	labelsOf := map[string]map[string]string{}
	for _, m := range members {
		labelsOf[m.Name] = m.Labels
	}
	clusters := make([]override.Cluster, 0, len(bindings))
	for _, b := range bindings {
		clusters = append(clusters, override.Cluster{Name: b.Spec.TargetCluster, Labels: labelsOf[b.Spec.TargetCluster]})
	}
	preview, err := override.Preview(c.Name, resources, clusters, overrides, nil)
	if err != nil {
		return fail("preview: %v", err)
	}
	// What the preview says each cluster's Work holds, resource by resource, or its first failure.
	type expect struct {
		manifests [][]byte
		failure   string
	}
	want := map[string]*expect{}
	for _, cl := range clusters {
		want[cl.Name] = &expect{}
	}
	for _, rp := range preview {
		tl.groups.Add(int64(len(rp.Groups)))
	}
	for _, cl := range clusters {
		e := want[cl.Name]
		for _, rp := range preview {
			g := groupOf(rp, cl.Name)
			switch {
			case e.failure != "":
			case g.Outcome == override.Failed:
				e.failure = g.Error
			case g.Outcome == override.Deleted:
				tl.deletes.Add(1)
			default:
				if g.Outcome == override.Patched {
					tl.patched.Add(1)
				}
				e.manifests = append(e.manifests, g.Manifest)
			}
		}
	}
	cros, ros, err := override.Matching(c.Name, resources, overrides)
	if err != nil {
		return fail("%v", err)
	}
	var errs []string
	for _, b := range bindings {
		cl := b.Spec.TargetCluster
		tl.clusters.Add(1)
		pc, pr, err := override.ForCluster(override.Cluster{Name: cl, Labels: labelsOf[cl]}, cros, ros)
		if err != nil {
			return fail("%v", err)
		}
		if got, w := fmt.Sprint(b.Spec.ClusterResourceOverrideSnapshots), fmt.Sprint(snapshotNames(pc)); got != w {
			errs = append(errs, fmt.Sprintf("%s: ClusterResourceOverride snapshots %s, the preview %s", cl, got, w))
		}
		if got, w := fmt.Sprint(b.Spec.ResourceOverrideSnapshots), fmt.Sprint(namespacedSnapshotNames(pr)); got != w {
			errs = append(errs, fmt.Sprintf("%s: ResourceOverride snapshots %s, the preview %s", cl, got, w))
		}
		e := want[cl]
		ov := meta.FindStatusCondition(b.Status.Conditions, string(placementv1.ResourceBindingOverridden))
		if e.failure != "" {
			tl.failures.Add(1)
			if w := "Failed to apply the override rules on the resources: " + e.failure; ov.Status != metav1.ConditionFalse || ov.Message != w {
				errs = append(errs, fmt.Sprintf("%s: the preview fails %q; the hub agent: Overridden %s %q", cl, w, ov.Status, ov.Message))
			}
			continue
		}
		if ov.Status != metav1.ConditionTrue {
			errs = append(errs, fmt.Sprintf("%s: the preview renders; the hub agent: Overridden %s %q", cl, ov.Status, ov.Message))
			continue
		}
		var work placementv1.Work
		if err := h.c.Get(ctx, types.NamespacedName{Namespace: "fleet-member-" + cl, Name: c.Name + "-work"}, &work); err != nil {
			errs = append(errs, fmt.Sprintf("%s: the Work: %v", cl, err))
			continue
		}
		got := work.Spec.Workload.Manifests
		if len(got) != len(e.manifests) {
			errs = append(errs, fmt.Sprintf("%s: the Work holds %d manifests, the preview %d", cl, len(got), len(e.manifests)))
			continue
		}
		for i := range got {
			tl.manifests.Add(1)
			if g, w := override.Canonical(got[i].Raw), override.Canonical(e.manifests[i]); string(g) != string(w) {
				errs = append(errs, fmt.Sprintf("%s: manifest %d:\n    hub agent %s\n    preview   %s", cl, i, g, w))
			}
		}
	}
	return errs
}

func groupOf(rp override.ResourcePreview, cluster string) override.Group {
	for _, g := range rp.Groups {
		for _, c := range g.Clusters {
			if c == cluster {
				return g
			}
		}
	}
	return override.Group{Outcome: override.Failed, Error: "cluster missing from the preview"}
}

func snapshotNames(os []override.Override) []string {
	out := []string{}
	for _, o := range os {
		out = append(out, o.Snapshot)
	}
	return out
}

func namespacedSnapshotNames(os []override.Override) []placementv1.NamespacedName {
	out := []placementv1.NamespacedName{}
	for _, o := range os {
		out = append(out, placementv1.NamespacedName{Namespace: o.Namespace, Name: o.Snapshot})
	}
	return out
}

// asEngineOverride is a v1 override's first snapshot as the engine takes it (v1beta1 types, the
// same JSON).
func asEngineOverride(ns, name string, spec placementv1.ClusterResourceOverrideSpec, selectors []placementv1.ResourceSelector) (override.Override, error) {
	o := override.Override{Namespace: ns, Name: name, Snapshot: override.SnapshotName(name, 0)}
	b, err := json.Marshal(spec)
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(b, &o.Spec); err != nil {
		return o, err
	}
	if selectors != nil {
		b, _ = json.Marshal(selectors)
		if err := json.Unmarshal(b, &o.ResourceSelectors); err != nil {
			return o, err
		}
	}
	return o, nil
}
