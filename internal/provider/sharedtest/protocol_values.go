package sharedtest

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Protocol-level validation tests: configurations built as tftypes values, diagnostics read by
// the attribute path a configuration spells.

// Describe lists diagnostics as "path: summary: detail", for a test's failure message.
func Describe(ds []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s: %s: %s", HCLPath(d.Attribute), d.Summary, d.Detail))
	}
	return fmt.Sprintf("%q", out)
}

// HCLPath is an attribute path as a configuration spells it: a.b[0]["key"].
func HCLPath(p *tftypes.AttributePath) string {
	if p == nil {
		return "(resource)"
	}
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", s)
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		}
	}
	return b.String()
}

// TFValue builds a value of type t from nested maps, slices and scalars; absent is null.
func TFValue(t tftypes.Type, v any) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(t, nil), nil
	}
	switch tt := t.(type) {
	case tftypes.Object:
		m, _ := v.(map[string]any)
		vals := map[string]tftypes.Value{}
		for k := range m {
			if _, ok := tt.AttributeTypes[k]; !ok {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", k)
			}
		}
		for k, at := range tt.AttributeTypes {
			x, err := TFValue(at, m[k])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.List:
		l, _ := v.([]any)
		var vals []tftypes.Value
		for _, e := range l {
			x, err := TFValue(tt.ElementType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals = append(vals, x)
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.Map:
		m, _ := v.(map[string]any)
		vals := map[string]tftypes.Value{}
		for k, e := range m {
			x, err := TFValue(tt.ElementType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	}
	if n, ok := v.(int); ok {
		return tftypes.NewValue(t, big.NewFloat(float64(n))), nil
	}
	return tftypes.NewValue(t, v), nil
}
