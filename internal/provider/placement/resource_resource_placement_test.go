package placement

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func schemaOf(t *testing.T, r resource.Resource) rschema.Schema {
	t.Helper()
	var resp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp.Schema
}

// fleet_resource_placement is fleet_placement's schema with a required namespace and selectors
// without selection_scope; every other attribute and block (policy, strategy, preview, status,
// snapshots) is the same. fleet_placement has no namespace.
func TestResourcePlacementSchema(t *testing.T) {
	cluster := schemaOf(t, newPlacement())
	ns := schemaOf(t, newScopedPlacement("_resource_placement", namespacedPlacementScope)())
	if _, ok := cluster.Attributes["namespace"]; ok {
		t.Error("fleet_placement has a namespace")
	}
	if a, ok := ns.Attributes["namespace"]; !ok || !a.IsRequired() {
		t.Error("fleet_resource_placement: namespace must be required")
	}
	sel, _ := ns.Blocks["resource_selector"].(rschema.ListNestedBlock)
	if _, ok := sel.NestedObject.Attributes["selection_scope"]; ok || len(sel.NestedObject.Attributes) != 4 || sel.NestedObject.Blocks["label_selector"] == nil {
		t.Errorf("fleet_resource_placement selectors: %v %v, want group, version, kind, name and the label_selector block",
			keysOf(sel.NestedObject.Attributes), keysOf(sel.NestedObject.Blocks))
	}
	if _, ok := cluster.Blocks["resource_selector"].(rschema.ListNestedBlock).NestedObject.Attributes["selection_scope"]; !ok {
		t.Error("fleet_placement selectors: no selection_scope")
	}
	for _, name := range []string{"preview", "status", "resource_snapshots", "revision_history_limit", "wait_for_rollout"} {
		if !reflect.DeepEqual(cluster.Attributes[name].GetType(), ns.Attributes[name].GetType()) || cluster.Attributes[name].GetDescription() != ns.Attributes[name].GetDescription() {
			t.Errorf("%s differs between the two scopes", name)
		}
	}
	for _, name := range []string{"policy", "strategy", "apply_strategy", "timeouts"} {
		if ct, nt := cluster.Blocks[name], ns.Blocks[name]; ct == nil || nt == nil ||
			!reflect.DeepEqual(ct.Type(), nt.Type()) || ct.GetDescription() != nt.GetDescription() {
			t.Errorf("the %s block differs between the two scopes", name)
		}
	}
	if len(ns.Blocks) != len(cluster.Blocks) {
		t.Errorf("fleet_resource_placement has %d blocks, fleet_placement %d", len(ns.Blocks), len(cluster.Blocks))
	}
	if len(ns.Attributes) != len(cluster.Attributes)+1 {
		t.Errorf("fleet_resource_placement has %d attributes, fleet_placement %d: want one more (namespace)", len(ns.Attributes), len(cluster.Attributes))
	}
	if !strings.Contains(ns.Attributes["latest_resource_snapshot_index"].GetDescription(), "latest ResourceSnapshot") {
		t.Error("latest_resource_snapshot_index should name the ResourceSnapshot")
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The namespaced model maps onto the shared one and back unchanged; the hub object is a
// ResourcePlacement in the namespace, keyed <namespace>/<name>, and reads back with its namespace.
func TestResourcePlacementModelRoundTrip(t *testing.T) {
	s := types.StringValue
	rm := &resourcePlacementModel{
		ID: s("app/web"), Namespace: s("app"), Name: s("web"),
		ResourceSelectors: []namespacedSelectorModel{
			{Group: s(""), Version: s("v1"), Kind: s("ConfigMap"), Name: s("cfg")},
			{Group: s("apps"), Version: s("v1"), Kind: s("Deployment"), Name: types.StringNull(),
				LabelSelector: &placementLabelSelectorModel{MatchLabels: map[string]string{"app": "web"}}},
		},
		Strategy: &placementStrategyModel{Type: s("External")}, RevisionHistoryLimit: types.Int64Value(4),
		WaitForRollout: types.BoolValue(false),
	}
	shared := rm.shared()
	if back := resourcePlacementModelOf(&shared); !reflect.DeepEqual(back, rm) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, rm)
	}
	key := namespacedPlacementScope.key(&shared)
	if key.Namespace != "app" || key.Name != "web" || namespacedPlacementScope.id(&shared) != "app/web" || clusterPlacementScope.id(&shared) != "web" {
		t.Fatalf("key %+v", key)
	}
	p := placementFromModel(&shared)
	if p.Namespace != "app" || p.Key().Kind() != "ResourcePlacement" || len(p.SelectionScopes) != 0 || len(p.Spec.ResourceSelectors) != 2 {
		t.Fatalf("hub object %+v", p)
	}
	var read placementModel
	placementSpecToModel(&read, p)
	if read.Namespace.ValueString() != "app" {
		t.Fatalf("namespace not read back: %+v", read.Namespace)
	}
	if got := resourcePlacementModelOf(&read).ResourceSelectors; !reflect.DeepEqual(got, rm.ResourceSelectors) {
		t.Fatalf("selectors read back %+v, want %+v", got, rm.ResourceSelectors)
	}
	if placementScheduledCondition(&metav1.ObjectMeta{Namespace: "app"}) != "ResourcePlacementScheduled" ||
		placementAvailableCondition(&metav1.ObjectMeta{}) != "ClusterResourcePlacementAvailable" {
		t.Error("condition types by scope")
	}
}

// A Namespace selector is refused at validate with the kind's path; other kinds, other groups'
// Namespace kinds and unknown values are left to plan.
func TestValidateNamespacedSelectors(t *testing.T) {
	s := types.StringValue
	sels := []resourceSelectorModel{
		{Group: s(""), Version: s("v1"), Kind: s("ConfigMap")},
		{Group: s(""), Version: s("v1"), Kind: s("Namespace")},
		{Group: s("example.com"), Version: s("v1"), Kind: s("Namespace")},
		{Group: s(""), Version: s("v1"), Kind: s("Namespace")},
	}
	var diags diag.Diagnostics
	validateNamespacedSelectors(&diags, sels, []path.Path{path.Root("resource_selector").AtListIndex(3).AtName("kind")})
	if diags.ErrorsCount() != 1 {
		t.Fatalf("want one error, got %v", diags)
	}
	d, ok := diags[0].(diag.DiagnosticWithPath)
	if !ok || !d.Path().Equal(path.Root("resource_selector").AtListIndex(1).AtName("kind")) || !strings.Contains(d.Detail(), "cluster-scoped") {
		t.Fatalf("diagnostic %v", diags[0])
	}
}

// Members that report namespace collection get one warning naming the count and the first
// three; a fleet without it gets none (the scheduler's namespaceaffinity filter skips them).
func TestNamespaceCollectionWarning(t *testing.T) {
	member := func(name string, collects bool) clusterv1.MemberCluster {
		m := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if collects {
			m.Status.Conditions = []metav1.Condition{{Type: namespaceCollectionCondition, Status: metav1.ConditionTrue}}
		}
		return m
	}
	if w := namespaceCollectionWarning([]clusterv1.MemberCluster{member("a", false), member("b", false)}, "app"); w != "" {
		t.Errorf("no member collects namespaces: got %q", w)
	}
	w := namespaceCollectionWarning([]clusterv1.MemberCluster{member("e", true), member("a", false), member("d", true), member("c", true), member("b", true)}, "app")
	if !strings.HasPrefix(w, `4 member cluster(s) report their namespaces (b, c, d, …)`) || !strings.Contains(w, `without "app"`) {
		t.Errorf("got %q", w)
	}
}
