// Package envelope holds KubeFleet v0.18.9's rules for envelopes: a ClusterResourceEnvelope
// (cluster-scoped objects) or a ResourceEnvelope (objects of its own namespace) on the hub, whose
// data values are Kubernetes objects (apis/placement/v1beta1/envelope_types.go). The hub agent's work
// generator places the objects on members, in a Work of their own, instead of the envelope, so that
// objects that would act on the hub itself (webhook configurations, cluster roles) reach the members
// without being created on the hub. v0.18.9 no longer unwraps the ConfigMap form of v0.14.0
// (a ConfigMap annotated kubernetes-fleet.io/envelope-configmap is placed as a plain ConfigMap):
// LegacyAnnotation names it for migrations only.
package envelope

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// LegacyAnnotation marked a ConfigMap as an envelope up to KubeFleet v0.14; v0.18.9 keeps the
// constant (apis/placement/v1beta1/commons.go) but its work generator no longer reads it.
const LegacyAnnotation = placementv1beta1.EnvelopeConfigMapAnnotation

// Document is one Kubernetes object of a manifest.
type Document struct {
	Text string // the document as written (YAML or JSON)
	JSON []byte // the envelope's data value and what the work generator puts into the Work: yaml.ToJSON of Text, compacted
	ID   ObjectID
}

// ObjectID names an object the way the work applier tells objects apart.
type ObjectID struct {
	Group, Version, Kind, Namespace, Name string
}

func (o ObjectID) String() string {
	gk := o.Kind
	if o.Group != "" {
		gk += "." + o.Group
	}
	if o.Namespace != "" {
		return gk + "/" + o.Namespace + "/" + o.Name
	}
	return gk + "/" + o.Name
}

// Split parses one manifest: a YAML document, several separated by `---` lines, or a JSON object.
// Empty and comment-only documents are skipped; a manifest with no document is an error. Each
// document must be an object with apiVersion, kind and metadata.name (errors name the document,
// 1-based, when there are several).
func Split(text string) ([]Document, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	var raw [][]byte
	for {
		b, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !blank(b) {
			raw = append(raw, b)
		}
	}
	if len(raw) == 0 {
		return nil, errors.New("contains no document: expected a Kubernetes object in YAML or JSON")
	}
	docs := make([]Document, 0, len(raw))
	for i, b := range raw {
		d, err := parse(string(b))
		if err != nil {
			if len(raw) > 1 {
				return nil, fmt.Errorf("document %d of %d: %w", i+1, len(raw), err)
			}
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// blank reports whether a document holds only whitespace and comments.
func blank(b []byte) bool {
	for _, line := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) != 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

func parse(text string) (Document, error) {
	// yaml.ToJSON passes JSON through unchecked, so JSON is checked here.
	j, err := k8syaml.ToJSON([]byte(text))
	if err != nil {
		return Document{}, fmt.Errorf("not valid YAML: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		var v any
		if json.Unmarshal(j, &v) == nil {
			return Document{}, fmt.Errorf("must be a Kubernetes object (a mapping with apiVersion, kind and metadata), got %s", jsonKind(v))
		}
		return Document{}, fmt.Errorf("not valid JSON: %w", err)
	}
	if obj == nil {
		return Document{}, errors.New("must be a Kubernetes object (a mapping with apiVersion, kind and metadata), got null")
	}
	apiVersion, err := str(obj, "apiVersion")
	if err != nil {
		return Document{}, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err == nil && gv.Version == "" {
		err = errors.New("no version")
	}
	if err != nil {
		return Document{}, fmt.Errorf("apiVersion %q: %w (want <group>/<version>, or v1 for the core group)", apiVersion, err)
	}
	kind, err := str(obj, "kind")
	if err != nil {
		return Document{}, err
	}
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return Document{}, errors.New("metadata: required, a mapping with name")
	}
	name, err := str(md, "name")
	if err != nil {
		return Document{}, fmt.Errorf("metadata.%w", err)
	}
	ns := ""
	if v, ok := md["namespace"]; ok && v != nil {
		if ns, ok = v.(string); !ok {
			return Document{}, errors.New("metadata.namespace: must be a string")
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, j); err == nil {
		j = compact.Bytes()
	}
	return Document{Text: text, JSON: j, ID: ObjectID{Group: gv.Group, Version: gv.Version, Kind: kind, Namespace: ns, Name: name}}, nil
}

func str(m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", fmt.Errorf("%s: required", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: must be a string, got %s", key, jsonKind(v))
	}
	if s == "" {
		return "", fmt.Errorf("%s: must not be empty", key)
	}
	return s, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	default:
		return "a mapping"
	}
}

// Duplicate finds an object that two documents name (same group, kind, namespace and name): the
// work applier would apply both to one object. It returns the positions of the second one and of the
// first one, ok false when all differ.
func Duplicate(manifests [][]Document) (at, first [2]int, ok bool) {
	seen := map[ObjectID][2]int{}
	for i, docs := range manifests {
		for j, d := range docs {
			id := d.ID
			id.Version = ""
			if p, dup := seen[id]; dup {
				return [2]int{i, j}, p, true
			}
			seen[id] = [2]int{i, j}
		}
	}
	return at, first, false
}

// Key is the ConfigMap data key of document j of manifest i (of n documents). KubeFleet ignores the
// keys (every value is one object); the provider names them so it can group values back into
// manifests: manifest-000.yaml, or manifest-000-01.yaml for a manifest of several documents.
func Key(i, j, n int) string {
	if n == 1 {
		return fmt.Sprintf("manifest-%03d.yaml", i)
	}
	return fmt.Sprintf("manifest-%03d-%02d.yaml", i, j)
}

var keyRe = regexp.MustCompile(`^manifest-(\d+)(?:-(\d+))?\.yaml$`)

// Data is the envelope's data for the manifests: one value per document, each the document's JSON
// object (the CRD's data is a map of objects, apis/placement/v1beta1/envelope_types.go).
func Data(manifests [][]Document) map[string]runtime.RawExtension {
	out := map[string]runtime.RawExtension{}
	for i, docs := range manifests {
		for j, d := range docs {
			out[Key(i, j, len(docs))] = runtime.RawExtension{Raw: d.JSON}
		}
	}
	return out
}

// Texts is the envelope's data as text, one JSON object per key, as Group reads it back.
func Texts(data map[string]runtime.RawExtension) map[string]string {
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = string(v.Raw)
	}
	return out
}

// Keys lists Data's keys in manifest order.
func Keys(manifests [][]Document) []string {
	var out []string
	for i, docs := range manifests {
		for j := range docs {
			out = append(out, Key(i, j, len(docs)))
		}
	}
	return out
}

// DataBytes is the size of an envelope's data, keys and JSON values.
func DataBytes(data map[string]runtime.RawExtension) int {
	n := 0
	for k, v := range data {
		n += len(k) + len(v.Raw)
	}
	return n
}

// Group turns an envelope's data back into manifests, each a list of document texts with its keys:
// the provider's keys by manifest and document index, then any other keys (an envelope written by
// hand), one manifest each, sorted by key.
func Group(data map[string]string) (texts [][]string, keys [][]string) {
	type pos struct{ i, j int }
	own := map[string]pos{}
	var other []string
	for k := range data {
		m := keyRe.FindStringSubmatch(k)
		if m == nil {
			other = append(other, k)
			continue
		}
		i, _ := strconv.Atoi(m[1])
		j := -1
		if m[2] != "" {
			j, _ = strconv.Atoi(m[2])
		}
		own[k] = pos{i, j}
	}
	ownKeys := make([]string, 0, len(own))
	for k := range own {
		ownKeys = append(ownKeys, k)
	}
	sort.Slice(ownKeys, func(a, b int) bool {
		pa, pb := own[ownKeys[a]], own[ownKeys[b]]
		if pa.i != pb.i {
			return pa.i < pb.i
		}
		return pa.j < pb.j
	})
	last := -1
	for _, k := range ownKeys {
		if p := own[k]; p.i != last || len(texts) == 0 {
			texts, keys = append(texts, nil), append(keys, nil)
			last = p.i
		}
		n := len(texts) - 1
		texts[n], keys[n] = append(texts[n], data[k]), append(keys[n], k)
	}
	sort.Strings(other)
	for _, k := range other {
		texts, keys = append(texts, []string{data[k]}), append(keys, []string{k})
	}
	return texts, keys
}

// Join writes documents as one manifest text.
func Join(docs []string) string {
	if len(docs) == 1 {
		return docs[0]
	}
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.WriteString(d)
		if !strings.HasSuffix(d, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Equal reports whether a manifest text holds the same objects as the documents, ignoring
// formatting (YAML or JSON, whitespace, key order, comments).
func Equal(text string, docs []string) bool {
	a, err := Split(text)
	if err != nil || len(a) != len(docs) {
		return false
	}
	for i, d := range docs {
		b, err := parse(d)
		if err != nil || !sameJSON(a[i].JSON, b.JSON) {
			return false
		}
	}
	return true
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// WorkManifests is what KubeFleet's work generator puts into the Work of an envelope with this data
// (as the hub returns it): the values, sorted by their JSON text in descending order
// (pkg/controllers/workgenerator/envelope.go, extractManifestsFromEnvelopeCR).
func WorkManifests(data map[string]runtime.RawExtension) [][]byte {
	out := make([][]byte, 0, len(data))
	for _, v := range data {
		out = append(out, v.Raw)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(string(out[i]), string(out[j])) > 0 })
	return out
}
