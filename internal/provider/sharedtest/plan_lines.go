// Package sharedtest holds helpers the unit tests of several domains share.
package sharedtest

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// PlanTextLines counts the lines `terraform plan` prints for an attribute value of a resource
// being created (command/jsonformat's renderer): a null attribute is not shown; a primitive or an
// unknown value, an empty list or an empty map take one line; a non-empty list, map or object
// takes an opening and a closing line around its elements.
func PlanTextLines(v tftypes.Value) int {
	if !v.IsKnown() {
		return 1
	}
	if v.IsNull() {
		return 0
	}
	t := v.Type()
	switch {
	case t.Is(tftypes.List{}), t.Is(tftypes.Set{}), t.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		if len(elems) == 0 {
			return 1
		}
		n := 2
		for _, e := range elems {
			n += max(PlanTextLines(e), 1)
		}
		return n
	case t.Is(tftypes.Map{}), t.Is(tftypes.Object{}):
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		if len(elems) == 0 {
			return 1
		}
		n := 2
		for _, e := range elems {
			n += PlanTextLines(e)
		}
		return n
	}
	return 1
}
