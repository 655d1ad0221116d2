package envelope

import (
	"encoding/json"
	"strings"
	"testing"
)

// The cases of KubeFleet v0.18.9's own test of the rule (pkg/controllers/workgenerator/envelope_test.go,
// TestExtractManifestsFromEnvelopeCR), each object with the verdict the work generator gives it,
// plus the cases its switch distinguishes that the upstream table leaves out.
func TestCheckUpstreamCases(t *testing.T) {
	for _, tc := range []struct {
		name, envNamespace, object string
		want                       Refusal
	}{
		{"ResourceEnvelope with one resource", "default",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"default"},"data":{"key":"value"}}`, Accepted},
		{"ClusterResourceEnvelope with one resource", "",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"test-role"},"rules":[]}`, Accepted},
		{"ResourceEnvelope with manifest in a different namespace", "default",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"other-namespace"}}`, OtherNamespace},
		{"ResourceEnvelope containing a cluster-scoped resource", "default",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"test-role"}}`, ClusterScopedInNamespaced},
		{"ClusterResourceEnvelope with namespaced resource", "",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"default"}}`, NamespacedInCluster},
		// Not in the upstream table: the scope is metadata.namespace only, whatever the kind is.
		{"namespaced kind without namespace in a ResourceEnvelope", "default",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, ClusterScopedInNamespaced},
		{"cluster-scoped kind with a namespace in a ResourceEnvelope", "default",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r","namespace":"default"}}`, Accepted},
		{"null namespace in a ClusterResourceEnvelope", "",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r","namespace":null}}`, Accepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Split(tc.object)
			if err != nil {
				t.Fatal(err)
			}
			if got := Check(tc.envNamespace, docs[0].ID); got != tc.want {
				t.Errorf("Check = %d, want %d", got, tc.want)
			}
			if msg := Check(tc.envNamespace, docs[0].ID).Explain(tc.envNamespace, docs[0].ID); (msg == "") != (tc.want == Accepted) {
				t.Errorf("Explain = %q", msg)
			}
		})
	}
	// The upstream table's "mixed namespaced resources": one object of the envelope's namespace is
	// accepted, the other refused.
	if Check("default", ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "a"}) != Accepted ||
		Check("default", ObjectID{Kind: "ConfigMap", Namespace: "other-namespace", Name: "b"}) != OtherNamespace {
		t.Error("mixed namespaces")
	}
}

func TestKind(t *testing.T) {
	if Kind("") != "ClusterResourceEnvelope" || Kind("team") != "ResourceEnvelope" {
		t.Errorf("Kind = %q, %q", Kind(""), Kind("team"))
	}
}

func TestRedacted(t *testing.T) {
	docs, err := Split("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: team\n  annotations: {kubectl.kubernetes.io/last-applied-configuration: '{\"data\":{\"password\":\"aHVudGVyMg==\"}}'}\ndata: {password: aHVudGVyMg==}\nstringData: {user: admin}\n")
	if err != nil {
		t.Fatal(err)
	}
	if !IsSecret(docs[0].ID) || IsSecret(ObjectID{Group: "example.com", Kind: "Secret"}) {
		t.Error("IsSecret")
	}
	got := Redacted(docs[0])
	if strings.Contains(got, "aHVudGVyMg") || strings.Contains(got, "admin") {
		t.Errorf("Redacted keeps the secret: %s", got)
	}
	var m map[string]any
	err = json.Unmarshal([]byte(got), &m)
	md, _ := m["metadata"].(map[string]any)
	if err != nil || m["kind"] != "Secret" || md["name"] != "db" {
		t.Errorf("Redacted = %s, %v", got, err)
	}
}

func TestScopeMismatch(t *testing.T) {
	cm := ObjectID{Version: "v1", Kind: "ConfigMap", Name: "c"}
	role := ObjectID{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "r", Namespace: "team"}
	if msg := ScopeMismatch(true, cm); !strings.Contains(msg, "namespaced kind") {
		t.Errorf("namespaced kind without namespace: %q", msg)
	}
	if msg := ScopeMismatch(false, role); !strings.Contains(msg, `cluster-scoped kind (the hub's API says so) and has metadata.namespace "team"`) {
		t.Errorf("cluster-scoped kind with a namespace: %q", msg)
	}
	cm.Namespace, role.Namespace = "team", ""
	if ScopeMismatch(true, cm) != "" || ScopeMismatch(false, role) != "" {
		t.Error("fitting scopes reported")
	}
}
