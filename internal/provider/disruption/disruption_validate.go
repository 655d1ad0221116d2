package disruption

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
)

// npUnhealthy is the reason Karpenter v1.15.0's CRD adds (node repair); accepted at validate, checked
// against the cluster's own CRD at plan.
const npUnhealthy karpv1.DisruptionReason = "Unhealthy"

// ValidateConfig checks every setting as the NodePool CRD does, and warns about what the API server
// accepts but Karpenter does not do as written. Reasons the cluster's own CRD may add are checked
// again at plan.
func (r *nodePoolDisruptionResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodePoolDisruptionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d := &resp.Diagnostics
	npCheck(d, path.Root("consolidation_policy"), "consolidation policy", m.ConsolidationPolicy, disruption.ValidateConsolidationPolicy)
	npCheck(d, path.Root("consolidate_after"), "consolidate_after", m.ConsolidateAfter.StringValue, disruption.ValidateConsolidateAfter)
	npCheck(d, path.Root("expire_after"), "expire_after", m.ExpireAfter.StringValue, disruption.ValidateExpireAfter)
	npCheck(d, path.Root("termination_grace_period"), "termination_grace_period", m.TerminationGracePeriod.StringValue, disruption.ValidateTerminationGracePeriod)
	if m.Budgets.IsNull() || m.Budgets.IsUnknown() {
		return
	}
	npReport(d, path.Root("budget"), "budgets", disruption.ValidateBudgetCount(len(m.Budgets.Elements())))
	for i, e := range m.Budgets.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsUnknown() || obj.IsNull() {
			continue
		}
		var b npBudgetModel
		d.Append(obj.As(ctx, &b, basetypes.ObjectAsOptions{})...)
		p := path.Root("budget").AtListIndex(i)
		npCheck(d, p.AtName("nodes"), "budget nodes", b.Nodes, disruption.ValidateNodes)
		npCheck(d, p.AtName("schedule"), "budget schedule", b.Schedule, disruption.ValidateSchedule)
		npCheck(d, p.AtName("duration"), "budget duration", b.Duration.StringValue, disruption.ValidateBudgetDuration)
		if !b.Schedule.IsUnknown() && !b.Duration.IsUnknown() {
			npReport(d, p, "budget", disruption.ValidateSchedulePair(!b.Schedule.IsNull(), !b.Duration.IsNull()))
		}
		if reasons, known := npStrings(b.Reasons); known && !b.Reasons.IsNull() {
			npReport(d, p.AtName("reasons"), "budget reasons", disruption.ValidateReasons(reasons, npUnhealthy))
		}
	}
}

// npCheck runs an engine validator on a known, non-null string.
func npCheck(d *diag.Diagnostics, p path.Path, what string, v types.String, check func(string) disruption.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	npReport(d, p, what, check(v.ValueString()))
}

// npReport turns an engine validator's findings into attribute diagnostics.
func npReport(d *diag.Diagnostics, p path.Path, what string, found disruption.Diagnostics) {
	for _, e := range found.Errors {
		d.AddAttributeError(p, "Invalid "+what, e)
	}
	for _, w := range found.Warnings {
		d.AddAttributeWarning(p, "Karpenter will not use this "+what+" as you may expect", w)
	}
}

// npCheckAgainstCRD checks the values whose enums differ between Karpenter versions against the
// cluster's own CRD, when it can be read.
func npCheckAgainstCRD(ctx context.Context, m nodePoolDisruptionModel, v *npClusterView) diag.Diagnostics {
	var diags diag.Diagnostics
	if !v.enumsKnown {
		return diags
	}
	cluster := m.Cluster.ValueString()
	if p := m.ConsolidationPolicy.ValueString(); p != "" && len(v.enums.Policies) > 0 && !slices.Contains(v.enums.Policies, p) {
		diags.AddAttributeError(path.Root("consolidation_policy"), "Consolidation policy not supported by the cluster's Karpenter",
			fmt.Sprintf("The NodePool CRD on cluster %q accepts %s, not %q (Balanced needs Karpenter v1.14 or later).", cluster, strings.Join(v.enums.Policies, ", "), p))
	}
	if m.Budgets.IsNull() {
		return diags
	}
	budgets, d := npBudgetsOf(ctx, m.Budgets)
	diags.Append(d...)
	for i, b := range budgets {
		reasons, _ := npStrings(b.Reasons)
		for _, reason := range reasons {
			if !slices.Contains(v.enums.Reasons, reason) {
				diags.AddAttributeError(path.Root("budget").AtListIndex(i).AtName("reasons"), "Disruption reason not supported by the cluster's Karpenter",
					fmt.Sprintf("The NodePool CRD on cluster %q accepts the reasons %s, not %q (Unhealthy needs Karpenter v1.15 or later).", cluster, strings.Join(v.enums.Reasons, ", "), reason))
			}
		}
	}
	return diags
}
