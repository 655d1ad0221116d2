package hub_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub/hubtest"
)

func placementObject(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": placementv1.GroupVersion.String(), "kind": placementv1beta1.ClusterResourcePlacementKind,
		"metadata": map[string]any{"name": "p", "finalizers": []any{"kubernetes-fleet.io/crp-cleanup"}},
		"spec":     spec,
	}}
}

// An update writes only the fields the provider manages: what the hub or newer KubeFleet added
// (applyStrategy, unknown fields, finalizers) stays; selection scopes are written and read back.
func TestUpdatePlacementSpecKeepsUnmanagedFields(t *testing.T) {
	ctx := context.Background()
	c := hubtest.New(t, placementObject(map[string]any{
		"resourceSelectors": []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "old"}},
		"policy":            map[string]any{"placementType": "PickN", "numberOfClusters": int64(2)},
		"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%"},
			"applyStrategy": map[string]any{"type": "ServerSideApply"}},
		"futureField": "kept",
	}))
	want := &hub.Placement{SelectionScopes: []string{"", "NamespaceOnly"}}
	want.Name = "p"
	want.Spec.ResourceSelectors = []placementv1.ResourceSelectorTerm{
		{Version: "v1", Kind: "Namespace", Name: "web"}, {Version: "v1", Kind: "Namespace", Name: "db"},
	}
	want.Spec.Strategy = placementv1.RolloutStrategy{Type: placementv1.ExternalRolloutStrategyType}
	got, err := c.UpdatePlacementSpec(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Policy != nil {
		t.Error("a removed policy should be removed")
	}
	if s := got.Spec.Strategy; s.Type != placementv1.ExternalRolloutStrategyType || s.RollingUpdate != nil {
		t.Errorf("strategy %+v: want External without rollingUpdate", s)
	}
	if s := got.Spec.Strategy.ApplyStrategy; s == nil || s.Type != placementv1.ApplyStrategyTypeServerSideApply {
		t.Errorf("applyStrategy, which the provider does not manage, was dropped: %+v", s)
	}
	if len(got.Finalizers) != 1 {
		t.Errorf("finalizers dropped: %v", got.Finalizers)
	}
	if len(got.Spec.ResourceSelectors) != 2 || got.Spec.ResourceSelectors[0].Name != "web" {
		t.Errorf("resource selectors not written: %+v", got.Spec.ResourceSelectors)
	}
	if got.SelectionScope(0) != "" || got.SelectionScope(1) != "NamespaceOnly" || got.SelectionScope(7) != "" {
		t.Errorf("selection scopes %q: want [\"\" NamespaceOnly]", got.SelectionScopes)
	}
	// The field the typed API does not know survives too.
	raw, err := c.Placement(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if raw.SelectionScope(1) != "NamespaceOnly" {
		t.Errorf("read back: selection scopes %q", raw.SelectionScopes)
	}
}

func TestPlacementCreateDeleteGone(t *testing.T) {
	ctx := context.Background()
	c := hubtest.New(t)
	p := &hub.Placement{SelectionScopes: []string{"NamespaceOnly"}}
	p.Name = "p"
	p.Spec.ResourceSelectors = []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "web"}}
	got, err := c.CreatePlacement(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "p" || got.SelectionScope(0) != "NamespaceOnly" {
		t.Fatalf("created %+v", got)
	}
	if _, err := c.CreatePlacement(ctx, p); !hub.IsAlreadyExists(err) {
		t.Fatalf("a second create: want AlreadyExists, got %v", err)
	}
	if err := c.DeletePlacement(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeletePlacement(ctx, "p"); err != nil {
		t.Fatalf("deleting a missing placement is not an error: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.WaitPlacementGone(wctx, "p", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Placement(ctx, "p"); !hub.IsNotFound(err) {
		t.Fatalf("want NotFound, got %v", err)
	}
}

func TestWaitPlacementGoneHonoursCancellation(t *testing.T) {
	c := hubtest.New(t, placementObject(map[string]any{}))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.WaitPlacementGone(ctx, "p", time.Hour); err == nil {
		t.Fatal("the placement is still there: want an error once the context ends")
	}
}

func crd(selectionScope bool) *unstructured.Unstructured {
	props := map[string]any{"kind": map[string]any{"type": "string"}}
	if selectionScope {
		props["selectionScope"] = map[string]any{"type": "string"}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "clusterresourceplacements.placement.kubernetes-fleet.io"},
		"spec": map[string]any{"versions": []any{
			map[string]any{"name": "v1beta1", "schema": map[string]any{}},
			map[string]any{"name": "v1", "schema": map[string]any{"openAPIV3Schema": map[string]any{"properties": map[string]any{
				"spec": map[string]any{"properties": map[string]any{"resourceSelectors": map[string]any{"items": map[string]any{"properties": props}}}},
			}}}},
		}},
	}}
}

func TestSupportsSelectionScope(t *testing.T) {
	ctx := context.Background()
	for _, want := range []bool{false, true} {
		got, err := hubtest.New(t, crd(want)).SupportsSelectionScope(ctx)
		if err != nil || got != want {
			t.Errorf("CRD with selectionScope %t: got %t, %v", want, got, err)
		}
	}
	if _, err := hubtest.New(t).SupportsSelectionScope(ctx); err == nil {
		t.Error("a hub without the CRD: want an error saying it is not a KubeFleet hub")
	}
}

func snapshot(name, index string, master, latest bool, created time.Time) *placementv1.ClusterResourceSnapshot {
	s := &placementv1.ClusterResourceSnapshot{
		TypeMeta: metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: placementv1beta1.ClusterResourceSnapshotKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created), Labels: map[string]string{
			placementv1beta1.PlacementTrackingLabel: "p", placementv1beta1.ResourceIndexLabel: index,
			placementv1beta1.IsLatestSnapshotLabel: map[bool]string{true: "true", false: "false"}[latest],
		}},
	}
	if master {
		s.Annotations = map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "h" + index}
	}
	return s
}

func binding(name, cluster, snapshot string, state placementv1.BindingState) *placementv1.ClusterResourceBinding {
	return &placementv1.ClusterResourceBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: placementv1beta1.ClusterResourceBindingKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: "p"}},
		Spec:       placementv1.ResourceBindingSpec{TargetCluster: cluster, ResourceSnapshotName: snapshot, State: state},
	}
}

// The snapshot history lists master snapshots by index (10 after 9, not after 1); each cluster's
// index comes from its live binding's snapshot, by label or, for a snapshot already removed, by name.
func TestResourceVersions(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	c := hubtest.New(t,
		snapshot("p-9-snapshot", "9", true, false, t0),
		snapshot("p-10-snapshot", "10", true, true, t0.Add(time.Hour)),
		snapshot("p-10-1", "10", false, true, t0.Add(time.Hour)),
		snapshot("p-2-snapshot", "2", true, false, t0.Add(-time.Hour)),
		binding("a-1", "a", "p-10-snapshot", placementv1.BindingStateBound),
		binding("b-1", "b", "p-9-snapshot", placementv1.BindingStateUnscheduled),
		binding("b-2", "b", "p-2-snapshot", placementv1.BindingStateScheduled),
		binding("c-1", "c", "", placementv1.BindingStateScheduled),
		binding("d-1", "d", "p-1-snapshot", placementv1.BindingStateBound),
	)
	v, err := c.ResourceVersions(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	if v.Latest != "10" {
		t.Errorf("latest %q, want 10", v.Latest)
	}
	want := []hub.ResourceSnapshot{{Index: "2", CreatedAt: t0.Add(-time.Hour)}, {Index: "9", CreatedAt: t0}, {Index: "10", CreatedAt: t0.Add(time.Hour)}}
	if len(v.Snapshots) != len(want) {
		t.Fatalf("snapshots %+v, want %+v", v.Snapshots, want)
	}
	for i := range want {
		if v.Snapshots[i].Index != want[i].Index || !v.Snapshots[i].CreatedAt.Equal(want[i].CreatedAt) {
			t.Errorf("snapshots[%d] = %+v, want %+v", i, v.Snapshots[i], want[i])
		}
	}
	wantBy := map[string]string{"a": "10", "b": "2", "d": "1"}
	if len(v.ByCluster) != len(wantBy) {
		t.Errorf("by cluster %v, want %v (c has no snapshot yet)", v.ByCluster, wantBy)
	}
	for k, idx := range wantBy {
		if v.ByCluster[k] != idx {
			t.Errorf("cluster %s: index %q, want %q", k, v.ByCluster[k], idx)
		}
	}
}

// Before the hub agent has cut a snapshot there is no latest index; without a latest label the
// highest index is the latest.
func TestResourceVersionsEmptyAndUnlabelled(t *testing.T) {
	v, err := hubtest.New(t).ResourceVersions(context.Background(), "p")
	if err != nil || v.Latest != "" || len(v.Snapshots) != 0 || len(v.ByCluster) != 0 {
		t.Fatalf("empty hub: %+v, %v", v, err)
	}
	t0 := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	v, err = hubtest.New(t, snapshot("p-0-snapshot", "0", true, false, t0), snapshot("p-1-snapshot", "1", true, false, t0)).ResourceVersions(context.Background(), "p")
	if err != nil || v.Latest != "1" {
		t.Fatalf("unlabelled: latest %q, %v", v.Latest, err)
	}
}
