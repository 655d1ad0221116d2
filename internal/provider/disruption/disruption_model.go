package disruption

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// nodePoolDisruptionModel is the resource's state.
type nodePoolDisruptionModel struct {
	ID                     types.String   `tfsdk:"id"`
	Cluster                types.String   `tfsdk:"cluster"`
	NodePool               types.String   `tfsdk:"node_pool"`
	ConsolidationPolicy    types.String   `tfsdk:"consolidation_policy"`
	ConsolidateAfter       npDuration     `tfsdk:"consolidate_after"`
	ExpireAfter            npDuration     `tfsdk:"expire_after"`
	TerminationGracePeriod npDuration     `tfsdk:"termination_grace_period"`
	Budgets                types.List     `tfsdk:"budget"`
	DoNotDisrupt           types.Bool     `tfsdk:"do_not_disrupt"`
	FieldManager           types.Object   `tfsdk:"field_manager"`
	Facts                  types.String   `tfsdk:"facts"`
	Preview                types.Object   `tfsdk:"preview"`
	Timeouts               timeouts.Value `tfsdk:"timeouts"`
}

// npBudgetModel is one budget block.
type npBudgetModel struct {
	Nodes    types.String `tfsdk:"nodes"`
	Schedule types.String `tfsdk:"schedule"`
	Duration npDuration   `tfsdk:"duration"`
	Reasons  types.List   `tfsdk:"reasons"`
}

var npFieldManagerAttrTypes = map[string]attr.Type{"name": types.StringType, "force_conflicts": types.BoolType}

// fieldManager is the configured field_manager, defaults filled in (unknown parts are defaults too:
// npUnknownPaths keeps an unknown field_manager from reaching the cluster at plan).
func (m nodePoolDisruptionModel) fieldManager() npFieldManager {
	mgr := defaultFieldManager
	if m.FieldManager.IsNull() || m.FieldManager.IsUnknown() {
		return mgr
	}
	attrs := m.FieldManager.Attributes()
	if n, ok := attrs["name"].(types.String); ok && !n.IsNull() && !n.IsUnknown() && n.ValueString() != "" {
		mgr.Name = n.ValueString()
	}
	if f, ok := attrs["force_conflicts"].(types.Bool); ok {
		mgr.Force = f.ValueBool()
	}
	return mgr
}

var npBudgetAttrTypes = map[string]attr.Type{
	"nodes": types.StringType, "schedule": types.StringType, "duration": npDurationType{},
	"reasons": types.ListType{ElemType: types.StringType},
}

// npNullModel has every attribute null (what Delete applies: nothing).
func npNullModel() nodePoolDisruptionModel {
	return nodePoolDisruptionModel{
		ID: types.StringNull(), Cluster: types.StringNull(), NodePool: types.StringNull(),
		ConsolidationPolicy: types.StringNull(), ConsolidateAfter: npDurationNull(), ExpireAfter: npDurationNull(),
		TerminationGracePeriod: npDurationNull(), Budgets: types.ListNull(types.ObjectType{AttrTypes: npBudgetAttrTypes}),
		DoNotDisrupt: types.BoolNull(), FieldManager: types.ObjectNull(npFieldManagerAttrTypes), Facts: types.StringNull(),
		Preview: types.ObjectNull(npPreviewAttrTypes),
	}
}

// npBudgetsOf reads the known budget blocks.
func npBudgetsOf(ctx context.Context, l types.List) ([]npBudgetModel, diag.Diagnostics) {
	var bs []npBudgetModel
	diags := l.ElementsAs(ctx, &bs, false)
	return bs, diags
}

// npKarpenterBudgets converts budgets for the engine. The result is never nil (an empty list means no
// limit), nor is a set-but-empty reasons list (it means no reason).
func npKarpenterBudgets(bs []npBudgetModel) []karpv1.Budget {
	out := make([]karpv1.Budget, 0, len(bs))
	for _, b := range bs {
		kb := karpv1.Budget{Nodes: b.Nodes.ValueString()}
		if !b.Schedule.IsNull() {
			s := b.Schedule.ValueString()
			kb.Schedule = &s
		}
		if !b.Duration.IsNull() {
			d, _ := time.ParseDuration(b.Duration.ValueString()) // validated at plan
			kb.Duration = &metav1.Duration{Duration: d}
		}
		if reasons, _ := npStrings(b.Reasons); !b.Reasons.IsNull() {
			kb.Reasons = make([]karpv1.DisruptionReason, 0, len(reasons))
			for _, r := range reasons {
				kb.Reasons = append(kb.Reasons, karpv1.DisruptionReason(r))
			}
		}
		out = append(out, kb)
	}
	return out
}

// npBudgetsJSON is budgets as the apply configuration sends them.
func npBudgetsJSON(bs []npBudgetModel) []any {
	out := make([]any, 0, len(bs))
	for _, b := range bs {
		item := map[string]any{"nodes": b.Nodes.ValueString()}
		if !b.Schedule.IsNull() {
			item["schedule"] = b.Schedule.ValueString()
		}
		if !b.Duration.IsNull() {
			item["duration"] = b.Duration.ValueString()
		}
		if reasons, _ := npStrings(b.Reasons); !b.Reasons.IsNull() {
			list := make([]any, 0, len(reasons))
			for _, r := range reasons {
				list = append(list, r)
			}
			item["reasons"] = list
		}
		out = append(out, item)
	}
	return out
}

// npBudgetsFromLive reads the NodePool's budgets, keeping its strings.
func npBudgetsFromLive(raw []any) []npBudgetModel {
	out := make([]npBudgetModel, 0, len(raw))
	for _, item := range raw {
		m, _ := item.(map[string]any)
		b := npBudgetModel{Nodes: types.StringNull(), Schedule: types.StringNull(), Duration: npDurationNull(), Reasons: types.ListNull(types.StringType)}
		if s, ok := m["nodes"].(string); ok {
			b.Nodes = types.StringValue(s)
		}
		if s, ok := m["schedule"].(string); ok {
			b.Schedule = types.StringValue(s)
		}
		if s, ok := m["duration"].(string); ok {
			b.Duration = npDurationOf(s)
		}
		if rs, ok := m["reasons"].([]any); ok {
			vals := make([]attr.Value, 0, len(rs))
			for _, r := range rs {
				vals = append(vals, types.StringValue(fmt.Sprint(r)))
			}
			b.Reasons = types.ListValueMust(types.StringType, vals)
		}
		out = append(out, b)
	}
	return out
}

// npStrings reads a list of strings; known is false when the list or an element is unknown.
func npStrings(l types.List) (values []string, known bool) {
	if l.IsUnknown() {
		return nil, false
	}
	for _, e := range l.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		values = append(values, s.ValueString())
	}
	return values, true
}

// npSameSettings reports whether two models hold the same settings, durations compared by value.
func npSameSettings(a, b nodePoolDisruptionModel) bool {
	if !a.Cluster.Equal(b.Cluster) || !a.NodePool.Equal(b.NodePool) || !a.ConsolidationPolicy.Equal(b.ConsolidationPolicy) ||
		!npSameDuration(a.ConsolidateAfter, b.ConsolidateAfter) || !npSameDuration(a.ExpireAfter, b.ExpireAfter) ||
		!npSameDuration(a.TerminationGracePeriod, b.TerminationGracePeriod) || !a.DoNotDisrupt.Equal(b.DoNotDisrupt) {
		return false
	}
	if a.Budgets.IsNull() || b.Budgets.IsNull() || a.Budgets.IsUnknown() || b.Budgets.IsUnknown() {
		return a.Budgets.IsNull() && b.Budgets.IsNull()
	}
	ea, eb := a.Budgets.Elements(), b.Budgets.Elements()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		oa, okA := ea[i].(types.Object)
		ob, okB := eb[i].(types.Object)
		if !okA || !okB || !npSameBudget(oa, ob) {
			return false
		}
	}
	return true
}

func npSameBudget(a, b types.Object) bool {
	if a.IsUnknown() || b.IsUnknown() {
		return false
	}
	aa, ba := a.Attributes(), b.Attributes()
	da, okA := aa["duration"].(npDuration)
	db, okB := ba["duration"].(npDuration)
	return okA && okB && npSameDuration(da, db) &&
		aa["nodes"].Equal(ba["nodes"]) && aa["schedule"].Equal(ba["schedule"]) && aa["reasons"].Equal(ba["reasons"])
}
