package shared

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Helpers every resource with a plan-time preview shares (DESIGN.md, "Previews"): the preview is
// computed in ModifyPlan only when the resource is created or its configuration changes, stays
// unknown (with a warning naming the input) while an input is unknown, and is never recomputed
// once known.

// knownOnly returns v with every unknown value replaced (primitives by their zero value,
// collections and objects by null) and the paths of the values it replaced, so that a
// configuration that is only partly known at plan can still be decoded and validated: whatever a
// check says about a replaced value (or its ancestors and descendants) is then dropped.
func knownOnly(v tftypes.Value) (tftypes.Value, []*tftypes.AttributePath, error) {
	var unknown []*tftypes.AttributePath
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		unknown = append(unknown, p)
		t := v.Type()
		switch {
		case t.Is(tftypes.String):
			return tftypes.NewValue(t, ""), nil
		case t.Is(tftypes.Number):
			return tftypes.NewValue(t, new(big.Float)), nil
		case t.Is(tftypes.Bool):
			return tftypes.NewValue(t, false), nil
		default:
			return tftypes.NewValue(t, nil), nil
		}
	})
	return out, unknown, err
}

// frameworkPath converts a tftypes path to the framework's, for diagnostics.
func frameworkPath(p *tftypes.AttributePath) path.Path {
	out := path.Empty()
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			out = out.AtName(string(s))
		case tftypes.ElementKeyInt:
			out = out.AtListIndex(int(s))
		case tftypes.ElementKeyString:
			out = out.AtMapKey(string(s))
		}
	}
	return out
}

// PathsRelated reports whether a is b, or an ancestor or descendant of b.
func PathsRelated(a, b path.Path) bool {
	as, bs := a.Steps(), b.Steps()
	n := min(len(as), len(bs))
	for i := 0; i < n; i++ {
		if !as[i].Equal(bs[i]) {
			return false
		}
	}
	return true
}

// RelatedToAny reports whether p is related to any of the paths.
func RelatedToAny(p path.Path, paths []path.Path) bool {
	for _, q := range paths {
		if PathsRelated(p, q) {
			return true
		}
	}
	return false
}

// PathsContain reports whether p is one of paths.
func PathsContain(paths []path.Path, p path.Path) bool {
	for _, q := range paths {
		if q.Equal(p) {
			return true
		}
	}
	return false
}

// AddPreviewUnknownWarning says why a preview stays unknown until apply.
func AddPreviewUnknownWarning(diags *diag.Diagnostics, preview path.Path, why string) {
	diags.AddAttributeWarning(preview, "Preview unknown until apply",
		fmt.Sprintf("Attribute %s is known only after apply: %s.", preview, why))
}

// PlanPreviewUnknown plans the preview attribute at `at` unknown (an object of attrTypes) and says why.
func PlanPreviewUnknown(ctx context.Context, plan *tfsdk.Plan, diags *diag.Diagnostics, at path.Path, attrTypes map[string]attr.Type, why string) {
	diags.Append(plan.SetAttribute(ctx, at, types.ObjectUnknown(attrTypes))...)
	AddPreviewUnknownWarning(diags, at, why)
}

// UnknownInputs words the unknown input paths for addPreviewUnknownWarning.
func UnknownInputs(paths []path.Path) string {
	names := make([]string, 0, len(paths))
	for i, p := range paths {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(paths)-3))
			break
		}
		names = append(names, p.String())
	}
	return "it depends on " + strings.Join(names, ", ") + ", not known until apply"
}

// DecodePartial reads a configuration (or a plan, as a tfsdk.Config) that may hold unknown values
// into target: unknown values are replaced (see knownOnly) and returned as paths, so validation
// and planning can skip what is not known yet. Paths related to one of ignore (computed
// attributes, unknown by nature at plan) are not returned.
func DecodePartial(ctx context.Context, cfg tfsdk.Config, target any, ignore ...path.Path) ([]path.Path, diag.Diagnostics) {
	var diags diag.Diagnostics
	known, paths, err := knownOnly(cfg.Raw)
	if err != nil {
		diags.AddError("Reading the configuration", err.Error())
		return nil, diags
	}
	var unknown []path.Path
	for _, p := range paths {
		if fp := frameworkPath(p); !RelatedToAny(fp, ignore) {
			unknown = append(unknown, fp)
		}
	}
	diags.Append(tfsdk.Config{Schema: cfg.Schema, Raw: known}.Get(ctx, target)...)
	return unknown, diags
}

// RemovePath is paths without p and what it contains or is contained in (a value the plan now
// knows).
func RemovePath(paths []path.Path, p path.Path) []path.Path {
	var out []path.Path
	for _, q := range paths {
		if !PathsRelated(q, p) {
			out = append(out, q)
		}
	}
	return out
}
