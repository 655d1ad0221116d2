package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What fleet_placement and data.fleet_placement_preview share: the policy's schema and model, the
// mapping between HCL and KubeFleet's v1beta1 types, validation with attribute paths, the preview
// and the hub reads behind it.

// Selection scopes of a Namespace resource selector (newer KubeFleet; v0.14.0 always places the
// namespace with its resources).
const (
	placementScopeWithResources = "NamespaceWithResources"
	placementScopeNamespaceOnly = "NamespaceOnly"
)

var (
	// maxUnavailable and maxSurge: the CRD's pattern.
	placementIntOrPercentRe = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
)

// ---- schema ----

// placementPolicyAttribute is the scheduling policy: what KubeFleet's scheduler reads. Its rules are
// checked by scheduling.Validate (ValidateConfig), not by per-attribute validators, so each
// problem is reported once, in the hub's own words; only enumerations and HCL-specific shapes are
// checked here.
func placementPolicyAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Optional: true,
		Description: "The scheduling policy: which member clusters KubeFleet's scheduler picks. Omitted, the placement picks " +
			"every eligible cluster (PickAll). The hub never moves a placed cluster because its labels or properties changed " +
			"later (requiredDuringSchedulingIgnoredDuringExecution).",
		Attributes: map[string]rschema.Attribute{
			"placement_type": rschema.StringAttribute{
				Optional: true, Computed: true,
				Default: stringdefault.StaticString(string(placementv1.PickAllPlacementType)),
				Description: "`PickAll` (every cluster that passes the required selectors and tolerations), `PickN` " +
					"(`number_of_clusters`, ranked by the preferred selectors and topology spread) or `PickFixed` " +
					"(`cluster_names`). Immutable: KubeFleet rejects a change, so a plan that changes it fails (create a new " +
					"placement instead; replacing this one would remove the placed resources from every cluster first). " +
					"Default: `PickAll`.",
				Validators: []validator.String{stringvalidator.OneOf(string(placementv1.PickAllPlacementType),
					string(placementv1.PickNPlacementType), string(placementv1.PickFixedPlacementType))},
			},
			"cluster_names": rschema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "PickFixed: the member clusters to place on (at most 100, unique).",
				Validators:  []validator.List{listvalidator.SizeAtLeast(1), listvalidator.NoNullValues()},
			},
			"number_of_clusters": rschema.Int64Attribute{
				Optional: true,
				Description: "PickN: how many clusters to pick. Changing only this keeps the current picks: scaling out adds " +
					"clusters, scaling in removes the lowest-scored ones (by the scores recorded when they were picked).",
				Validators: []validator.Int64{int64validator.AtMost(math.MaxInt32)},
			},
			"required_cluster_selectors": rschema.ListNestedAttribute{
				Optional: true,
				Description: "PickAll and PickN: a cluster must match at least one of these terms (ORed, at most 10); " +
					"within a term, `labels`, `label_expressions` and `property_expressions` are ANDed.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"labels":            shared.LabelsAttribute("the cluster"),
					"label_expressions": shared.LabelExpressionsAttribute("the cluster"),
					"property_expressions": rschema.ListNestedAttribute{
						Optional: true,
						Description: "Requirements on the cluster's properties (e.g. `kubernetes-fleet.io/node-count`, " +
							"`resources.kubernetes-fleet.io/available-cpu`, `kubernetes.azure.com/per-cpu-core-cost`), compared as " +
							"Kubernetes quantities. A cluster without the property does not match.",
						Validators: []validator.List{listvalidator.SizeAtLeast(1)},
						NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{Required: true, Description: "The property name: a qualified name; resource " +
								"properties are `resources.kubernetes-fleet.io/<total|allocatable|available>-<resource>`."},
							"operator": rschema.StringAttribute{
								Required:    true,
								Description: "`Gt`, `Ge`, `Eq`, `Ne`, `Lt` or `Le`.",
								Validators:  []validator.String{stringvalidator.OneOf("Gt", "Ge", "Eq", "Ne", "Lt", "Le")},
							},
							"values": rschema.ListAttribute{
								Required: true, ElementType: types.StringType,
								Description: "Exactly one value, a Kubernetes quantity (`5`, `0.5`, `500m`, `64Gi`).",
								Validators:  []validator.List{listvalidator.NoNullValues()},
							},
						}},
					},
				}},
			},
			"preferred_cluster_selectors": rschema.ListNestedAttribute{
				Optional: true,
				Description: "PickN: terms whose weights add up to a cluster's affinity score, which ranks the clusters that pass " +
					"the required selectors. A term with a `property_sorter` scores a cluster between 0 and its weight by where its " +
					"property lies between the smallest and largest value over all member clusters.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"weight":            rschema.Int64Attribute{Required: true, Description: "The term's weight, from -100 to 100."},
					"labels":            shared.LabelsAttribute("the cluster"),
					"label_expressions": shared.LabelExpressionsAttribute("the cluster"),
					"property_sorter": rschema.SingleNestedAttribute{
						Optional:    true,
						Description: "Scores clusters by a property, interpolated between the fleet's minimum and maximum.",
						Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{Required: true, Description: "The property name."},
							"sort_order": rschema.StringAttribute{
								Required:    true,
								Description: "`Descending` (the largest value scores the full weight) or `Ascending` (the smallest does).",
								Validators:  []validator.String{stringvalidator.OneOf(string(placementv1.Descending), string(placementv1.Ascending))},
							},
						},
					},
				}},
			},
			"topology_spread_constraints": rschema.ListNestedAttribute{
				Optional: true,
				Description: "PickN: spread the picks over the values of a cluster label (the scheduler then picks one cluster " +
					"per cycle and recounts).",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"max_skew": rschema.Int64Attribute{
						Optional: true, Computed: true, Default: int64default.StaticInt64(1),
						Description: "The largest allowed difference between the number of picks of two domains. Default: 1.",
						Validators:  []validator.Int64{int64validator.AtMost(math.MaxInt32)},
					},
					"topology_key": rschema.StringAttribute{Required: true, Description: "The cluster label whose values are the domains."},
					"when_unsatisfiable": rschema.StringAttribute{
						Optional: true,
						Description: "`DoNotSchedule` (a cluster that would exceed the skew is not picked) or `ScheduleAnyway` " +
							"(it is ranked lower). Unset, the scheduler reads it as `DoNotSchedule`.",
						Validators: []validator.String{stringvalidator.OneOf(string(placementv1.DoNotSchedule), string(placementv1.ScheduleAnyway))},
					},
				}},
			},
			"tolerations": rschema.ListNestedAttribute{
				Optional: true,
				Description: "PickAll and PickN: taints of member clusters this placement tolerates (at most 100). Append-only: " +
					"KubeFleet rejects removing or changing one, so such a plan fails.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"key": rschema.StringAttribute{Optional: true, Description: "The taint key; unset with `Exists`, every taint.",
						Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"operator": rschema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString(string(corev1.TolerationOpEqual)),
						Description: "`Equal` (key and value match) or `Exists` (the key matches). Default: `Equal`.",
						Validators:  []validator.String{stringvalidator.OneOf(string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists))},
					},
					"value": rschema.StringAttribute{Optional: true, Description: "The taint value, with `Equal`.",
						Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					"effect": rschema.StringAttribute{
						Optional: true, Description: "`NoSchedule` (the only effect KubeFleet has); unset, every effect.",
						Validators: []validator.String{stringvalidator.OneOf(string(corev1.TaintEffectNoSchedule))},
					},
				}},
			},
		},
	}
}

// placementEnumAttributes are the policy attributes whose values the schema already checks (OneOf); the
// scheduler's validation of them would only repeat the error.
var placementEnumAttributes = map[string]bool{"placement_type": true, "operator": true, "sort_order": true, "when_unsatisfiable": true, "effect": true}

func placementPreviewAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "What KubeFleet's scheduler will do with this policy, computed at plan from the hub's member clusters (and, " +
			"for an existing placement, its current picks) by the same rules as the hub agent (v0.18.9). Filled when the " +
			"placement is created or its configuration changes; unknown, with a warning, while an input is unknown. Counts are " +
			"always exact; the per-cluster lists hold at most " + fmt.Sprint(shared.SummaryListLimit) + " clusters each unless the " +
			"provider's `preview_detail` is `full`.",
		Attributes: map[string]rschema.Attribute{
			"fulfilled":      rschema.BoolAttribute{Computed: true, Description: "Whether the scheduler finds every cluster the policy asks for (its Scheduled condition)."},
			"message":        rschema.StringAttribute{Computed: true, Description: "The Scheduled condition's message, as the hub agent words it."},
			"selected_count": rschema.Int64Attribute{Computed: true, Description: "How many clusters are picked."},
			"override_snapshots": rschema.MapAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
				Description: "Per listed pick, the override snapshots KubeFleet v0.18.9 will attach to its binding (ClusterResourceOverride " +
					"snapshots, then ResourceOverride snapshots as `<namespace>/<name>`, in the order they apply), for a placement on the " +
					"hub; picks no override applies to are left out; null when none applies or the placement is not on the hub yet."},
			"selected": rschema.ListNestedAttribute{
				Computed: true,
				Description: "The picked clusters in rank order, the top-ranked first: kept picks first (by the scores recorded when they " +
					"were picked), then new picks in the order the scheduler makes them.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"cluster":               rschema.StringAttribute{Computed: true, Description: "The member cluster."},
					"affinity_score":        rschema.Int64Attribute{Computed: true, Description: "The sum of the matching preferred terms' weights."},
					"topology_spread_score": rschema.Int64Attribute{Computed: true, Description: "The topology spread score (higher is better; -1000 for a ScheduleAnyway violation)."},
					"change":                rschema.StringAttribute{Computed: true, Description: "`kept` (the cluster already has this placement) or `added`."},
				}},
			},
			"selected_omitted": rschema.Int64Attribute{Computed: true, Description: "How many picked clusters `selected` leaves out (the lowest-ranked): with the default detail it lists the top " + fmt.Sprint(shared.SummaryListLimit/2) + " (each pick takes six lines of plan)."},
			"trimmed_count":    rschema.Int64Attribute{Computed: true, Description: "How many clusters lose the placement."},
			"trimmed": rschema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "Clusters that lose the placement: scale-in victims, clusters that left the fleet, and earlier picks a changed policy no longer picks.",
			},
			"trimmed_omitted": rschema.Int64Attribute{Computed: true, Description: "How many of those `trimmed` leaves out."},
			"excluded_count":  rschema.Int64Attribute{Computed: true, Description: "How many member clusters (and, for PickFixed, listed names) are not picked."},
			"excluded_by_reason": rschema.MapAttribute{
				Computed: true, ElementType: types.Int64Type,
				Description: "The number of clusters not picked, by a short, stable reason class: `taint not tolerated`, `no recent heartbeat`, " +
					"`unhealthy`, `member agent not joined`, `left the fleet`, `required selector not matched`, `property missing`, " +
					"`topology spread`, `not scored high enough`, `placement already has its clusters`, `not in cluster_names`, " +
					"`not a member cluster`, `not evaluated`. The counts add up to `excluded_count`.",
			},
			"excluded": rschema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "Clusters not picked → the reason, worded as the scheduler words it. With the default detail, at most " +
					fmt.Sprint(shared.SummaryListLimit) + ": one cluster of each reason class (the most common class first), then a second of each, " +
					"and so on, by name within a class.",
			},
			"excluded_omitted": rschema.Int64Attribute{Computed: true, Description: "How many clusters not picked `excluded` leaves out."},
		},
	}
}

// ---- models ----

type propertyExpressionModel struct {
	Name     types.String `tfsdk:"name"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

type requiredTermModel struct {
	Labels              map[string]string             `tfsdk:"labels"`
	LabelExpressions    []shared.LabelExpressionModel `tfsdk:"label_expressions"`
	PropertyExpressions []propertyExpressionModel     `tfsdk:"property_expressions"`
}

type propertySorterModel struct {
	Name      types.String `tfsdk:"name"`
	SortOrder types.String `tfsdk:"sort_order"`
}

type preferredTermModel struct {
	Weight           types.Int64                   `tfsdk:"weight"`
	Labels           map[string]string             `tfsdk:"labels"`
	LabelExpressions []shared.LabelExpressionModel `tfsdk:"label_expressions"`
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
	RequiredClusterSelectors  []requiredTermModel   `tfsdk:"required_cluster_selectors"`
	PreferredClusterSelectors []preferredTermModel  `tfsdk:"preferred_cluster_selectors"`
	TopologySpreadConstraints []topologySpreadModel `tfsdk:"topology_spread_constraints"`
	Tolerations               []tolerationModel     `tfsdk:"tolerations"`
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
	shown, selectedOmitted := shared.CapList(p.Selected, PickLimit(limit))
	selected := make([]attr.Value, 0, len(shown))
	for _, s := range shown {
		o, d := types.ObjectValue(placementPickType.AttrTypes, map[string]attr.Value{
			"cluster": types.StringValue(s.Cluster), "affinity_score": types.Int64Value(s.AffinityScore),
			"topology_spread_score": types.Int64Value(s.TopologySpreadScore), "change": types.StringValue(s.Change),
		})
		diags.Append(d...)
		selected = append(selected, o)
	}
	trimmedShown, trimmedOmitted := shared.CapList(p.Trimmed, limit)
	trimmed := make([]attr.Value, 0, len(trimmedShown))
	for _, c := range trimmedShown {
		trimmed = append(trimmed, types.StringValue(c))
	}
	byReason := map[string]int{}
	for _, e := range p.Excluded {
		byReason[e.Class]++
	}
	excludedShown, excludedOmitted := shared.CapList(exclusionsByCommonClass(p.Excluded, byReason), limit)
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
		"excluded_count": types.Int64Value(int64(len(p.Excluded))), "excluded_by_reason": shared.CountMap(byReason),
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
	for i, c := range shared.ByCountThenKey(byReason) {
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

// ---- HCL → KubeFleet ----

func placementInt32(v types.Int64) int32 {
	n := v.ValueInt64()
	return int32(max(math.MinInt32, min(math.MaxInt32, n)))
}

// toAPI is the policy as the provider writes it to the hub.
func (m *policyModel) toAPI() *placementv1.PlacementPolicy {
	if m == nil {
		return nil
	}
	p := &placementv1.PlacementPolicy{PlacementType: placementv1.PlacementType(m.PlacementType.ValueString())}
	if len(m.ClusterNames) > 0 {
		p.ClusterNames = append([]string(nil), m.ClusterNames...)
	}
	if !m.NumberOfClusters.IsNull() && !m.NumberOfClusters.IsUnknown() {
		n := placementInt32(m.NumberOfClusters)
		p.NumberOfClusters = &n
	}
	if len(m.RequiredClusterSelectors) > 0 || len(m.PreferredClusterSelectors) > 0 {
		ca := &placementv1.ClusterAffinity{}
		if len(m.RequiredClusterSelectors) > 0 {
			ca.RequiredDuringSchedulingIgnoredDuringExecution = &placementv1.ClusterSelector{}
			for _, t := range m.RequiredClusterSelectors {
				term := placementv1.ClusterSelectorTerm{LabelSelector: shared.LabelSelector(t.Labels, t.LabelExpressions)}
				if len(t.PropertyExpressions) > 0 {
					term.PropertySelector = &placementv1.PropertySelector{}
					for _, e := range t.PropertyExpressions {
						term.PropertySelector.MatchExpressions = append(term.PropertySelector.MatchExpressions, placementv1.PropertySelectorRequirement{
							Name: e.Name.ValueString(), Operator: placementv1.PropertySelectorOperator(e.Operator.ValueString()), Values: append([]string(nil), e.Values...),
						})
					}
				}
				ca.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms = append(ca.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms, term)
			}
		}
		for _, t := range m.PreferredClusterSelectors {
			pref := placementv1.PreferredClusterSelector{
				Weight:     placementInt32(t.Weight),
				Preference: placementv1.ClusterSelectorTerm{LabelSelector: shared.LabelSelector(t.Labels, t.LabelExpressions)},
			}
			if s := t.PropertySorter; s != nil {
				pref.Preference.PropertySorter = &placementv1.PropertySorter{Name: s.Name.ValueString(), SortOrder: placementv1.PropertySortOrder(s.SortOrder.ValueString())}
			}
			ca.PreferredDuringSchedulingIgnoredDuringExecution = append(ca.PreferredDuringSchedulingIgnoredDuringExecution, pref)
		}
		p.Affinity = &placementv1.Affinity{ClusterAffinity: ca}
	}
	for _, c := range m.TopologySpreadConstraints {
		tsc := placementv1.TopologySpreadConstraint{
			TopologyKey:       c.TopologyKey.ValueString(),
			WhenUnsatisfiable: placementv1.UnsatisfiableConstraintAction(c.WhenUnsatisfiable.ValueString()),
		}
		if !c.MaxSkew.IsNull() && !c.MaxSkew.IsUnknown() {
			s := placementInt32(c.MaxSkew)
			tsc.MaxSkew = &s
		}
		p.TopologySpreadConstraints = append(p.TopologySpreadConstraints, tsc)
	}
	for _, t := range m.Tolerations {
		p.Tolerations = append(p.Tolerations, placementv1.Toleration{
			Key: t.Key.ValueString(), Operator: corev1.TolerationOperator(t.Operator.ValueString()),
			Value: t.Value.ValueString(), Effect: corev1.TaintEffect(t.Effect.ValueString()),
		})
	}
	return p
}

// ---- KubeFleet → HCL ----

// plString is an Optional-only attribute read back from the hub: "" is unset.
func plString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// placementPolicyFromAPI reads a policy as the hub stores it, with the CRD's defaults where the hub left a
// field empty (so that a placement made elsewhere imports without a diff).
func placementPolicyFromAPI(p *placementv1.PlacementPolicy) *policyModel {
	if p == nil {
		return nil
	}
	p = scheduling.Defaulted(p)
	m := &policyModel{
		PlacementType:    types.StringValue(string(p.PlacementType)),
		ClusterNames:     shared.Strings(p.ClusterNames),
		NumberOfClusters: types.Int64Null(),
	}
	if p.NumberOfClusters != nil {
		m.NumberOfClusters = types.Int64Value(int64(*p.NumberOfClusters))
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		ca := p.Affinity.ClusterAffinity
		if r := ca.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for _, t := range r.ClusterSelectorTerms {
				term := requiredTermModel{}
				term.Labels, term.LabelExpressions = shared.LabelsFromSelector(t.LabelSelector)
				if t.PropertySelector != nil {
					for _, e := range t.PropertySelector.MatchExpressions {
						term.PropertyExpressions = append(term.PropertyExpressions, propertyExpressionModel{
							Name: types.StringValue(e.Name), Operator: types.StringValue(string(e.Operator)), Values: append([]string{}, e.Values...),
						})
					}
				}
				m.RequiredClusterSelectors = append(m.RequiredClusterSelectors, term)
			}
		}
		for _, t := range ca.PreferredDuringSchedulingIgnoredDuringExecution {
			term := preferredTermModel{Weight: types.Int64Value(int64(t.Weight))}
			term.Labels, term.LabelExpressions = shared.LabelsFromSelector(t.Preference.LabelSelector)
			if s := t.Preference.PropertySorter; s != nil {
				term.PropertySorter = &propertySorterModel{Name: types.StringValue(s.Name), SortOrder: types.StringValue(string(s.SortOrder))}
			}
			m.PreferredClusterSelectors = append(m.PreferredClusterSelectors, term)
		}
	}
	for _, c := range p.TopologySpreadConstraints {
		m.TopologySpreadConstraints = append(m.TopologySpreadConstraints, topologySpreadModel{
			MaxSkew: types.Int64Value(int64(shared.Deref(c.MaxSkew))), TopologyKey: types.StringValue(c.TopologyKey),
			WhenUnsatisfiable: plString(string(c.WhenUnsatisfiable)),
		})
	}
	for _, t := range p.Tolerations {
		m.Tolerations = append(m.Tolerations, tolerationModel{
			Key: plString(t.Key), Operator: types.StringValue(string(t.Operator)),
			Value: plString(t.Value), Effect: plString(string(t.Effect)),
		})
	}
	return m
}

// ---- validation ----

// placementPolicyFields maps the policy's JSON field names onto its attribute names; "" marks a
// level the HCL shape flattens away (affinity.clusterAffinity, a term's labelSelector, ...).
var placementPolicyFields = map[string]string{
	"placementType": "placement_type", "clusterNames": "cluster_names", "numberOfClusters": "number_of_clusters",
	"affinity": "", "clusterAffinity": "",
	"requiredDuringSchedulingIgnoredDuringExecution": "required_cluster_selectors", "clusterSelectorTerms": "",
	"preferredDuringSchedulingIgnoredDuringExecution": "preferred_cluster_selectors", "preference": "", "weight": "weight",
	"labelSelector": "", "propertySelector": "property_expressions", "matchExpressions": "",
	"propertySorter": "property_sorter", "sortOrder": "sort_order", "name": "name", "operator": "operator", "values": "values",
	"topologySpreadConstraints": "topology_spread_constraints", "maxSkew": "max_skew", "topologyKey": "topology_key",
	"whenUnsatisfiable": "when_unsatisfiable", "tolerations": "tolerations", "key": "key", "value": "value", "effect": "effect",
}

// placementPolicyPath maps a scheduling.Path (JSON names from the policy's root) onto the
// attribute path under root (the policy attribute); m says which selectors a path to the whole
// affinity means.
func placementPolicyPath(root path.Path, p scheduling.Path, m *policyModel) path.Path {
	out := root
	for _, s := range p {
		if s.Field == "" {
			out = out.AtListIndex(s.Index)
		} else if name := placementPolicyFields[s.Field]; name != "" {
			out = out.AtName(name)
		}
	}
	if out.Equal(root) && len(p) > 0 && p[0].Field == "affinity" {
		// "affinity must be nil": point at whichever selectors are set.
		if m != nil && len(m.RequiredClusterSelectors) == 0 && len(m.PreferredClusterSelectors) > 0 {
			return root.AtName("preferred_cluster_selectors")
		}
		return root.AtName("required_cluster_selectors")
	}
	return out
}

// addPlacementPolicyIssues reports scheduling.Validate's issues at their attribute paths under root,
// leaving out those the schema already reports and those about values unknown at plan.
func addPlacementPolicyIssues(diags *diag.Diagnostics, root path.Path, m *policyModel, issues []scheduling.Issue, unknown []path.Path) {
	// One diagnostic per attribute and severity: the CRD schema and the webhook often say the
	// same thing twice (maxItems 1 and "requires exactly one value").
	type group struct {
		p        path.Path
		severity scheduling.Severity
		messages []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, is := range issues {
		p := placementPolicyPath(root, is.Path, m)
		if last, _ := p.Steps().LastStep(); last != nil {
			if name, ok := last.(path.PathStepAttributeName); ok && placementEnumAttributes[string(name)] {
				continue
			}
		}
		if shared.RelatedToAny(p, unknown) {
			continue
		}
		key := p.String() + "\x00" + string(is.Severity)
		g := byKey[key]
		if g == nil {
			g = &group{p: p, severity: is.Severity}
			byKey[key] = g
			groups = append(groups, g)
		}
		msg := strings.TrimSuffix(is.Message, ".")
		if !slices.Contains(g.messages, msg) {
			g.messages = append(g.messages, msg)
		}
	}
	for _, g := range groups {
		detail := fmt.Sprintf("Attribute %s: %s.", g.p, strings.Join(g.messages, "; "))
		if g.severity == scheduling.SeverityWarning {
			diags.AddAttributeWarning(g.p, "Placement policy will not schedule as written", detail)
		} else {
			diags.AddAttributeError(g.p, "Invalid placement policy", detail)
		}
	}
}

// validatePlacementPolicy checks a policy at validate and plan: KubeFleet's own rules
// (scheduling.Validate: the CRD schema and the hub's webhook) with attribute paths. Values unknown
// at plan are left out; with an unknown placement type nothing can be checked yet.
func validatePlacementPolicy(diags *diag.Diagnostics, root path.Path, m *policyModel, unknown []path.Path) {
	if m == nil || shared.PathsContain(unknown, root) || shared.PathsContain(unknown, root.AtName("placement_type")) {
		return
	}
	addPlacementPolicyIssues(diags, root, m, scheduling.Validate(m.toAPI()), unknown)
}

// ---- the preview ----

// placementPreview computes what the hub agent's scheduler will do with policy; existing names a
// placement already on the hub whose current bindings and latest policy snapshot the scheduler
// will start from (the zero key for a new one). Both scopes are scheduled by the same rules:
// KubeFleet v0.18.9 runs one scheduler and one profile for ClusterResourcePlacements and
// ResourcePlacements (pkg/scheduler/scheduler.go, pkg/scheduler/profile/profile.go).
func placementPreview(ctx context.Context, clients *session.Session, existing hub.PlacementKey, policy *placementv1.PlacementPolicy) (placementPreviewModel, []string, error) {
	var sched *schedulingFacts
	if existing.Name != "" {
		hc, err := clients.HubAPI(ctx)
		if err != nil {
			return placementPreviewModel{}, nil, err
		}
		if sched, err = readSchedulingFacts(ctx, hc, existing); err != nil {
			return placementPreviewModel{}, nil, err
		}
	}
	return placementPreviewFrom(ctx, clients, sched, policy)
}

// schedulingFacts are what the hub's scheduler starts from for an existing placement: its bindings
// and latest policy snapshot. The plan's refresh keeps them in private state (Read), so that
// with `facts` the apply's re-plan previews an update from what the plan saw (shared/facts.go).
type schedulingFacts struct {
	// Unsettled says why the hub agent had not finished scheduling the current spec ("" when it had).
	Unsettled string `json:"unsettled,omitempty"`
	// Policy is the latest policy snapshot's policy; HasSnapshot says there was one.
	HasSnapshot bool                         `json:"hasSnapshot"`
	Policy      *placementv1.PlacementPolicy `json:"policy,omitempty"`
	Bindings    []scheduling.Binding         `json:"bindings,omitempty"`
}

const schedulingFactsKey = "scheduling_facts"

// readSchedulingFacts reads an existing placement's scheduling state from the hub.
func readSchedulingFacts(ctx context.Context, hc *hub.Client, key hub.PlacementKey) (*schedulingFacts, error) {
	snapshot, bindings, err := placementSchedulingState(ctx, hc, key)
	if err != nil {
		return nil, err
	}
	out := &schedulingFacts{}
	latest := ""
	if snapshot != nil {
		latest, out.HasSnapshot, out.Policy = snapshot.Name, true, snapshot.Spec.Policy
	}
	out.Bindings = scheduling.BindingsFromAPI(bindings, latest)
	return out, nil
}

func saveSchedulingFacts(ctx context.Context, p shared.PrivateSetter, f *schedulingFacts) diag.Diagnostics {
	b, err := json.Marshal(f)
	if err != nil {
		var d diag.Diagnostics
		d.AddError("Saving the placement's scheduling state", err.Error())
		return d
	}
	return p.SetKey(ctx, schedulingFactsKey, b)
}

// loadSchedulingFacts is what the plan's refresh saved, or nil.
func loadSchedulingFacts(ctx context.Context, p shared.PrivateGetter) *schedulingFacts {
	b, diags := p.GetKey(ctx, schedulingFactsKey)
	if diags.HasError() || len(b) == 0 {
		return nil
	}
	var f schedulingFacts
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}

// placementPreviewFrom is placementPreview from the scheduling state sched (nil for a new placement).
func placementPreviewFrom(ctx context.Context, clients *session.Session, sched *schedulingFacts, policy *placementv1.PlacementPolicy) (placementPreviewModel, []string, error) {
	members, err := clients.HubMemberClusters(ctx)
	if err != nil {
		return placementPreviewModel{}, nil, err
	}
	in := scheduling.Input{Policy: policy, Clusters: members, Now: clients.Now()}
	if sched != nil {
		if sched.HasSnapshot {
			in.PolicyChanged = scheduling.NeedsNewSnapshot(sched.Policy, policy)
		}
		in.Bindings = sched.Bindings
	}
	res, err := scheduling.Schedule(in)
	if err != nil {
		// The hub accepts the placement but its scheduler fails every cycle: nothing is picked.
		var ce *scheduling.CycleError
		why := err.Error()
		if errors.As(err, &ce) {
			why = ce.Error()
		}
		return placementPreviewModel{
			Message: "the hub agent's scheduler fails every scheduling cycle of this placement: " + why,
		}, []string{"The hub agent's scheduler will fail every scheduling cycle of this placement, so it places nothing: " + why}, nil
	}
	return stableReasons(placementPreviewFromResult(res), members), scheduling.UnknownPropertiesWarning(policy, members), nil
}

// agoRe matches the elapsed time the eligibility checker puts in its reasons.
var agoRe = regexp.MustCompile(`\((last received|last transitioned) [0-9.]+ minutes ago\)`)

// stableReasons words the scheduler's "last received 20.79 minutes ago" as the time it happened:
// the planned preview must come out the same when Terraform plans again at apply, seconds later.
func stableReasons(p placementPreviewModel, members []clusterv1.MemberCluster) placementPreviewModel {
	byName := make(map[string]*clusterv1.MemberCluster, len(members))
	for i := range members {
		byName[members[i].Name] = &members[i]
	}
	for i, e := range p.Excluded {
		reason := e.Reason
		mc := byName[e.Cluster]
		if mc == nil || !agoRe.MatchString(reason) {
			continue
		}
		reason = agoRe.ReplaceAllStringFunc(reason, func(m string) string {
			what := agoRe.FindStringSubmatch(m)[1]
			at := eligibilityTime(mc, what == "last received")
			if at.IsZero() {
				return m
			}
			return fmt.Sprintf("(%s at %s)", what, at.UTC().Format(time.RFC3339))
		})
		p.Excluded[i].Reason = reason
	}
	return p
}

// eligibilityTime is the member agent's last heartbeat, or the last transition of its Healthy
// condition.
func eligibilityTime(mc *clusterv1.MemberCluster, heartbeat bool) time.Time {
	for _, a := range mc.Status.AgentStatus {
		if a.Type != clusterv1.MemberAgent {
			continue
		}
		if heartbeat {
			return a.LastReceivedHeartbeat.Time
		}
		if c := meta.FindStatusCondition(a.Conditions, string(clusterv1.AgentHealthy)); c != nil {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func placementPreviewFromResult(res scheduling.Result) placementPreviewModel {
	p := placementPreviewModel{
		Fulfilled: res.Fulfilled,
		Message:   res.Message,
		Selected:  make([]placementPickModel, 0, len(res.Selected)),
		Trimmed:   res.Trimmed,
		Excluded:  res.Excluded,
	}
	for _, s := range res.Selected {
		p.Selected = append(p.Selected, placementPickModel{
			Cluster: s.Cluster, AffinityScore: int64(s.AffinityScore), TopologySpreadScore: int64(s.TopologySpreadScore), Change: string(s.Change),
		})
	}
	return p
}

// placementSchedulingState reads what the scheduler starts from for an existing placement: its latest
// policy snapshot (nil before the hub agent made one) and its bindings (by name: the scheduler reads
// them in no particular order; a stable one keeps previews stable).
func placementSchedulingState(ctx context.Context, hc *hub.Client, key hub.PlacementKey) (*placementv1.ClusterSchedulingPolicySnapshot, []placementv1.ClusterResourceBinding, error) {
	snaps, err := hc.LatestPolicySnapshotsAt(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	var snapshot *placementv1.ClusterSchedulingPolicySnapshot
	for i := range snaps {
		if snapshot == nil || placementPolicyIndex(&snaps[i]) > placementPolicyIndex(snapshot) {
			snapshot = &snaps[i]
		}
	}
	bindings, err := hc.BindingsAt(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	return snapshot, bindings, nil
}

func placementPolicyIndex(s *placementv1.ClusterSchedulingPolicySnapshot) int {
	n, err := strconv.Atoi(s.Labels[placementv1beta1.PolicyIndexLabel])
	if err != nil {
		return -1
	}
	return n
}

// ---- data source schema ----

// dataSourceAttributesOf turns resource attributes into a data source's: the same shape and
// validators; defaults (which data sources do not have) are dropped, so an attribute that was
// Optional+Computed only for its default becomes Optional, and the engine applies the default.
func dataSourceAttributesOf(in map[string]rschema.Attribute) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(in))
	for name, a := range in {
		out[name] = dataSourceAttributeOf(a)
	}
	return out
}

func dataSourceAttributeOf(a rschema.Attribute) dschema.Attribute {
	optional := a.IsOptional()
	computed := a.IsComputed() && !optional
	required := a.IsRequired()
	switch a := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators}
	case rschema.ListAttribute:
		return dschema.ListAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators, ElementType: a.ElementType}
	case rschema.MapAttribute:
		return dschema.MapAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators, ElementType: a.ElementType}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators,
			NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributesOf(a.NestedObject.Attributes)}}
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{Required: required, Optional: optional, Computed: computed, Description: a.Description, Validators: a.Validators,
			Attributes: dataSourceAttributesOf(a.Attributes)}
	}
	panic(fmt.Sprintf("dataSourceAttribute: %T is not handled", a))
}
