package view

import (
	"reflect"
	"slices"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

// Every read of the view says which inputs it reads, and every input is read by some method: the
// generated saved-plan test moves each input, so a new read is covered the day it is added.
func TestEveryMethodHasItsInputs(t *testing.T) {
	fleet := reflect.TypeOf((*Fleet)(nil)).Elem()
	covered := map[facts.Input]bool{}
	for i := range fleet.NumMethod() {
		m := fleet.Method(i).Name
		ins, ok := MethodInputs[m]
		if !ok || len(ins) == 0 {
			t.Errorf("view.Fleet.%s: not in MethodInputs", m)
		}
		for _, in := range ins {
			covered[in] = true
			if !slices.Contains(facts.Inputs, in) {
				t.Errorf("view.Fleet.%s reads %q, which facts.Inputs does not list", m, in)
			}
		}
	}
	for m := range MethodInputs {
		if _, ok := fleet.MethodByName(m); !ok {
			t.Errorf("MethodInputs names %s, which view.Fleet does not have", m)
		}
	}
	for _, in := range facts.Inputs {
		if !covered[in] {
			t.Errorf("input %q is read by no method of view.Fleet", in)
		}
	}
	// The Recorder notes exactly the declared inputs of each method.
	var _ Fleet = (*Recorder)(nil)
	var _ Fleet = (*pinned)(nil)
}
