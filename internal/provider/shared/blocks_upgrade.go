package shared

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The state upgrade from nested attributes to blocks (issue 35, DESIGN.md "Nested configuration is
// blocks"): the stored JSON keeps its shape — a single block is an object, a list block a list —
// so the upgrade renames the keys whose list blocks took a singular name and nulls the objects
// the old schema filled in for an omitted Optional+Computed attribute, which a block cannot be.

// BlockRenames describes one resource's upgrade.
type BlockRenames struct {
	// Renames: an old dotted path of attribute names (no list indexes) → the new name of its last
	// step, e.g. {"stages": "stage", "stages.groups": "group"}.
	Renames map[string]string
	// NullWhenEqual: a new dotted path → the JSON value (as encoding/json decodes it) the old
	// provider stored when the configuration omitted it; a stored value equal to it becomes null.
	NullWhenEqual map[string]any
}

// BlocksUpgrade is the state upgrader from the nested-attribute schema to the block schema: a
// rewrite of the raw state JSON (no prior schema), so the old schema need not be kept.
func BlocksUpgrade(r BlockRenames) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		if req.RawState == nil || req.RawState.JSON == nil {
			resp.Diagnostics.AddError("Upgrading the state to blocks", "The stored state has no JSON to upgrade.")
			return
		}
		out, err := UpgradeBlocksJSON(req.RawState.JSON, r)
		if err != nil {
			resp.Diagnostics.AddError("Upgrading the state to blocks", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: out}
	}}
}

// UpgradeBlocksJSON applies r to a stored state object.
func UpgradeBlocksJSON(raw []byte, r BlockRenames) ([]byte, error) {
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, err
	}
	renamed := renameKeys(state, "", r.Renames).(map[string]any)
	for p, def := range r.NullWhenEqual {
		nullWhenEqual(renamed, strings.Split(p, "."), def)
	}
	return json.Marshal(renamed)
}

// renameKeys walks v; oldPrefix is the old dotted path of v ("" at the root).
func renameKeys(v any, oldPrefix string, renames map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, child := range t {
			old := k
			if oldPrefix != "" {
				old = oldPrefix + "." + k
			}
			name := k
			if n, ok := renames[old]; ok {
				name = n
			}
			out[name] = renameKeys(child, old, renames)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = renameKeys(e, oldPrefix, renames)
		}
		return out
	default:
		return v
	}
}

// nullWhenEqual sets the value at steps (new names; lists are walked element by element) to null
// when it equals def.
func nullWhenEqual(v any, steps []string, def any) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			nullWhenEqual(e, steps, def)
		}
	case map[string]any:
		child, ok := t[steps[0]]
		if !ok {
			return
		}
		if len(steps) == 1 {
			if reflect.DeepEqual(child, def) {
				t[steps[0]] = nil
			}
			return
		}
		nullWhenEqual(child, steps[1:], def)
	}
}
