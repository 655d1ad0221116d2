package placement

import (
	"fmt"
	"math"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What fleet_placement and data.fleet_placement_preview share, one concern a file: the policy's
// schema (placement_schema.go) and model (placement_model.go), the mapping between HCL and
// KubeFleet's v1beta1 types (placement_expand.go, placement_flatten.go), validation with attribute
// paths (placement_validate.go), the preview and the hub reads behind it (placement_preview.go), and
// the data source schema (placement_data_source_schema.go).

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

// placementPolicyBlock is the scheduling policy: what KubeFleet's scheduler reads. Its rules are
// checked by scheduling.Validate (ValidateConfig), not by per-attribute validators, so each
// problem is reported once, in the hub's own words; only enumerations and HCL-specific shapes are
// checked here.
func placementPolicyBlock() rschema.SingleNestedBlock {
	return rschema.SingleNestedBlock{
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
		},
		Blocks: map[string]rschema.Block{
			"required_cluster_selector": placementRequiredSelectorBlock("PickAll and PickN: a term a cluster must match; repeated, the terms are ORed (at most 10) " +
				"and a cluster must match at least one. Within a term, `labels`, `label_expression` and `property_expression` are ANDed."),
			"preferred_cluster_selector": rschema.ListNestedBlock{
				Description: "PickN: a term whose weight adds to the affinity score of the clusters it matches; the score ranks " +
					"the clusters that pass the required selectors (repeat the block for more terms). A term with a `property_sorter` " +
					"scores a cluster between 0 and its weight by where its property lies between the smallest and largest value over " +
					"all member clusters.",
				NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
					"weight": rschema.Int64Attribute{Required: true, Description: "The term's weight, from -100 to 100."},
					"labels": shared.LabelsAttribute("the cluster"),
				}, Blocks: map[string]rschema.Block{
					"label_expression": shared.LabelExpressionsBlock("the cluster"),
					"property_sorter": shared.RequiredInBlock(rschema.SingleNestedBlock{
						Description: "Scores clusters by a property, interpolated between the fleet's minimum and maximum.",
						Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{Required: true, Description: "The property name."},
							"sort_order": rschema.StringAttribute{
								Required:    true,
								Description: "`Descending` (the largest value scores the full weight) or `Ascending` (the smallest does).",
								Validators:  []validator.String{stringvalidator.OneOf(string(placementv1.Descending), string(placementv1.Ascending))},
							},
						},
					}, "name", "sort_order"),
				}},
			},
			"topology_spread_constraint": rschema.ListNestedBlock{
				Description: "PickN: spread the picks over the values of a cluster label (the scheduler then picks one cluster " +
					"per cycle and recounts); repeat the block for more constraints.",
				NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
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
			"toleration": placementTolerationBlock("PickAll and PickN: a taint of member clusters this placement tolerates; repeat the block for more " +
				"(at most 100). Append-only: KubeFleet rejects removing or changing one, so such a plan fails."),
		},
	}
}

// placementRequiredSelectorBlock is `required_cluster_selector`: the required terms of a cluster affinity
// (requiredDuringSchedulingIgnoredDuringExecution), shared by fleet_placement's policy and
// fleet_managed_namespace's placement, which send the same KubeFleet terms.
func placementRequiredSelectorBlock(description string) rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: description,
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
			"labels": shared.LabelsAttribute("the cluster"),
		}, Blocks: map[string]rschema.Block{
			"label_expression": shared.LabelExpressionsBlock("the cluster"),
			"property_expression": rschema.ListNestedBlock{
				Description: "A requirement on the cluster's properties (e.g. `kubernetes-fleet.io/node-count`, " +
					"`resources.kubernetes-fleet.io/available-cpu`, `kubernetes.azure.com/per-cpu-core-cost`), compared as " +
					"Kubernetes quantities; repeat the block for more (ANDed). A cluster without the property does not match.",
				NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
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
	}
}

// placementTolerationBlock is `toleration`: KubeFleet's tolerations, shared by fleet_placement's policy and
// fleet_managed_namespace's placement.
func placementTolerationBlock(description string) rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: description,
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
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
			"always exact; the per-cluster lists hold at most " + fmt.Sprint(preview.SummaryListLimit) + " clusters each unless the " +
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
			"selected_omitted": rschema.Int64Attribute{Computed: true, Description: "How many picked clusters `selected` leaves out (the lowest-ranked): with the default detail it lists the top " + fmt.Sprint(preview.SummaryListLimit/2) + " (each pick takes six lines of plan)."},
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
					fmt.Sprint(preview.SummaryListLimit) + ": one cluster of each reason class (the most common class first), then a second of each, " +
					"and so on, by name within a class.",
			},
			"excluded_omitted": rschema.Int64Attribute{Computed: true, Description: "How many clusters not picked `excluded` leaves out."},
		},
	}
}
