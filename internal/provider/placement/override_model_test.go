package placement

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestOverrideModelRoundTrip: what the provider writes to the hub reads back as the configuration
// (defaults left out, JSON values spelled as configured), so a refresh plans no change; and with
// no prior state (an import) the hub's defaults stay out where the configuration may omit them.
func TestOverrideModelRoundTrip(t *testing.T) {
	s := types.StringValue
	m := overrideModel{
		Namespace: s("app"), Name: s("web"),
		Placement:         &overridePlacementRef{Name: s("web"), Scope: types.StringNull()},
		ResourceSelectors: []overrideSelector{{Group: types.StringNull(), Version: s("v1"), Kind: s("ConfigMap"), Name: s("cfg")}},
		Rules: []overrideRuleModel{
			{ClusterSelector: &overrideClusterSelector{Terms: []overrideTermModel{{Labels: map[string]types.String{"env": s("prod")},
				Expressions: []overrideRequirement{{Key: s("tier"), Operator: s("In"), Values: []types.String{s("gold")}}}}}},
				Type:        types.StringNull(),
				JSONPatches: []overridePatchModel{{Op: s("replace"), Path: s("/data/k"), Value: s(`{ "a" : 1 }`)}, {Op: s("remove"), Path: s("/data/x"), Value: types.StringNull()}}},
			{ClusterSelector: &overrideClusterSelector{}, Type: s("Delete")},
			{Type: types.StringNull(), JSONPatches: []overridePatchModel{{Op: s("add"), Path: s("/metadata/labels/a"), Value: s(`"${MEMBER-CLUSTER-NAME}"`)}}},
		},
	}
	got := m
	got.fromHub(m.hub())
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("read back differs:\n got %+v\nwant %+v", got, m)
	}
	if h := m.hub(); h.Spec.Placement.Scope != "Cluster" || h.Spec.Policy.OverrideRules[0].OverrideType != "JSONPatch" ||
		h.Spec.Policy.OverrideRules[1].ClusterSelector == nil || h.Spec.Policy.OverrideRules[1].ClusterSelector.ClusterSelectorTerms == nil ||
		h.Spec.Policy.OverrideRules[2].ClusterSelector != nil {
		t.Fatalf("KubeFleet's defaults and selectors: %+v", h.Spec)
	}
	imported := overrideModel{Namespace: s("app"), Name: s("web")}
	imported.fromHub(m.hub())
	if !imported.Placement.Scope.IsNull() || !imported.Rules[0].Type.IsNull() || imported.Rules[1].Type.ValueString() != "Delete" ||
		!imported.Rules[0].JSONPatches[1].Value.IsNull() {
		t.Fatalf("imported: %+v", imported)
	}
}
