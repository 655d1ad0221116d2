package shared

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Whether a plan changes what a preview follows: only then is the preview recomputed
// (DESIGN.md, "Previews").

// ConfigChanged reports whether any of the named root attributes differs between the plan and
// the prior state: only then is a preview recomputed.
func ConfigChanged(plan, state tftypes.Value, attributes ...string) (bool, error) {
	if state.IsNull() {
		return true, nil
	}
	for _, name := range attributes {
		p, err := rootAttributeValue(plan, name)
		if err != nil {
			return false, err
		}
		s, err := rootAttributeValue(state, name)
		if err != nil {
			return false, err
		}
		if !p.Equal(s) {
			return true, nil
		}
	}
	return false, nil
}

func rootAttributeValue(v tftypes.Value, name string) (tftypes.Value, error) {
	got, _, err := tftypes.WalkAttributePath(v, tftypes.NewAttributePath().WithAttributeName(name))
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("attribute %s: %w", name, err)
	}
	val, ok := got.(tftypes.Value)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("attribute %s: unexpected %T", name, got)
	}
	return val, nil
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
