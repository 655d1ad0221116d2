package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi/openapi"
)

// TestSchemaConstraints enumerates every constraint the authoritative schemas put on what our
// resources send — the Fleet API's OpenAPI 2026-06-01 (fleets.json) and, where it differs, its
// 2026-11-01-preview, KubeFleet v0.18.9's CRDs and Karpenter v1.14.1's NodePool CRD, read from
// the files themselves — and for each one either feeds the provider a configuration violating it
// and expects an error at terraform validate on the offending attribute's path, or checks that
// the schema marks the attribute Required, or names the reason it cannot apply. A constraint the
// tables below do not account for fails the test, so a new upstream constraint (or a dropped
// validator) is noticed.

// schemaConstraint is one constraint of an upstream schema.
type schemaConstraint struct {
	ID    string // source:path:kind, e.g. fleets.json:UpdateStage.name:pattern
	Value any    // the constraint's value (pattern, bound, enum values, rule)
	// readOnly: the service sets the field; a configuration never sends it.
	readOnly bool
}

// constraintCase is how a constraint maps onto a resource.
type constraintCase struct {
	resource string
	// set: attribute and block paths (HCL syntax, e.g. stage[0].group[1].name) and the violating
	// values to put into the resource's base configuration (a list block is a list of objects, a
	// single block an object).
	set map[string]any
	// want is the attribute path the error must name.
	want string
	// required: instead of a violating configuration, the schema must mark this attribute Required
	// (Terraform rejects a missing one at validate, with its path), or leaving this block (or this
	// attribute of a single block) out must fail validate at its path.
	required string
	// accept: the values set are the constraint's own boundary (e.g. a name of exactly minLength)
	// and must validate without an error at their paths: no limit stricter than the source.
	accept bool
}

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join("..", "..", rel)
}

func modDir(t *testing.T, mod string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go list -m %s: %v", mod, err)
	}
	return strings.TrimSpace(string(out))
}

// ---- enumeration ----

var constraintKinds = []string{"pattern", "enum", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"}

// The Fleet API documents, as the openapi package embeds them (openapi.ForVersion), and the
// prefixes of their constraints' IDs.
const (
	stableSpec  = "fleets.json"
	previewSpec = "fleets-" + openapi.PreviewAPIVersion + ".json"
)

// stableRoots are the request bodies our resources send under the stable API.
var stableRoots = []string{"FleetManagedNamespace", "FleetUpdateStrategy", "UpdateRun", "AutoUpgradeProfile", "FleetMember", "FleetMemberUpdate", "GatePatch", "SkipProperties"}

// previewRoots adds what only the preview API lets the provider send: the body of
// listMemberCredentials (fleet_managed_namespace_credentials with a member, and the session's
// batched member credentials).
var previewRoots = append(append([]string(nil), stableRoots...), "FleetMemberCredentialRequest")

// openAPIConstraints walks a Fleet API document (source names it in the IDs) from the
// definitions our resources send, following local $refs, plus the name path parameters of the
// operations.
func openAPIConstraints(t *testing.T, source, file string, roots []string) []schemaConstraint {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
		Paths       map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []schemaConstraint
	seen := map[string]bool{}
	add := func(c schemaConstraint) {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	local := func(ref any) string {
		s, _ := ref.(string)
		if strings.HasPrefix(s, "#/definitions/") {
			return strings.TrimPrefix(s, "#/definitions/")
		}
		return ""
	}
	visited := map[string]bool{}
	var def func(name string)
	prop := func(at string, p map[string]any, readOnly bool) {
		if ro, _ := p["readOnly"].(bool); ro {
			readOnly = true
		}
		for _, k := range constraintKinds {
			if v, ok := p[k]; ok {
				add(schemaConstraint{ID: source + ":" + at + ":" + k, Value: v, readOnly: readOnly})
			}
		}
		if f, _ := p["format"].(string); f == "arm-id" {
			add(schemaConstraint{ID: source + ":" + at + ":arm-id", Value: p["x-ms-arm-id-details"], readOnly: readOnly})
		}
		target := p
		if it, ok := p["items"].(map[string]any); ok {
			target = it
		}
		if d := local(target["$ref"]); d != "" {
			dd := doc.Definitions[d]
			if e, ok := dd["enum"]; ok {
				add(schemaConstraint{ID: source + ":" + at + ":enum", Value: e, readOnly: readOnly})
			} else if f, _ := dd["format"].(string); f == "arm-id" {
				add(schemaConstraint{ID: source + ":" + at + ":arm-id", Value: dd["x-ms-arm-id-details"], readOnly: readOnly})
			} else if !readOnly {
				def(d)
			}
		}
	}
	def = func(name string) {
		if visited[name] {
			return
		}
		visited[name] = true
		d := doc.Definitions[name]
		if req, ok := d["required"].([]any); ok {
			for _, r := range req {
				add(schemaConstraint{ID: fmt.Sprintf("%s:%s.%s:required", source, name, r)})
			}
		}
		eachProperty(d, func(k string, pm map[string]any) {
			prop(name+"."+k, pm, false)
		})
	}
	for _, root := range roots {
		if doc.Definitions[root] == nil {
			t.Fatalf("%s: no definition %s", source, root)
		}
		def(root)
	}
	for _, ops := range doc.Paths {
		for _, op := range ops {
			m, _ := op.(map[string]any)
			ps, _ := m["parameters"].([]any)
			for _, p := range ps {
				pm, _ := p.(map[string]any)
				if n, _ := pm["name"].(string); strings.HasSuffix(n, "Name") {
					prop("parameters."+n, pm, false)
				}
			}
		}
	}
	return out
}

// crdConstraints walks the storage version's spec of a CRD.
func crdConstraints(t *testing.T, source, file string) []schemaConstraint {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Storage bool `json:"storage"`
				Schema  struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	var out []schemaConstraint
	var walk func(at string, s map[string]any)
	walk = func(at string, s map[string]any) {
		for _, k := range constraintKinds {
			if v, ok := s[k]; ok {
				out = append(out, schemaConstraint{ID: source + ":" + at + ":" + k, Value: v})
			}
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				out = append(out, schemaConstraint{ID: fmt.Sprintf("%s:%s.%s:required", source, at, r)})
			}
		}
		if rules, ok := s["x-kubernetes-validations"].([]any); ok {
			for i, r := range rules {
				rm, _ := r.(map[string]any)
				out = append(out, schemaConstraint{ID: fmt.Sprintf("%s:%s:cel[%d]", source, at, i), Value: rm["rule"]})
			}
		}
		eachProperty(s, func(k string, pm map[string]any) { walk(at+"."+k, pm) })
		if it, ok := s["items"].(map[string]any); ok {
			walk(at+"[]", it)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			walk(at+"{}", ap)
		}
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			spec, _ := v.Schema.OpenAPIV3Schema["properties"].(map[string]any)["spec"].(map[string]any)
			walk("spec", spec)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no constraints read from %s", source, file)
	}
	return out
}

// ---- running the provider's validation ----

// setAt puts v at an HCL-style path (a.b[0].c) into a configuration of nested maps and slices.
func setAt(cfg map[string]any, p string, v any) {
	var cur any = cfg
	steps := regexp.MustCompile(`[^.\[\]]+|\[\d+\]`).FindAllString(p, -1)
	for i, s := range steps {
		last := i == len(steps)-1
		if strings.HasPrefix(s, "[") {
			n, _ := strconv.Atoi(strings.Trim(s, "[]"))
			l, _ := cur.([]any)
			if last {
				l[n] = v
				return
			}
			cur = l[n]
			continue
		}
		m, _ := cur.(map[string]any)
		if last {
			m[s] = v
			return
		}
		if _, ok := m[s]; !ok {
			if strings.HasPrefix(steps[i+1], "[") {
				m[s] = []any{map[string]any{}}
			} else {
				m[s] = map[string]any{}
			}
		}
		cur = m[s]
	}
}

// applySets sets each path's value, outer paths before the paths inside them.
func applySets(cfg map[string]any, set map[string]any) {
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) < len(paths[j]) })
	for _, p := range paths {
		setAt(cfg, p, set[p])
	}
}

// toTF builds a tftypes value of type t from nested maps, slices and scalars; absent is null.
func toTF(t tftypes.Type, v any) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(t, nil), nil
	}
	switch tt := t.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("want an object, got %T", v)
		}
		vals := map[string]tftypes.Value{}
		for k := range m {
			if _, ok := tt.AttributeTypes[k]; !ok {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", k)
			}
		}
		for k, at := range tt.AttributeTypes {
			x, err := toTF(at, m[k])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.List, tftypes.Set:
		var et tftypes.Type
		if l, ok := tt.(tftypes.List); ok {
			et = l.ElementType
		} else if st, ok := tt.(tftypes.Set); ok {
			et = st.ElementType
		}
		l, ok := v.([]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("want a list, got %T", v)
		}
		var vals []tftypes.Value
		for i, e := range l {
			x, err := toTF(et, e)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			vals = append(vals, x)
		}
		return tftypes.NewValue(t, vals), nil
	case tftypes.Map:
		vals := map[string]tftypes.Value{}
		m, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("want a map, got %T", v)
		}
		for k, e := range m {
			x, err := toTF(tt.ElementType, e)
			if err != nil {
				return tftypes.Value{}, err
			}
			vals[k] = x
		}
		return tftypes.NewValue(t, vals), nil
	}
	switch x := v.(type) {
	case int:
		return tftypes.NewValue(t, big.NewFloat(float64(x))), nil
	case float64:
		return tftypes.NewValue(t, big.NewFloat(x)), nil
	}
	return tftypes.NewValue(t, v), nil
}

// tfPathString is where a diagnostic is: the resource, or the attribute as a configuration spells it.
func tfPathString(p *tftypes.AttributePath) string {
	if p == nil {
		return "(resource)"
	}
	return hclPath(p)
}

type validateHarness struct {
	server  tfprotov6.ProviderServer
	schemas map[string]*tfprotov6.Schema
}

func newValidateHarness(t *testing.T) *validateHarness {
	t.Helper()
	s := mustServer(t)
	resp, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return &validateHarness{server: s, schemas: resp.ResourceSchemas}
}

// validate runs ValidateResourceConfig and returns each error as "path: summary: detail".
func (h *validateHarness) validate(t *testing.T, resource string, cfg map[string]any) []string {
	t.Helper()
	typ := h.schemas[resource].ValueType()
	v, err := toTF(typ, cfg)
	if err != nil {
		t.Fatalf("%s: building the configuration: %v", resource, err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: resource, Config: &dv})
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			errs = append(errs, tfPathString(d.Attribute)+": "+d.Summary+": "+d.Detail)
			// Terraform shows a nested attribute's error on an enclosing line: its text must name the path.
			if d.Attribute != nil && len(d.Attribute.Steps()) > 1 && !strings.Contains(d.Summary+d.Detail, hclPath(d.Attribute)) {
				t.Errorf("%s: the error at %s does not name its path: %q", resource, hclPath(d.Attribute), d.Summary+": "+d.Detail)
			}
		}
	}
	return errs
}

// required reports whether a configuration must give what is at an HCL-style path (list indexes
// ignored): an attribute the schema marks Required, or else — a block, which cannot be Required, or
// an attribute of a single block, which is required only when the block is present — one whose
// absence (the base configuration with the path's parents and the path itself null) fails validate
// with an error at the path or naming it.
func (h *validateHarness) required(t *testing.T, resource, p string) bool {
	t.Helper()
	attr, block := schemaAt(h.schemas[resource].Block, p)
	if attr == nil && block == nil {
		return false
	}
	if attr != nil && attr.Required {
		return true
	}
	cfg := deepCopy(constraintBases[resource])
	setAt(cfg, p, nil)
	for _, e := range h.validate(t, resource, cfg) {
		if strings.HasPrefix(e, p+": ") || strings.Contains(e, `"`+p+`"`) {
			return true
		}
	}
	return false
}

// schemaAt is the attribute or the block at an HCL-style path (list indexes ignored), walking
// nested attributes and blocks; both nil when there is none.
func schemaAt(b *tfprotov6.SchemaBlock, p string) (*tfprotov6.SchemaAttribute, *tfprotov6.SchemaNestedBlock) {
	steps := strings.Split(regexp.MustCompile(`\[\d+\]`).ReplaceAllString(p, ""), ".")
	attrs, blocks := b.Attributes, b.BlockTypes
	for i, s := range steps {
		last := i == len(steps)-1
		var nextAttrs []*tfprotov6.SchemaAttribute
		var nextBlocks []*tfprotov6.SchemaNestedBlock
		found := false
		for _, a := range attrs {
			if a.Name != s {
				continue
			}
			if last {
				return a, nil
			}
			if a.NestedType == nil {
				return nil, nil
			}
			nextAttrs, found = a.NestedType.Attributes, true
		}
		for _, nb := range blocks {
			if nb.TypeName != s {
				continue
			}
			if last {
				return nil, nb
			}
			nextAttrs, nextBlocks, found = nb.Block.Attributes, nb.Block.BlockTypes, true
		}
		if !found {
			return nil, nil
		}
		attrs, blocks = nextAttrs, nextBlocks
	}
	return nil, nil
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func TestSchemaConstraints(t *testing.T) {
	var all []schemaConstraint
	stable := openAPIConstraints(t, stableSpec, repoFile(t, "internal/engine/fleetapi/openapi/"+stableSpec), stableRoots)
	preview, same := previewDelta(stable, openAPIConstraints(t, previewSpec, repoFile(t, "internal/engine/fleetapi/openapi/"+previewSpec), previewRoots))
	all = append(all, stable...)
	all = append(all, preview...)
	fleet := filepath.Join(modDir(t, "go.goms.io/fleet"), "config", "crd", "bases")
	all = append(all, crdConstraints(t, "crp", filepath.Join(fleet, "placement.kubernetes-fleet.io_clusterresourceplacements.yaml"))...)
	all = append(all, crdConstraints(t, "stagedstrategy", filepath.Join(fleet, "placement.kubernetes-fleet.io_clusterstagedupdatestrategies.yaml"))...)
	all = append(all, crdConstraints(t, "stagedrun", filepath.Join(fleet, "placement.kubernetes-fleet.io_clusterstagedupdateruns.yaml"))...)
	all = append(all, crdConstraints(t, "crpdb", filepath.Join(fleet, "placement.kubernetes-fleet.io_clusterresourceplacementdisruptionbudgets.yaml"))...)
	all = append(all, crdConstraints(t, "membercluster", filepath.Join(fleet, "cluster.kubernetes-fleet.io_memberclusters.yaml"))...)
	karp := filepath.Join(modDir(t, "sigs.k8s.io/karpenter"), "pkg", "apis", "crds")
	all = append(all, crdConstraints(t, "nodepool", filepath.Join(karp, "karpenter.sh_nodepools.yaml"))...)

	h := newValidateHarness(t)
	for res, base := range constraintBases {
		if errs := h.validate(t, res, deepCopy(base)); len(errs) > 0 {
			t.Fatalf("%s: the base configuration is invalid: %v", res, errs)
		}
	}

	covered, justified := 0, 0
	used := map[string]bool{}
	for _, c := range all {
		cases, hasCases := constraintCases[c.ID]
		reason := notApplicable(c)
		switch {
		case hasCases:
			used[c.ID] = true
			ok := true
			for _, cc := range cases {
				if cc.required != "" {
					if !h.required(t, cc.resource, cc.required) {
						t.Errorf("%s: %s.%s is not Required in the schema", c.ID, cc.resource, cc.required)
						ok = false
					}
					continue
				}
				cfg := deepCopy(constraintBases[cc.resource])
				applySets(cfg, cc.set)
				errs := h.validate(t, cc.resource, cfg)
				if cc.accept {
					for _, e := range errs {
						for p := range cc.set {
							// at the path set, or inside what it set (an attribute of a block given whole)
							if strings.HasPrefix(e, p+": ") || strings.HasPrefix(e, p+".") || strings.HasPrefix(e, p+"[") {
								t.Errorf("%s (%v): %s with %v is within the source's limit, but refused: %q", c.ID, c.Value, cc.resource, cc.set, e)
								ok = false
							}
						}
					}
					continue
				}
				hit := false
				for _, e := range errs {
					if strings.HasPrefix(e, cc.want+": ") {
						hit = true
					}
				}
				if !hit {
					t.Errorf("%s (%v): %s with %v: want an error at %s, got %q", c.ID, c.Value, cc.resource, cc.set, cc.want, errs)
					ok = false
				}
			}
			if ok {
				covered++
			}
		case reason != "":
			justified++
		default:
			t.Errorf("constraint %s (%v) is neither covered nor listed as not applicable", c.ID, c.Value)
		}
	}
	for _, r := range notApplicableRules {
		hit := false
		for _, c := range all {
			hit = hit || strings.HasPrefix(c.ID, r[0])
		}
		if !hit {
			t.Errorf("not-applicable rule %q matches no constraint of the schemas", r[0])
		}
	}
	for id := range constraintCases {
		switch {
		case used[id]:
		case same[id]:
			t.Errorf("case for %s duplicates the stable document's identical constraint: key it %s", id, stableSpec+strings.TrimPrefix(id, previewSpec))
		default:
			t.Errorf("case for %s matches no constraint of the schemas (renamed upstream?)", id)
		}
	}
	t.Logf("schema constraints: covered %d/%d (the other %d not applicable, each with its reason); "+
		"%d more of %s are the stable document's, accounted for under %s", covered, len(all), justified, len(same), previewSpec, stableSpec)
}

// previewDelta is what the preview document adds to or changes from the stable one: a
// constraint at the same definition and property (or path parameter) with an equal value, and
// read-only alike, is the stable one's, which the stable walk accounts for; same holds the
// preview IDs of those.
func previewDelta(stable, preview []schemaConstraint) (delta []schemaConstraint, same map[string]bool) {
	byID := map[string]schemaConstraint{}
	for _, c := range stable {
		byID[c.ID] = c
	}
	same = map[string]bool{}
	for _, c := range preview {
		s, ok := byID[stableSpec+strings.TrimPrefix(c.ID, previewSpec)]
		if ok && reflect.DeepEqual(s.Value, c.Value) && s.readOnly == c.readOnly {
			same[c.ID] = true
			continue
		}
		delta = append(delta, c)
	}
	return delta, same
}

// TestValidationRulePaths checks the rules the schemas cannot state (uniqueness) report the
// offending element's path, not the resource's or the list's.
func TestValidationRulePaths(t *testing.T) {
	h := newValidateHarness(t)
	stages := func() []any {
		return []any{
			map[string]any{"name": "one", "group": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}},
			map[string]any{"name": "two", "group": []any{map[string]any{"name": "c"}, map[string]any{"name": "a"}}},
		}
	}
	for _, tc := range []struct {
		name, resource, want string
		set                  map[string]any
	}{
		{"duplicate group across stages", rUS, "stage[1].group[1].name", map[string]any{"stage": stages()}},
		{"duplicate group across stages (run)", rUR, "stage[1].group[1].name", map[string]any{"stage": stages()}},
		{"duplicate group in a stage", rUS, "stage[0].group[1].name", map[string]any{"stage[0].group[1].name": "a"}},
		{"duplicate stage", rUS, "stage[1].name", map[string]any{"stage": stages(), "stage[1].name": "one", "stage[1].group": []any{map[string]any{"name": "d"}}}},
		{"duplicate staged stage", rSS, "stage[1].name", map[string]any{"stage": []any{map[string]any{"name": "one"}, map[string]any{"name": "one"}}}},
		// Known at validate: a version's form (AKS reads major.minor or major.minor.patch) and the CRD's int-or-percent pattern.
		{"run version not a version", rUR, "managed_cluster_update.upgrade.kubernetes_version", map[string]any{"managed_cluster_update.upgrade.kubernetes_version": "one.thirty"}},
		{"placement max_unavailable negative", rPl, "strategy.max_unavailable", map[string]any{"strategy": map[string]any{"max_unavailable": "-5%"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := deepCopy(constraintBases[tc.resource])
			applySets(cfg, tc.set)
			errs := h.validate(t, tc.resource, cfg)
			if len(errs) != 1 || !strings.HasPrefix(errs[0], tc.want+": ") {
				t.Errorf("want one error at %s, got %q", tc.want, errs)
			}
		})
	}
}

// eachProperty calls f with each of a JSON schema's properties, in name order.
func eachProperty(schema map[string]any, f func(name string, property map[string]any)) {
	props, _ := schema["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pm, _ := props[k].(map[string]any)
		f(k, pm)
	}
}
