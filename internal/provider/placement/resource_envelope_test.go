package placement

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
)

func manifestList(ss ...attr.Value) types.List {
	return types.ListValueMust(types.StringType, ss)
}

const (
	testWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: envelope-deny
webhooks: []
`
	testRole   = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"envelope-reader"},"rules":[]}`
	testSecret = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: hunter2}\n"
	testQuota  = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: pods, namespace: team}\nspec: {hard: {pods: \"10\"}}\n"
)

// The scope checks of KubeFleet v0.18.9's work generator, at the manifest's index.
func TestEnvelopeScopeChecks(t *testing.T) {
	otherNS := strings.Replace(testQuota, "namespace: team", "namespace: other", 1)
	noNS := strings.Replace(testQuota, ", namespace: team", "", 1)
	otherNamespaceFree := strings.Replace(testQuota, "name: pods", "name: cpu", 1)
	for _, tc := range []struct {
		name      string
		namespace types.String
		list      types.List
		wantPath  path.Path
		want      string
	}{
		{"namespaced in cluster envelope", types.StringNull(), manifestList(types.StringValue(testRole), types.StringValue(testQuota)),
			path.Root("manifests").AtListIndex(1), `ResourceQuota/team/pods has metadata.namespace "team", and the envelope is a ClusterResourceEnvelope`},
		{"cluster-scoped in namespaced envelope", types.StringValue("team"), manifestList(types.StringValue(testQuota), types.StringValue(otherNamespaceFree+"---\n"+testRole)),
			path.Root("manifests").AtListIndex(1), "manifests[1] (document 2 of 2): ClusterRole.rbac.authorization.k8s.io/envelope-reader has no metadata.namespace"},
		{"namespaced without namespace", types.StringValue("team"), manifestList(types.StringValue(noNS)),
			path.Root("manifests").AtListIndex(0), `set metadata.namespace = "team"`},
		{"other namespace", types.StringValue("team"), manifestList(types.StringValue(otherNS)),
			path.Root("manifests").AtListIndex(0), `is in namespace "other", and the envelope is a ResourceEnvelope of namespace "team"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			checkManifests(tc.namespace, tc.list, &diags)
			if diags.ErrorsCount() != 1 {
				t.Fatalf("errors = %v, want one", diags)
			}
			d, ok := diags.Errors()[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(tc.wantPath) || !strings.Contains(d.Detail(), tc.want) {
				t.Errorf("error = %v, want %q at %s", diags.Errors()[0], tc.want, tc.wantPath)
			}
		})
	}
	// Accepted: each kind with what fits it; an unknown namespace checks no scope.
	for _, tc := range []struct {
		namespace types.String
		list      types.List
	}{
		{types.StringNull(), manifestList(types.StringValue(testRole), types.StringValue(testWebhook))},
		{types.StringValue("team"), manifestList(types.StringValue(testQuota))},
		{types.StringUnknown(), manifestList(types.StringValue(testQuota), types.StringValue(testRole))},
	} {
		var diags diag.Diagnostics
		if _, known := checkManifests(tc.namespace, tc.list, &diags); diags.HasError() || !known {
			t.Errorf("checkManifests(%s) = %v, known %v", tc.namespace, diags, known)
		}
	}
}

func TestEnvelopeManifestValidationPaths(t *testing.T) {
	for _, tc := range []struct {
		name     string
		list     types.List
		wantPath path.Path
		want     string
	}{
		{"missing kind", manifestList(types.StringValue(testWebhook), types.StringValue("apiVersion: v1\nmetadata: {name: x}\n")),
			path.Root("manifests").AtListIndex(1), "kind: required"},
		{"second document", manifestList(types.StringValue(testRole), types.StringValue(testWebhook+"---\napiVersion: v1\nkind: Namespace\n")),
			path.Root("manifests").AtListIndex(1), "document 2 of 2: metadata: required"},
		{"null element", manifestList(types.StringNull()), path.Root("manifests").AtListIndex(0), "must not be null"},
		{"duplicate", manifestList(types.StringValue(testWebhook), types.StringValue(testRole), types.StringValue(testRole+"\n---\n"+testWebhook)),
			path.Root("manifests").AtListIndex(2), "ClusterRole.rbac.authorization.k8s.io/envelope-reader (document 1 of 2) is also in manifests[1]"},
		{"too large", manifestList(types.StringValue(testWebhook + "data: " + strings.Repeat("x", envelope.MaxBytes) + "\n")),
			path.Root("manifests"), "at most 1.5 MiB"},
		{"too many", manifestList(types.StringValue(strings.Repeat(testRole+"\n---\n", 49)), types.StringValue(testWebhook+"---\n"+strings.Replace(testWebhook, "envelope-deny", "other", 1))),
			path.Root("manifests"), "hold 51 objects; a KubeFleet envelope holds at most 50"},
		{"secret", manifestList(types.StringValue(testRole), types.StringValue(testWebhook+"---\n"+testSecret)),
			path.Root("manifests").AtListIndex(1), "manifests[1] (document 2 of 2): Secret/db is a Secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			if tc.name == "too many" {
				// 49 copies of one role are duplicates; make them distinct.
				var parts []string
				for i := range 49 {
					parts = append(parts, strings.Replace(testRole, "envelope-reader", fmt.Sprintf("r%d", i), 1))
				}
				tc.list = manifestList(types.StringValue(strings.Join(parts, "\n---\n")), tc.list.Elements()[1])
			}
			checkManifests(types.StringNull(), tc.list, &diags)
			if diags.ErrorsCount() != 1 {
				t.Fatalf("errors = %v, want one", diags)
			}
			d, ok := diags.Errors()[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(tc.wantPath) || !strings.Contains(d.Detail(), tc.want) {
				t.Errorf("error = %v, want %q at %s", diags.Errors()[0], tc.want, tc.wantPath)
			}
		})
	}
}

func TestEnvelopeManifestValidationSkipsUnknown(t *testing.T) {
	var diags diag.Diagnostics
	docs, known := parseManifests(manifestList(types.StringUnknown(), types.StringValue(testRole)), &diags)
	if diags.HasError() || known || len(docs) != 2 || len(docs[1]) != 1 {
		t.Errorf("parseManifests = %v, known %v, %v", docs, known, diags)
	}
	if _, known := parseManifests(types.ListUnknown(types.StringType), &diags); known || diags.HasError() {
		t.Errorf("unknown list: known %v, %v", known, diags)
	}
}

func TestEnvelopeFromHub(t *testing.T) {
	reformatted := `{"kind":"ValidatingWebhookConfiguration","apiVersion":"admissionregistration.k8s.io/v1","metadata":{"name":"envelope-deny"},"webhooks":[]}`
	changedRole := strings.Replace(testRole, `"rules":[]`, `"rules":[{"verbs":["get"]}]`, 1)
	data := map[string]string{
		"manifest-000.yaml":    reformatted, // formatting only: the prior text stays
		"manifest-001-00.yaml": changedRole, // changed: the hub's text
		"manifest-001-01.yaml": testWebhook,
		"extra.yaml":           testRole, // added by hand: a manifest of its own
	}
	prior := []string{testWebhook, testRole + "\n---\n" + testWebhook}
	manifests, keys := envelopeFromHub(data, prior)
	wantManifests := []string{testWebhook, changedRole + "\n---\n" + testWebhook, testRole}
	wantKeys := []string{"manifest-000.yaml", "manifest-001-00.yaml", "manifest-001-01.yaml", "extra.yaml"}
	if !reflect.DeepEqual(manifests, wantManifests) || !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("envelopeFromHub = %q, %q; want %q, %q", manifests, keys, wantManifests, wantKeys)
	}
	// Imported (no prior state): the hub's text.
	manifests, _ = envelopeFromHub(map[string]string{"manifest-000.yaml": reformatted}, nil)
	if !reflect.DeepEqual(manifests, []string{reformatted}) {
		t.Errorf("imported manifests = %q", manifests)
	}
	// A Secret put on the hub by hand is read without its data.
	manifests, _ = envelopeFromHub(map[string]string{"manifest-000.yaml": testRole, "by-hand": `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"data":{"password":"aHVudGVyMg=="}}`}, nil)
	if len(manifests) != 2 || strings.Contains(manifests[1], "aHVudGVyMg") || !strings.Contains(manifests[1], `"kind":"Secret"`) {
		t.Errorf("manifests with a Secret = %q", manifests)
	}
}

func TestLegacyNamespace(t *testing.T) {
	if ns := legacyNamespace("web", []string{testRole, testWebhook}); !ns.IsNull() {
		t.Errorf("cluster-scoped objects: %s, want null", ns)
	}
	if ns := legacyNamespace("web", []string{testRole, testQuota}); ns.ValueString() != "web" {
		t.Errorf("a namespaced object: %s, want web", ns)
	}
}

// ---- acceptance ----

// The acceptance test's envelope: ConfigMap envNS/envName, placed with its namespace on envMember by
// the placement envNS.
