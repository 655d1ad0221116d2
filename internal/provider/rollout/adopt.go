package rollout

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Create sends If-None-Match: * so that it never overwrites an object made
// elsewhere. When that object has exactly the planned definition it is the
// one this configuration means — made by an apply that was killed before it
// saved state, or by a concurrent apply of the same configuration — and
// Create adopts it instead of failing: applying again converges to one
// object. Any difference is refused, naming the first differing attribute.

// specDiff compares a planned definition with the one the fleet holds, both
// normalized API values, and names the first difference in Terraform's
// attribute names ("" when they are equal).
func specDiff(planned, existing any) string {
	p, err1 := jsonTree(planned)
	e, err2 := jsonTree(existing)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("the definitions could not be compared (%v, %v)", err1, err2)
	}
	return treeDiff("", p, e)
}

func jsonTree(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

func treeDiff(at string, p, e any) string {
	switch pv := p.(type) {
	case map[string]any:
		ev, ok := e.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range pv {
			keys[k] = true
		}
		for k := range ev {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := treeDiff(joinAttr(at, k), pv[k], ev[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		ev, ok := e.([]any)
		if !ok {
			break
		}
		for i := range min(len(pv), len(ev)) {
			if d := treeDiff(fmt.Sprintf("%s[%d]", at, i), pv[i], ev[i]); d != "" {
				return d
			}
		}
		if len(pv) != len(ev) {
			return fmt.Sprintf("%s has %d entries in the plan, %d in the fleet", at, len(pv), len(ev))
		}
		return ""
	}
	pb, _ := json.Marshal(p)
	eb, _ := json.Marshal(e)
	if string(pb) == string(eb) {
		return ""
	}
	return fmt.Sprintf("%s is %s in the plan, %s in the fleet", at, shown(p, pb), shown(e, eb))
}

// blockNames are the API's list fields whose blocks take a singular name.
var blockNames = map[string]string{"stages": "stage", "groups": "group", "before_gates": "before_gate", "after_gates": "after_gate"}

// joinAttr appends an API field to an attribute path in Terraform's
// spelling (afterStageWaitInSeconds → after_stage_wait_in_seconds, stages → stage).
func joinAttr(at, field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	name := b.String()
	if n, ok := blockNames[name]; ok {
		name = n
	}
	if at != "" {
		return at + "." + name
	}
	return name
}

// strategySpec is what an update strategy's definition is compared on: its
// stages, as the `stage` blocks.
func strategySpec(s *fleetapi.UpdateRunStrategy) any {
	return struct {
		Stages []fleetapi.UpdateStage `json:"stages"`
	}{specStages(s)}
}

// specStages are a strategy's stages; an absent list is an empty one.
func specStages(s *fleetapi.UpdateRunStrategy) []fleetapi.UpdateStage {
	if s == nil || s.Stages == nil {
		return []fleetapi.UpdateStage{}
	}
	return s.Stages
}

// runSpec is what an update run's definition is compared on, in the
// attributes' shape: its strategy (the referenced strategy's ID when it has
// one — the run's copy of that strategy is the API's, not the
// configuration's), and its update with the API's default node image
// selection (Latest) made explicit.
func runSpec(p *fleetapi.UpdateRunProperties) any {
	type nodeImageSelection struct {
		Type           fleetapi.NodeImageSelectionType `json:"type"`
		CustomVersions []string                        `json:"customVersions,omitempty"`
	}
	type update struct {
		Upgrade            fleetapi.ManagedClusterUpgradeSpec `json:"upgrade"`
		NodeImageSelection nodeImageSelection                 `json:"nodeImageSelection"`
	}
	type spec struct {
		UpdateStrategyID     string                 `json:"updateStrategyId,omitempty"`
		Stages               []fleetapi.UpdateStage `json:"stages,omitempty"`
		ManagedClusterUpdate *update                `json:"managedClusterUpdate"`
	}
	if p == nil {
		return spec{}
	}
	out := spec{UpdateStrategyID: strings.ToLower(p.UpdateStrategyID)}
	if p.UpdateStrategyID == "" {
		out.Stages = specStages(p.Strategy)
	}
	if u := p.ManagedClusterUpdate; u != nil {
		out.ManagedClusterUpdate = &update{Upgrade: u.Upgrade, NodeImageSelection: nodeImageSelection{Type: fleetapi.NodeImageSelectionLatest}}
		if s := u.NodeImageSelection; s != nil {
			out.ManagedClusterUpdate.NodeImageSelection.Type = s.Type
			for _, v := range s.CustomNodeImageVersions {
				out.ManagedClusterUpdate.NodeImageSelection.CustomVersions = append(out.ManagedClusterUpdate.NodeImageSelection.CustomVersions, v.Version)
			}
		}
	}
	return out
}

// addExistsError reports a Create that found an object of the planned name
// with another definition (diff), at the attribute name.
func addExistsError(diags *diag.Diagnostics, kind, name, id, diff string) {
	diags.AddAttributeError(path.Root("name"), fmt.Sprintf("%s already exists", sentenceCase(kind)),
		fmt.Sprintf("The fleet already has an %s named %q with a different definition: %s.\n\n"+
			"It was made outside this configuration's state (elsewhere, or by another apply racing this one); "+
			"nothing was changed. Import it (terraform import with its ID %s) to manage it, or choose another name.", kind, name, diff, id))
}

// addChangedElsewhereError reports an If-Match write that lost a race.
func addChangedElsewhereError(diags *diag.Diagnostics, kind, name string, err error) {
	diags.AddError(fmt.Sprintf("%s changed by someone else", sentenceCase(kind)),
		fmt.Sprintf("The %s %q was changed by someone else since Terraform read it (its ETag no longer matches), so "+
			"this change was not written and the state keeps what Terraform last read. Refresh and retry: run "+
			"terraform plan to see the other change, then apply again.\n\n%v", kind, name, err))
}

func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// shown is a value in a difference: a scalar as JSON, a list or object in a few words.
func shown(v any, b []byte) string {
	switch v := v.(type) {
	case nil:
		return "unset"
	case []any:
		return fmt.Sprintf("a list of %d", len(v))
	case map[string]any:
		return "set"
	}
	return string(b)
}
