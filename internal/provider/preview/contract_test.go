package preview

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// AttrDiff names each differing leaf by its attribute path, with both values.
func TestAttrDiff(t *testing.T) {
	pick := map[string]attr.Type{"cluster": types.StringType, "score": types.Int64Type}
	obj := func(selected []string, counts map[string]int64) types.Object {
		var picks []attr.Value
		for i, s := range selected {
			picks = append(picks, types.ObjectValueMust(pick, map[string]attr.Value{"cluster": types.StringValue(s), "score": types.Int64Value(int64(i))}))
		}
		m := map[string]attr.Value{}
		for k, v := range counts {
			m[k] = types.Int64Value(v)
		}
		return types.ObjectValueMust(map[string]attr.Type{"selected": types.ListType{ElemType: types.ObjectType{AttrTypes: pick}}, "actions": types.MapType{ElemType: types.Int64Type}},
			map[string]attr.Value{"selected": types.ListValueMust(types.ObjectType{AttrTypes: pick}, picks), "actions": types.MapValueMust(types.Int64Type, m)})
	}
	a := obj([]string{"prod-1", "prod-2"}, map[string]int64{"upgrade": 2, "skip": 1})
	if d := AttrDiff("preview", a, a); d != nil {
		t.Fatalf("equal: %v", d)
	}
	b := obj([]string{"prod-1", "prod-3", "prod-4"}, map[string]int64{"upgrade": 1, "pending": 1})
	want := []string{
		`preview.actions["pending"]: added 1`,
		`preview.actions["skip"]: 1 removed`,
		`preview.actions["upgrade"]: 2 → 1`,
		`preview.selected[1].cluster: "prod-2" → "prod-3"`,
		`preview.selected: 2 → 3 entries`,
	}
	if got := AttrDiff("preview", a, b); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("AttrDiff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
