package placement

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// status.apply orders clusters failed, drifted, diffed, pending, applied (then by name), counts them
// all exactly, and caps the list; a cluster without a name (one the scheduler could not find) is
// not counted.
func TestPlacementApplyStatusOrderCountsAndCap(t *testing.T) {
	crp := &placementv1.ClusterResourcePlacement{}
	crp.Generation = 3
	applied := func(gen int64, status metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: "Applied", Status: status, ObservedGeneration: gen, Message: "m"}}
	}
	id := placementv1.ResourceIdentifier{Version: "v1", Kind: "Namespace", Name: "web"}
	ps := []placementv1.PerClusterPlacementStatus{
		{ClusterName: "z-applied", Conditions: applied(3, metav1.ConditionTrue)},
		{ClusterName: "a-applied", Conditions: applied(3, metav1.ConditionTrue)},
		{ClusterName: "old", Conditions: applied(2, metav1.ConditionTrue)}, // an older generation: pending
		{ClusterName: "diffed", DiffedPlacements: []placementv1.DiffedResourcePlacement{{ResourceIdentifier: id,
			ObservedDiffs: []placementv1.PatchDetail{{Path: "/metadata/labels/team", ValueInMember: "z", ValueInHub: "a"}}}}},
		{ClusterName: "drifted", DriftedPlacements: []placementv1.DriftedResourcePlacement{{ResourceIdentifier: id}}},
		{ClusterName: "failed", FailedPlacements: []placementv1.FailedResourcePlacement{{ResourceIdentifier: id,
			Condition: metav1.Condition{Reason: "NotTakenOver", Message: "no ownership"}}},
			DriftedPlacements: []placementv1.DriftedResourcePlacement{{ResourceIdentifier: id}}},
		{}, // no cluster found
	}
	for i := 0; i < 25; i++ {
		ps = append(ps, placementv1.PerClusterPlacementStatus{ClusterName: fmt.Sprintf("m-%02d", i), Conditions: applied(3, metav1.ConditionTrue)})
	}
	crp.Status.PerClusterPlacementStatuses = ps
	var diags diag.Diagnostics
	full := placementApplyStatus(crp, 0, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	attrs := full.Attributes()
	for k, want := range map[string]int64{"applied_count": 27, "failed_count": 1, "drifted_count": 1, "diffed_count": 1, "pending_count": 1, "clusters_omitted": 0} {
		if got := int64Attr(t, attrs[k]); got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
	clusters := listElems(t, attrs["clusters"])
	if len(clusters) != 31 {
		t.Fatalf("%d clusters listed in full, want 31", len(clusters))
	}
	var order []string
	for _, c := range clusters[:6] {
		a := objAttrs(t, c)
		order = append(order, strOf(t, a["cluster"])+":"+strOf(t, a["result"]))
	}
	if want := "[failed:Failed drifted:Drifted diffed:Diffed old:Pending a-applied:Applied m-00:Applied]"; fmt.Sprint(order) != want {
		t.Errorf("order %v, want %s", order, want)
	}
	failed := objAttrs(t, clusters[0])
	if n := len(listElems(t, failed["failed"])) + len(listElems(t, failed["drifted"])); n != 2 {
		t.Errorf("the failed cluster lists %d objects, want its failed and drifted one", n)
	}
	diffed := objAttrs(t, listElems(t, objAttrs(t, clusters[2])["diffed"])[0])
	patch := objAttrs(t, listElems(t, diffed["observed_diffs"])[0])
	if strOf(t, patch["path"]) != "/metadata/labels/team" || strOf(t, patch["value_in_member"]) != "z" {
		t.Errorf("diff %v", patch)
	}

	capped := placementApplyStatus(crp, 20, &diags).Attributes()
	if n := len(listElems(t, capped["clusters"])); n != 20 {
		t.Errorf("%d clusters listed under the cap, want 20", n)
	}
	if got := int64Attr(t, capped["clusters_omitted"]); got != 11 {
		t.Errorf("clusters_omitted %d, want 11", got)
	}
	if got := int64Attr(t, capped["applied_count"]); got != 27 {
		t.Errorf("capped applied_count %d, want the exact 27", got)
	}
}

// apply_strategy maps to KubeFleet's ApplyStrategy with the CRD's defaults, and back; KubeFleet's
// validator rule on serverSideApplyConfig is reported at its path.
func TestApplyStrategyMappingAndValidation(t *testing.T) {
	got := (*applyStrategyModel)(nil).toAPI()
	want := placementv1.ApplyStrategy{Type: "ClientSideApply", ComparisonOption: "PartialComparison", WhenToApply: "Always", WhenToTakeOver: "Always"}
	if *got != want {
		t.Errorf("defaults %+v, want %+v", *got, want)
	}
	in := &placementv1.ApplyStrategy{Type: "ServerSideApply", ComparisonOption: "FullComparison", WhenToApply: "IfNotDrifted",
		WhenToTakeOver: "Never", AllowCoOwnership: true, ServerSideApplyConfig: &placementv1.ServerSideApplyConfig{ForceConflicts: true}}
	back := applyStrategyFromAPI(in).toAPI()
	if back.Type != in.Type || back.ComparisonOption != in.ComparisonOption || back.WhenToApply != in.WhenToApply ||
		back.WhenToTakeOver != in.WhenToTakeOver || !back.AllowCoOwnership || back.ServerSideApplyConfig == nil || !back.ServerSideApplyConfig.ForceConflicts {
		t.Errorf("round trip %+v, want %+v", back, in)
	}
	if m := applyStrategyFromAPI(nil); m.Type.ValueString() != "ClientSideApply" || m.ServerSideApplyConfig != nil {
		t.Errorf("a placement without applyStrategy reads as %+v", m)
	}
	for typ, wantErr := range map[string]bool{"ServerSideApply": false, "ClientSideApply": true, "ReportDiff": true} {
		var diags diag.Diagnostics
		validateApplyStrategy(&diags, &applyStrategyModel{Type: types.StringValue(typ), ServerSideApplyConfig: &applySSAConfigModel{ForceConflicts: types.BoolValue(true)}}, nil)
		if diags.HasError() != wantErr {
			t.Errorf("%s with server_side_apply_config: error %t, want %t (%v)", typ, diags.HasError(), wantErr, diags)
		}
	}
}
