package provider_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// membersStep reads the fleet's members: Fleet API calls (members, their
// managed clusters) and the hub's MemberClusters.
var membersStep = resource.TestStep{
	Config: acctest.MembersConfig,
	ConfigStateChecks: []statecheck.StateCheck{
		statecheck.ExpectKnownValue("data.fleet_members.all", tfjsonpath.New("members"), knownvalue.ListSizeExact(5)),
		statecheck.ExpectKnownValue("data.fleet_members.all", acctest.MemberAt(0).AtMapKey("hub_labels").AtMapKey("fleet.azure.com/location"), knownvalue.StringExact("eastus")),
	},
}

// federatedTokenFile writes a federated token of the emulator's issuer, as
// AKS mounts a service account token for workload identity.
func federatedTokenFile(t *testing.T, f *acctest.Fleet) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.Env[localfleet.EnvGitHubOIDCRequestURL]+"&audience="+emulator.FederatedAudience, nil)
	req.Header.Set("Authorization", "Bearer "+f.Env[localfleet.EnvOIDCRequestToken])
	resp, err := f.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Value string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Value == "" {
		t.Fatalf("federated token: %v %+v", err, body)
	}
	p := filepath.Join(t.TempDir(), "azure-identity-token")
	if err := os.WriteFile(p, []byte(body.Value), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every sign-in flow without a secret reaches the local fleet through
// azidentity's own credentials: GitHub Actions and Azure DevOps OIDC
// requests, a PKCS#12 client certificate with its password, and AKS
// workload identity. The emulator's access tokens for these applications
// live 2 minutes, so each ARM request signs in again, and with the CI flows
// each sign-in comes with a fresh OIDC token (what keeps a 3-hour wait
// working; TestOIDCRequestOutlivesAFixedToken shows a fixed token failing).
func TestAccSignInFlows(t *testing.T) {
	f := acctest.Current(t)
	e := f.Env
	for _, tc := range []struct {
		name     string
		env      map[string]string
		signedIn string // the emulator's counter of this flow's access tokens
		oidc     string // its counter of OIDC tokens handed out, if any
	}{
		{"github_actions_oidc", map[string]string{"ARM_CLIENT_ID": e[localfleet.EnvFederatedClientID], "ARM_USE_OIDC": "true",
			"ARM_OIDC_REQUEST_URL": e[localfleet.EnvGitHubOIDCRequestURL], "ARM_OIDC_REQUEST_TOKEN": e[localfleet.EnvOIDCRequestToken]}, "token_federated", "oidc_github"},
		{"azure_devops_oidc", map[string]string{"ARM_CLIENT_ID": e[localfleet.EnvFederatedClientID], "ARM_USE_OIDC": "true",
			"SYSTEM_OIDCREQUESTURI": e[localfleet.EnvADOOIDCRequestURL], "SYSTEM_ACCESSTOKEN": e[localfleet.EnvOIDCRequestToken],
			"ARM_OIDC_AZURE_SERVICE_CONNECTION_ID": e[localfleet.EnvADOServiceConnection]}, "token_federated", "oidc_ado"},
		{"client_certificate", map[string]string{"ARM_CLIENT_ID": e[localfleet.EnvCertificateClientID],
			"ARM_CLIENT_CERTIFICATE_PATH": e[localfleet.EnvClientCertificatePFX], "ARM_CLIENT_CERTIFICATE_PASSWORD": e[localfleet.EnvClientCertificatePass]}, "token_certificate", ""},
		{"aks_workload_identity", map[string]string{"ARM_CLIENT_ID": "", "ARM_TENANT_ID": "", "ARM_USE_AKS_WORKLOAD_IDENTITY": "true",
			"AZURE_CLIENT_ID": e[localfleet.EnvFederatedClientID], "AZURE_TENANT_ID": e["ARM_TENANT_ID"], "AZURE_FEDERATED_TOKEN_FILE": federatedTokenFile(t, f)}, "token_federated", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ARM_CLIENT_SECRET", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			before := f.IdentityCounts(t)
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: []resource.TestStep{membersStep}})
			after := f.IdentityCounts(t)
			delta := func(k string) int { return after[k] - before[k] }
			if delta("token_client_secret") != 0 {
				t.Errorf("%d sign-ins with the client secret", delta("token_client_secret"))
			}
			if delta(tc.signedIn) < 2 {
				t.Errorf("%s: %d access tokens, want one per ARM request (several)", tc.signedIn, delta(tc.signedIn))
			}
			if tc.oidc != "" && delta(tc.oidc) != delta(tc.signedIn) {
				t.Errorf("%d OIDC tokens for %d access tokens: each sign-in must request a fresh one", delta(tc.oidc), delta(tc.signedIn))
			}
			if delta("rejected_assertion") != 0 || delta("rejected_oidc_request") != 0 {
				t.Errorf("rejections: %v -> %v", before, after)
			}
		})
	}
}

// KUBE_CONFIG_PATH (and KUBE_CTX, KUBE_HOST, KUBE_TOKEN) set for another
// cluster, as a configuration that also uses the kubernetes provider for a
// member has it, does not move the hub: without FLEET_HUB_* the hub comes
// from the Fleet API's listCredentials, and the other cluster sees no request.
func TestAccHubIgnoresKubernetesProviderEnvironment(t *testing.T) {
	var other atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		other.Add(1)
		http.Error(w, "not the hub", http.StatusForbidden)
	}))
	defer srv.Close()
	kc := filepath.Join(t.TempDir(), "member.kubeconfig")
	doc := fmt.Sprintf("apiVersion: v1\nkind: Config\ncurrent-context: member\nclusters: [{name: member, cluster: {server: %q, insecure-skip-tls-verify: true}}]\n"+
		"users: [{name: u, user: {token: member-token}}]\ncontexts: [{name: member, context: {cluster: member, user: u}}]\n", srv.URL)
	if err := os.WriteFile(kc, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLEET_HUB_CONFIG_PATH", "")
	t.Setenv("KUBE_CONFIG_PATH", kc)
	t.Setenv("KUBE_CTX", "member")
	t.Setenv("KUBE_HOST", srv.URL)
	t.Setenv("KUBE_TOKEN", "member-token")
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: []resource.TestStep{membersStep}})
	if n := other.Load(); n != 0 {
		t.Errorf("the cluster of KUBE_CONFIG_PATH got %d requests", n)
	}
}

// A TRACE log of a whole run (terraform's and the provider's, as
// TF_ACC_LOG_PATH collects them) shows every ARM and Kubernetes request —
// method, URL, status, duration — and none of the secrets involved: the
// client secret, the OIDC request token, federated tokens (JWTs), the
// emulator's access tokens, and the hub kubeconfig that listCredentials
// returns (client key and certificate data).
func TestAccTraceLogHasNoSecrets(t *testing.T) {
	f := acctest.Current(t)
	e := f.Env
	logPath := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	// GitHub Actions OIDC for Azure, listCredentials for the hub.
	t.Setenv("ARM_USE_OIDC", "true")
	t.Setenv("ARM_CLIENT_ID", e[localfleet.EnvFederatedClientID])
	t.Setenv("ARM_OIDC_REQUEST_URL", e[localfleet.EnvGitHubOIDCRequestURL])
	t.Setenv("ARM_OIDC_REQUEST_TOKEN", e[localfleet.EnvOIDCRequestToken])
	t.Setenv("ARM_CLIENT_SECRET", "")
	t.Setenv("FLEET_HUB_CONFIG_PATH", "")
	h := acctest.NewHubClients(t)
	h.CreateNamespace(t, "trace-web")
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: []resource.TestStep{
		membersStep,
		{Config: `
provider "fleet" {}
resource "fleet_placement" "trace" {
  name = "trace-web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "trace-web"
  }
  policy {
    placement_type = "PickAll"
  }
}
`},
	}})
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)

	secrets := map[string]string{
		"client secret":        e["ARM_CLIENT_SECRET"],
		"OIDC request token":   e[localfleet.EnvOIDCRequestToken],
		"a JWT":                "eyJhbGciOi",
		"an access token":      emulator.AccessTokenPrefix,
		"the PKCS#12 password": e[localfleet.EnvClientCertificatePass],
	}
	hubKC, err := os.ReadFile(e["KUBE_CONFIG_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	secrets["the hub kubeconfig, base64 (listCredentials)"] = base64.StdEncoding.EncodeToString(hubKC)[:40]
	raw, err := clientcmd.Load(hubKC)
	if err != nil {
		t.Fatal(err)
	}
	for name, u := range raw.AuthInfos {
		if len(u.ClientKeyData) > 0 {
			secrets["client-key-data of "+name] = base64.StdEncoding.EncodeToString(u.ClientKeyData)[:40]
			lines := strings.Split(strings.TrimSpace(string(u.ClientKeyData)), "\n")
			secrets["client key of "+name] = lines[1]
		}
		if len(u.ClientCertificateData) > 0 {
			secrets["client-certificate-data of "+name] = base64.StdEncoding.EncodeToString(u.ClientCertificateData)[:40]
		}
		if u.Token != "" {
			secrets["token of "+name] = u.Token
		}
	}
	for what, s := range secrets {
		if s == "" {
			t.Fatalf("no value for %s", what)
		}
		if i := strings.Index(log, s); i >= 0 {
			t.Errorf("%s in the TRACE log: …%s…", what, log[max(0, i-200):min(len(log), i+len(s)+50)])
		}
	}
	for _, want := range []string{
		"] fleet.arm: ", "] fleet.kubernetes: ",
		"/oauth2/v2.0/token: 200 OK", "/_oidc/github/token?api-version=2.0&audience=api",
		"/listCredentials?api-version=", "/members?api-version=",
		"/apis/placement.kubernetes-fleet.io/v1/clusterresourceplacements", "duration_ms",
		"response_body",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("%q not in the TRACE log (%d bytes)", want, len(log))
		}
	}
}
