package shared

import (
	"fmt"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// knownOnly replaces every unknown value and names where it was.
func TestKnownOnly(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"n": tftypes.Number, "s": tftypes.String, "l": tftypes.List{ElementType: tftypes.String},
	}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"n": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue),
		"s": tftypes.NewValue(tftypes.String, "x"),
		"l": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue),
	})
	known, paths, err := knownOnly(v)
	if err != nil {
		t.Fatal(err)
	}
	if !known.IsFullyKnown() {
		t.Fatal("unknowns left")
	}
	var got []string
	for _, p := range paths {
		got = append(got, frameworkPath(p).String())
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[l n]" {
		t.Fatalf("unknown paths %v, want [l n]", got)
	}
}
