package disruption

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// ModifyPlan computes the preview when the resource is created or its configuration changes, with
// the checks that need the cluster (the NodePool and its CRD exist, the CRD's enums). An unchanged
// configuration keeps the prior preview, so it plans empty.
func (r *nodePoolDisruptionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan nodePoolDisruptionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.Preview.IsUnknown() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state nodePoolDisruptionModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !state.Preview.IsNull() && npSameSettings(plan, state) {
			// Only spellings changed (durations are compared by value): the preview stands.
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), state.Preview)...)
			return
		}
	}
	if in := npUnknownInput(plan); in != "" {
		resp.Diagnostics.AddAttributeWarning(path.Root("preview"), "Disruption preview unknown until apply",
			fmt.Sprintf("The preview needs %s, which is known only after apply.", in))
		return
	}
	cluster, pool := plan.Cluster.ValueString(), plan.NodePool.ValueString()
	kc, err := r.Clients.Cluster(ctx, cluster)
	if err != nil {
		if session.IsConfigUnknown(err) {
			resp.Diagnostics.AddAttributeWarning(path.Root("preview"), "Disruption preview unknown until apply",
				fmt.Sprintf("Cluster %q cannot be reached at plan: %v.", cluster, err))
			return
		}
		shared.AddBackendError(&resp.Diagnostics, fmt.Sprintf("Cannot reach cluster %q", cluster), err)
		return
	}
	pinned, _, factsUnknown := shared.PlanPinned(ctx, r.Clients, req.Config, &resp.Diagnostics)
	if factsUnknown {
		shared.AddPreviewUnknownWarning(&resp.Diagnostics, path.Root("preview"), preview.FactsUnknown)
		return
	}
	if resp.Diagnostics.HasError() {
		return
	}
	v, err := r.clusterView(ctx, pinned, kc, cluster, pool)
	if err != nil {
		npAddNodePoolError(&resp.Diagnostics, err)
		return
	}
	resp.Diagnostics.Append(npCheckAgainstCRD(ctx, plan, v)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A server-side dry run: what the API server would reject (its own validation, conflicts with
	// other apply managers) fails the plan, before anything changes.
	var prior []nodePoolDisruptionModel
	if !req.State.Raw.IsNull() {
		var state nodePoolDisruptionModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		prior = append(prior, state)
	}
	if err := npApply(ctx, kc, v.live, plan, true, prior...); err != nil {
		resp.Diagnostics.AddError("The cluster would reject these settings", err.Error())
		return
	}
	preview, drift, diags := buildNodePoolPreview(ctx, plan, v, pinned.Now(), pinned.ListLimit())
	resp.Diagnostics.Append(diags...)
	for _, w := range drift {
		resp.Diagnostics.AddAttributeWarning(w.Attribute, w.Summary, w.Message)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), preview)...)
}

// clusterView is the cluster's picture from the facts a plan read (pinned), else as it is now.
func (r *nodePoolDisruptionResource) clusterView(ctx context.Context, pinned *session.Session, kc *kube.Client, cluster, pool string) (*npClusterView, error) {
	cf, ok, err := pinned.ClusterFacts(cluster)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return clusterViewFromFacts(cf, cluster, pool)
	}
	return loadClusterView(ctx, kc, cluster, pool)
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now (shared.WarnMoved).
func (r *nodePoolDisruptionResource) warnMoved(ctx context.Context, config tfsdk.Config, plan nodePoolDisruptionModel, d *diag.Diagnostics) {
	shared.WarnMovedSince(ctx, r.Clients, config, shared.UsesClusters, d, plan.Preview, func(c *session.Session, diags *diag.Diagnostics) (attr.Value, error) {
		kc, err := c.Cluster(ctx, plan.Cluster.ValueString())
		if err != nil {
			return nil, err
		}
		return r.previewNow(ctx, kc, plan, diags), nil
	})
}

// previewNow computes the preview at apply, before the settings change (as a plan would have).
func (r *nodePoolDisruptionResource) previewNow(ctx context.Context, kc *kube.Client, m nodePoolDisruptionModel, d *diag.Diagnostics) types.Object {
	v, err := loadClusterView(ctx, kc, m.Cluster.ValueString(), m.NodePool.ValueString())
	if err != nil {
		npAddNodePoolError(d, err)
		return types.ObjectNull(npPreviewAttrTypes)
	}
	preview, _, diags := buildNodePoolPreview(ctx, m, v, r.Clients.Now(), r.Clients.ListLimit())
	d.Append(diags...)
	return preview
}
