package placement

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
)

const nsFleet = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo"

// teamNamespace is a managed namespace with every argument set.
func teamNamespace() *managedNamespaceModel {
	s := types.StringValue
	return &managedNamespaceModel{
		FleetID: s(nsFleet), Name: s("team-a"), Location: s("eastus"),
		Tags:           map[string]string{"owner": "team-a"},
		Labels:         map[string]string{"team": "a"},
		Annotations:    map[string]string{"example.com/contact": "a@example.com"},
		AdoptionPolicy: s("IfIdentical"), DeletePolicy: s("Delete"),
		ResourceQuota: &namespaceQuotaModel{CPURequest: s("2"), CPULimit: s("4"), MemoryRequest: s("4Gi"), MemoryLimit: types.StringNull()},
		NetworkPolicy: &namespaceNetworkPolicyModel{Ingress: s("AllowSameNamespace"), Egress: types.StringNull()},
		Placement: &namespacePlacementModel{
			PlacementType:            s("PickAll"),
			RequiredClusterSelectors: []requiredTermModel{{Labels: map[string]string{"env": "prod"}}},
			Tolerations:              []tolerationModel{{Key: s("dedicated"), Operator: s("Equal"), Value: s("gpu"), Effect: s("NoSchedule")}},
		},
	}
}

// What a PUT sends reads back as the configuration: a namespace imported or refreshed plans no diff.
func TestManagedNamespaceBodyRoundTrip(t *testing.T) {
	for name, m := range map[string]*managedNamespaceModel{
		"full": teamNamespace(),
		"pick fixed, nothing else": {Name: types.StringValue("team-b"), Location: types.StringValue("eastus"),
			AdoptionPolicy: types.StringValue("Never"), DeletePolicy: types.StringValue("Keep"), Labels: map[string]string{},
			Placement: &namespacePlacementModel{PlacementType: types.StringValue("PickFixed"), ClusterNames: []string{"prod-east-1"}}},
		"no placement": {Name: types.StringValue("team-c"), Location: types.StringValue("westeurope"),
			AdoptionPolicy: types.StringValue("Always"), DeletePolicy: types.StringValue("Keep")},
	} {
		t.Run(name, func(t *testing.T) {
			body := m.toAPI()
			// Through JSON, as the Fleet API returns it, with what it computes.
			b, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			var got fleetapi.FleetManagedNamespace
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Properties.PropagationPolicy == nil || got.Properties.PropagationPolicy.Type != "Placement" {
				t.Fatalf("propagationPolicy %+v: its type is required", got.Properties.PropagationPolicy)
			}
			got.Properties.ProvisioningState, got.Properties.PortalFqdn = "Succeeded", "hub.example"
			read := managedNamespaceModel{Name: m.Name, Location: types.StringValue("East US"), Labels: m.Labels}
			if m.Location.ValueString() != "eastus" {
				read.Location = m.Location
			}
			read.setFromAPI(&got)
			if read.Location.ValueString() != map[bool]string{true: "East US", false: m.Location.ValueString()}[m.Location.ValueString() == "eastus"] {
				t.Errorf("location %s: the configuration's spelling of the region is kept", read.Location)
			}
			read.Location = m.Location
			for _, c := range []struct {
				attr string
				a, b any
			}{
				{"tags", m.Tags, read.Tags}, {"labels", m.Labels, read.Labels}, {"annotations", m.Annotations, read.Annotations},
				{"adoption_policy", m.AdoptionPolicy, read.AdoptionPolicy}, {"delete_policy", m.DeletePolicy, read.DeletePolicy},
				{"resource_quota", m.ResourceQuota, read.ResourceQuota}, {"network_policy", m.NetworkPolicy, read.NetworkPolicy},
				{"placement", m.Placement, read.Placement},
			} {
				if !reflect.DeepEqual(c.a, c.b) {
					t.Errorf("%s: wrote %+v, read back %+v", c.attr, c.a, c.b)
				}
			}
			if d := namespaceDiff(m, &got); d != "" {
				t.Errorf("the namespace as written differs from its plan: %s", d)
			}
			if read.Provisioning.ValueString() != "Succeeded" || read.PortalFQDN.ValueString() != "hub.example" || !read.StatusMessage.IsNull() {
				t.Errorf("computed: %s %s %s", read.Provisioning, read.PortalFQDN, read.StatusMessage)
			}
		})
	}
}

// Create adopts only a namespace identical to the plan; the error names the first difference.
func TestManagedNamespaceDiff(t *testing.T) {
	m := teamNamespace()
	other := teamNamespace()
	other.Placement.Tolerations = nil
	existing := other.toAPI()
	if d := namespaceDiff(m, &existing); !strings.HasPrefix(d, "placement differs") {
		t.Errorf("got %q, want the placement named", d)
	}
	other = teamNamespace()
	other.Labels = map[string]string{"team": "b"}
	existing = other.toAPI()
	if d := namespaceDiff(m, &existing); !strings.Contains(d, "labels differs (planned map[team:a], in the fleet map[team:b])") {
		t.Errorf("got %q", d)
	}
	// The managed-by-ARM label, were the API to echo it, is not a difference.
	existing = teamNamespace().toAPI()
	existing.Properties.ManagedNamespaceProperties.Labels["kubernetes.azure.com/managedByArm"] = "true"
	if d := namespaceDiff(m, &existing); d != "" {
		t.Errorf("got %q", d)
	}
}

// objects shows the namespace, its quota and its network policy as the hub will write them.
func TestManagedNamespaceObjects(t *testing.T) {
	l, err := namespaceObjects("team-a", teamNamespace().namespaceProperties())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range l.Elements() {
		a := objAttrs(t, v)
		got = append(got, strOf(t, a["kind"])+"/"+strOf(t, a["name"])+"\n"+strOf(t, a["yaml"]))
	}
	want := []string{
		"Namespace/team-a\napiVersion: v1\nkind: Namespace\nmetadata:\n  annotations:\n    example.com/contact: a@example.com\n  labels:\n" +
			"    kubernetes.azure.com/managedByArm: \"true\"\n    team: a\n  name: team-a\n",
		"ResourceQuota/default\napiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: default\n  namespace: team-a\nspec:\n  hard:\n" +
			"    limits.cpu: \"4\"\n    requests.cpu: \"2\"\n    requests.memory: 4Gi\n",
		"NetworkPolicy/default\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: default\n  namespace: team-a\nspec:\n" +
			"  ingress:\n  - from:\n    - podSelector: {}\n  podSelector: {}\n  policyTypes:\n  - Ingress\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("objects:\n%s\nwant:\n%s", strings.Join(got, "---\n"), strings.Join(want, "---\n"))
	}
	// Without quota and network policy, the namespace alone.
	l, err = namespaceObjects("team-b", nil)
	if err != nil || len(l.Elements()) != 1 {
		t.Fatalf("got %v, %v: want the Namespace only", l, err)
	}
}

// nsMember is a joined, healthy hub member with labels and taints.
func nsMember(name string, now time.Time, labels map[string]string, taints ...clusterv1.Taint) clusterv1.MemberCluster {
	mc := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	mc.Spec.Taints = taints
	mc.Status.AgentStatus = []clusterv1.AgentStatus{{
		Type: clusterv1.MemberAgent, LastReceivedHeartbeat: metav1.NewTime(now.Add(-time.Minute)),
		Conditions: []metav1.Condition{
			{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionTrue},
			{Type: string(clusterv1.AgentHealthy), Status: metav1.ConditionTrue},
		},
	}}
	return mc
}

// nsFleetView is a view of a hub with three members: two env=prod (one tainted), one canary.
func nsFleetView() (view.Fleet, time.Time) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	members := []clusterv1.MemberCluster{
		nsMember("canary-east", now, map[string]string{"env": "canary"}),
		nsMember("prod-east-1", now, map[string]string{"env": "prod"}),
		nsMember("prod-east-2", now, map[string]string{"env": "prod"}, clusterv1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}),
	}
	return view.Pinned(&facts.Snapshot{TakenAt: now, HubRead: true, Hub: members, Settings: &facts.Settings{ListLimit: 20}}, view.Overlay{}), now
}

func previewOf(t *testing.T, m *managedNamespaceModel, sched *schedulingState) (map[string]attr.Value, diag.Diagnostics) {
	t.Helper()
	v, _ := nsFleetView()
	rec := view.Record(v, managedNamespacePreviewSpec.Reads...)
	var d diag.Diagnostics
	obj, err := computeManagedNamespacePreview(context.Background(), rec, &namespacePreviewInput{managedNamespaceModel: m, sched: sched}, &d)
	if err != nil {
		t.Fatal(err)
	}
	if u := rec.Undeclared(); len(u) > 0 {
		t.Fatalf("the preview read %v, which its Spec does not declare", u)
	}
	if obj == nil {
		return nil, d
	}
	return objAttrs(t, obj), d
}

func selectedNames(t *testing.T, p map[string]attr.Value) []string {
	t.Helper()
	var out []string
	for _, s := range listElems(t, p["selected"]) {
		out = append(out, strOf(t, objAttrs(t, s)["cluster"]))
	}
	return out
}

// The preview is the scheduler's, over the policy the generated placement will have: required
// selectors and tolerations decide; an omitted placement picks every member; PickFixed picks the
// listed members and a listed name the hub does not have fails the plan at its path.
func TestManagedNamespacePreview(t *testing.T) {
	m := teamNamespace()
	p, d := previewOf(t, m, nil)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := selectedNames(t, p); !reflect.DeepEqual(got, []string{"prod-east-1", "prod-east-2"}) {
		t.Errorf("selected %v: want both env=prod members (the gpu taint is tolerated)", got)
	}
	if _, ok := p["override_snapshots"]; ok {
		t.Error("the preview has override_snapshots")
	}
	if got := mapElems(t, p["excluded"]); len(got) != 1 || got["canary-east"] == nil {
		t.Errorf("excluded %v", got)
	}

	m.Placement.Tolerations = nil
	p, _ = previewOf(t, m, nil)
	if got := mapElems(t, p["excluded_by_reason"]); int64Attr(t, got[scheduling.ClassTaint]) != 1 {
		t.Errorf("excluded_by_reason %v: want prod-east-2's taint", got)
	}

	m.Placement = nil
	p, _ = previewOf(t, m, nil)
	if got := selectedNames(t, p); len(got) != 2 || int64Attr(t, p["excluded_count"]) != 1 {
		t.Errorf("no placement block: selected %v; want PickAll of the untainted members", got)
	}

	m.Placement = &namespacePlacementModel{PlacementType: types.StringValue("PickFixed"), ClusterNames: []string{"canary-east", "prod-east-2", "prod-west-9"}}
	p, d = previewOf(t, m, nil)
	if p != nil || d.ErrorsCount() != 1 {
		t.Fatalf("preview %v, diagnostics %v: want one error and no preview", p, d)
	}
	e := d.Errors()[0]
	if wp, ok := e.(diag.DiagnosticWithPath); !ok || !wp.Path().Equal(path.Root("placement").AtName("cluster_names").AtListIndex(2)) ||
		!strings.Contains(e.Detail(), `"prod-west-9" is not a member of the fleet`) || !strings.Contains(e.Detail(), "members: canary-east, prod-east-1, prod-east-2") {
		t.Errorf("error %s: %s", e.Summary(), e.Detail())
	}
	m.Placement.ClusterNames = m.Placement.ClusterNames[:2]
	p, d = previewOf(t, m, nil)
	if d.HasError() {
		t.Fatal(d)
	}
	// PickFixed places on the listed members, the tainted one too (KubeFleet's PickFixed cycle runs no
	// filter plugin: pkg/scheduler/framework/framework.go); the unlisted one is an exclusion.
	if got := selectedNames(t, p); !reflect.DeepEqual(got, []string{"canary-east", "prod-east-2"}) {
		t.Errorf("PickFixed selected %v", got)
	}
	if got := mapElems(t, p["excluded_by_reason"]); int64Attr(t, got[scheduling.ClassNotListed]) != 1 {
		t.Errorf("excluded_by_reason %v", got)
	}
}

// For an existing namespace the scheduler starts from its generated placement's bindings: a
// member it placed on stays "kept".
func TestManagedNamespacePreviewExisting(t *testing.T) {
	m := teamNamespace()
	policy, err := m.kubeFleetPolicy()
	if err != nil {
		t.Fatal(err)
	}
	sched := &schedulingState{HasSnapshot: true, Policy: policy, Bindings: []scheduling.Binding{
		{Cluster: "prod-east-1", State: placementv1.BindingStateBound, Current: true},
	}}
	p, d := previewOf(t, m, sched)
	if d.HasError() {
		t.Fatal(d)
	}
	changes := map[string]string{}
	for _, s := range listElems(t, p["selected"]) {
		a := objAttrs(t, s)
		changes[strOf(t, a["cluster"])] = strOf(t, a["change"])
	}
	if !reflect.DeepEqual(changes, map[string]string{"prod-east-1": "kept", "prod-east-2": "added"}) {
		t.Errorf("changes %v", changes)
	}
}

// mnsPlan is a plan or state of the resource's schema holding m.
func mnsPlan(t *testing.T, m *managedNamespaceModel) tfsdk.Plan {
	t.Helper()
	ctx := context.Background()
	var sresp fwresource.SchemaResponse
	(&managedNamespaceResource{}).Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	p := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	c := *m
	c.ID, c.Provisioning, c.PortalFQDN, c.StatusMessage = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	c.PlacedMembers, c.Objects = types.ListUnknown(types.StringType), types.ListUnknown(namespaceObjectType)
	c.Preview = types.ObjectUnknown(managedNamespacePreviewAttrTypes)
	c.Timeouts.Object = types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})
	if d := p.Set(ctx, &c); d.HasError() {
		t.Fatal(d)
	}
	return p
}

// ModifyPlan refuses a plan that removes a toleration or changes the placement type, at the
// attribute's path, before anything is sent; an append plans, with the objects planned.
func TestManagedNamespaceImmutablePlacement(t *testing.T) {
	ctx := context.Background()
	r := &managedNamespaceResource{}
	plan := func(old, updated *managedNamespaceModel) (diag.Diagnostics, tfsdk.Plan) {
		t.Helper()
		state := mnsPlan(t, old)
		p := mnsPlan(t, updated)
		resp := fwresource.ModifyPlanResponse{Plan: p}
		r.ModifyPlan(ctx, fwresource.ModifyPlanRequest{
			Plan: p, State: tfsdk.State{Schema: state.Schema, Raw: state.Raw}, Config: tfsdk.Config{Schema: p.Schema, Raw: p.Raw},
		}, &resp)
		return resp.Diagnostics, resp.Plan
	}
	removed := teamNamespace()
	removed.Placement.Tolerations = nil
	d, _ := plan(teamNamespace(), removed)
	wantErrorAt(t, d, path.Root("placement").AtName("toleration"), "only additions to tolerations are allowed")

	// A replacement (another location) destroys the namespace and its placement first: nothing to keep.
	moved := teamNamespace()
	moved.Placement.Tolerations, moved.Location = nil, types.StringValue("westeurope")
	if d, _ := plan(teamNamespace(), moved); d.HasError() {
		t.Errorf("a replacement is refused: %v", d)
	}

	fixed := teamNamespace()
	fixed.Placement = &namespacePlacementModel{PlacementType: types.StringValue("PickFixed"), ClusterNames: []string{"a"}}
	d, _ = plan(teamNamespace(), fixed)
	wantErrorAt(t, d, path.Root("placement").AtName("placement_type"), "the placement type is immutable (PickAll → PickFixed)")

	// Removing a PickFixed block: the generated placement becomes PickAll.
	none := teamNamespace()
	none.Placement = nil
	d, _ = plan(fixed, none)
	wantErrorAt(t, d, path.Root("placement"), "(PickFixed → PickAll)")

	appended := teamNamespace()
	appended.Placement.Tolerations = append(appended.Placement.Tolerations, tolerationModel{Key: types.StringValue("spot"), Operator: types.StringValue("Exists"),
		Value: types.StringNull(), Effect: types.StringNull()})
	appended.Labels = map[string]string{"team": "a", "tier": "gold"}
	d, p := plan(teamNamespace(), appended)
	if d.HasError() {
		t.Fatalf("appending a toleration: %v", d)
	}
	var objects types.List
	p.GetAttribute(ctx, path.Root("objects"), &objects)
	if len(objects.Elements()) != 3 || !strings.Contains(strOf(t, objAttrs(t, objects.Elements()[0])["yaml"]), "tier: gold") {
		t.Errorf("planned objects %v", objects)
	}
}

func wantErrorAt(t *testing.T, d diag.Diagnostics, p path.Path, detail string) {
	t.Helper()
	for _, e := range d.Errors() {
		if wp, ok := e.(diag.DiagnosticWithPath); ok && wp.Path().Equal(p) && strings.Contains(e.Detail(), detail) {
			return
		}
	}
	t.Errorf("want an error at %s saying %q, got %v", p, detail, d)
}

// placed_members are the members the generated placement reports Applied and Available on for
// its current generation.
func TestManagedNamespacePlacedMembers(t *testing.T) {
	crp := rolloutCRP(3, map[string]metav1.ConditionStatus{"a": "True", "b": "False", "c": "True"}, "False")
	crp.Status.PerClusterPlacementStatuses[2].Conditions[5].ObservedGeneration = 2 // c: Available for an older generation
	if got := placedMembers(crp); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("placed %v, want [a]", got)
	}
}

// The wait ends when the hub has the configured policy and take-over policy, the hub agent's
// latest resource snapshot holds the objects as written and every pick runs it, and every pick is
// Available; it fails at once, naming the member and its message, when a member refuses the namespace.
func TestManagedNamespacePlacementProgress(t *testing.T) {
	m := teamNamespace()
	want := teamPlacement(t, m)
	objs, err := managednamespace.Build("team-a", m.namespaceProperties())
	if err != nil {
		t.Fatal(err)
	}
	crp := rolloutCRP(2, map[string]metav1.ConditionStatus{"prod-east-1": "True"}, "True")
	crp.Spec = *want.Spec.DeepCopy()
	// The snapshot as the hub agent cuts it: the hub's objects, the API server's label added.
	hubNS := objs.Namespace.DeepCopy()
	hubNS.Labels[corev1.LabelMetadataName] = "team-a"
	snapshot := func(objects ...any) [][]byte {
		var out [][]byte
		for _, o := range objects {
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	observed := namespaceObserved{crp: crp, snapshot: snapshot(hubNS, objs.ResourceQuota, objs.NetworkPolicy), latest: "1", byCluster: map[string]string{"prod-east-1": "1"}}
	if progress, done, failed := namespacePlacementProgress(observed, want, objs); !done || failed != "" {
		t.Errorf("progress %q, done %t, failed %q", progress, done, failed)
	}
	for name, tc := range map[string]struct {
		o    namespaceObserved
		want *placementv1.ClusterResourcePlacement
		says string
	}{
		"another policy": {observed, teamPlacement(t, func() *managedNamespaceModel {
			o := teamNamespace()
			o.Placement.Tolerations = append(o.Placement.Tolerations, tolerationModel{Key: types.StringValue("spot"), Operator: types.StringValue("Exists")})
			return o
		}()), "configured policy"},
		"another adoption policy": {observed, teamPlacement(t, func() *managedNamespaceModel {
			o := teamNamespace()
			o.AdoptionPolicy = types.StringValue("Always")
			return o
		}()), "adoption policy"},
		"labels not in the snapshot yet": {namespaceObserved{crp: crp, snapshot: snapshot(objs.ResourceQuota, objs.NetworkPolicy, func() any {
			n := hubNS.DeepCopy()
			delete(n.Labels, "team")
			return n
		}()), latest: "0", byCluster: observed.byCluster}, want, "namespace labels"},
		"quota not in the snapshot yet": {namespaceObserved{crp: crp, snapshot: snapshot(hubNS, objs.NetworkPolicy), latest: "1", byCluster: observed.byCluster}, want, "resource quota present false"},
		"a member behind":               {namespaceObserved{crp: crp, snapshot: observed.snapshot, latest: "2", byCluster: observed.byCluster}, want, "prod-east-1 to get resource snapshot 2"},
	} {
		if progress, done, _ := namespacePlacementProgress(tc.o, tc.want, objs); done || !strings.Contains(progress, tc.says) {
			t.Errorf("%s: progress %q, done %t", name, progress, done)
		}
	}
	ps := &crp.Status.PerClusterPlacementStatuses[0]
	for i := range ps.Conditions {
		if ps.Conditions[i].Type == string(placementv1.PerClusterAppliedConditionType) {
			ps.Conditions[i].Status = metav1.ConditionFalse
		}
	}
	ps.FailedPlacements = []placementv1.FailedResourcePlacement{{
		ResourceIdentifier: placementv1.ResourceIdentifier{Version: "v1", Kind: "Namespace", Name: "team-a"},
		Condition:          metav1.Condition{Type: "Applied", Status: metav1.ConditionFalse, Message: "no ownership of the object in the member cluster; takeover is needed"},
	}}
	if _, done, failed := namespacePlacementProgress(observed, want, objs); done || failed != "prod-east-1 (Namespace team-a: no ownership of the object in the member cluster; takeover is needed)" {
		t.Errorf("done %t, failed %q", done, failed)
	}
}

func teamPlacement(t *testing.T, m *managedNamespaceModel) *placementv1.ClusterResourcePlacement {
	t.Helper()
	body := m.toAPI()
	crp, err := managednamespace.Placement(nsFleet+"/managedNamespaces/"+m.Name.ValueString(), m.Name.ValueString(), body.Properties)
	if err != nil {
		t.Fatal(err)
	}
	return crp
}

// The model's placement block is validated by KubeFleet's own rules with the block's paths.
func TestManagedNamespacePlacementValidation(t *testing.T) {
	s := types.StringValue
	for name, tc := range map[string]struct {
		p    *namespacePlacementModel
		at   path.Path
		says string
	}{
		"exists with a value": {&namespacePlacementModel{PlacementType: s("PickAll"), Tolerations: []tolerationModel{
			{Key: s("spot"), Operator: s("Exists"), Value: s("true")}}}, path.Root("placement").AtName("toleration").AtListIndex(0).AtName("value"),
			"toleration value needs to be empty, when operator is Exists"},
		"names with PickAll": {&namespacePlacementModel{PlacementType: s("PickAll"), ClusterNames: []string{"a"}},
			path.Root("placement").AtName("cluster_names"), "cluster names needs to be empty for policy type PickAll"},
		"PickFixed without names": {&namespacePlacementModel{PlacementType: s("PickFixed")},
			path.Root("placement").AtName("cluster_names"), "is required with placement_type PickFixed"},
		"PickFixed with a selector": {&namespacePlacementModel{PlacementType: s("PickFixed"), ClusterNames: []string{"a"},
			RequiredClusterSelectors: []requiredTermModel{{Labels: map[string]string{"env": "prod"}}}},
			path.Root("placement").AtName("required_cluster_selector"), "affinity must be nil for policy type PickFixed"},
	} {
		t.Run(name, func(t *testing.T) {
			var d diag.Diagnostics
			validateNamespacePlacement(&d, tc.p, nil)
			if d.ErrorsCount() != 1 {
				t.Fatalf("want one error, got %v", d)
			}
			wantErrorAt(t, d, tc.at, tc.says)
		})
	}
	var d diag.Diagnostics
	validateNamespacePlacement(&d, &namespacePlacementModel{PlacementType: s("PickFixed")}, []path.Path{path.Root("placement").AtName("cluster_names")})
	if d.HasError() {
		t.Errorf("unknown cluster names are not missing: %v", d)
	}
}
