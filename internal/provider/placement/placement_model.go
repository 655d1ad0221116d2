package placement

import (
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

type propertyExpressionModel struct {
	Name     types.String `tfsdk:"name"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

type requiredTermModel struct {
	Labels              map[string]string             `tfsdk:"labels"`
	LabelExpressions    []shared.LabelExpressionModel `tfsdk:"label_expression"`
	PropertyExpressions []propertyExpressionModel     `tfsdk:"property_expression"`
}

type propertySorterModel struct {
	Name      types.String `tfsdk:"name"`
	SortOrder types.String `tfsdk:"sort_order"`
}

type preferredTermModel struct {
	Weight           types.Int64                   `tfsdk:"weight"`
	Labels           map[string]string             `tfsdk:"labels"`
	LabelExpressions []shared.LabelExpressionModel `tfsdk:"label_expression"`
	PropertySorter   *propertySorterModel          `tfsdk:"property_sorter"`
}

type topologySpreadModel struct {
	MaxSkew           types.Int64  `tfsdk:"max_skew"`
	TopologyKey       types.String `tfsdk:"topology_key"`
	WhenUnsatisfiable types.String `tfsdk:"when_unsatisfiable"`
}

type tolerationModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Value    types.String `tfsdk:"value"`
	Effect   types.String `tfsdk:"effect"`
}

type policyModel struct {
	PlacementType             types.String          `tfsdk:"placement_type"`
	ClusterNames              []string              `tfsdk:"cluster_names"`
	NumberOfClusters          types.Int64           `tfsdk:"number_of_clusters"`
	RequiredClusterSelectors  []requiredTermModel   `tfsdk:"required_cluster_selector"`
	PreferredClusterSelectors []preferredTermModel  `tfsdk:"preferred_cluster_selector"`
	TopologySpreadConstraints []topologySpreadModel `tfsdk:"topology_spread_constraint"`
	Tolerations               []tolerationModel     `tfsdk:"toleration"`
}

type placementPickModel struct {
	Cluster             string
	AffinityScore       int64
	TopologySpreadScore int64
	Change              string
}

// placementPreviewModel is the whole preview; object bounds it for the plan.
type placementPreviewModel struct {
	Fulfilled bool
	Message   string
	Selected  []placementPickModel
	Trimmed   []string
	Excluded  []scheduling.Exclusion
	// OverrideSnapshots: per picked cluster, the override snapshots that apply (override_preview.go);
	// nil when unknown (the placement is not on the hub).
	OverrideSnapshots map[string][]string
}

var (
	placementPickType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"cluster": types.StringType, "affinity_score": types.Int64Type, "topology_spread_score": types.Int64Type, "change": types.StringType,
	}}
	placementPreviewAttrTypes = map[string]attr.Type{
		"fulfilled":          types.BoolType,
		"message":            types.StringType,
		"selected_count":     types.Int64Type,
		"selected":           types.ListType{ElemType: placementPickType},
		"selected_omitted":   types.Int64Type,
		"trimmed_count":      types.Int64Type,
		"trimmed":            types.ListType{ElemType: types.StringType},
		"trimmed_omitted":    types.Int64Type,
		"excluded_count":     types.Int64Type,
		"excluded_by_reason": types.MapType{ElemType: types.Int64Type},
		"excluded":           types.MapType{ElemType: types.StringType},
		"excluded_omitted":   types.Int64Type,
		"override_snapshots": types.MapType{ElemType: types.ListType{ElemType: types.StringType}},
	}
)

// object builds the preview's value, listing at most limit clusters per list (0: all) and
// counting everything. It builds values directly: by reflection (types.ObjectValueFrom) a plan of
// 50 placements over a thousand clusters costs seconds.
func (p placementPreviewModel) object(limit int) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	shown, selectedOmitted := preview.CapList(p.Selected, PickLimit(limit))
	selected := make([]attr.Value, 0, len(shown))
	for _, s := range shown {
		o, d := types.ObjectValue(placementPickType.AttrTypes, map[string]attr.Value{
			"cluster": types.StringValue(s.Cluster), "affinity_score": types.Int64Value(s.AffinityScore),
			"topology_spread_score": types.Int64Value(s.TopologySpreadScore), "change": types.StringValue(s.Change),
		})
		diags.Append(d...)
		selected = append(selected, o)
	}
	trimmedShown, trimmedOmitted := preview.CapList(p.Trimmed, limit)
	trimmed := make([]attr.Value, 0, len(trimmedShown))
	for _, c := range trimmedShown {
		trimmed = append(trimmed, types.StringValue(c))
	}
	byReason := map[string]int{}
	for _, e := range p.Excluded {
		byReason[e.Class]++
	}
	excludedShown, excludedOmitted := preview.CapList(exclusionsByCommonClass(p.Excluded, byReason), limit)
	excluded := make(map[string]attr.Value, len(excludedShown))
	for _, e := range excludedShown {
		excluded[e.Cluster] = types.StringValue(e.Reason)
	}
	sl, d := types.ListValue(placementPickType, selected)
	diags.Append(d...)
	tl, d := types.ListValue(types.StringType, trimmed)
	diags.Append(d...)
	em, d := types.MapValue(types.StringType, excluded)
	diags.Append(d...)
	o, d := types.ObjectValue(placementPreviewAttrTypes, map[string]attr.Value{
		"fulfilled": types.BoolValue(p.Fulfilled), "message": types.StringValue(p.Message),
		"selected_count": types.Int64Value(int64(len(p.Selected))), "selected": sl, "selected_omitted": types.Int64Value(selectedOmitted),
		"trimmed_count": types.Int64Value(int64(len(p.Trimmed))), "trimmed": tl, "trimmed_omitted": types.Int64Value(trimmedOmitted),
		"excluded_count": types.Int64Value(int64(len(p.Excluded))), "excluded_by_reason": preview.CountMap(byReason),
		"excluded": em, "excluded_omitted": types.Int64Value(excludedOmitted),
		"override_snapshots": overrideSnapshotsValue(p.OverrideSnapshots, shown),
	})
	diags.Append(d...)
	return o, diags
}

// PickLimit is how many picks a preview lists: a pick takes six lines of plan, so half the list
// limit keeps a 1,000-member placement with a policy of a few terms under 200 lines (make bench).
func PickLimit(limit int) int {
	if limit <= 0 {
		return 0
	}
	return max(1, limit/2)
}

// exclusionsByCommonClass orders exclusions as a capped list takes them: one cluster of each
// reason class, the most common class first, then a second of each, and so on (by cluster name
// within a class), so the first entries show every reason.
func exclusionsByCommonClass(in []scheduling.Exclusion, byReason map[string]int) []scheduling.Exclusion {
	rank := map[string]int{}
	for i, c := range preview.ByCountThenKey(byReason) {
		rank[c] = i
	}
	out := append([]scheduling.Exclusion(nil), in...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Class != out[j].Class {
			return rank[out[i].Class] < rank[out[j].Class]
		}
		return out[i].Cluster < out[j].Cluster
	})
	round := make([]int, len(out))
	seen := map[string]int{}
	for i, e := range out {
		round[i] = seen[e.Class]
		seen[e.Class]++
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return round[idx[a]] < round[idx[b]] })
	ordered := make([]scheduling.Exclusion, len(out))
	for i, j := range idx {
		ordered[i] = out[j]
	}
	return ordered
}
