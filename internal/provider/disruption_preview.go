package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

var (
	npReasonAttrTypes = map[string]attr.Type{
		"reason": types.StringType, "allowed": types.Int64Type, "unbounded": types.BoolType,
		"active_budgets": types.ListType{ElemType: types.Int64Type},
	}
	npWindowAttrTypes   = map[string]attr.Type{"budget": types.Int64Type, "opens_at": types.StringType, "closes_at": types.StringType}
	npExpiringAttrTypes = map[string]attr.Type{"node": types.StringType, "expires_at": types.StringType}
	npPreviewAttrTypes  = map[string]attr.Type{
		"nodes":          types.Int64Type,
		"disrupting":     types.Int64Type,
		"reasons":        types.ListType{ElemType: types.ObjectType{AttrTypes: npReasonAttrTypes}},
		"windows":        types.ListType{ElemType: types.ObjectType{AttrTypes: npWindowAttrTypes}},
		"expiring_nodes": types.ListType{ElemType: types.ObjectType{AttrTypes: npExpiringAttrTypes}},
		"warnings":       types.ListType{ElemType: types.StringType},
	}
)

type npPreviewModel struct {
	Nodes         int64             `tfsdk:"nodes"`
	Disrupting    int64             `tfsdk:"disrupting"`
	Reasons       []npReasonModel   `tfsdk:"reasons"`
	Windows       []npWindowModel   `tfsdk:"windows"`
	ExpiringNodes []npExpiringModel `tfsdk:"expiring_nodes"`
	Warnings      []string          `tfsdk:"warnings"`
}

type npReasonModel struct {
	Reason        string  `tfsdk:"reason"`
	Allowed       int64   `tfsdk:"allowed"`
	Unbounded     bool    `tfsdk:"unbounded"`
	ActiveBudgets []int64 `tfsdk:"active_budgets"`
}

type npWindowModel struct {
	Budget   int64        `tfsdk:"budget"`
	OpensAt  types.String `tfsdk:"opens_at"`
	ClosesAt types.String `tfsdk:"closes_at"`
}

type npExpiringModel struct {
	Node      string       `tfsdk:"node"`
	ExpiresAt types.String `tfsdk:"expires_at"`
}

// npClusterView is what a preview reads from the member cluster.
type npClusterView struct {
	live       *unstructured.Unstructured
	pool       *karpv1.NodePool
	claims     []karpv1.NodeClaim
	nodes      []corev1.Node
	enums      nodePoolCRDEnums
	enumsKnown bool
}

func loadClusterView(ctx context.Context, kc *kube.Client, cluster, name string) (*npClusterView, error) {
	live, err := getNodePool(ctx, kc, cluster, name)
	if err != nil {
		return nil, err
	}
	pool, err := typedNodePool(live)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	v := &npClusterView{live: live, pool: pool}
	if v.claims, err = listNodeClaims(ctx, kc); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	if v.nodes, err = listNodes(ctx, kc); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	v.enums, v.enumsKnown = readNodePoolCRDEnums(ctx, kc)
	return v, nil
}

// extraReasons are the reasons the cluster's CRD adds to Empty, Underutilized and Drifted.
func (v *npClusterView) extraReasons() []karpv1.DisruptionReason {
	var out []karpv1.DisruptionReason
	for _, r := range v.enums.Reasons {
		if !slices.Contains(disruption.DefaultReasons(), karpv1.DisruptionReason(r)) {
			out = append(out, karpv1.DisruptionReason(r))
		}
	}
	return out
}

// effectiveBudgets are the budgets the NodePool holds once m is applied: the configured ones; when
// budgets is unset, the live ones, or the server default when this provider releases them.
func (v *npClusterView) effectiveBudgets(ctx context.Context, m nodePoolDisruptionModel) ([]karpv1.Budget, diag.Diagnostics) {
	if !m.Budgets.IsNull() {
		bs, diags := npBudgetsOf(ctx, m.Budgets)
		return npKarpenterBudgets(bs), diags
	}
	if releasedByUs(v.live, npPathBudgets) {
		return disruption.DefaultBudgets(), nil
	}
	return v.pool.Spec.Disruption.Budgets, nil
}

// effectiveTemplate is the NodePool's template spec once m is applied, with the same rules.
func (v *npClusterView) effectiveTemplate(m nodePoolDisruptionModel) (karpv1.NodeClaimTemplateSpec, error) {
	t := *v.pool.Spec.Template.Spec.DeepCopy()
	switch {
	case !m.ExpireAfter.IsNull():
		d, err := npNillable(m.ExpireAfter.ValueString())
		if err != nil {
			return t, err
		}
		t.ExpireAfter = d
	case releasedByUs(v.live, npPathExpireAfter):
		t.ExpireAfter, _ = npNillable(npDefaultExpireAfter)
	}
	switch {
	case !m.TerminationGracePeriod.IsNull():
		d, err := time.ParseDuration(m.TerminationGracePeriod.ValueString())
		if err != nil {
			return t, err
		}
		t.TerminationGracePeriod = &metav1.Duration{Duration: d}
	case releasedByUs(v.live, npPathTerminationGrace):
		t.TerminationGracePeriod = nil
	}
	return t, nil
}

// npNillable decodes a NillableDuration as Karpenter does ("Never" is nil).
func npNillable(s string) (karpv1.NillableDuration, error) {
	var d karpv1.NillableDuration
	b, _ := json.Marshal(s)
	err := json.Unmarshal(b, &d)
	return d, err
}

// npDriftWarning is a template change that drifts every node, with the attribute that causes it.
type npDriftWarning struct {
	Attribute path.Path
	Message   string
}

// buildNodePoolPreview computes the preview of m applied to the cluster at now, and the template
// changes that will drift every node.
func buildNodePoolPreview(ctx context.Context, m nodePoolDisruptionModel, v *npClusterView, now time.Time) (types.Object, []npDriftWarning, diag.Diagnostics) {
	budgets, diags := v.effectiveBudgets(ctx, m)
	if diags.HasError() {
		return types.ObjectNull(npPreviewAttrTypes), nil, diags
	}
	pool := v.pool.DeepCopy()
	pool.Spec.Disruption.Budgets = budgets
	p := disruption.BuildPreview(disruption.Input{
		NodePool: pool, NodeClaims: v.claims, Nodes: v.nodes, ExtraReasons: v.extraReasons(), Now: now,
	})

	planned, err := v.effectiveTemplate(m)
	if err != nil {
		diags.AddError("Invalid template duration", err.Error())
		return types.ObjectNull(npPreviewAttrTypes), nil, diags
	}
	current := v.pool.Spec.Template.Spec
	var drift []npDriftWarning
	// One field at a time, so each warning points at its attribute.
	onlyExpire, onlyGrace := current, current
	onlyExpire.ExpireAfter = planned.ExpireAfter
	onlyGrace.TerminationGracePeriod = planned.TerminationGracePeriod
	for _, w := range disruption.TemplateDriftWarnings(current, onlyExpire, p.Nodes) {
		drift = append(drift, npDriftWarning{Attribute: path.Root("expire_after"), Message: w})
	}
	for _, w := range disruption.TemplateDriftWarnings(current, onlyGrace, p.Nodes) {
		drift = append(drift, npDriftWarning{Attribute: path.Root("termination_grace_period"), Message: w})
	}
	for _, d := range drift {
		p.Warnings = append(p.Warnings, d.Message)
	}

	obj, d := types.ObjectValueFrom(ctx, npPreviewAttrTypes, npPreviewOf(p))
	diags.Append(d...)
	return obj, drift, diags
}

// npPreviewOf renders the engine's preview (SPEC §6b). A reason no budget limits reports every node
// not already disrupting as allowed, rather than Karpenter's MaxInt32 sentinel; `unbounded` says so.
func npPreviewOf(p disruption.Preview) npPreviewModel {
	out := npPreviewModel{
		Nodes: int64(p.Nodes), Disrupting: int64(p.Disrupting),
		Reasons: []npReasonModel{}, Windows: []npWindowModel{}, ExpiringNodes: []npExpiringModel{},
		Warnings: append([]string{}, p.Warnings...),
	}
	for _, r := range p.Reasons {
		allowed := r.Allowed
		if r.Unbounded {
			allowed = disruption.RemainingDisruptions(p.Nodes, p.Disrupting)
		}
		active := make([]int64, 0, len(r.ActiveBudgets))
		for _, i := range r.ActiveBudgets {
			active = append(active, int64(i))
		}
		out.Reasons = append(out.Reasons, npReasonModel{Reason: string(r.Reason), Allowed: int64(allowed), Unbounded: r.Unbounded, ActiveBudgets: active})
	}
	for _, w := range p.Windows {
		closes := timeString(w.ClosesAt)
		if w.Continuous {
			closes = types.StringNull() // no closing within a year: the warnings say so
		}
		out.Windows = append(out.Windows, npWindowModel{Budget: int64(w.Budget), OpensAt: timeString(w.OpensAt), ClosesAt: closes})
	}
	for _, n := range p.ExpiringNodes {
		out.ExpiringNodes = append(out.ExpiringNodes, npExpiringModel{Node: n.Node, ExpiresAt: timeString(n.ExpiresAt)})
	}
	return out
}
