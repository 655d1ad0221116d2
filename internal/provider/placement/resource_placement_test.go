package placement

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub/hubtest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The acceptance tests run against the local fleet of internal/provider/testdata/fleet.yaml, whose
// ---- unit tests (no fleet) ----

func fullPolicyModel() *policyModel {
	s := types.StringValue
	return &policyModel{
		PlacementType:    s("PickN"),
		NumberOfClusters: types.Int64Value(3),
		RequiredClusterSelectors: []requiredTermModel{{
			Labels:              map[string]string{"env": "prod"},
			LabelExpressions:    []shared.LabelExpressionModel{{Key: s("tier"), Operator: s("In"), Values: []string{"gold", "silver"}}},
			PropertyExpressions: []propertyExpressionModel{{Name: s("kubernetes-fleet.io/node-count"), Operator: s("Ge"), Values: []string{"3"}}},
		}, {}},
		PreferredClusterSelectors: []preferredTermModel{
			{Weight: types.Int64Value(-20), Labels: map[string]string{"env": "canary"}},
			{Weight: types.Int64Value(50), PropertySorter: &propertySorterModel{Name: s("resources.kubernetes-fleet.io/available-cpu"), SortOrder: s("Descending")}},
		},
		TopologySpreadConstraints: []topologySpreadModel{{MaxSkew: types.Int64Value(2), TopologyKey: s("fleet.azure.com/location"), WhenUnsatisfiable: s("ScheduleAnyway")}},
		Tolerations: []tolerationModel{
			{Key: s("dedicated"), Operator: s("Equal"), Value: s("gpu"), Effect: s("NoSchedule")},
			{Key: s("spot"), Operator: s("Exists"), Value: types.StringNull(), Effect: types.StringNull()},
		},
	}
}

// HCL → KubeFleet → HCL is the identity: what Read gets back from the hub plans no diff.
func TestPlacementPolicyRoundTrip(t *testing.T) {
	want := fullPolicyModel().toAPI()
	got := placementPolicyFromAPI(want).toAPI()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip changed the policy:\n got %+v\nwant %+v", got, want)
	}
	if scheduling.NeedsNewSnapshot(want, got) {
		t.Fatal("the round trip would make the hub cut a new policy snapshot")
	}
	if issues := scheduling.Validate(want); len(issues) != 0 {
		t.Fatalf("the full policy should be valid: %+v", issues)
	}
	// A policy the hub stores without CRD defaults reads back with them.
	m := placementPolicyFromAPI(&placementv1.PlacementPolicy{Tolerations: []placementv1.Toleration{{Key: "a", Value: "b"}}})
	if m.PlacementType.ValueString() != "PickAll" || m.Tolerations[0].Operator.ValueString() != "Equal" {
		t.Fatalf("defaults not applied: %+v", m)
	}
}

// Every issue scheduling.Validate reports lands on the attribute the user wrote.
func TestPlacementPolicyPaths(t *testing.T) {
	root := path.Root("policy")
	affinity := scheduling.Path{}.Child("affinity").Child("clusterAffinity")
	required := affinity.Child("requiredDuringSchedulingIgnoredDuringExecution").Child("clusterSelectorTerms")
	preferred := affinity.Child("preferredDuringSchedulingIgnoredDuringExecution")
	cases := map[string]scheduling.Path{
		"policy.placement_type":                                               scheduling.Path{}.Child("placementType"),
		"policy.cluster_names[2]":                                             scheduling.Path{}.Child("clusterNames").Index(2),
		"policy.number_of_clusters":                                           scheduling.Path{}.Child("numberOfClusters"),
		"policy.required_cluster_selector":                                    scheduling.Path{}.Child("affinity"),
		"policy.required_cluster_selector[1]":                                 required.Index(1).Child("labelSelector"),
		"policy.required_cluster_selector[0].property_expression[1].values":   required.Index(0).Child("propertySelector").Child("matchExpressions").Index(1).Child("values"),
		"policy.required_cluster_selector[0].property_expression[0].name":     required.Index(0).Child("propertySelector").Child("matchExpressions").Index(0).Child("name"),
		"policy.required_cluster_selector[0].property_expression[0].operator": required.Index(0).Child("propertySelector").Child("matchExpressions").Index(0).Child("operator"),
		"policy.preferred_cluster_selector":                                   preferred,
		"policy.preferred_cluster_selector[1].weight":                         preferred.Index(1).Child("weight"),
		"policy.preferred_cluster_selector[0]":                                preferred.Index(0).Child("preference").Child("labelSelector"),
		"policy.preferred_cluster_selector[0].property_sorter.name":           preferred.Index(0).Child("preference").Child("propertySorter").Child("name"),
		"policy.preferred_cluster_selector[0].property_sorter.sort_order":     preferred.Index(0).Child("preference").Child("propertySorter").Child("sortOrder"),
		"policy.topology_spread_constraint[0].max_skew":                       scheduling.Path{}.Child("topologySpreadConstraints").Index(0).Child("maxSkew"),
		"policy.topology_spread_constraint":                                   scheduling.Path{}.Child("topologySpreadConstraints"),
		"policy.toleration[1].value":                                          scheduling.Path{}.Child("tolerations").Index(1).Child("value"),
		"policy.toleration[0]":                                                scheduling.Path{}.Child("tolerations").Index(0),
	}
	for want, p := range cases {
		if got := placementPolicyPath(root, p, fullPolicyModel()).String(); got != want {
			t.Errorf("%s: got %s, want %s", p, got, want)
		}
	}
	// "affinity must be nil" points at the preferred selectors when only they are set.
	m := &policyModel{PreferredClusterSelectors: []preferredTermModel{{}}}
	if got := placementPolicyPath(root, scheduling.Path{}.Child("affinity"), m).String(); got != "policy.preferred_cluster_selector" {
		t.Errorf("affinity with only preferred terms: got %s", got)
	}
}

// Validation skips what is unknown at plan, and the enumerations the schema already checks.
func TestPlacementPolicyValidationSkipsUnknownAndEnums(t *testing.T) {
	m := &policyModel{PlacementType: types.StringValue("PickN"), Tolerations: []tolerationModel{{Operator: types.StringValue("Equal"), Value: types.StringValue("gpu")}}}
	var diags diag.Diagnostics
	// number_of_clusters is unknown: "cannot be nil" must not be reported; the toleration's key is known and missing.
	validatePlacementPolicy(&diags, path.Root("policy"), m, []path.Path{path.Root("policy").AtName("number_of_clusters")})
	if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "policy.toleration[0].key") {
		t.Fatalf("want one error about policy.toleration[0].key, got %v", diags)
	}
	// The CRD's maxItems and the webhook's rule on one attribute: one error saying both.
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), &policyModel{PlacementType: types.StringValue("PickAll"), RequiredClusterSelectors: []requiredTermModel{{
		PropertyExpressions: []propertyExpressionModel{{Name: types.StringValue("kubernetes-fleet.io/node-count"), Operator: types.StringValue("Eq"), Values: []string{"3", "4"}}},
	}}}, nil)
	if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "operator Eq requires exactly one value, got 2") {
		t.Fatalf("want one error for the two values, got %v", diags)
	}
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), &policyModel{PlacementType: types.StringValue("PickSome")}, nil)
	if diags.HasError() {
		t.Fatalf("an unknown placement type is the OneOf validator's to report, got %v", diags)
	}
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), m, []path.Path{path.Root("policy").AtName("placement_type")})
	if len(diags) != 0 {
		t.Fatalf("with an unknown placement type nothing is checked, got %v", diags)
	}
}

// Time-dependent eligibility reasons are worded with the time the heartbeat happened, so that
// the preview planned again at apply is the same.
func TestStableReasons(t *testing.T) {
	hb := time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC)
	mc := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m"}}
	mc.Status.AgentStatus = []clusterv1.AgentStatus{{Type: clusterv1.MemberAgent, LastReceivedHeartbeat: metav1.NewTime(hb)}}
	p := placementPreviewModel{Excluded: []scheduling.Exclusion{{
		Cluster: "m",
		Reason:  "ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals (last received 20.79 minutes ago)",
	}}}
	got := stableReasons(p, []clusterv1.MemberCluster{mc}).Excluded[0].Reason
	want := "ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals (last received at 2026-11-23T01:02:03Z)"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func condition(t placementv1.PerClusterPlacementConditionType, status metav1.ConditionStatus, gen int64) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: status, ObservedGeneration: gen, Reason: "r", Message: "m"}
}

func rolloutCRP(gen int64, clusters map[string]metav1.ConditionStatus, available metav1.ConditionStatus) *placementv1.ClusterResourcePlacement {
	crp := &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: gen}}
	crp.Status.Conditions = []metav1.Condition{
		{Type: string(placementv1.ClusterResourcePlacementScheduledConditionType), Status: metav1.ConditionTrue, ObservedGeneration: gen},
		{Type: string(placementv1.ClusterResourcePlacementAvailableConditionType), Status: available, ObservedGeneration: gen},
	}
	names := make([]string, 0, len(clusters))
	for n := range clusters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps := placementv1.PerClusterPlacementStatus{ClusterName: n}
		for _, ct := range placementRolloutConditions {
			st := metav1.ConditionTrue
			if ct == placementv1.PerClusterAvailableConditionType {
				st = clusters[n]
			}
			ps.Conditions = append(ps.Conditions, condition(ct, st, gen))
		}
		crp.Status.PerClusterPlacementStatuses = append(crp.Status.PerClusterPlacementStatuses, ps)
	}
	return crp
}

func TestPlacementRolloutProgress(t *testing.T) {
	cases := []struct {
		name string
		crp  *placementv1.ClusterResourcePlacement
		done bool
		say  string
	}{
		{"all available", rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True", "b": "True"}, "True"), true, "available on 2 cluster(s) [a, b]"},
		{"one pending", rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True", "b": "False"}, "False"), false, "b: waiting for Available (r: m)"},
		{"stale generation", func() *placementv1.ClusterResourcePlacement {
			c := rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True"}, "True")
			c.Generation = 3
			return c
		}(), false, "waiting for the scheduler"},
		{"nothing picked", rolloutCRP(1, nil, "Unknown"), true, "available on 0 cluster(s)"},
	}
	for _, tc := range cases {
		say, done := placementRolloutProgress(tc.crp)
		if done != tc.done || !strings.Contains(say, tc.say) {
			t.Errorf("%s: got (%q, %t), want %q and %t", tc.name, say, done, tc.say, tc.done)
		}
	}
}

// A wait stops at once when its context ends (Ctrl-C, timeout), saying how far it got.
func TestWaitForPlacementRolloutHonoursCancellation(t *testing.T) {
	crp := rolloutCRP(1, map[string]metav1.ConditionStatus{"a": "False"}, "False")
	crp.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: "ClusterResourcePlacement"}
	hc := hubtest.New(t, crp)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := waitForPlacementRollout(ctx, hc, hub.ClusterPlacement("p"), time.Hour)
	if err == nil || !strings.Contains(err.Error(), "a: waiting for Available") {
		t.Fatalf("want an error naming the pending cluster, got %v", err)
	}
	if got == nil {
		t.Fatal("the last status read should be returned, to be saved")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the wait took %s after cancellation", d)
	}
}

// While the hub agent has not scheduled the placement's current spec, an update plans no preview
// (it would not survive the re-plan at apply).
func TestPlacementUnsettled(t *testing.T) {
	settled := rolloutCRP(1, map[string]metav1.ConditionStatus{"a": "True"}, "True")
	settled.TypeMeta = metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: "ClusterResourcePlacement"}
	pending := settled.DeepCopy()
	pending.Name, pending.Generation = "q", 2
	hc := hubtest.New(t, settled, pending)
	r := &placementResource{}
	if why := r.unsettled(context.Background(), hc, hub.ClusterPlacement("p")); why != "" {
		t.Errorf("p is scheduled for its generation, got %q", why)
	}
	if why := r.unsettled(context.Background(), hc, hub.ClusterPlacement("q")); !strings.Contains(why, "still scheduling") {
		t.Errorf("q's spec (generation 2) is not scheduled yet, got %q", why)
	}
	if why := r.unsettled(context.Background(), hc, hub.ClusterPlacement("gone")); !strings.Contains(why, "failed") {
		t.Errorf("a placement the hub lacks: got %q", why)
	}
}

// The configuration → hub.Placement → model round trip keeps the selection scopes, which
// KubeFleet v0.14.0's types lack (the hub client carries them beside the typed object).
func TestPlacementSelectorsRoundTrip(t *testing.T) {
	s := types.StringValue
	m := &placementModel{
		Name: s("p"),
		ResourceSelectors: []resourceSelectorModel{
			{Group: s(""), Version: s("v1"), Kind: s("Namespace"), Name: s("web"), SelectionScope: s(placementScopeWithResources)},
			{Group: s(""), Version: s("v1"), Kind: s("Namespace"), Name: types.StringNull(), SelectionScope: s(placementScopeNamespaceOnly),
				LabelSelector: &placementLabelSelectorModel{MatchLabels: map[string]string{"app": "db"}}},
		},
		Strategy:             &placementStrategyModel{Type: s("External")},
		RevisionHistoryLimit: types.Int64Value(3),
	}
	p := placementFromModel(m)
	if p.SelectionScope(0) != "" || p.SelectionScope(1) != placementScopeNamespaceOnly {
		t.Fatalf("selection scopes %q: the default is left unset, NamespaceOnly written", p.SelectionScopes)
	}
	if p.Spec.Strategy.Type != placementv1.ExternalRolloutStrategyType || p.Spec.Strategy.RollingUpdate != nil || *p.Spec.RevisionHistoryLimit != 3 {
		t.Fatalf("spec %+v", p.Spec)
	}
	var back placementModel
	placementSpecToModel(&back, p)
	if !reflect.DeepEqual(back.ResourceSelectors, m.ResourceSelectors) {
		t.Fatalf("round trip changed the selectors:\n got %+v\nwant %+v", back.ResourceSelectors, m.ResourceSelectors)
	}
	if back.Policy != nil || back.RevisionHistoryLimit.ValueInt64() != 3 || back.Strategy.Type.ValueString() != "External" {
		t.Fatalf("round trip: %+v", back)
	}
}

// What the hub reports lands in the model: each cluster's snapshot index (null for a cluster
// without one and for an entry without a cluster), the latest index and the history.
func TestPlacementSetObserved(t *testing.T) {
	crp := &hub.Placement{}
	crp.Status.PerClusterPlacementStatuses = []placementv1.PerClusterPlacementStatus{{ClusterName: "b"}, {}, {ClusterName: "a"}}
	t0 := time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("x", 3600))
	var m placementModel
	diags := m.setObserved(crp, hub.ResourceVersions{Latest: "1", ByCluster: map[string]string{"a": "1"},
		Snapshots: []hub.ResourceSnapshot{{Index: "0", CreatedAt: t0}, {Index: "1", CreatedAt: t0.Add(time.Minute)}}}, 0)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if m.LatestResourceIndex.ValueString() != "1" {
		t.Errorf("latest %s", m.LatestResourceIndex)
	}
	var got []string
	statuses, _ := m.Status.Attributes()["placement_statuses"].(types.List)
	for _, ps := range statuses.Elements() {
		a := objectAttributes(ps)
		got = append(got, fmt.Sprintf("%s=%s", a["cluster"], a["resource_snapshot_index"]))
	}
	if got, want := strings.Join(got, " "), `"a"="1" "b"=<null> <null>=<null>`; got != want {
		t.Errorf("per-cluster indices %s, want %s", got, want)
	}
	snaps := m.ResourceSnapshots.Elements()
	if len(snaps) != 2 || objectAttributes(snaps[0])["created_at"].String() != `"2026-11-23T00:02:03Z"` {
		t.Errorf("snapshots %v: want two, times in UTC", snaps)
	}
	// Before the hub agent cut a snapshot: null latest, an empty history.
	diags = m.setObserved(crp, hub.ResourceVersions{}, 0)
	if diags.HasError() || !m.LatestResourceIndex.IsNull() || len(m.ResourceSnapshots.Elements()) != 0 || m.ResourceSnapshots.IsNull() {
		t.Errorf("no snapshot yet: latest %s, snapshots %s", m.LatestResourceIndex, m.ResourceSnapshots)
	}
}

// objectAttributes are an object value's attributes (none for another value).
func objectAttributes(v attr.Value) map[string]attr.Value {
	o, ok := v.(types.Object)
	if !ok {
		return nil
	}
	return o.Attributes()
}

func TestPlacementStrategyMapping(t *testing.T) {
	s := &placementStrategyModel{Type: types.StringValue("RollingUpdate"), MaxUnavailable: types.StringValue("1"), MaxSurge: types.StringValue("50%"), UnavailablePeriodSeconds: types.Int64Value(30)}
	api := s.toAPI()
	if api.RollingUpdate.MaxUnavailable.Type != intstr.Int || api.RollingUpdate.MaxSurge.StrVal != "50%" {
		t.Fatalf("a number must be an int (the rollout controller rejects \"1\" as a string), a percentage a string: %+v", api.RollingUpdate)
	}
	back := placementStrategyFromAPI(api)
	if back.MaxUnavailable.ValueString() != "1" || back.MaxSurge.ValueString() != "50%" || back.UnavailablePeriodSeconds.ValueInt64() != 30 {
		t.Fatalf("round trip: %+v", back)
	}
	// A hub that left rollingUpdate out (kubectl, the hub agent's defaulter is in memory only)
	// reads back with the defaults the plan has.
	def := placementStrategyFromAPI(placementv1.RolloutStrategy{Type: placementv1.RollingUpdateRolloutStrategyType})
	if def.MaxUnavailable.ValueString() != "25%" || def.MaxSurge.ValueString() != "25%" || def.UnavailablePeriodSeconds.ValueInt64() != 60 {
		t.Fatalf("defaults: %+v", def)
	}
}

// strategy and apply_strategy are blocks: Read keeps an omitted one null (and an import leaves
// them out) while the hub holds the defaults, and reads back anything else.
func TestPlacementReadKeepsOmittedStrategiesNull(t *testing.T) {
	s := types.StringValue
	defaults := placementFromModel(&placementModel{Name: s("p")})
	var imported placementModel
	placementSpecToModel(&imported, defaults)
	if imported.Strategy != nil || imported.ApplyStrategy != nil {
		t.Fatalf("defaults read into an omitted block: %+v %+v", imported.Strategy, imported.ApplyStrategy)
	}
	// Written blocks keep the defaults they planned.
	written := placementModel{Strategy: &placementStrategyModel{}, ApplyStrategy: &applyStrategyModel{}}
	placementSpecToModel(&written, defaults)
	if !written.Strategy.isDefault() || !written.ApplyStrategy.isDefault() {
		t.Fatalf("written blocks: %+v %+v", written.Strategy, written.ApplyStrategy)
	}
	// A hub changed outside Terraform shows in an omitted block.
	changed := placementFromModel(&placementModel{Name: s("p"),
		Strategy:      &placementStrategyModel{Type: s("External")},
		ApplyStrategy: &applyStrategyModel{Type: s("ServerSideApply"), ServerSideApplyConfig: &applySSAConfigModel{ForceConflicts: types.BoolValue(true)}}})
	var omitted placementModel
	placementSpecToModel(&omitted, changed)
	if omitted.Strategy == nil || omitted.Strategy.Type.ValueString() != "External" || omitted.ApplyStrategy == nil ||
		omitted.ApplyStrategy.Type.ValueString() != "ServerSideApply" {
		t.Fatalf("changed strategies: %+v %+v", omitted.Strategy, omitted.ApplyStrategy)
	}
	// A RollingUpdate that differs in one setting is not the default.
	ru := placementFromModel(&placementModel{Name: s("p"), Strategy: &placementStrategyModel{Type: s("RollingUpdate"), MaxSurge: s("1")}})
	omitted = placementModel{}
	placementSpecToModel(&omitted, ru)
	if omitted.Strategy == nil || omitted.Strategy.MaxSurge.ValueString() != "1" {
		t.Fatalf("a changed max_surge: %+v", omitted.Strategy)
	}
}
