// Package preview is the plan-time preview protocol, written once: a resource says what its
// preview follows, what it reads of the fleet and how to compute it (Spec), and Plan and
// WarnMoved do the rest — skip on destroy and when nothing it follows changed, stay unknown while
// an input is, read the fleet only through the view (pinned by `facts`, or live), set the
// preview, note once that a live preview breaks a saved plan, and after apply say what moved.
// It is the shape of Karpenter's disruption Method and KubeFleet's scheduler plugins: one small
// contract, one implementation per resource.
package preview

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Path is the attribute every preview is planned in.
var Path = path.Root("preview")

// Spec is one resource's preview over its model M.
type Spec[M any] struct {
	// What names the preview in messages ("the placement preview").
	What string
	// AttrTypes are the preview object's attribute types.
	AttrTypes map[string]attr.Type
	// Follows are the root attributes the preview is computed from: it is computed when the
	// resource is created or one of them changes (never again once known), and stays unknown
	// while one of them is.
	Follows []string
	// Reads are the inputs the preview reads of the fleet (view.MethodInputs): a read of any
	// other fails the plan, so the generated saved-plan test, which moves each declared input,
	// covers every read.
	Reads []facts.Input
	// Compute is the preview of m over the fleet v; it adds its warnings (and problems of the
	// configuration, as errors with their attribute path) to diags.
	Compute func(ctx context.Context, v view.Fleet, m *M, diags *diag.Diagnostics) (attr.Value, error)
}

// Inputs are the inputs the preview reads (the provider lists them: PreviewInputs).
func (s Spec[M]) Inputs() []facts.Input { return s.Reads }

// Plan plans the preview of m (the plan decoded with DecodePartial; unknown are the paths it
// found unknown) into resp.
func (s Spec[M]) Plan(ctx context.Context, sess *session.Session, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *M, unknown []path.Path) {
	if req.Plan.Raw.IsNull() || sess == nil || resp.Diagnostics.HasError() {
		return
	}
	changed, err := shared.ConfigChanged(req.Plan.Raw, req.State.Raw, s.Follows...)
	if err != nil {
		resp.Diagnostics.AddError("Planning "+s.What, err.Error())
		return
	}
	if !changed {
		return
	}
	var inputs []path.Path
	for _, p := range unknown {
		for _, a := range s.Follows {
			if shared.PathsRelated(p, path.Root(a)) {
				inputs = append(inputs, p)
				break
			}
		}
	}
	if len(inputs) > 0 {
		s.unknown(ctx, resp, shared.UnknownInputs(inputs))
		return
	}
	v, _, factsUnknown := PlanView(ctx, sess, req.Config, &resp.Diagnostics)
	if factsUnknown {
		s.unknown(ctx, resp, FactsUnknown)
		return
	}
	if resp.Diagnostics.HasError() {
		return
	}
	rec := view.Record(v, s.Reads...)
	obj, err := s.Compute(ctx, rec, m, &resp.Diagnostics)
	if undeclared := rec.Undeclared(); len(undeclared) > 0 {
		resp.Diagnostics.AddError("Provider bug: a preview read what it does not declare",
			fmt.Sprintf("%s read %s of the fleet, which its Spec.Reads does not list; a saved plan's test would not cover it. Please report this.",
				s.What, view.InputNames(undeclared)))
		return
	}
	switch {
	case err != nil && session.IsConfigUnknown(err):
		s.unknown(ctx, resp, err.Error())
		return
	case err != nil:
		AddReadError(&resp.Diagnostics, "Computing "+s.What, err)
		return
	case resp.Diagnostics.HasError() || obj == nil:
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, Path, obj)...)
}

func (s Spec[M]) unknown(ctx context.Context, resp *resource.ModifyPlanResponse, why string) {
	shared.PlanPreviewUnknown(ctx, &resp.Plan, &resp.Diagnostics, Path, s.AttrTypes, why)
}

// WarnMoved is what apply says after applying m when its plan was computed from facts: what
// moved since, input by input, and how the preview would differ now (warnMoved). The preview's
// own problems computed now are not this apply's: they are dropped.
func (s Spec[M]) WarnMoved(ctx context.Context, sess *session.Session, config tfsdk.Config, m *M, reviewed attr.Value, d *diag.Diagnostics) {
	if sess == nil {
		return
	}
	var scratch diag.Diagnostics
	_, planned, _ := View(ctx, sess, config, &scratch)
	warnMoved(ctx, sess, planned, d, reviewed, func(v view.Fleet) (attr.Value, error) {
		var diags diag.Diagnostics
		obj, err := s.Compute(ctx, v, m, &diags)
		if err == nil && diags.HasError() {
			err = fmt.Errorf("the preview: %v", diags)
		}
		return obj, err
	})
}

// AddReadError reports a failed read of the fleet: a snapshot that lacks what the preview needs
// says which argument of data.fleet_facts reads it.
func AddReadError(d *diag.Diagnostics, summary string, err error) {
	var notRead *facts.NotReadError
	if errors.As(err, &notRead) {
		d.AddAttributeError(FactsPath, summary, err.Error())
		return
	}
	backend.AddBackendError(d, summary, err)
}

// NullPreview is a null preview of attrTypes (import, refresh of a resource planned without one).
func NullPreview(attrTypes map[string]attr.Type) types.Object { return types.ObjectNull(attrTypes) }
