package envelope

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

const webhookYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-all
webhooks: []
`

const roleJSON = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"reader"},"rules":[]}`

func TestSplit(t *testing.T) {
	docs, err := Split(webhookYAML)
	if err != nil || len(docs) != 1 {
		t.Fatalf("Split(webhook) = %v, %v", docs, err)
	}
	if got, want := docs[0].ID, (ObjectID{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration", Name: "deny-all"}); got != want {
		t.Errorf("ID = %+v, want %+v", got, want)
	}
	if docs[0].Text != webhookYAML {
		t.Errorf("Text = %q, want the document as written", docs[0].Text)
	}

	multi := "# objects\n---\n" + webhookYAML + "---\n# nothing here\n---\n" + roleJSON + "\n"
	docs, err = Split(multi)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID.String())
	}
	if want := []string{"ValidatingWebhookConfiguration.admissionregistration.k8s.io/deny-all", "ClusterRole.rbac.authorization.k8s.io/reader"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}

	docs, err = Split("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\n")
	if err != nil || docs[0].ID.String() != "ConfigMap/team/c" {
		t.Errorf("namespaced object: %v, %v", docs, err)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "contains no document"},
		{"comments only", "# nothing\n---\n", "contains no document"},
		{"bad yaml", "kind: [x\n", "not valid YAML"},
		{"bad json", `{"kind": }`, "not valid JSON"},
		{"list", "- a\n- b\n", "must be a Kubernetes object (a mapping with apiVersion, kind and metadata), got a list"},
		{"scalar", "hello", "got a string"},
		{"no apiVersion", "kind: ClusterRole\nmetadata: {name: r}\n", "apiVersion: required"},
		{"bad apiVersion", "apiVersion: a/b/c\nkind: ClusterRole\nmetadata: {name: r}\n", `apiVersion "a/b/c"`},
		{"no version", "apiVersion: rbac.authorization.k8s.io/\nkind: ClusterRole\nmetadata: {name: r}\n", "no version"},
		{"numeric kind", "apiVersion: v1\nkind: 3\nmetadata: {name: r}\n", "kind: must be a string, got a number"},
		{"no kind", "apiVersion: v1\nmetadata: {name: r}\n", "kind: required"},
		{"no metadata", "apiVersion: v1\nkind: ConfigMap\n", "metadata: required"},
		{"no name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-}\n", "metadata.name: required"},
		{"empty name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ''}\n", "metadata.name: must not be empty"},
		{"bad separator", webhookYAML + "--- x\n" + webhookYAML, "invalid Yaml document separator"},
		{"second document", webhookYAML + "---\nkind: Role\n", "document 2 of 2: apiVersion: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Split(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Split(%q) error = %v, want it to contain %q", tc.text, err, tc.want)
			}
		})
	}
}

func mustSplit(t *testing.T, texts ...string) [][]Document {
	t.Helper()
	var out [][]Document
	for _, s := range texts {
		d, err := Split(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func TestDuplicate(t *testing.T) {
	// Same object under another version is still the same object.
	other := strings.Replace(webhookYAML, "/v1\n", "/v1beta1\n", 1)
	at, first, ok := Duplicate(mustSplit(t, roleJSON, webhookYAML+"---\n"+other))
	if !ok || at != [2]int{1, 1} || first != [2]int{1, 0} {
		t.Errorf("Duplicate = %v, %v, %v", at, first, ok)
	}
	if _, _, ok := Duplicate(mustSplit(t, roleJSON, webhookYAML)); ok {
		t.Error("distinct objects reported as duplicates")
	}
	// A namespaced object of the same name in another namespace is another object.
	a := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n"
	b := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: b}\n"
	if _, _, ok := Duplicate(mustSplit(t, a, b)); ok {
		t.Error("objects of different namespaces reported as duplicates")
	}
}

func TestDataAndGroupRoundTrip(t *testing.T) {
	manifests := mustSplit(t, webhookYAML, roleJSON+"\n---\n"+webhookYAML)
	// A manifest of several documents breaks into values, one JSON object each.
	webhookJSON, err := k8syaml.ToJSON([]byte(webhookYAML))
	if err != nil {
		t.Fatal(err)
	}
	data := Texts(Data(manifests))
	want := map[string]string{
		"manifest-000.yaml":    string(webhookJSON),
		"manifest-001-00.yaml": roleJSON,
		"manifest-001-01.yaml": string(webhookJSON),
	}
	if !reflect.DeepEqual(data, want) {
		t.Fatalf("Data = %q, want %q", data, want)
	}
	if n := DataBytes(Data(manifests)); n != len("manifest-000.yaml")+2*len("manifest-001-00.yaml")+2*len(webhookJSON)+len(roleJSON) {
		t.Errorf("DataBytes = %d", n)
	}
	if got := Keys(manifests); !reflect.DeepEqual(got, []string{"manifest-000.yaml", "manifest-001-00.yaml", "manifest-001-01.yaml"}) {
		t.Errorf("Keys = %v", got)
	}
	data = map[string]string{"manifest-000.yaml": webhookYAML, "manifest-001-00.yaml": roleJSON + "\n", "manifest-001-01.yaml": webhookYAML}
	// Hand-written keys come after the provider's, one manifest each, by key.
	data["z.yaml"], data["a.json"] = webhookYAML, roleJSON
	texts, keys := Group(data)
	wantTexts := [][]string{{webhookYAML}, {roleJSON + "\n", webhookYAML}, {roleJSON}, {webhookYAML}}
	wantKeys := [][]string{{"manifest-000.yaml"}, {"manifest-001-00.yaml", "manifest-001-01.yaml"}, {"a.json"}, {"z.yaml"}}
	if !reflect.DeepEqual(texts, wantTexts) || !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("Group = %q, %q; want %q, %q", texts, keys, wantTexts, wantKeys)
	}
	// Document 10 sorts after document 9 (numbers, not strings).
	many := map[string]string{"manifest-002.yaml": "c", "manifest-010.yaml": "d", "manifest-001-10.yaml": "b", "manifest-001-09.yaml": "a"}
	texts, _ = Group(many)
	if want := [][]string{{"a", "b"}, {"c"}, {"d"}}; !reflect.DeepEqual(texts, want) {
		t.Errorf("Group(many) = %q, want %q", texts, want)
	}
	if got := Join([]string{roleJSON, webhookYAML}); got != roleJSON+"\n---\n"+webhookYAML {
		t.Errorf("Join = %q", got)
	}
	if d := mustSplit(t, Join([]string{roleJSON, webhookYAML})); len(d[0]) != 2 {
		t.Errorf("Join's text splits into %d documents, want 2", len(d[0]))
	}
}

func TestEqual(t *testing.T) {
	reformatted := "# the webhook\napiVersion:   admissionregistration.k8s.io/v1\nmetadata: {name: deny-all}\nkind: ValidatingWebhookConfiguration\nwebhooks: []\n"
	asJSON := `{"kind":"ValidatingWebhookConfiguration","apiVersion":"admissionregistration.k8s.io/v1","metadata":{"name":"deny-all"},"webhooks":[]}`
	for _, text := range []string{webhookYAML, reformatted, asJSON} {
		if !Equal(text, []string{webhookYAML}) {
			t.Errorf("Equal(%q, webhook) = false", text)
		}
	}
	changed := strings.Replace(webhookYAML, "deny-all", "deny-some", 1)
	for _, tc := range []struct {
		text string
		docs []string
	}{
		{changed, []string{webhookYAML}},
		{webhookYAML, []string{webhookYAML, roleJSON}},
		{webhookYAML + "---\n" + roleJSON, []string{webhookYAML}},
		{"not: [valid", []string{webhookYAML}},
	} {
		if Equal(tc.text, tc.docs) {
			t.Errorf("Equal(%q, %q) = true", tc.text, tc.docs)
		}
	}
}

func TestWorkManifests(t *testing.T) {
	webhookJSON, err := k8syaml.ToJSON([]byte(webhookYAML))
	if err != nil {
		t.Fatal(err)
	}
	got := WorkManifests(Data(mustSplit(t, webhookYAML, roleJSON)))
	// Descending by JSON text: "{"apiVersion":"rbac…" sorts after "{"apiVersion":"admission…".
	if len(got) != 2 || string(got[0]) != roleJSON || string(got[1]) != string(webhookJSON) {
		t.Errorf("WorkManifests = %s", got)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{webhookYAML, roleJSON, webhookYAML + "---\n" + roleJSON, "", "---", "{", "- x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		docs, err := Split(s)
		if err != nil {
			return
		}
		for _, d := range docs {
			if d.ID.Kind == "" || d.ID.Name == "" || d.ID.Version == "" || !json.Valid(d.JSON) {
				t.Fatalf("Split(%q) accepted %+v", s, d)
			}
		}
		if !Equal(s, func() []string {
			var out []string
			for _, d := range docs {
				out = append(out, d.Text)
			}
			return out
		}()) {
			t.Fatalf("Split(%q) not Equal to its own documents", s)
		}
	})
}
