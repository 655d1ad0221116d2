package placement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

const envelopeProviderAddress = "registry.terraform.io/fleetops/fleet"

// reattach serves the provider in this process and returns the TF_REATTACH_PROVIDERS value that
// points the real terraform CLI at it.
func reattach(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	configCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	go func() {
		_ = provider.Serve("test", []tf6server.ServeOpt{tf6server.WithDebug(ctx, configCh, closeCh), tf6server.WithLoggingSink(t),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger())})
	}()
	cfg := <-configCh
	t.Cleanup(func() { cancel(); <-closeCh })
	b, err := json.Marshal(map[string]any{envelopeProviderAddress: map[string]any{
		"Protocol": cfg.Protocol, "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": cfg.Test,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The state upgrade with the real terraform CLI: a state written by a provider version for KubeFleet
// v0.14 (schema version 0, a ConfigMap envelope), read by this version. With the configuration
// still naming the namespace, validate says to remove it (the objects are cluster-scoped); without
// it, the plan is an in-place update that clears replaces_configmap, and apply writes the
// ClusterResourceEnvelope and deletes the ConfigMap.
func TestAccEnvelopeStateUpgradeCLI(t *testing.T) {
	acctest.Current(t)
	const ns, name = "envelope-upgrade", "upgraded"
	h := envelopeHubClient(t)
	acctest.NewHubClients(t).CreateNamespace(t, ns)
	role := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: upgraded-reader\nrules: []\n"
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{envelope.LegacyAnnotation: "true"}},
		Data:       map[string]string{"manifest-000.yaml": role},
	}
	if _, err := h.Kubernetes().CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state := map[string]any{
		"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "00000000-0000-0000-0000-000000000020",
		"outputs": map[string]any{},
		"resources": []any{map[string]any{
			"mode": "managed", "type": "fleet_envelope", "name": "legacy",
			"provider": `provider["` + envelopeProviderAddress + `"]`,
			"instances": []any{map[string]any{
				"schema_version": 0,
				"attributes": map[string]any{
					"id": ns + "/" + name, "namespace": ns, "name": name, "manifests": []string{role}, "data_keys": []string{"manifest-000.yaml"},
				},
			}},
		}},
	}
	b, _ := json.Marshal(state)
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(namespace string) {
		nsLine := ""
		if namespace != "" {
			nsLine = fmt.Sprintf("  namespace = %q\n", namespace)
		}
		tf := fmt.Sprintf("terraform {\n  required_providers {\n    fleet = { source = \"fleetops/fleet\" }\n  }\n}\n\n%s\nresource \"fleet_envelope\" \"legacy\" {\n%s  name      = %q\n  manifests = [%q]\n}\n",
			acctest.ProviderConfig, nsLine, name, role)
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach(t), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	tf := func(args ...string) (string, error) {
		cmd := exec.Command("terraform", append(args, "-no-color")...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		// Terraform wraps long lines: compare with single spaces.
		return strings.Join(strings.Fields(string(out)), " "), err
	}

	// The configuration as it was: the upgraded state is a ClusterResourceEnvelope, and validate
	// says why the namespace must go.
	config(ns)
	if out, err := tf("init", "-input=false"); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if out, err := tf("plan", "-input=false"); err == nil || !strings.Contains(out, "Object not allowed in a ResourceEnvelope") ||
		!strings.Contains(out, "a fleet_envelope without namespace") {
		t.Fatalf("plan with the namespace: %v\n%s", err, out)
	}
	// Without the namespace: an update that migrates.
	config("")
	out, err := tf("plan", "-input=false", "-detailed-exitcode")
	if err == nil || !strings.Contains(out, "fleet_envelope.legacy will be updated in-place") ||
		!strings.Contains(out, `replaces_configmap = "`+ns+`/`+name+`" -> null`) || !strings.Contains(out, "1 to change, 0 to destroy") {
		t.Fatalf("plan without the namespace: %v\n%s", err, out)
	}
	if out, err := tf("apply", "-input=false", "-auto-approve"); err != nil || !strings.Contains(out, "Apply complete! Resources: 0 added, 1 changed, 0 destroyed") {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	ctx := context.Background()
	if _, err := h.ConfigMapEnvelope(ctx, ns, name); !hub.IsNotFound(err) {
		t.Errorf("the ConfigMap envelope after apply: %v", err)
	}
	env2, err := h.Envelope(ctx, "", name)
	if err != nil {
		t.Fatalf("the ClusterResourceEnvelope after apply: %v", err)
	}
	if got := envelope.Texts(env2.GetData()); len(got) != 1 || !strings.Contains(got["manifest-000.yaml"], `"name":"upgraded-reader"`) {
		t.Errorf("the ClusterResourceEnvelope's data: %v", got)
	}
	// Converged: the next plan is empty; destroy removes the envelope.
	if out, err := tf("plan", "-input=false", "-detailed-exitcode"); err != nil {
		t.Fatalf("plan after apply: %v\n%s", err, out)
	}
	if out, err := tf("destroy", "-input=false", "-auto-approve"); err != nil || !strings.Contains(out, "Resources: 1 destroyed") {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	if _, err := h.Envelope(ctx, "", name); !hub.IsNotFound(err) {
		t.Errorf("the ClusterResourceEnvelope after destroy: %v", err)
	}
}
