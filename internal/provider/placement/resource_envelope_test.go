package placement

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

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
	testRole = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"envelope-reader"},"rules":[]}`
)

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
		{"too large", manifestList(types.StringValue(testWebhook + "data: " + strings.Repeat("x", envelope.MaxDataBytes) + "\n")),
			path.Root("manifests"), "a ConfigMap holds at most 1048576"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			parseManifests(tc.list, &diags)
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
	cm := &corev1.ConfigMap{Data: map[string]string{
		"manifest-000.yaml":    reformatted, // formatting only: the prior text stays
		"manifest-001-00.yaml": changedRole, // changed: the hub's text
		"manifest-001-01.yaml": testWebhook,
		"extra.yaml":           testRole, // added by hand: a manifest of its own
	}}
	prior := []string{testWebhook, testRole + "\n---\n" + testWebhook}
	manifests, keys := envelopeFromHub(cm, prior)
	wantManifests := []string{testWebhook, changedRole + "\n---\n" + testWebhook, testRole}
	wantKeys := []string{"manifest-000.yaml", "manifest-001-00.yaml", "manifest-001-01.yaml", "extra.yaml"}
	if !reflect.DeepEqual(manifests, wantManifests) || !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("envelopeFromHub = %q, %q; want %q, %q", manifests, keys, wantManifests, wantKeys)
	}
	// Imported (no prior state): the hub's text.
	manifests, _ = envelopeFromHub(&corev1.ConfigMap{Data: map[string]string{"manifest-000.yaml": reformatted}}, nil)
	if !reflect.DeepEqual(manifests, []string{reformatted}) {
		t.Errorf("imported manifests = %q", manifests)
	}
}

// ---- acceptance ----

// The acceptance test's envelope: ConfigMap envNS/envName, placed with its namespace on envMember by
// the placement envNS.
