package disruption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	npReasonAttrTypes = map[string]attr.Type{
		"reason": types.StringType, "allowed": types.Int64Type, "unbounded": types.BoolType,
		"active_budgets": types.ListType{ElemType: types.Int64Type},
	}
	npWindowAttrTypes   = map[string]attr.Type{"budget": types.Int64Type, "opens_at": types.StringType, "closes_at": types.StringType}
	npExpiringAttrTypes = map[string]attr.Type{"node": types.StringType, "expires_at": types.StringType}
	npScheduleAttrTypes = map[string]attr.Type{
		"from": types.StringType, "to": types.StringType,
		"allowed": types.MapType{ElemType: types.Int64Type}, "unbounded": types.ListType{ElemType: types.StringType},
	}
	npPreviewAttrTypes = map[string]attr.Type{
		"nodes":                 types.Int64Type,
		"disrupting":            types.Int64Type,
		"reasons":               types.ListType{ElemType: types.ObjectType{AttrTypes: npReasonAttrTypes}},
		"windows":               types.ListType{ElemType: types.ObjectType{AttrTypes: npWindowAttrTypes}},
		"expiring_nodes":        types.ListType{ElemType: types.ObjectType{AttrTypes: npExpiringAttrTypes}},
		"schedule":              types.ListType{ElemType: types.ObjectType{AttrTypes: npScheduleAttrTypes}},
		"schedule_omitted":      types.Int64Type,
		"blocked_nodes":         types.MapType{ElemType: types.StringType},
		"blocked_nodes_count":   types.Int64Type,
		"blocked_nodes_omitted": types.Int64Type,
		"drifted_nodes":         types.MapType{ElemType: types.StringType},
		"drifted_nodes_count":   types.Int64Type,
		"drifted_nodes_omitted": types.Int64Type,
		"candidates":            types.MapType{ElemType: types.ListType{ElemType: types.StringType}},
		"candidates_count":      types.MapType{ElemType: types.Int64Type},
		"disruptable_now":       types.MapType{ElemType: types.Int64Type},
		"summary":               types.StringType,
		"warnings":              types.ListType{ElemType: types.StringType},
	}
)

type npPreviewModel struct {
	Nodes          int64               `tfsdk:"nodes"`
	Disrupting     int64               `tfsdk:"disrupting"`
	Reasons        []npReasonModel     `tfsdk:"reasons"`
	Windows        []npWindowModel     `tfsdk:"windows"`
	ExpiringNodes  []npExpiringModel   `tfsdk:"expiring_nodes"`
	Schedule       []npScheduleModel   `tfsdk:"schedule"`
	ScheduleOmit   int64               `tfsdk:"schedule_omitted"`
	Blocked        map[string]string   `tfsdk:"blocked_nodes"`
	BlockedCount   int64               `tfsdk:"blocked_nodes_count"`
	BlockedOmitted int64               `tfsdk:"blocked_nodes_omitted"`
	Drifted        map[string]string   `tfsdk:"drifted_nodes"`
	DriftedCount   int64               `tfsdk:"drifted_nodes_count"`
	DriftedOmitted int64               `tfsdk:"drifted_nodes_omitted"`
	Candidates     map[string][]string `tfsdk:"candidates"`
	CandidateCount map[string]int64    `tfsdk:"candidates_count"`
	DisruptableNow map[string]int64    `tfsdk:"disruptable_now"`
	Summary        string              `tfsdk:"summary"`
	Warnings       []string            `tfsdk:"warnings"`
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

type npScheduleModel struct {
	From      types.String     `tfsdk:"from"`
	To        types.String     `tfsdk:"to"`
	Allowed   map[string]int64 `tfsdk:"allowed"`
	Unbounded []string         `tfsdk:"unbounded"`
}

type npExpiringModel struct {
	Node      string       `tfsdk:"node"`
	ExpiresAt types.String `tfsdk:"expires_at"`
}

// npClusterView is what a preview reads of the member cluster, decoded from its Karpenter picture.
type npClusterView struct {
	live       *unstructured.Unstructured // the NodePool as the picture holds it (releasedBy reads its managed fields)
	pool       *karpv1.NodePool
	claims     []karpv1.NodeClaim
	nodes      []corev1.Node
	pods       []corev1.Pod
	pdbs       disruption.PDBs
	podsErr    error // pods could not be listed: the preview says what it leaves out
	enums      nodePoolCRDEnums
	enumsKnown bool
}

// readClusterView reads the cluster's Karpenter picture through v (the live cluster, or as
// data.fleet_facts read it at plan) and decodes it (clusterViewOf). A cluster whose API server does
// not know NodePools at all (the list is NotFound) has no NodePool CRD.
func readClusterView(ctx context.Context, v view.Fleet, cluster, name string) (*npClusterView, error) {
	k, err := v.Karpenter(ctx, cluster)
	if apierrors.IsNotFound(err) {
		return nil, &nodePoolMissingError{Cluster: cluster, NodePool: name, NoCRD: true}
	}
	if err != nil {
		return nil, err
	}
	return clusterViewOf(ctx, k, cluster, name)
}

// clusterViewOf decodes the cluster's Karpenter picture as Karpenter decodes the objects: the one
// decoding of both the live cluster and the facts, so a saved plan's apply previews from what the
// plan saw.
func clusterViewOf(ctx context.Context, k *facts.Karpenter, cluster, name string) (*npClusterView, error) {
	var live *unstructured.Unstructured
	for _, obj := range k.NodePools {
		if u := (&unstructured.Unstructured{Object: obj}); u.GetName() == name {
			live = u.DeepCopy()
		}
	}
	if live == nil {
		return nil, &nodePoolMissingError{Cluster: cluster, NodePool: name}
	}
	pool, err := typedNodePool(live)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	v := &npClusterView{live: live, pool: pool, nodes: k.Nodes, pods: k.Pods}
	if b, err := json.Marshal(map[string]any{"items": k.NodeClaims}); err != nil {
		return nil, err
	} else if v.claims, err = decodeNodeClaims(b); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	if k.PodsErr != "" {
		v.podsErr = errors.New(k.PodsErr)
	}
	v.pdbs = pdbsOf(k.PDBs, k.PDBsErr)
	// A CRD that cannot be read (reading CRDs needs a cluster-wide permission many users lack)
	// leaves its enums to the API server.
	if k.NodePoolCRD != nil {
		v.enums, v.enumsKnown = nodePoolCRDEnumsOf(&unstructured.Unstructured{Object: k.NodePoolCRD})
	} else {
		tflog.Debug(ctx, "NodePool CRD not readable; its enums are left to the API server", map[string]any{"cluster": cluster, "error": k.CRDErr})
	}
	return v, nil
}

// pdbsOf is what the preview takes of a PDB list (failed: the error's text).
func pdbsOf(got kube.PDBs, failed string) disruption.PDBs {
	if failed != "" {
		return disruption.PDBs{Unverified: errors.New(failed)}
	}
	out := disruption.PDBs{Items: got.Items}
	for _, m := range got.Malformed {
		out.Malformed = append(out.Malformed, disruption.PDBRef{Namespace: m.Namespace, Name: m.Name})
	}
	return out
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
// no budget block is set, the live ones, or the server default when this provider releases them.
func (v *npClusterView) effectiveBudgets(ctx context.Context, m nodePoolDisruptionModel) ([]karpv1.Budget, diag.Diagnostics) {
	if !m.Budgets.IsNull() {
		bs, diags := npBudgetsOf(ctx, m.Budgets)
		return npKarpenterBudgets(bs), diags
	}
	if releasedBy(v.live, npPathBudgets, m.fieldManager().Name) {
		return disruption.DefaultBudgets(), nil
	}
	return v.pool.Spec.Disruption.Budgets, nil
}

// effectiveConsolidateAfter is spec.disruption.consolidateAfter once m is applied, with the same rules.
func (v *npClusterView) effectiveConsolidateAfter(m nodePoolDisruptionModel) (karpv1.NillableDuration, error) {
	switch {
	case !m.ConsolidateAfter.IsNull():
		return npNillable(m.ConsolidateAfter.ValueString())
	case releasedBy(v.live, npPathConsolidateAfter, m.fieldManager().Name):
		return npNillable(npDefaultConsolidateAfter)
	}
	return v.pool.Spec.Disruption.ConsolidateAfter, nil
}

// effectiveTemplate is the NodePool's template (its karpenter.sh/do-not-disrupt annotation,
// expireAfter and terminationGracePeriod) once m is applied, with the same rules.
func (v *npClusterView) effectiveTemplate(m nodePoolDisruptionModel) (karpv1.NodeClaimTemplate, error) {
	tmpl := *v.pool.Spec.Template.DeepCopy()
	mgr := m.fieldManager().Name
	switch {
	case !m.DoNotDisrupt.IsNull():
		if tmpl.Annotations == nil {
			tmpl.Annotations = map[string]string{}
		}
		tmpl.Annotations[karpv1.DoNotDisruptAnnotationKey] = npDoNotDisruptValue(m.DoNotDisrupt.ValueBool())
	case releasedBy(v.live, npPathDoNotDisrupt, mgr):
		delete(tmpl.Annotations, karpv1.DoNotDisruptAnnotationKey)
	}
	t := &tmpl.Spec
	switch {
	case !m.ExpireAfter.IsNull():
		d, err := npNillable(m.ExpireAfter.ValueString())
		if err != nil {
			return tmpl, err
		}
		t.ExpireAfter = d
	case releasedBy(v.live, npPathExpireAfter, mgr):
		t.ExpireAfter, _ = npNillable(npDefaultExpireAfter)
	}
	switch {
	case !m.TerminationGracePeriod.IsNull():
		d, err := time.ParseDuration(m.TerminationGracePeriod.ValueString())
		if err != nil {
			return tmpl, err
		}
		t.TerminationGracePeriod = &metav1.Duration{Duration: d}
	case releasedBy(v.live, npPathTerminationGrace, mgr):
		t.TerminationGracePeriod = nil
	}
	return tmpl, nil
}

// npDoNotDisruptValue is the template annotation do_not_disrupt writes: Karpenter honours only "true".
func npDoNotDisruptValue(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// npNillable decodes a NillableDuration as Karpenter does ("Never" is nil).
func npNillable(s string) (karpv1.NillableDuration, error) {
	var d karpv1.NillableDuration
	b, _ := json.Marshal(s)
	err := json.Unmarshal(b, &d)
	return d, err
}

// npDriftWarning is a plan warning with the attribute that causes it: a template change that drifts
// every node, budgets that cancel each other, PDBs that could not be read as they are.
type npDriftWarning struct {
	Attribute path.Path
	Summary   string
	Message   string
}

// buildNodePoolPreview computes the preview of m applied to the cluster at now, and the template
// changes that will drift every node. limit caps the per-node maps (0: no cap).
func buildNodePoolPreview(ctx context.Context, m nodePoolDisruptionModel, v *npClusterView, now time.Time, limit int) (types.Object, []npDriftWarning, diag.Diagnostics) {
	budgets, diags := v.effectiveBudgets(ctx, m)
	if diags.HasError() {
		return types.ObjectNull(npPreviewAttrTypes), nil, diags
	}
	planned, err := v.effectiveTemplate(m)
	if err != nil {
		diags.AddError("Invalid template duration", err.Error())
		return types.ObjectNull(npPreviewAttrTypes), nil, diags
	}
	consolidateAfter, err := v.effectiveConsolidateAfter(m)
	if err != nil {
		diags.AddAttributeError(path.Root("consolidate_after"), "Invalid consolidate_after", err.Error())
		return types.ObjectNull(npPreviewAttrTypes), nil, diags
	}
	pool := v.pool.DeepCopy()
	pool.Spec.Disruption.Budgets = budgets
	pool.Spec.Disruption.ConsolidateAfter = consolidateAfter
	switch { // the policy decides which reasons the budget warnings weigh
	case !m.ConsolidationPolicy.IsNull():
		pool.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicy(m.ConsolidationPolicy.ValueString())
	case releasedBy(v.live, npPathConsolidationPolicy, m.fieldManager().Name):
		pool.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	pool.Spec.Template = planned
	p := disruption.BuildPreview(disruption.Input{
		NodePool: pool, Current: v.pool, NodeClaims: v.claims, Nodes: v.nodes, Pods: v.pods, PDBs: v.pdbs, ExtraReasons: v.extraReasons(), Now: now,
	})
	if v.podsErr != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("pods could not be read (%v): blocked_nodes leaves out do-not-disrupt pods, and every node without a node-level block counts as empty", v.podsErr))
	}

	current := v.pool.Spec.Template
	var drift []npDriftWarning
	// One field at a time, so each warning points at its attribute; each is Karpenter's own hash of
	// the template with that one change.
	for _, f := range []struct {
		attr string
		set  func(t *karpv1.NodeClaimTemplate)
	}{
		{"expire_after", func(t *karpv1.NodeClaimTemplate) { t.Spec.ExpireAfter = planned.Spec.ExpireAfter }},
		{"termination_grace_period", func(t *karpv1.NodeClaimTemplate) { t.Spec.TerminationGracePeriod = planned.Spec.TerminationGracePeriod }},
		{"do_not_disrupt", func(t *karpv1.NodeClaimTemplate) { t.Annotations = planned.Annotations }},
	} {
		only := *current.DeepCopy()
		f.set(&only)
		for _, w := range disruption.TemplateDriftWarnings(current, only, p.Nodes) {
			drift = append(drift, npDriftWarning{Attribute: path.Root(f.attr), Summary: "Every node of the NodePool will drift", Message: w})
		}
	}
	for _, d := range drift {
		p.Warnings = append(p.Warnings, d.Message)
	}
	for _, w := range p.BudgetConflicts {
		drift = append(drift, npDriftWarning{Attribute: path.Root("budget"), Summary: "Disruption budgets cancel each other", Message: w})
	}
	for _, w := range p.PDBWarnings {
		drift = append(drift, npDriftWarning{Attribute: path.Root("preview"), Summary: "PodDisruptionBudgets not fully read", Message: w})
	}

	obj, d := types.ObjectValueFrom(ctx, npPreviewAttrTypes, npPreviewOf(p, limit))
	diags.Append(d...)
	return obj, drift, diags
}

// npPreviewOf renders the engine's preview (SPEC §6b). A reason no budget limits reports every node
// not already disrupting as allowed, rather than Karpenter's MaxInt32 sentinel; `unbounded` says so.
//
// blocked_nodes and drifted_nodes are maps keyed by node, the first limit nodes by name (0: all),
// with exact counts; candidates lists the first limit nodes of each reason, candidates_count and
// disruptable_now have every candidate reason.
func npPreviewOf(p disruption.Preview, limit int) npPreviewModel {
	out := npPreviewModel{
		Nodes: int64(p.Nodes), Disrupting: int64(p.Disrupting),
		Reasons: []npReasonModel{}, Windows: []npWindowModel{}, ExpiringNodes: []npExpiringModel{}, Schedule: []npScheduleModel{},
		Blocked: map[string]string{}, Drifted: map[string]string{},
		Candidates: map[string][]string{}, CandidateCount: map[string]int64{}, DisruptableNow: map[string]int64{},
		Summary: p.Summary, Warnings: append([]string{}, p.Warnings...),
	}
	blocked, omitted := preview.CapList(p.Blocked, limit)
	for _, b := range blocked {
		out.Blocked[b.Node] = b.Why
	}
	out.BlockedCount, out.BlockedOmitted = int64(len(p.Blocked)), omitted
	drifted, omitted := preview.CapList(p.Drifted, limit)
	for _, d := range drifted {
		out.Drifted[d.Node] = d.Why
	}
	out.DriftedCount, out.DriftedOmitted = int64(len(p.Drifted)), omitted
	for _, r := range disruption.CandidateReasons() {
		nodes := p.Candidates[r]
		out.CandidateCount[string(r)] = int64(len(nodes))
		out.DisruptableNow[string(r)] = int64(p.DisruptableNow[r])
		if len(nodes) > 0 {
			listed, _ := preview.CapList(nodes, limit)
			out.Candidates[string(r)] = listed
		}
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
		closes := shared.TimeString(w.ClosesAt)
		if w.Continuous {
			closes = types.StringNull() // no closing within a year: the warnings say so
		}
		out.Windows = append(out.Windows, npWindowModel{Budget: int64(w.Budget), OpensAt: shared.TimeString(w.OpensAt), ClosesAt: closes})
	}
	schedule, scheduleOmitted := disruption.CapSchedule(p.Schedule, limit != 0)
	out.ScheduleOmit = int64(scheduleOmitted)
	for _, r := range schedule {
		row := npScheduleModel{From: shared.TimeString(r.From), To: shared.TimeString(r.To), Allowed: map[string]int64{}, Unbounded: []string{}}
		for _, reason := range p.Reasons {
			n, unbounded := r.Allowed(reason.Reason, p.Disrupting)
			if unbounded {
				n = disruption.RemainingDisruptions(p.Nodes, p.Disrupting)
				row.Unbounded = append(row.Unbounded, string(reason.Reason))
			}
			row.Allowed[string(reason.Reason)] = int64(n)
		}
		out.Schedule = append(out.Schedule, row)
	}
	for _, n := range p.ExpiringNodes {
		out.ExpiringNodes = append(out.ExpiringNodes, npExpiringModel{Node: n.Node, ExpiresAt: shared.TimeString(n.ExpiresAt)})
	}
	return out
}
