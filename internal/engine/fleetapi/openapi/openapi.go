// Package openapi checks request bodies against the Fleet API's official
// OpenAPI document (fleets.json, api-version 2026-06-01, and
// fleets-2026-11-01-preview.json, both copied unchanged from
// Azure/azure-rest-api-specs: see
// internal/engine/fleetapi/testdata/azure-fleet-api/README.md), so that the
// emulator refuses what ARM would: unknown and read-only properties, missing
// required ones, and values outside a type, pattern, enum, length, range or
// item count.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
)

//go:embed fleets.json
var fleetsJSON []byte

//go:embed fleets-2026-11-01-preview.json
var previewJSON []byte

// APIVersion is the api-version of the embedded stable document.
const APIVersion = "2026-06-01"

// PreviewAPIVersion is the api-version of the embedded preview document.
const PreviewAPIVersion = "2026-11-01-preview"

// Violation is one way a body breaks the schema; Path is the JSON path of
// the offending property ("properties.strategy.stages[0].name").
type Violation struct {
	Path    string
	Rule    string // "unknown", "readOnly", "required", "type", "pattern", "enum", "minLength", ...
	Message string
}

func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// Schema is the part of a Swagger 2.0 schema object the checks read.
type Schema struct {
	Ref                  string             `json:"$ref"`
	Type                 string             `json:"type"`
	Properties           map[string]*Schema `json:"properties"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	Required             []string           `json:"required"`
	AllOf                []*Schema          `json:"allOf"`
	Items                *Schema            `json:"items"`
	Enum                 []any              `json:"enum"`
	Pattern              string             `json:"pattern"`
	MinLength            *int               `json:"minLength"`
	MaxLength            *int               `json:"maxLength"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
	ReadOnly             bool               `json:"readOnly"`
}

type parameter struct {
	In     string  `json:"in"`
	Schema *Schema `json:"schema"`
}

type operation struct {
	Parameters []parameter `json:"parameters"`
}

type document struct {
	Paths       map[string]map[string]json.RawMessage `json:"paths"`
	Definitions map[string]*Schema                    `json:"definitions"`
}

// Spec is a loaded document: body schemas by method and path template.
type Spec struct {
	doc     document
	bodies  map[string]*Schema // "PUT /subscriptions/{}/.../updateStrategies/{}" → body schema
	regexps sync.Map           // pattern → *regexp.Regexp
}

var (
	fleetsOnce sync.Once
	fleets     *Spec
	fleetsErr  error
)

// Fleets is the embedded 2026-06-01 document, parsed once.
func Fleets() (*Spec, error) {
	fleetsOnce.Do(func() { fleets, fleetsErr = Load(fleetsJSON) })
	return fleets, fleetsErr
}

var (
	previewOnce sync.Once
	preview     *Spec
	previewErr  error
)

// ForVersion is the embedded document of api-version v (APIVersion or
// PreviewAPIVersion), parsed once; any other version is an error.
func ForVersion(v string) (*Spec, error) {
	switch v {
	case APIVersion:
		return Fleets()
	case PreviewAPIVersion:
		previewOnce.Do(func() { preview, previewErr = Load(previewJSON) })
		return preview, previewErr
	}
	return nil, fmt.Errorf("openapi: no document of api-version %q (%s or %s)", v, APIVersion, PreviewAPIVersion)
}

// Load parses a Swagger 2.0 document.
func Load(data []byte) (*Spec, error) {
	s := &Spec{bodies: map[string]*Schema{}}
	if err := json.Unmarshal(data, &s.doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	for path, item := range s.doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("openapi: %s %s: %w", method, path, err)
			}
			for _, p := range op.Parameters {
				if p.In == "body" && p.Schema != nil {
					s.bodies[strings.ToUpper(method)+" "+Template(path)] = p.Schema
				}
			}
		}
	}
	return s, nil
}

// Template normalizes a path template or pattern for lookups: parameter
// names dropped, literal segments lower-cased (ARM matches them so).
func Template(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		} else {
			segs[i] = strings.ToLower(s)
		}
	}
	return "/" + strings.Join(segs, "/")
}

// HasBody reports whether the operation takes a body the document describes.
func (s *Spec) HasBody(method, pathTemplate string) bool {
	_, ok := s.bodies[strings.ToUpper(method)+" "+Template(pathTemplate)]
	return ok
}

// CheckBody validates a request body of the operation (method and path
// template, as the spec or a router names it). An operation the document
// gives no body schema accepts any body.
func (s *Spec) CheckBody(method, pathTemplate string, body []byte) []Violation {
	schema, ok := s.bodies[strings.ToUpper(method)+" "+Template(pathTemplate)]
	if !ok {
		return nil
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return []Violation{{Rule: "required", Message: "the request body is required"}}
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []Violation{{Rule: "type", Message: "the request body is not valid JSON: " + err.Error()}}
	}
	c := &checker{spec: s}
	c.value("", schema, v)
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Path < c.out[j].Path })
	return c.out
}

type checker struct {
	spec *Spec
	out  []Violation
}

func (c *checker) fail(path, rule, format string, args ...any) {
	c.out = append(c.out, Violation{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// resolved is a schema with its $ref followed and its allOf merged.
type resolved struct {
	*Schema
	props    map[string]*Schema
	required []string
	open     bool    // known: accept any property (a free-form object or an external type)
	mapOf    *Schema // additionalProperties' schema (a map such as labels)
	defs     []string
}

// readOnlyAccepted are read-only properties the service takes in requests
// all the same: the document marks NodeImageVersion.version read-only (it is
// also selectedNodeImageVersions' output), yet it is how
// customNodeImageVersions names a version, as the official request example
// UpdateRuns_CreateOrUpdate_MaximumSet_Gen (2025-03-01) sends it.
var readOnlyAccepted = map[string]bool{"NodeImageVersion.version": true}

// commonReadOnly are the properties of common-types' Resource, ProxyResource
// and TrackedResource (resource-management/v5/types.json), which are not in
// the document: all read-only except TrackedResource's tags and location.
var commonReadOnly = map[string]bool{"id": true, "name": true, "type": true, "systemData": true}

func (c *checker) resolve(s *Schema) resolved {
	r := resolved{Schema: s, props: map[string]*Schema{}}
	c.merge(&r, s, 0)
	return r
}

func (c *checker) merge(r *resolved, s *Schema, depth int) {
	if s == nil || depth > 32 {
		return
	}
	if s.Ref != "" {
		name, local := strings.CutPrefix(s.Ref, "#/definitions/")
		switch {
		case local:
			r.defs = append(r.defs, name)
			c.merge(r, c.spec.doc.Definitions[name], depth+1)
		case strings.HasSuffix(s.Ref, "/ProxyResource"), strings.HasSuffix(s.Ref, "/Resource"):
			for p := range commonReadOnly {
				r.props[p] = &Schema{ReadOnly: true}
			}
		case strings.HasSuffix(s.Ref, "/TrackedResource"):
			for p := range commonReadOnly {
				r.props[p] = &Schema{ReadOnly: true}
			}
			r.props["tags"] = &Schema{Type: "object", AdditionalProperties: json.RawMessage(`{"type":"string"}`)}
			r.props["location"] = &Schema{Type: "string"}
			r.required = append(r.required, "location")
		default:
			r.open = true // another external type (a managed identity): not checked here
		}
		return
	}
	if s.Type != "" && r.Type == "" {
		cp := *r.Schema
		cp.Type = s.Type
		r.Schema = &cp
	}
	for name, p := range s.Properties {
		r.props[name] = p
	}
	r.required = append(r.required, s.Required...)
	if len(s.AdditionalProperties) > 0 {
		var sub Schema
		if json.Unmarshal(s.AdditionalProperties, &sub) == nil {
			r.mapOf = &sub
		} else {
			r.open = true // additionalProperties: true
		}
	}
	for _, a := range s.AllOf {
		c.merge(r, a, depth+1)
	}
}

// leaf is a schema's own constraints, its $ref followed.
func (c *checker) leaf(s *Schema) *Schema {
	for i := 0; s != nil && s.Ref != "" && i < 32; i++ {
		name, ok := strings.CutPrefix(s.Ref, "#/definitions/")
		if !ok {
			return nil
		}
		s = c.spec.doc.Definitions[name]
	}
	return s
}

func (c *checker) value(path string, s *Schema, v any) {
	r := c.resolve(s)
	if r.Schema == nil {
		return
	}
	typ := r.Type
	if typ == "" && (len(r.props) > 0 || r.mapOf != nil) {
		typ = "object"
	}
	if v == nil {
		c.fail(path, "type", "null is not a %s", orAny(typ))
		return
	}
	switch typ {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			c.fail(path, "type", "expected an object, got %s", jsonType(v))
			return
		}
		c.object(path, r, obj)
	case "array":
		arr, ok := v.([]any)
		if !ok {
			c.fail(path, "type", "expected an array, got %s", jsonType(v))
			return
		}
		leaf := c.leaf(s)
		if leaf != nil && leaf.MinItems != nil && len(arr) < *leaf.MinItems {
			c.fail(path, "minItems", "has %d items, fewer than the minimum of %d", len(arr), *leaf.MinItems)
		}
		if leaf != nil && leaf.MaxItems != nil && len(arr) > *leaf.MaxItems {
			c.fail(path, "maxItems", "has %d items, more than the maximum of %d", len(arr), *leaf.MaxItems)
		}
		for i, item := range arr {
			c.value(fmt.Sprintf("%s[%d]", path, i), r.Items, item)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			c.fail(path, "type", "expected a string, got %s", jsonType(v))
			return
		}
		c.str(path, c.leaf(s), str)
	case "integer", "number":
		n, ok := v.(float64)
		if !ok {
			c.fail(path, "type", "expected a %s, got %s", typ, jsonType(v))
			return
		}
		if typ == "integer" && n != math.Trunc(n) {
			c.fail(path, "type", "expected an integer, got %v", n)
		}
		leaf := c.leaf(s)
		if leaf != nil && leaf.Minimum != nil && n < *leaf.Minimum {
			c.fail(path, "minimum", "%v is less than the minimum of %v", n, *leaf.Minimum)
		}
		if leaf != nil && leaf.Maximum != nil && n > *leaf.Maximum {
			c.fail(path, "maximum", "%v is greater than the maximum of %v", n, *leaf.Maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			c.fail(path, "type", "expected a boolean, got %s", jsonType(v))
		}
	}
}

func (c *checker) object(path string, r resolved, obj map[string]any) {
	for _, name := range r.required {
		if _, ok := obj[name]; !ok {
			c.fail(join(path, name), "required", "the property is required")
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := r.props[name]
		switch {
		case ok:
			if leaf := c.leaf(p); ((leaf != nil && leaf.ReadOnly) || p.ReadOnly) && !r.accepts(name) {
				c.fail(join(path, name), "readOnly", "the property is read-only and cannot be set")
				continue
			}
			c.value(join(path, name), p, obj[name])
		case r.mapOf != nil:
			c.value(join(path, name), r.mapOf, obj[name])
		case r.open:
		default:
			c.fail(join(path, name), "unknown", "the property is not in the api-version's schema")
		}
	}
}

func (r resolved) accepts(readOnly string) bool {
	for _, d := range r.defs {
		if readOnlyAccepted[d+"."+readOnly] {
			return true
		}
	}
	return false
}

func (c *checker) str(path string, s *Schema, v string) {
	if s == nil {
		return
	}
	if len(s.Enum) > 0 {
		ok := false
		for _, e := range s.Enum {
			ok = ok || e == v
		}
		if !ok {
			// The service accepts only the values it knows, also for an
			// extensible (modelAsString) enum.
			c.fail(path, "enum", "%q is not one of %s", v, enumList(s.Enum))
		}
	}
	n := len([]rune(v))
	if s.MinLength != nil && n < *s.MinLength {
		c.fail(path, "minLength", "%q is shorter than the minimum length of %d", v, *s.MinLength)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		c.fail(path, "maxLength", "%q is longer than the maximum length of %d", v, *s.MaxLength)
	}
	if s.Pattern != "" {
		re, err := c.regexp(s.Pattern)
		if err == nil && !re.MatchString(v) {
			c.fail(path, "pattern", "%q does not match the pattern %s", v, s.Pattern)
		}
	}
}

func (c *checker) regexp(pattern string) (*regexp.Regexp, error) {
	if v, ok := c.spec.regexps.Load(pattern); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	c.spec.regexps.Store(pattern, re)
	return re, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func orAny(t string) string {
	if t == "" {
		return "value"
	}
	return t
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// Error is the ARM error a refused body gets: 400 InvalidRequestContent
// naming every violation, the first one's path as its target.
func Error(vs []Violation) (status int, code, message, target string) {
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
	}
	target = ""
	if len(vs) > 0 {
		target = vs[0].Path
	}
	return http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: " + strings.Join(msgs, "; "), target
}
