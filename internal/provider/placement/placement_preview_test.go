package placement

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
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

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// boundsFleet is n joined members with env labels, a node-count property on most, one in 25
// tainted and one in 30 without a recent heartbeat.
func boundsFleet(n int, now time.Time) []clusterv1.MemberCluster {
	rng := rand.New(rand.NewSource(int64(n)))
	out := make([]clusterv1.MemberCluster, n)
	for i := range out {
		heartbeat := now.Add(-time.Minute)
		if i%30 == 4 {
			heartbeat = now.Add(-time.Hour)
		}
		mc := clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("m-%04d", i), Labels: map[string]string{"env": []string{"prod", "dev"}[rng.Intn(2)]},
		}}
		mc.Status.AgentStatus = []clusterv1.AgentStatus{{
			Type: clusterv1.MemberAgent, LastReceivedHeartbeat: metav1.NewTime(heartbeat),
			Conditions: []metav1.Condition{
				{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionTrue},
				{Type: string(clusterv1.AgentHealthy), Status: metav1.ConditionTrue},
			},
		}}
		if i%10 != 9 {
			mc.Status.Properties = map[clusterv1.PropertyName]clusterv1.PropertyValue{
				"kubernetes-fleet.io/node-count": {Value: fmt.Sprint(1 + rng.Intn(50))},
			}
		}
		if i%25 == 2 {
			mc.Spec.Taints = []clusterv1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}
		out[i] = mc
	}
	return out
}

func boundsPreview(t *testing.T, n int, policy *placementv1.PlacementPolicy) placementPreviewModel {
	t.Helper()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	members := boundsFleet(n, now)
	res, err := scheduling.Schedule(scheduling.Input{Policy: policy, Clusters: members, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return stableReasons(placementPreviewFromResult(res), members)
}

func objectAttrs(t *testing.T, o types.Object, d diag.Diagnostics) map[string]attr.Value {
	t.Helper()
	if d.HasError() {
		t.Fatal(d)
	}
	return o.Attributes()
}

// Checked reads of computed values, for the assertions of this package's unit tests.
func int64Attr(t *testing.T, v attr.Value) int64 {
	t.Helper()
	return sharedtest.As[types.Int64](t, v).ValueInt64()
}
func listElems(t *testing.T, v attr.Value) []attr.Value {
	t.Helper()
	return sharedtest.As[types.List](t, v).Elements()
}
func mapElems(t *testing.T, v attr.Value) map[string]attr.Value {
	t.Helper()
	return sharedtest.As[types.Map](t, v).Elements()
}
func objAttrs(t *testing.T, v attr.Value) map[string]attr.Value {
	t.Helper()
	return sharedtest.As[types.Object](t, v).Attributes()
}
func strOf(t *testing.T, v attr.Value) string {
	t.Helper()
	return sharedtest.As[types.String](t, v).ValueString()
}

// The summary lists at most 20 clusters per list, the top-ranked picks and the most common
// exclusion reasons first, and its counts equal what the full detail lists.
func TestPlacementPreviewBounds(t *testing.T) {
	required := &placementv1.PlacementPolicy{
		PlacementType: placementv1.PickNPlacementType, NumberOfClusters: ptr32(100),
		Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{
					{Name: "kubernetes-fleet.io/node-count", Operator: placementv1.PropertySelectorGreaterThanOrEqualTo, Values: []string{"10"}},
				}},
			}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{{
				Weight: 50, Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{
					Name: "kubernetes-fleet.io/node-count", SortOrder: placementv1.Descending,
				}},
			}},
		}},
	}
	p := boundsPreview(t, 1000, required)

	o, d := p.object(preview.SummaryListLimit)
	summary := objectAttrs(t, o, d)
	o, d = p.object(0)
	full := objectAttrs(t, o, d)

	for _, name := range []string{"selected_count", "trimmed_count", "excluded_count", "excluded_by_reason", "fulfilled", "message"} {
		if !summary[name].Equal(full[name]) {
			t.Errorf("%s differs: summary %s, full %s", name, summary[name], full[name])
		}
	}
	fullSelected := listElems(t, full["selected"])
	fullExcluded := mapElems(t, full["excluded"])
	if int64Attr(t, full["selected_count"]) != int64(len(fullSelected)) || int64Attr(t, full["excluded_count"]) != int64(len(fullExcluded)) {
		t.Fatalf("full counts %s/%s, listed %d/%d", full["selected_count"], full["excluded_count"], len(fullSelected), len(fullExcluded))
	}
	if got := int64(len(fullSelected) + len(fullExcluded)); got != 1000 {
		t.Errorf("selected + excluded = %d, want every one of the 1000 members", got)
	}
	if len(fullSelected) != 100 {
		t.Errorf("selected %d, want 100", len(fullSelected))
	}
	var sum int64
	byReason := map[string]int64{}
	for k, v := range mapElems(t, full["excluded_by_reason"]) {
		byReason[k] = int64Attr(t, v)
		sum += int64Attr(t, v)
	}
	if sum != int64(len(fullExcluded)) {
		t.Errorf("excluded_by_reason adds up to %d, want %d", sum, len(fullExcluded))
	}
	for _, class := range []string{scheduling.ClassSelectorMismatch, scheduling.ClassPropertyMissing, scheduling.ClassTaint, scheduling.ClassNoHeartbeat, scheduling.ClassNotScored} {
		if byReason[class] == 0 {
			t.Errorf("no cluster counted as %q: %v", class, byReason)
		}
	}
	if int64Attr(t, full["selected_omitted"]) != 0 || int64Attr(t, full["excluded_omitted"]) != 0 {
		t.Errorf("full detail omits %s/%s", full["selected_omitted"], full["excluded_omitted"])
	}

	selected := listElems(t, summary["selected"])
	excluded := mapElems(t, summary["excluded"])
	if len(selected) != preview.SummaryListLimit/2 || len(excluded) != preview.SummaryListLimit {
		t.Fatalf("summary lists %d selected and %d excluded, want %d and %d", len(selected), len(excluded), preview.SummaryListLimit/2, preview.SummaryListLimit)
	}
	for i := range selected {
		if !selected[i].Equal(fullSelected[i]) {
			t.Errorf("summary pick %d is %s, want the full list's %s (top-ranked first)", i, selected[i], fullSelected[i])
		}
	}
	if got, want := int64Attr(t, summary["selected_omitted"]), int64(100-preview.SummaryListLimit/2); got != want {
		t.Errorf("selected_omitted %d, want %d", got, want)
	}
	if got, want := int64Attr(t, summary["excluded_omitted"]), int64(len(fullExcluded)-preview.SummaryListLimit); got != want {
		t.Errorf("excluded_omitted %d, want %d", got, want)
	}
	// Every reason class shows, and within a class the listed clusters are its first by name.
	byClass := map[string][]string{}
	for _, e := range p.Excluded {
		byClass[e.Class] = append(byClass[e.Class], e.Cluster)
	}
	for class, names := range byClass {
		sort.Strings(names)
		n := 0
		for n < len(names) {
			if _, ok := excluded[names[n]]; !ok {
				break
			}
			n++
		}
		if n == 0 {
			t.Errorf("the summary shows no cluster of class %q", class)
		}
		for _, name := range names[n:] {
			if _, ok := excluded[name]; ok {
				t.Errorf("class %q: %s is listed but an earlier cluster of the class (%s) is not", class, name, names[n])
			}
		}
	}
	for name, reason := range excluded {
		if !reason.Equal(fullExcluded[name]) {
			t.Errorf("%s: summary reason %s, full %s", name, reason, fullExcluded[name])
		}
	}
}

func ptr32(v int32) *int32 { return &v }

// The bar: a placement of 1,000 members with a PickN 100 policy of three preferred terms takes
// under 200 lines of `terraform plan` with the default detail (make bench measures the same with
// the real CLI).
func TestPlacementPlanLines(t *testing.T) {
	ctx := context.Background()
	policy := &policyModel{
		PlacementType: types.StringValue("PickN"), NumberOfClusters: types.Int64Value(100),
		PreferredClusterSelectors: []preferredTermModel{
			{Weight: types.Int64Value(40), Labels: map[string]string{"env": "prod"}},
			{Weight: types.Int64Value(30), PropertySorter: &propertySorterModel{Name: types.StringValue("resources.kubernetes-fleet.io/available-cpu"), SortOrder: types.StringValue("Descending")}},
			{Weight: types.Int64Value(20), PropertySorter: &propertySorterModel{Name: types.StringValue("kubernetes-fleet.io/node-count"), SortOrder: types.StringValue("Descending")}},
		},
	}
	p := boundsPreview(t, 1000, policy.toAPI())
	r := &placementResource{}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	for _, set := range []struct {
		at string
		v  any
	}{
		{"id", types.StringUnknown()}, {"name", types.StringValue("bench-0")}, {"policy", policy},
		{"resource_selector", []resourceSelectorModel{{Group: types.StringValue(""), Version: types.StringValue("v1"), Kind: types.StringValue("Namespace"),
			Name: types.StringValue("app-0"), SelectionScope: types.StringNull()}}},
		{"wait_for_rollout", types.BoolValue(false)}, {"revision_history_limit", types.Int64Value(10)},
		{"status", types.ObjectUnknown(placementStatusAttrTypes)},
	} {
		if d := plan.SetAttribute(ctx, path.Root(set.at), set.v); d.HasError() {
			t.Fatal(set.at, d)
		}
	}
	for _, limit := range []int{preview.SummaryListLimit, 0} {
		obj, d := p.object(limit)
		if d.HasError() {
			t.Fatal(d)
		}
		if d := plan.SetAttribute(ctx, path.Root("preview"), obj); d.HasError() {
			t.Fatal(d)
		}
		lines := 1 + sharedtest.PlanTextLines(plan.Raw)
		t.Logf("list limit %d: %d lines", limit, lines)
		if limit > 0 && lines >= 200 {
			t.Errorf("the plan takes %d lines with the default detail, want under 200", lines)
		}
		if limit == 0 && lines < 1000 {
			t.Errorf("full detail: %d lines, want every one of the 1,000 members", lines)
		}
	}
}
