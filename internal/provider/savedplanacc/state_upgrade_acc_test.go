package savedplanacc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// State written before nested configuration became blocks (issue 35) keeps working: the state of
// a placement, an override, an update strategy and a nodepool's disruption settings, rewritten into
// the shape the nested-attribute schema stored (schema version 0, the plural names, and the
// strategy and apply strategy the provider filled in when the configuration omitted them), plans
// no change against the same configuration in the block form, and is stored in the new shape.

const upgradeConfig = `
resource "fleet_placement" "web" {
  name = "upgrade-web"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "upgrade-web"
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
      label_expression {
        key      = "tier"
        operator = "In"
        values   = ["gold", "silver"]
      }
    }
    toleration {
      key      = "maintenance"
      operator = "Exists"
    }
  }
}

resource "fleet_cluster_resource_override" "env" {
  name = "upgrade-env"
  placement {
    name = fleet_placement.web.name
  }
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "upgrade-web"
  }
  rule {
    cluster_selector {
      term {
        labels = { env = "prod" }
      }
    }
    json_patch {
      op    = "add"
      path  = "/metadata/labels/env"
      value = jsonencode("prod")
    }
  }
}

resource "fleet_update_strategy" "rings" {
  name = "upgrade-rings"
  stage {
    name = "canary"
    group {
      name = "canary"
      before_gate {
        type = "Approval"
      }
    }
    after_stage_wait_in_seconds = 60
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}
`

// namesBefore: per resource type, new dotted path → the name the nested-attribute schema stored.
var namesBefore = map[string]map[string]string{
	"fleet_placement": {
		"resource_selector": "resource_selectors", "policy.required_cluster_selector": "required_cluster_selectors",
		"policy.required_cluster_selector.label_expression": "label_expressions", "policy.required_cluster_selector.property_expression": "property_expressions",
		"policy.preferred_cluster_selector": "preferred_cluster_selectors", "policy.preferred_cluster_selector.label_expression": "label_expressions",
		"policy.toleration": "tolerations", "policy.topology_spread_constraint": "topology_spread_constraints",
		"resource_selector.label_selector.match_expression": "match_expressions",
	},
	"fleet_cluster_resource_override": {
		"resource_selector": "resource_selectors", "rule": "rules", "rule.cluster_selector.term": "terms",
		"rule.cluster_selector.term.expression": "expressions", "rule.cluster_selector.term.property": "properties", "rule.json_patch": "json_patches",
	},
	"fleet_update_strategy": {
		"stage": "stages", "stage.group": "groups", "stage.before_gate": "before_gates", "stage.after_gate": "after_gates",
		"stage.group.before_gate": "before_gates", "stage.group.after_gate": "after_gates",
	},
}

// filledBefore: what the nested-attribute schema stored for an omitted Optional+Computed attribute
// (the hub's defaults as the provider read them back: placement_strategy.go and
// placement_apply_strategy.go before issue 35).
var filledBefore = map[string]map[string]any{
	"fleet_placement": {
		"strategy": map[string]any{"type": "RollingUpdate", "max_unavailable": "25%", "max_surge": "25%", "unavailable_period_seconds": 60},
		"apply_strategy": map[string]any{"type": "ClientSideApply", "comparison_option": "PartialComparison", "when_to_apply": "Always",
			"when_to_take_over": "Always", "allow_co_ownership": false, "server_side_apply_config": nil},
	},
}

func TestAccStateUpgrade_nestedAttributesToBlocks(t *testing.T) {
	t.Parallel()
	w := acctest.NewWorkdir(t, upgradeConfig)
	w.Must("apply", "-auto-approve")

	// The state as the nested-attribute schema wrote it.
	file := filepath.Join(w.Dir, "terraform.tfstate")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	downgraded := 0
	for _, r := range st["resources"].([]any) {
		r := r.(map[string]any)
		typ := r["type"].(string)
		names, ok := namesBefore[typ]
		if !ok {
			continue
		}
		for _, inst := range r["instances"].([]any) {
			inst := inst.(map[string]any)
			inst["schema_version"] = 0
			attrs := inst["attributes"].(map[string]any)
			for k, v := range filledBefore[typ] {
				if attrs[k] != nil {
					t.Fatalf("%s: %s is %v in state though the configuration omits it", typ, k, attrs[k])
				}
				attrs[k] = v
			}
			inst["attributes"] = rename(attrs, "", names)
			downgraded++
		}
	}
	if downgraded != 3 {
		t.Fatalf("downgraded %d resources, want 3", downgraded)
	}
	st["serial"] = st["serial"].(float64) + 1
	b, _ = json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resource_selectors"`) || !strings.Contains(string(b), `"stages"`) {
		t.Fatalf("the downgraded state lacks the old names:\n%s", b)
	}

	// Same configuration, blocks: no change.
	if out, err := w.Run("plan", "-detailed-exitcode"); err != nil {
		t.Fatalf("the upgraded state plans a change (or fails): %v\n%s", err, out)
	}
	w.Must("apply", "-refresh-only", "-auto-approve")
	b, _ = os.ReadFile(file)
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st["resources"].([]any) {
		r := r.(map[string]any)
		typ := r["type"].(string)
		for _, inst := range r["instances"].([]any) {
			inst := inst.(map[string]any)
			if v := inst["schema_version"].(float64); v != 1 {
				t.Errorf("%s: schema_version %v after a refresh, want 1", typ, v)
			}
			for p, old := range namesBefore[typ] {
				steps := strings.Split(p, ".")
				for _, at := range valuesAt(inst["attributes"], steps[:len(steps)-1]) {
					if _, ok := at[old]; ok {
						t.Errorf("%s: after a refresh the state still has %s at %s", typ, old, p)
					}
				}
			}
		}
	}
	v := w.StateValues("fleet_placement.web")
	if v["strategy"] != nil || v["apply_strategy"] != nil {
		t.Errorf("the defaults the old schema filled in are still in state: strategy %v, apply_strategy %v", v["strategy"], v["apply_strategy"])
	}
}

// rename turns new names into the old ones along dotted paths (prefix: the new path of v).
func rename(v any, prefix string, names map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, child := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			name := k
			if old, ok := names[p]; ok {
				name = old
			}
			out[name] = rename(child, p, names)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = rename(e, prefix, names)
		}
		return out
	}
	return v
}

// valuesAt are the objects at steps (list elements walked through) of v.
func valuesAt(v any, steps []string) []map[string]any {
	switch t := v.(type) {
	case []any:
		var out []map[string]any
		for _, e := range t {
			out = append(out, valuesAt(e, steps)...)
		}
		return out
	case map[string]any:
		if len(steps) == 0 {
			return []map[string]any{t}
		}
		return valuesAt(t[steps[0]], steps[1:])
	}
	return nil
}
