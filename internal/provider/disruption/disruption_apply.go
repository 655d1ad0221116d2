package disruption

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// npApply server-side applies m's settings (only the attributes set) to the live NodePool, first
// handing consolidateAfter back to its default if m stops managing it. A dry run (plan) changes
// nothing: it applies the value the hand-off would leave instead.
func npApply(ctx context.Context, kc *kube.Client, live *unstructured.Unstructured, m nodePoolDisruptionModel, dryRun bool, prior ...nodePoolDisruptionModel) error {
	obj, err := npApplyObject(ctx, m, live)
	if err != nil {
		return err
	}
	mgr := m.fieldManager()
	for _, p := range prior {
		if name := p.fieldManager().Name; name != mgr.Name {
			mgr.Prior = name
		}
	}
	if m.ConsolidateAfter.IsNull() && releasedBy(live, npPathConsolidateAfter, mgr.Name) {
		if dryRun {
			_ = unstructured.SetNestedField(obj, npDefaultConsolidateAfter, npPathConsolidateAfter...)
		} else if err := handOffConsolidateAfter(ctx, kc, live, mgr.Name); err != nil {
			return fmt.Errorf("NodePool %q on cluster %q: %w", live.GetName(), m.Cluster.ValueString(), err)
		}
	}
	return applyNodePool(ctx, kc, m.Cluster.ValueString(), obj, mgr, dryRun)
}

// npApplyObject is the apply configuration: the set attributes, with the user's own strings (the
// CRD patterns reject Go's spellings of some values, e.g. a zero duration's "0s" for budgets), and
// the NodePool's uid so that a pool deleted meanwhile is not re-created.
func npApplyObject(ctx context.Context, m nodePoolDisruptionModel, live *unstructured.Unstructured) (map[string]any, error) {
	dis := map[string]any{}
	if !m.ConsolidationPolicy.IsNull() {
		dis["consolidationPolicy"] = m.ConsolidationPolicy.ValueString()
	}
	if !m.ConsolidateAfter.IsNull() {
		dis["consolidateAfter"] = m.ConsolidateAfter.ValueString()
	}
	if !m.Budgets.IsNull() {
		budgets, diags := npBudgetsOf(ctx, m.Budgets)
		if diags.HasError() {
			return nil, fmt.Errorf("reading budgets: %v", diags)
		}
		dis["budgets"] = npBudgetsJSON(budgets)
	}
	tmpl := map[string]any{}
	if !m.ExpireAfter.IsNull() {
		tmpl["expireAfter"] = m.ExpireAfter.ValueString()
	}
	if !m.TerminationGracePeriod.IsNull() {
		tmpl["terminationGracePeriod"] = m.TerminationGracePeriod.ValueString()
	}
	spec := map[string]any{}
	if len(dis) > 0 {
		spec["disruption"] = dis
	}
	template := map[string]any{}
	if len(tmpl) > 0 {
		template["spec"] = tmpl
	}
	if !m.DoNotDisrupt.IsNull() {
		template["metadata"] = map[string]any{"annotations": map[string]any{karpv1.DoNotDisruptAnnotationKey: npDoNotDisruptValue(m.DoNotDisrupt.ValueBool())}}
	}
	if len(template) > 0 {
		spec["template"] = template
	}
	obj := map[string]any{
		"apiVersion": "karpenter.sh/v1",
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": live.GetName(), "uid": string(live.GetUID())},
	}
	if len(spec) > 0 {
		obj["spec"] = spec
	}
	return obj, nil
}

// npRelease gives back what m's field manager holds: an apply of an empty configuration under it.
func npRelease(ctx context.Context, kc *kube.Client, live *unstructured.Unstructured, m nodePoolDisruptionModel) error {
	release := npNullModel()
	release.Cluster, release.NodePool, release.FieldManager = m.Cluster, m.NodePool, m.FieldManager
	return npApply(ctx, kc, live, release, false)
}

// npReadLive sets the attributes `want` selects (by field path, and whether the attribute is set
// now) to the NodePool's values; a field the NodePool lacks becomes null.
func npReadLive(ctx context.Context, m *nodePoolDisruptionModel, live *unstructured.Unstructured, want func(field []string, managed bool) bool) diag.Diagnostics {
	var diags diag.Diagnostics
	str := func(p []string) (string, bool) {
		s, ok, _ := unstructured.NestedString(live.Object, p...)
		return s, ok
	}
	if want(npPathConsolidationPolicy, !m.ConsolidationPolicy.IsNull()) {
		s, ok := str(npPathConsolidationPolicy)
		m.ConsolidationPolicy = types.StringNull()
		if ok {
			m.ConsolidationPolicy = types.StringValue(s)
		}
	}
	for _, f := range []struct {
		field []string
		value *npDuration
	}{
		{npPathConsolidateAfter, &m.ConsolidateAfter},
		{npPathExpireAfter, &m.ExpireAfter},
		{npPathTerminationGrace, &m.TerminationGracePeriod},
	} {
		if want(f.field, !f.value.IsNull()) {
			*f.value = npDurationOrNull(str(f.field))
		}
	}
	if want(npPathDoNotDisrupt, !m.DoNotDisrupt.IsNull()) {
		s, ok := str(npPathDoNotDisrupt)
		m.DoNotDisrupt = types.BoolNull()
		if ok {
			m.DoNotDisrupt = types.BoolValue(s == "true")
		}
	}
	if want(npPathBudgets, !m.Budgets.IsNull()) {
		raw, ok, _ := unstructured.NestedSlice(live.Object, npPathBudgets...)
		m.Budgets = types.ListNull(types.ObjectType{AttrTypes: npBudgetAttrTypes})
		if ok {
			var d diag.Diagnostics
			m.Budgets, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: npBudgetAttrTypes}, npBudgetsFromLive(raw))
			diags.Append(d...)
		}
	}
	return diags
}
