package typoacc

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// TestTypoCatalogue: a typo is never silent (issue 35). For every resource, data source, ephemeral
// resource, action, list resource and the provider block, walked from the provider's own schema,
// and for every argument and block a user writes at any depth, one configuration has that name
// misspelled by one letter; for every block, one writes it in the nested-attribute form of
// before 0.1.0 (`policy = {}`, `stages = [{}]`); for every block that maps an upstream object, one
// writes each upstream key (KubeFleet's YAML, Karpenter's NodePool, the Fleet API's JSON, in
// snake_case) that our schema names differently. Each must fail `terraform validate` with the key
// it wrote named in an error ("Unsupported argument"/"Unsupported block type"); no case may pass.
// All cases sit in one working folder, a file each, so one validate run checks them all.

// typoCase is one configuration of the catalogue.
type typoCase struct {
	kind, typ string   // resource, data, ephemeral, action, list, provider
	path      []string // the blocks the key is written in, from the body (of `config` for actions and lists)
	key       string   // what is written
	block     bool     // written as a block (`key {}`), else as an argument
	value     cty.Value
	form      string
	source    string // where an upstream key comes from
}

func (c typoCase) String() string {
	at := strings.Join(append(append([]string{}, c.path...), c.key), ".")
	return fmt.Sprintf("%s %s: %s (%s)", c.kind, c.typ, at, c.form)
}

const (
	formMisspelled = "misspelled by one letter"
	formAttribute  = "nested-attribute form of before 0.1.0"
	formUpstream   = "upstream key"
)

func TestTypoCatalogue(t *testing.T) {
	w := acctest.NewOfflineWorkdir(t)
	schemas := providerSchemas(t)
	upstream := upstreamKeys(t)

	var cases []typoCase
	baselines := map[string]string{} // file → what it is
	for _, k := range kinds {
		bodies := k.baselines
		for typ, s := range k.schemas(schemas) {
			if _, ok := bodies[typ]; !ok {
				t.Errorf("%s %s has no baseline configuration in baselines_test.go: its arguments would have no typo cases", k.name, typ)
				continue
			}
			// Files are numbered: a name ending in _override.tf would be an override file.
			file := fmt.Sprintf("base_%02d%s", len(baselines), k.ext)
			w.Write(file, render(t, k, typ, "base", bodies[typ], nil))
			baselines[file] = k.name + " " + typ
			cs, holes := casesOf(k.name, typ, nil, s, upstream)
			cases = append(cases, cs...)
			for _, h := range holes {
				t.Errorf("%s %s: %s is a configurable nested attribute, whose unknown keys Terraform drops silently: write it as a block", k.name, typ, h)
			}
		}
		for typ := range bodies {
			if _, ok := k.schemas(schemas)[typ]; !ok {
				t.Errorf("baseline for %s %s, which the provider does not have", k.name, typ)
			}
		}
	}
	files := map[string]typoCase{}
	for i, c := range cases {
		k := kindNamed(c.kind)
		file := fmt.Sprintf("case_%04d%s", i, k.ext)
		w.Write(file, render(t, k, c.typ, fmt.Sprintf("case_%04d", i), k.baselines[c.typ], &c))
		files[file] = c
	}

	out, _ := w.Run("validate", "-json", "-query")
	diags := parseDiagnostics(t, out)
	for file, what := range baselines {
		for _, d := range diags[file] {
			t.Errorf("baseline %s (%s) does not validate: %s: %s", what, file, d.Summary, d.Detail)
		}
	}
	byForm, accepted := map[string]int{}, 0
	for file, c := range files {
		if !namesKey(diags[file], c.key) {
			accepted++
			t.Errorf("silently accepted: %s, written as %q%s — validate says %v", c, c.key, blockSuffix(c), summaries(diags[file]))
		}
		byForm[c.form]++
	}
	summary := fmt.Sprintf("typo catalogue: %d cases (%d %s, %d in the %s, %d %ss) over %d types: %d rejected at validate by name, %d accepted",
		len(cases), byForm[formMisspelled], formMisspelled, byForm[formAttribute], formAttribute, byForm[formUpstream], formUpstream,
		len(baselines), len(cases)-accepted, accepted)
	t.Log(summary)
	fmt.Println(summary)

	// The oldest Terraform the README promises (the terraform on PATH) decodes blocks the same way;
	// it knows no actions or list resources, so those are left out of its run.
	if old := oldestCLI(t); old != "" {
		w2 := acctest.NewOfflineWorkdir(t)
		n := 0
		for file, c := range files {
			if c.kind == "action" || c.kind == "list" {
				continue
			}
			w2.Write(file, render(t, kindNamed(c.kind), c.typ, strings.TrimSuffix(file, ".tf"), kindNamed(c.kind).baselines[c.typ], &c))
			n++
		}
		out, _ := w2.RunCLI(old, "validate", "-json")
		diags := parseDiagnostics(t, out)
		accepted := 0
		for file, c := range files {
			if c.kind != "action" && c.kind != "list" && !namesKey(diags[file], c.key) {
				accepted++
				t.Errorf("%s: silently accepted: %s — validate says %v", old, c, summaries(diags[file]))
			}
		}
		msg := fmt.Sprintf("typo catalogue on %s: %d cases of resources, data sources, ephemeral resources and the provider block: %d rejected at validate by name, %d accepted",
			cliVersion(old), n, n-accepted, accepted)
		t.Log(msg)
		fmt.Println(msg)
	}
}

func blockSuffix(c typoCase) string {
	if c.block {
		return " block"
	}
	return ""
}

// ---- what the catalogue covers ----

type kind struct {
	name      string
	ext       string
	baselines map[string]string
	schemas   func(*tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock
}

var kinds = []kind{
	{"resource", ".tf", resourceBaselines, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		return blocksOf(r.ResourceSchemas)
	}},
	{"data", ".tf", dataSourceBaselines, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		return blocksOf(r.DataSourceSchemas)
	}},
	{"ephemeral", ".tf", ephemeralBaselines, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		return blocksOf(r.EphemeralResourceSchemas)
	}},
	{"action", ".tf", actionBaselines, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		out := map[string]*tfprotov6.SchemaBlock{}
		for n, s := range r.ActionSchemas {
			out[n] = s.Schema.Block
		}
		return out
	}},
	{"list", ".tfquery.hcl", listBaselines, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		return blocksOf(r.ListResourceSchemas)
	}},
	{"provider", ".tf", map[string]string{"fleet": providerBaseline}, func(r *tfprotov6.GetProviderSchemaResponse) map[string]*tfprotov6.SchemaBlock {
		return map[string]*tfprotov6.SchemaBlock{"fleet": r.Provider.Block}
	}},
}

func kindNamed(name string) kind {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	panic(name)
}

func blocksOf(m map[string]*tfprotov6.Schema) map[string]*tfprotov6.SchemaBlock {
	out := map[string]*tfprotov6.SchemaBlock{}
	for n, s := range m {
		out[n] = s.Block
	}
	return out
}

func providerSchemas(t *testing.T) *tfprotov6.GetProviderSchemaResponse {
	t.Helper()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	r, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// casesOf walks one block of a schema: every argument a user writes (not the computed-only ones)
// and every nested block, with the block's nested attributes refused outright (a configurable
// nested attribute is the hole this catalogue closes).
func casesOf(kindName, typ string, path []string, b *tfprotov6.SchemaBlock, upstream map[string][]upstreamKey) (out []typoCase, holes []string) {
	taken := map[string]bool{}
	for _, a := range b.Attributes {
		taken[a.Name] = true
	}
	for _, nb := range b.BlockTypes {
		taken[nb.TypeName] = true
	}
	at := func(key string, block bool, v cty.Value, form, source string) typoCase {
		return typoCase{kind: kindName, typ: typ, path: path, key: key, block: block, value: v, form: form, source: source}
	}
	for _, a := range b.Attributes {
		if a.Computed && !a.Optional && !a.Required {
			continue
		}
		if a.NestedType != nil {
			holes = append(holes, strings.Join(append(append([]string{}, path...), a.Name), "."))
			continue
		}
		if kindName == "provider" && a.Name == "alias" || kindName == "list" && (a.Name == "provider") {
			continue
		}
		out = append(out, at(misspell(a.Name, taken), false, cty.StringVal("x"), formMisspelled, ""))
	}
	for _, nb := range b.BlockTypes {
		out = append(out, at(misspell(nb.TypeName, taken), true, cty.NilVal, formMisspelled, ""))
		old := nb.TypeName
		if o, ok := namesBefore010[kindName+"/"+typ+":"+strings.Join(append(append([]string{}, path...), nb.TypeName), ".")]; ok {
			old = o
		}
		v := cty.EmptyObjectVal
		if nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeList || nb.Nesting == tfprotov6.SchemaNestedBlockNestingModeSet {
			v = cty.TupleVal([]cty.Value{cty.EmptyObjectVal})
		}
		out = append(out, at(old, false, v, formAttribute, ""))
		cs, hs := casesOf(kindName, typ, append(append([]string{}, path...), nb.TypeName), nb.Block, upstream)
		out, holes = append(out, cs...), append(holes, hs...)
	}
	seen := map[string]bool{}
	for _, u := range upstream[kindName+"/"+typ+":"+strings.Join(path, ".")] {
		if taken[u.name] || seen[u.name] {
			continue
		}
		seen[u.name] = true
		out = append(out, at(u.name, u.object, cty.StringVal("x"), formUpstream, u.source))
	}
	return out, holes
}

// namesBefore010 are the names list blocks had as nested attributes before 0.1.0, where they
// differ: a configuration written for them must fail by name too.
var namesBefore010 = map[string]string{}

func init() {
	renames := map[string]map[string]string{
		"placement": {
			"resource_selector": "resource_selectors", "resource_selector.label_selector.match_expression": "match_expressions",
			"policy.required_cluster_selector": "required_cluster_selectors", "policy.required_cluster_selector.label_expression": "label_expressions",
			"policy.required_cluster_selector.property_expression": "property_expressions", "policy.preferred_cluster_selector": "preferred_cluster_selectors",
			"policy.preferred_cluster_selector.label_expression": "label_expressions", "policy.topology_spread_constraint": "topology_spread_constraints",
			"policy.toleration": "tolerations",
		},
		"override": {
			"resource_selector": "resource_selectors", "rule": "rules", "rule.cluster_selector.term": "terms",
			"rule.cluster_selector.term.expression": "expressions", "rule.cluster_selector.term.property": "properties", "rule.json_patch": "json_patches",
		},
		"resource/fleet_staged_update_strategy": {
			"stage": "stages", "stage.after_stage_task": "after_stage_tasks", "stage.before_stage_task": "before_stage_tasks",
			"stage.label_selector.match_expression": "match_expressions",
		},
		"strategy": {
			"stage": "stages", "stage.group": "groups", "stage.before_gate": "before_gates", "stage.after_gate": "after_gates",
			"stage.group.before_gate": "before_gates", "stage.group.after_gate": "after_gates",
		},
		"resource/fleet_update_run":          {"approval": "approvals"},
		"resource/fleet_nodepool_disruption": {"budget": "budgets"},
		"action/fleet_update_run_skip":       {"target": "targets"},
		"data/fleet_facts":                   {"staged_run": "staged_runs"},
		"provider/fleet":                     {"cluster": "clusters"},
	}
	groups := map[string][]string{}
	for k, v := range kubeGroups {
		groups[k] = v
	}
	for k, v := range apiGroups {
		groups[k] = v
	}
	for group, m := range renames {
		types := groups[group]
		if types == nil {
			types = []string{group}
		}
		for _, typ := range types {
			for p, old := range m {
				namesBefore010[typ+":"+p] = old
			}
		}
	}
}

// misspell drops one letter of name (the middle one first), so that the result is no other name
// of the same block.
func misspell(name string, taken map[string]bool) string {
	for d := 0; d < len(name); d++ {
		for _, i := range []int{len(name)/2 + d, len(name)/2 - d} {
			if i < 0 || i >= len(name) || name[i] == '_' {
				continue
			}
			typo := name[:i] + name[i+1:]
			if typo != "" && !taken[typo] && !strings.HasPrefix(typo, "_") && !strings.HasSuffix(typo, "_") {
				return typo
			}
		}
	}
	return name + "x"
}

// ---- writing and reading ----

// render writes one configuration: the baseline body in its block (name), with c's key written at
// its path when c is not nil (blocks of the path the baseline lacks are added, empty).
func render(t *testing.T, k kind, typ, name, body string, c *typoCase) string {
	t.Helper()
	var src string
	switch k.name {
	case "provider":
		// Terraform validates a provider block only when something uses it.
		src = fmt.Sprintf("provider %q {\n  alias = %q\n%s\n}\n\ndata \"fleet_members\" \"provider_%s\" {\n  provider = %s.%s\n}\n", typ, name, body, name, typ, name)
	case "action":
		src = fmt.Sprintf("action %q %q {\n  config {\n%s\n  }\n}\n", typ, name, body)
	case "list":
		src = fmt.Sprintf("list %q %q {\n  provider = fleet\n  config {\n%s\n  }\n}\n", typ, name, body)
	default:
		src = fmt.Sprintf("%s %q %q {\n%s\n}\n", k.name, typ, name, body)
	}
	f, diags := hclwrite.ParseConfig([]byte(src), name, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s %s: %v\n%s", k.name, typ, diags, src)
	}
	if c == nil {
		return string(f.Bytes())
	}
	b := f.Body().Blocks()[0].Body()
	if k.name == "action" || k.name == "list" {
		b = b.FirstMatchingBlock("config", nil).Body()
	}
	for _, step := range c.path {
		nb := b.FirstMatchingBlock(step, nil)
		if nb == nil {
			nb = b.AppendNewBlock(step, nil)
		}
		b = nb.Body()
	}
	if c.block {
		b.AppendNewBlock(c.key, nil)
	} else {
		b.SetAttributeValue(c.key, c.value)
	}
	return string(f.Bytes())
}

type diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Range    struct {
		Filename string `json:"filename"`
	} `json:"range"`
}

// parseDiagnostics reads `validate -json` into the errors of each file.
func parseDiagnostics(t *testing.T, out string) map[string][]diagnostic {
	t.Helper()
	start := strings.Index(out, "{")
	var v struct {
		Diagnostics []diagnostic `json:"diagnostics"`
	}
	if start < 0 || json.Unmarshal([]byte(out[start:]), &v) != nil {
		t.Fatalf("validate -json printed no JSON:\n%s", out)
	}
	byFile := map[string][]diagnostic{}
	for _, d := range v.Diagnostics {
		if d.Severity != "error" {
			continue
		}
		if d.Range.Filename == "" {
			t.Errorf("an error without a file: %s: %s", d.Summary, d.Detail)
			continue
		}
		byFile[d.Range.Filename] = append(byFile[d.Range.Filename], d)
	}
	return byFile
}

// namesKey: an error refuses key by name.
func namesKey(ds []diagnostic, key string) bool {
	for _, d := range ds {
		if strings.HasPrefix(d.Summary, "Unsupported ") && strings.Contains(d.Detail, fmt.Sprintf("%q", key)) {
			return true
		}
	}
	return false
}

func summaries(ds []diagnostic) []string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Summary+": "+d.Detail)
	}
	sort.Strings(s)
	return s
}

// oldestCLI is the terraform on PATH when it is another version than the one the tests run.
func oldestCLI(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("terraform")
	if err != nil || cliVersion(p) == cliVersion(acctest.TerraformPath()) {
		return ""
	}
	return p
}

func cliVersion(cli string) string {
	out, err := exec.Command(cli, "version", "-json").Output()
	if err != nil {
		return "unknown"
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	_ = json.Unmarshal(out, &v)
	return "Terraform " + v.Version
}
