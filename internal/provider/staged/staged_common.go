package staged

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Shared by fleet_staged_update_strategy and fleet_staged_update_run: KubeFleet v0.18.9's
// staged update strategy stages (apis/placement/v1/stageupdate_types.go) in HCL, in both scopes
// (ClusterStagedUpdateStrategy; StagedUpdateStrategy in a namespace).

// The CRD's constraints on a stage (stageupdate_types.go kubebuilder markers).
var (
	stagedStageNameRe = regexp.MustCompile(`^[a-z0-9]+$`)
	// waitTime's CRD pattern in v0.18.9.
	stagedWaitTimeRe = regexp.MustCompile(`^(?:(?:0|[1-9][0-9]*)(\.[0-9]+)?(?:s|m|h))+$`)
	// maxConcurrency as the CRD admits it: an integer >= 1 (its CEL rule) or a percentage
	// matching ^(100|[1-9][0-9]?)%$.
	stagedMaxConcurrencyRe = regexp.MustCompile(`^([1-9][0-9]{0,8}|(100|[1-9][0-9]?)%)$`)
)

const (
	stagedMaxStages     = 31
	stagedMaxStageName  = 63
	stagedMaxTasks      = 2
	stagedObjectNameMax = 253
)

type stagedStageModel struct {
	Name             types.String              `tfsdk:"name"`
	LabelSelector    *stagedLabelSelectorModel `tfsdk:"label_selector"`
	SortingLabelKey  types.String              `tfsdk:"sorting_label_key"`
	MaxConcurrency   types.String              `tfsdk:"max_concurrency"`
	BeforeStageTasks []stagedBeforeTaskModel   `tfsdk:"before_stage_task"`
	AfterStageTasks  []stagedTaskModel         `tfsdk:"after_stage_task"`
}

type stagedBeforeTaskModel struct {
	Type types.String `tfsdk:"type"`
}

type stagedLabelSelectorModel struct {
	MatchLabels      map[string]string             `tfsdk:"match_labels"`
	MatchExpressions []shared.LabelExpressionModel `tfsdk:"match_expression"`
}

type stagedTaskModel struct {
	Type     types.String `tfsdk:"type"`
	WaitTime types.String `tfsdk:"wait_time"`
}

func stagedStagesBlock() rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: "Required. A stage (at least one, at most 31; repeat the block for each, in order): stages are updated one after another; " +
			"within a stage `max_concurrency` clusters are updated at a time (default one). Every cluster the placement schedules " +
			"must be in exactly one stage, or a run fails to initialize.",
		Validators: []validator.List{listvalidator.IsRequired(), listvalidator.SizeBetween(1, stagedMaxStages)},
		NestedObject: rschema.NestedBlockObject{
			Attributes: map[string]rschema.Attribute{
				"name": rschema.StringAttribute{
					Required:    true,
					Description: "The stage's name: lowercase letters and digits, at most 63 characters, unique in the strategy.",
					Validators: []validator.String{stringvalidator.LengthBetween(1, stagedMaxStageName),
						stringvalidator.RegexMatches(stagedStageNameRe, "must contain only lowercase letters and digits (KubeFleet's pattern ^[a-z0-9]+$)")},
				},
				"sorting_label_key": rschema.StringAttribute{
					Optional: true,
					Description: "A label whose integer value orders the stage's clusters (then their names). Every cluster of the stage " +
						"must carry it with an integer value, or a run fails to initialize.",
				},
				"max_concurrency": rschema.StringAttribute{
					Optional: true,
					Description: "How many of the stage's clusters are updated at once: a count such as `\"2\"` or a percentage of the " +
						"stage's clusters from `\"1%\"` to `\"100%\"`, rounded down and at least one. Absent: one at a time " +
						"(KubeFleet's default 1). The controller starts the next cluster in order as soon as one of the updating ones finishes.",
					Validators: []validator.String{stringvalidator.RegexMatches(stagedMaxConcurrencyRe,
						"must be a count of at least 1 (such as \"2\") or a percentage from \"1%\" to \"100%\" (KubeFleet's maxConcurrency)")},
				},
			},
			Blocks: map[string]rschema.Block{
				"label_selector": rschema.SingleNestedBlock{
					Description: "The member clusters of this stage, by their labels on the hub. Absent (or empty): every cluster the " +
						"placement schedules (the provider writes an empty selector: KubeFleet's controller reads an absent one as none).",
					Attributes: map[string]rschema.Attribute{
						"match_labels": shared.LabelsAttribute("a stage's clusters"),
					},
					Blocks: map[string]rschema.Block{
						"match_expression": shared.LabelExpressionsBlock("a stage's clusters"),
					},
				},
				"before_stage_task": rschema.ListNestedBlock{
					Description: "What must happen before the stage's clusters start updating: at most one task, of type `Approval` " +
						"(the run waits until its approval request `<run>-before-<stage>` is approved).",
					Validators: []validator.List{listvalidator.SizeBetween(1, 1)},
					NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
						"type": rschema.StringAttribute{
							Required:    true,
							Description: "`Approval` (the only before-stage task KubeFleet has).",
							Validators:  []validator.String{stringvalidator.OneOf(string(placementv1.StageTaskTypeApproval))},
						},
					}},
				},
				"after_stage_task": rschema.ListNestedBlock{
					Description: "What must happen after the stage's clusters are updated before the next stage starts: at most one " +
						"task of each type (two blocks at most).",
					Validators: []validator.List{listvalidator.SizeBetween(1, stagedMaxTasks)},
					NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
						"type": rschema.StringAttribute{
							Required:    true,
							Description: "`TimedWait` (wait `wait_time`) or `Approval` (wait until the run's approval request `<run>-after-<stage>` is approved).",
							Validators:  []validator.String{stringvalidator.OneOf(string(placementv1.StageTaskTypeTimedWait), string(placementv1.StageTaskTypeApproval))},
						},
						"wait_time": rschema.StringAttribute{
							Optional:    true,
							Description: "How long a `TimedWait` waits, as a duration such as `30m` or `1h30m` (units s, m, h).",
						},
					}},
				},
			},
		},
	}
}

// stagedStageRenames are fleet_staged_update_strategy's renames of its nested attributes that
// became blocks (state version 0 → 1).
var stagedStageRenames = map[string]string{
	"stages":                                  "stage",
	"stages.before_stage_tasks":               "before_stage_task",
	"stages.after_stage_tasks":                "after_stage_task",
	"stages.label_selector.match_expressions": "match_expression",
}

// validateStagedStages checks what per-attribute validators cannot: unique stage names, task
// combinations, wait times, selectors and sorting label keys, each at its attribute path.
func validateStagedStages(diags *diag.Diagnostics, root path.Path, stages []stagedStageModel, unknown []path.Path) {
	seen := map[string]int{}
	for i, s := range stages {
		sp := root.AtListIndex(i)
		if n := s.Name; !n.IsNull() && !n.IsUnknown() {
			if j, dup := seen[n.ValueString()]; dup {
				diags.AddAttributeError(sp.AtName("name"), "Duplicate stage name",
					fmt.Sprintf("Attribute %s: stage %q is already the name of %s; stage names must be unique.", sp.AtName("name"), n.ValueString(), root.AtListIndex(j)))
			} else {
				seen[n.ValueString()] = i
			}
		}
		if s.LabelSelector != nil && !shared.RelatedToAny(sp.AtName("label_selector"), unknown) {
			if _, err := metav1.LabelSelectorAsSelector(stagedSelector(s.LabelSelector)); err != nil {
				diags.AddAttributeError(sp.AtName("label_selector"), "Invalid label selector", fmt.Sprintf("Attribute %s: %v.", sp.AtName("label_selector"), err))
			}
		}
		if k := s.SortingLabelKey; !k.IsNull() && !k.IsUnknown() {
			if errs := validation.IsQualifiedName(k.ValueString()); len(errs) > 0 {
				diags.AddAttributeError(sp.AtName("sorting_label_key"), "Invalid label key", fmt.Sprintf("Attribute %s: %q is not a label key: %s.", sp.AtName("sorting_label_key"), k.ValueString(), errs[0]))
			}
		}
		taskTypes := map[string]int{}
		for j, t := range s.AfterStageTasks {
			tp := sp.AtName("after_stage_task").AtListIndex(j)
			if t.Type.IsUnknown() || t.Type.IsNull() {
				continue
			}
			typ := t.Type.ValueString()
			if k, dup := taskTypes[typ]; dup {
				diags.AddAttributeError(tp.AtName("type"), "Duplicate after-stage task",
					fmt.Sprintf("Attribute %s: %s already has a %s task (%s); a stage has at most one task of each type.", tp.AtName("type"), sp, typ, sp.AtName("after_stage_task").AtListIndex(k)))
			}
			taskTypes[typ] = j
			if t.WaitTime.IsUnknown() {
				continue
			}
			wp := tp.AtName("wait_time")
			switch {
			case typ == string(placementv1.StageTaskTypeApproval) && !t.WaitTime.IsNull():
				diags.AddAttributeError(wp, "Invalid after-stage task", fmt.Sprintf("Attribute %s applies to TimedWait tasks only: an Approval task waits for its approval.", wp))
			case typ == string(placementv1.StageTaskTypeTimedWait) && t.WaitTime.IsNull():
				diags.AddAttributeError(wp, "Missing wait time", fmt.Sprintf("Attribute %s is required for a TimedWait task.", wp))
			case typ == string(placementv1.StageTaskTypeTimedWait):
				if _, err := stagedWaitTime(t.WaitTime.ValueString()); err != nil {
					diags.AddAttributeError(wp, "Invalid wait time", fmt.Sprintf("Attribute %s: %v.", wp, err))
				}
			}
		}
	}
}

// stagedWaitTime parses a wait_time as the API server and the controller do: the CRD's pattern,
// then metav1.Duration (time.ParseDuration); the controller refuses a wait of zero.
func stagedWaitTime(s string) (time.Duration, error) {
	if !stagedWaitTimeRe.MatchString(s) {
		return 0, fmt.Errorf("%q does not match KubeFleet's pattern %s (a duration in s, m, h such as 30m or 1h30m)", s, stagedWaitTimeRe)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: %v", s, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: a TimedWait must wait longer than zero (KubeFleet refuses to initialize a run otherwise)", s)
	}
	return d, nil
}

// stagedSelector is the stage's selector as the provider writes it: absent means every cluster.
func stagedSelector(m *stagedLabelSelectorModel) *metav1.LabelSelector {
	if m == nil {
		return &metav1.LabelSelector{}
	}
	if ls := shared.LabelSelector(m.MatchLabels, m.MatchExpressions); ls != nil {
		return ls
	}
	return &metav1.LabelSelector{}
}

func stagedStrategySpec(stages []stagedStageModel) placementv1.UpdateStrategySpec {
	spec := placementv1.UpdateStrategySpec{Stages: make([]placementv1.StageConfig, 0, len(stages))}
	for _, s := range stages {
		st := placementv1.StageConfig{Name: s.Name.ValueString(), LabelSelector: stagedSelector(s.LabelSelector)}
		if !s.SortingLabelKey.IsNull() {
			k := s.SortingLabelKey.ValueString()
			st.SortingLabelKey = &k
		}
		for _, t := range s.AfterStageTasks {
			task := placementv1.StageTask{Type: placementv1.StageTaskType(t.Type.ValueString())}
			if !t.WaitTime.IsNull() {
				d, _ := time.ParseDuration(t.WaitTime.ValueString())
				task.WaitTime = &metav1.Duration{Duration: d}
			}
			st.AfterStageTasks = append(st.AfterStageTasks, task)
		}
		if mc := s.MaxConcurrency; !mc.IsNull() && !mc.IsUnknown() {
			v := stagedIntOrPercent(mc.ValueString())
			st.MaxConcurrency = &v
		}
		for _, t := range s.BeforeStageTasks {
			st.BeforeStageTasks = append(st.BeforeStageTasks, placementv1.StageTask{Type: placementv1.StageTaskType(t.Type.ValueString())})
		}
		spec.Stages = append(spec.Stages, st)
	}
	return spec
}

// stagedIntOrPercent is a max_concurrency as the API takes it: an integer, or a percentage string.
func stagedIntOrPercent(s string) intstr.IntOrString {
	if n, err := strconv.Atoi(s); err == nil {
		return intstr.FromInt(n)
	}
	return intstr.FromString(s)
}

// stagedStagesFromAPI reads the hub's stages; prior (the configuration or state) keeps the user's
// spelling of equal wait times ("90m" stays "90m" although the hub says "1h30m0s").
func stagedStagesFromAPI(spec placementv1.UpdateStrategySpec, prior []stagedStageModel) []stagedStageModel {
	out := make([]stagedStageModel, 0, len(spec.Stages))
	for i, s := range spec.Stages {
		m := stagedStageModel{Name: types.StringValue(s.Name), SortingLabelKey: types.StringPointerValue(s.SortingLabelKey), MaxConcurrency: types.StringNull()}
		if mc := s.MaxConcurrency; mc != nil {
			m.MaxConcurrency = types.StringValue(mc.String())
			// the CRD's default 1 where the configuration says nothing
			if mc.Type == intstr.Int && mc.IntVal == 1 && (i >= len(prior) || prior[i].MaxConcurrency.IsNull()) {
				m.MaxConcurrency = types.StringNull()
			}
		}
		for _, t := range s.BeforeStageTasks {
			m.BeforeStageTasks = append(m.BeforeStageTasks, stagedBeforeTaskModel{Type: types.StringValue(string(t.Type))})
		}
		if s.LabelSelector != nil && (len(s.LabelSelector.MatchLabels) > 0 || len(s.LabelSelector.MatchExpressions) > 0) {
			ml, me := shared.LabelsFromSelector(s.LabelSelector)
			m.LabelSelector = &stagedLabelSelectorModel{MatchLabels: ml, MatchExpressions: me}
		} else if i < len(prior) && prior[i].LabelSelector != nil {
			m.LabelSelector = prior[i].LabelSelector // an empty selector configured as {}
		}
		for j, t := range s.AfterStageTasks {
			tm := stagedTaskModel{Type: types.StringValue(string(t.Type)), WaitTime: types.StringNull()}
			if wait := staged.TaskOf(t).WaitTime.Duration; t.Type == placementv1.StageTaskTypeTimedWait || wait != 0 {
				tm.WaitTime = types.StringValue(wait.String())
				if i < len(prior) && j < len(prior[i].AfterStageTasks) {
					if p := prior[i].AfterStageTasks[j].WaitTime; !p.IsNull() && !p.IsUnknown() {
						if d, err := time.ParseDuration(p.ValueString()); err == nil && d == wait {
							tm.WaitTime = p
						}
					}
				}
			}
			m.AfterStageTasks = append(m.AfterStageTasks, tm)
		}
		out = append(out, m)
	}
	return out
}

// joinedMembers are the hub's member clusters that have joined the fleet (the clusters a
// strategy's stages can hold now).
func joinedMembers(all []clusterv1.MemberCluster) []clusterv1.MemberCluster {
	var out []clusterv1.MemberCluster
	for _, m := range all {
		if c := apimeta.FindStatusCondition(m.Status.Conditions, string(clusterv1.ConditionTypeMemberClusterJoined)); c != nil && c.Status == metav1.ConditionTrue && m.DeletionTimestamp == nil {
			out = append(out, m)
		}
	}
	return out
}

// ---- previews ----

var (
	stagedStagePreviewAttrTypes = map[string]attr.Type{
		"name":             types.StringType,
		"cluster_count":    types.Int64Type,
		"clusters":         types.ListType{ElemType: types.StringType},
		"clusters_omitted": types.Int64Type,
		"max_concurrency":  types.Int64Type,
		"batch_count":      types.Int64Type,
		"batches":          types.ListType{ElemType: types.ListType{ElemType: types.StringType}},
		"before_stage":     types.ListType{ElemType: types.StringType},
		"after_stage":      types.ListType{ElemType: types.StringType},
	}
	stagedStagePreviewType = types.ObjectType{AttrTypes: stagedStagePreviewAttrTypes}
)

type stagedStagePreview struct {
	Name            string     `tfsdk:"name"`
	ClusterCount    int64      `tfsdk:"cluster_count"`
	Clusters        []string   `tfsdk:"clusters"`
	ClustersOmitted int64      `tfsdk:"clusters_omitted"`
	MaxConcurrency  int64      `tfsdk:"max_concurrency"`
	BatchCount      int64      `tfsdk:"batch_count"`
	Batches         [][]string `tfsdk:"batches"`
	BeforeStage     []string   `tfsdk:"before_stage"`
	AfterStage      []string   `tfsdk:"after_stage"`
}

// stagedStagePreviewAttributes describe a stage of a preview (strategy and run).
func stagedStagePreviewAttributes(what string) map[string]rschema.Attribute {
	return map[string]rschema.Attribute{
		"name":             rschema.StringAttribute{Computed: true, Description: "The stage."},
		"cluster_count":    rschema.Int64Attribute{Computed: true, Description: "Clusters " + what + "."},
		"clusters":         rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "The first of them, in update order."},
		"clusters_omitted": rschema.Int64Attribute{Computed: true, Description: "How many are not listed."},
		"max_concurrency":  rschema.Int64Attribute{Computed: true, Description: "How many are updated at once (`max_concurrency` resolved against the stage's cluster count: rounded down, at least 1); 0 for an empty stage."},
		"batch_count":      rschema.Int64Attribute{Computed: true, Description: "How many batches of `max_concurrency` clusters the stage takes."},
		"batches": rschema.ListAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
			Description: "The listed clusters in the batches KubeFleet starts them in: the first `max_concurrency` together, and each next one when one before it finishes (whole batches only)."},
		"before_stage": rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "What the stage waits for before its clusters start (the approval request to approve)."},
		"after_stage":  rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: "What the stage waits for after its clusters are updated (a timed wait; the approval request to approve)."},
	}
}

// stagedStagePreviews lists each stage's clusters in update order, sharing the list limit among
// the stages: every stage's first cluster, then every stage's second, and so on.
func stagedStagePreviews(stages []staged.Stage, listLimit int, ns string) []stagedStagePreview {
	type entry struct{ stage, pos int }
	var entries []entry
	for i, s := range stages {
		for j := range s.Clusters {
			entries = append(entries, entry{i, j})
		}
	}
	taken := preview.FirstToRead(len(entries), listLimit, func(a, b int) bool {
		if entries[a].pos != entries[b].pos {
			return entries[a].pos < entries[b].pos
		}
		return entries[a].stage < entries[b].stage
	})
	out := make([]stagedStagePreview, len(stages))
	for i, s := range stages {
		out[i] = stagedStagePreview{Name: s.Name, ClusterCount: int64(len(s.Clusters)), MaxConcurrency: int64(s.MaxConcurrency),
			BatchCount: int64(len(s.Batches())), BeforeStage: stagedTaskWords(s.BeforeTasks, ns), AfterStage: stagedTaskWords(s.Tasks, ns)}
	}
	for k, e := range entries {
		if taken[k] {
			out[e.stage].Clusters = append(out[e.stage].Clusters, stages[e.stage].Clusters[e.pos])
		} else {
			out[e.stage].ClustersOmitted++
		}
	}
	for i := range out {
		// whole batches of the listed clusters (a stage's listed clusters are its first ones)
		for _, b := range staged.Batches(out[i].Clusters, stages[i].MaxConcurrency) {
			if len(b) == stages[i].MaxConcurrency || out[i].ClustersOmitted == 0 {
				out[i].Batches = append(out[i].Batches, b)
			}
		}
		out[i].Batches = preview.NullIfEmpty(out[i].Batches)
		out[i].BeforeStage = preview.NullIfEmpty(out[i].BeforeStage)
		out[i].Clusters = preview.NullIfEmpty(out[i].Clusters)
		out[i].AfterStage = preview.NullIfEmpty(out[i].AfterStage)
	}
	return out
}

// stagedTaskWords says what a stage waits for once its clusters are updated.
func stagedTaskWords(tasks []staged.Task, ns string) []string {
	var out []string
	for _, t := range tasks {
		switch t.Type {
		case placementv1.StageTaskTypeTimedWait:
			out = append(out, "wait "+shortDuration(t.WaitTime.Duration))
		case placementv1.StageTaskTypeApproval:
			if t.ApprovalRequest != "" {
				out = append(out, "approval of "+hub.StagedKind("approval", ns)+" "+hub.Key(ns, t.ApprovalRequest))
			} else {
				out = append(out, "approval")
			}
		}
	}
	return out
}

// shortDuration drops a duration's zero tails: "10m", "1h30m", "1h".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// stagedNamespaceRe is a namespace name (a DNS label).
var stagedNamespaceRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// stagedNamespaceAttribute is `namespace`: absent, the cluster-scoped kinds; set, the namespaced
// ones of KubeFleet v0.18 (for ResourcePlacements of that namespace).
func stagedNamespaceAttribute(what string) rschema.StringAttribute {
	kinds := map[string]string{"strategy": "`ClusterStagedUpdateStrategy` / `StagedUpdateStrategy`", "run": "`ClusterStagedUpdateRun` / `StagedUpdateRun`"}[what]
	return rschema.StringAttribute{
		Optional: true,
		Description: "The namespace of a namespaced " + what + " (" + kinds + "): absent, the cluster-scoped kind, for a " +
			"ClusterResourcePlacement (`fleet_placement`); set, the namespaced kind, for a ResourcePlacement of that namespace " +
			"(KubeFleet v0.17 or later). Changing it replaces the " + what + ".",
		PlanModifiers: shared.RequiresReplace(),
		Validators: []validator.String{stringvalidator.LengthBetween(1, 63),
			stringvalidator.RegexMatches(stagedNamespaceRe, "must be a namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit")},
	}
}

// stagedImport imports a staged object by `<name>` (cluster-scoped) or `<namespace>/<name>`.
func stagedImport(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, maxLen int, what string, also map[string]any) {
	ns, name, namespaced := strings.Cut(req.ID, "/")
	if !namespaced {
		shared.ImportHubName(ctx, req, resp, maxLen, "a "+hub.StagedKind(what, "")+" on the fleet hub (a DNS subdomain), or <namespace>/<name> of a "+hub.StagedKind(what, "x"), also)
		return
	}
	if !stagedNamespaceRe.MatchString(ns) || len(ns) > 63 || !shared.DNSSubdomainRe.MatchString(name) || len(name) > maxLen {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <namespace>/<name> of a %s on the fleet hub, got %q.", hub.StagedKind(what, "x"), req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	for k, v := range also {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(k), v)...)
	}
}

// stagedRead is Read's GET of a staged object (what: "run" or "strategy") with get: a gone object
// leaves state, another failure is reported; ok comes only with the object.
func stagedRead[T any](ctx context.Context, resp *resource.ReadResponse, what, ns, name string, get func(context.Context, string, string) (*T, error)) (*T, bool) {
	got, err := get(ctx, ns, name)
	if backend.ReadGoneOrFailed(ctx, resp, err, "staged update "+what, map[string]any{what: hub.Key(ns, name)}, func(err error) {
		addStagedError(&resp.Diagnostics, "Reading", what, ns, name, err)
	}) {
		return nil, false
	}
	return got, true
}

// addStagedError reports the failure of op ("Reading", "Updating", "Deleting") on a staged object.
func addStagedError(diags *diag.Diagnostics, op, what, ns, name string, err error) {
	diags.AddError(op+" the staged update "+what, fmt.Sprintf("%s %s %q: %v", op, hub.StagedKind(what, ns), hub.Key(ns, name), err))
}

// addStagedCreateError reports a failed create of a staged object; one already there is to import.
func addStagedCreateError(diags *diag.Diagnostics, what, ns, name string, err error) {
	kind := hub.StagedKind(what, ns)
	if hub.IsAlreadyExists(err) {
		diags.AddAttributeError(path.Root("name"), "Staged update "+what+" already exists",
			fmt.Sprintf("The fleet hub already has a %s named %q: import it, or choose another name.", kind, hub.Key(ns, name)))
		return
	}
	diags.AddError("Creating the staged update "+what, fmt.Sprintf("Creating %s %q on the hub: %v", kind, hub.Key(ns, name), err))
}
