package disruption

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// npSettingAttributes are the settings the preview is computed from.
var npSettingAttributes = []string{"cluster", "node_pool", "consolidation_policy", "consolidate_after", "expire_after",
	"termination_grace_period", "budget", "do_not_disrupt", "field_manager"}

// nodePoolDisruptionPreviewSpec is the NodePool's preview: what Karpenter may disrupt once the
// settings are applied, over the cluster's Karpenter picture (with facts, the plan's: the apply's
// re-plan computes the same; docs/guides/plan-apply-contract.md), at the provider's clock. It
// checks the settings whose enums differ between Karpenter versions against the cluster's CRD.
var nodePoolDisruptionPreviewSpec = preview.Spec[nodePoolDisruptionModel]{
	What:      "the NodePool disruption preview",
	AttrTypes: npPreviewAttrTypes,
	Follows:   npSettingAttributes,
	Reads:     []facts.Input{facts.InputKarpenter, facts.InputClock, facts.InputSettings},
	Compute: func(ctx context.Context, v view.Fleet, m *nodePoolDisruptionModel, d *diag.Diagnostics) (attr.Value, error) {
		cv, err := readClusterView(ctx, v, m.Cluster.ValueString(), m.NodePool.ValueString())
		var notRead *facts.NotReadError
		switch {
		case errors.As(err, &notRead):
			return nil, err // facts without the cluster: the protocol names the argument that reads it
		case err != nil:
			npAddNodePoolError(d, err)
			return nil, nil
		}
		d.Append(npCheckAgainstCRD(ctx, *m, cv)...)
		if d.HasError() {
			return nil, nil
		}
		obj, drift, diags := buildNodePoolPreview(ctx, *m, cv, v.Now(), v.ListLimit())
		d.Append(diags...)
		for _, w := range drift {
			d.AddAttributeWarning(w.Attribute, w.Summary, w.Message)
		}
		if d.HasError() {
			return nil, nil
		}
		return obj, nil
	},
}

// PreviewInputs are what the preview reads of the fleet.
func (r *nodePoolDisruptionResource) PreviewInputs() []facts.Input {
	return nodePoolDisruptionPreviewSpec.Inputs()
}

// ModifyPlan computes the preview when the resource is created or its settings change, with the
// checks that need the cluster (the NodePool and its CRD exist, the CRD's enums, a server-side dry
// run). Settings that only changed spelling (durations are compared by value) keep the prior
// preview, so the plan is empty.
func (r *nodePoolDisruptionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan nodePoolDisruptionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.Preview.IsUnknown() {
		return
	}
	var prior []nodePoolDisruptionModel
	if !req.State.Raw.IsNull() {
		var state nodePoolDisruptionModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !state.Preview.IsNull() && npSameSettings(plan, state) {
			// Only spellings changed: the preview stands.
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, preview.Path, state.Preview)...)
			return
		}
		prior = append(prior, state)
	}
	unknown := npUnknownPaths(plan)
	var kc *kube.Client
	if len(unknown) == 0 {
		// The dry run needs the cluster, with or without facts: a configuration of it unknown at
		// plan leaves the preview unknown.
		cluster := plan.Cluster.ValueString()
		var err error
		if kc, err = r.Clients.Cluster(ctx, cluster); err != nil {
			if session.IsConfigUnknown(err) {
				resp.Diagnostics.AddAttributeWarning(preview.Path, "Disruption preview unknown until apply",
					fmt.Sprintf("Cluster %q cannot be reached at plan: %v.", cluster, err))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, fmt.Sprintf("Cannot reach cluster %q", cluster), err)
			return
		}
	}
	nodePoolDisruptionPreviewSpec.Plan(ctx, r.Clients, req, resp, &plan, unknown)
	var planned types.Object
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, preview.Path, &planned)...)
	if resp.Diagnostics.HasError() || kc == nil || planned.IsNull() || planned.IsUnknown() {
		return
	}
	// A server-side dry run on the NodePool as it is now (its managed fields decide what the apply
	// hands back): what the API server would reject (its own validation, conflicts with other
	// apply managers) fails the plan, before anything changes.
	live, err := getNodePool(ctx, kc, plan.Cluster.ValueString(), plan.NodePool.ValueString())
	if err != nil {
		npAddNodePoolError(&resp.Diagnostics, err)
		return
	}
	if err := npApply(ctx, kc, live, plan, true, prior...); err != nil {
		resp.Diagnostics.AddError("The cluster would reject these settings", err.Error())
	}
}

// npUnknownPaths are the settings of m not known at plan (field_manager's and the budget blocks' parts
// one by one): the preview is unknown while one is, and an unknown field_manager does not reach
// the cluster.
func npUnknownPaths(m nodePoolDisruptionModel) []path.Path {
	var out []path.Path
	for _, a := range []struct {
		name  string
		value attr.Value
	}{
		{"cluster", m.Cluster}, {"node_pool", m.NodePool}, {"consolidation_policy", m.ConsolidationPolicy},
		{"consolidate_after", m.ConsolidateAfter}, {"expire_after", m.ExpireAfter},
		{"termination_grace_period", m.TerminationGracePeriod}, {"budget", m.Budgets}, {"do_not_disrupt", m.DoNotDisrupt},
		{"field_manager", m.FieldManager},
	} {
		if a.value.IsUnknown() {
			out = append(out, path.Root(a.name))
		}
	}
	if attrs := m.FieldManager.Attributes(); !m.FieldManager.IsNull() && !m.FieldManager.IsUnknown() {
		for _, name := range slices.Sorted(maps.Keys(attrs)) {
			if attrs[name].IsUnknown() {
				out = append(out, path.Root("field_manager").AtName(name))
			}
		}
	}
	for i, e := range m.Budgets.Elements() {
		at := path.Root("budget").AtListIndex(i)
		obj, ok := e.(types.Object)
		if !ok || obj.IsUnknown() {
			out = append(out, at)
			continue
		}
		attrs := obj.Attributes()
		for _, name := range []string{"nodes", "schedule", "duration", "reasons"} {
			a, ok := attrs[name]
			if !ok {
				continue
			}
			if l, isList := a.(types.List); a.IsUnknown() || isList && !npKnownStrings(l) {
				out = append(out, at.AtName(name))
			}
		}
	}
	return out
}

// npKnownStrings: the list and each of its strings are known.
func npKnownStrings(l types.List) bool {
	_, known := npStrings(l)
	return known
}

// npPreviewNow is the preview computed at apply through v, before the settings change (as a plan
// would have): for a plan that could not compute it (an input was unknown), and for import.
func npPreviewNow(ctx context.Context, v view.Fleet, m nodePoolDisruptionModel, d *diag.Diagnostics) types.Object {
	cv, err := readClusterView(ctx, v, m.Cluster.ValueString(), m.NodePool.ValueString())
	if err != nil {
		npAddNodePoolError(d, err)
		return types.ObjectNull(npPreviewAttrTypes)
	}
	obj, _, diags := buildNodePoolPreview(ctx, m, cv, v.Now(), v.ListLimit())
	d.Append(diags...)
	return obj
}
