package placement

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// The bar: a managed namespace placed over 1,000 members (PickAll with a label term, so hundreds
// picked and hundreds left out), with a quota, a network policy and its objects, takes under 200
// lines of `terraform plan` with the default detail; full detail lists every member.
func TestManagedNamespacePlanLines(t *testing.T) {
	ctx := context.Background()
	policy := &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType, Affinity: &placementv1.Affinity{
		ClusterAffinity: &placementv1.ClusterAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{
			ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{{PropertySelector: &placementv1.PropertySelector{
				MatchExpressions: []placementv1.PropertySelectorRequirement{{Name: "kubernetes-fleet.io/node-count", Operator: placementv1.PropertySelectorGreaterThanOrEqualTo, Values: []string{"3"}}},
			}}},
		}},
	}}
	p := boundsPreview(t, 1000, policy)
	if len(p.Selected) < 100 || len(p.Excluded) < 100 {
		t.Fatalf("the fleet should split: %d picked, %d left out", len(p.Selected), len(p.Excluded))
	}
	r := &managedNamespaceResource{}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	m := &managedNamespaceModel{
		Name: types.StringValue("team-a"), Labels: map[string]string{"team": "a"},
		ResourceQuota: &namespaceQuotaModel{CPURequest: types.StringValue("8"), CPULimit: types.StringValue("16"),
			MemoryRequest: types.StringValue("32Gi"), MemoryLimit: types.StringValue("64Gi")},
		NetworkPolicy: &namespaceNetworkPolicyModel{Ingress: types.StringValue("AllowSameNamespace"), Egress: types.StringValue("AllowAll")},
	}
	objects, err := namespaceObjects("team-a", m.namespaceProperties())
	if err != nil {
		t.Fatal(err)
	}
	plan := tfsdk.Plan{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	for _, set := range []struct {
		at string
		v  any
	}{
		{"id", types.StringUnknown()}, {"name", types.StringValue("team-a")}, {"location", types.StringValue("eastus")},
		{"labels", m.Labels}, {"resource_quota", m.ResourceQuota}, {"network_policy", m.NetworkPolicy},
		{"adoption_policy", types.StringValue("Never")}, {"delete_policy", types.StringValue("Keep")},
		{"objects", objects}, {"placed_members", types.ListUnknown(types.StringType)},
		{"provisioning_state", types.StringUnknown()}, {"portal_fqdn", types.StringUnknown()}, {"status_message", types.StringUnknown()},
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
		if d := plan.SetAttribute(ctx, path.Root("preview"), withoutOverrides(obj, &d)); d.HasError() {
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
