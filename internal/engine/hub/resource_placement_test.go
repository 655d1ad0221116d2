package hub_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub/hubtest"
)

// namespaced turns a cluster-scoped twin (snapshot, binding) into the ResourcePlacement's kind in ns.
func namespaced(o metav1.Object, kind, ns string) runtime.Object {
	o.SetNamespace(ns)
	ro, ok := o.(runtime.Object)
	if !ok {
		panic("namespaced: not a runtime.Object")
	}
	ro.GetObjectKind().SetGroupVersionKind(placementv1.GroupVersion.WithKind(kind))
	return ro
}

// One implementation serves both scopes: a ResourcePlacement is created, read, listed and deleted
// in its namespace, its snapshots and bindings are the namespaced kinds in that namespace, and a
// cluster-scoped placement of the same name, or another namespace's objects, are not mixed in.
func TestResourcePlacementScope(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	c := hubtest.New(t,
		namespaced(snapshot("p-0-snapshot", "0", true, false, t0), "ResourceSnapshot", "app"),
		namespaced(snapshot("p-1-snapshot", "1", true, true, t0.Add(time.Hour)), "ResourceSnapshot", "app"),
		namespaced(snapshot("p-7-snapshot", "7", true, true, t0), "ResourceSnapshot", "other"),
		snapshot("p-3-snapshot", "3", true, true, t0), // the ClusterResourcePlacement p's
		namespaced(binding("a-1", "a", "p-1-snapshot", placementv1.BindingStateBound), "ResourceBinding", "app"),
		namespaced(binding("b-1", "b", "p-7-snapshot", placementv1.BindingStateBound), "ResourceBinding", "other"),
		binding("c-1", "c", "p-3-snapshot", placementv1.BindingStateBound),
	)
	key := hub.PlacementKey{Namespace: "app", Name: "p"}
	if key.String() != "app/p" || key.Kind() != "ResourcePlacement" || hub.ClusterPlacement("p").Kind() != "ClusterResourcePlacement" {
		t.Fatalf("key %q kind %q", key, key.Kind())
	}
	p := &hub.Placement{}
	p.Namespace, p.Name = "app", "p"
	p.Spec.ResourceSelectors = []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "ConfigMap", Name: "cfg"}}
	created, err := c.CreatePlacement(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if created.Namespace != "app" || created.Kind != "ResourcePlacement" {
		t.Errorf("created %s %s/%s, want ResourcePlacement app/p", created.Kind, created.Namespace, created.Name)
	}
	if there, err := c.PlacementExists(ctx, "p"); err != nil || there {
		t.Errorf("a ClusterResourcePlacement p exists: %t, %v", there, err)
	}
	got, err := c.PlacementAt(ctx, key)
	if err != nil || got.Spec.ResourceSelectors[0].Kind != "ConfigMap" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	p.Spec.ResourceSelectors[0].Name = "cfg2"
	if up, err := c.UpdatePlacementSpec(ctx, p); err != nil || up.Spec.ResourceSelectors[0].Name != "cfg2" {
		t.Fatalf("update %+v, %v", up, err)
	}
	v, err := c.ResourceVersionsAt(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if v.Latest != "1" || len(v.Snapshots) != 2 || len(v.ByCluster) != 1 || v.ByCluster["a"] != "1" {
		t.Errorf("versions %+v: want latest 1, snapshots 0 and 1, a on 1 (not other's or the cluster placement's)", v)
	}
	bs, err := c.BindingsAt(ctx, key)
	if err != nil || len(bs) != 1 || bs[0].Name != "a-1" {
		t.Errorf("bindings %+v, %v", bs, err)
	}
	if cv, err := c.ResourceVersions(ctx, "p"); err != nil || cv.Latest != "3" || cv.ByCluster["c"] != "3" || len(cv.ByCluster) != 1 {
		t.Errorf("cluster-scoped p: %+v, %v", cv, err)
	}
	if err := c.DeletePlacementAt(ctx, key); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.WaitPlacementGoneAt(wctx, key, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := c.DeletePlacementAt(ctx, key); err != nil {
		t.Errorf("deleting a missing placement: %v", err)
	}
}
