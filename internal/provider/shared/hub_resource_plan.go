package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// PlanHubAPI is HubAPI at plan time: false without a word while the provider's configuration is
// unknown (the apply reaches the hub, the plan cannot yet), false with the reason otherwise.
func PlanHubAPI(ctx context.Context, clients *session.Session, diags *diag.Diagnostics) (*hub.Client, bool) {
	h, err := clients.HubAPI(ctx)
	if err != nil {
		if !session.IsConfigUnknown(err) {
			AddBackendError(diags, "Reaching the fleet hub", err)
		}
		return nil, false
	}
	return h, true
}

// PlanChanged opens the ModifyPlan of a resource whose preview follows the given attributes: it
// decodes the planned model and the prior one (zero when creating) and compares the attributes.
// When none changed the plan keeps what keep copies from the prior model (its preview) and is
// saved; ok is then false, as on an error: there is nothing more to plan.
func PlanChanged[M any](ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, keep func(plan, state *M),
	attributes ...string) (plan, state *M, ok bool) {
	plan, state = new(M), new(M)
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if resp.Diagnostics.HasError() {
		return plan, state, false
	}
	changed, err := ConfigChanged(req.Plan.Raw, req.State.Raw, attributes...)
	if err != nil {
		resp.Diagnostics.AddError("Comparing the configuration", err.Error())
		return plan, state, false
	}
	if !changed {
		keep(plan, state)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return plan, state, false
	}
	return plan, state, true
}
