package session

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// TLS is verified on every connection unless the user sets the documented
// `insecure` of a Kubernetes connection (issue #14 item 5): the provider's
// Kubernetes and ARM paths against a server whose certificate no trusted
// authority signed, and a scan of the provider's code for any other way
// verification could be switched off.
func TestTLSVerificationIsOnUnlessInsecure(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"32","gitVersion":"v1.32.4"}`))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.StartTLS()
	defer srv.Close()
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))

	serverVersion := func(c kube.Config) error {
		cfg, err := kube.RESTConfig(c)
		if err != nil {
			return err
		}
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return err
		}
		_, err = dc.ServerVersion()
		return err
	}
	for name, tc := range map[string]struct {
		cfg    kube.Config
		verify bool // the connection must fail verification
	}{
		"host and token":        {kube.Config{Host: srv.URL, Token: "t"}, true},
		"cluster CA":            {kube.Config{Host: srv.URL, Token: "t", ClusterCACertificate: caPEM}, false},
		"insecure (documented)": {kube.Config{Host: srv.URL, Token: "t", Insecure: true}, false},
	} {
		err := serverVersion(tc.cfg)
		var uerr x509.UnknownAuthorityError
		switch {
		case tc.verify && (err == nil || !errors.As(err, &uerr) && !strings.Contains(err.Error(), "certificate")):
			t.Errorf("kubernetes, %s: %v, want a certificate verification error", name, err)
		case !tc.verify && err != nil:
			t.Errorf("kubernetes, %s: %v", name, err)
		}
	}

	// A kubeconfig from the Fleet API or AKS that turns verification off is refused.
	kc := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + srv.URL + ", insecure-skip-tls-verify: true}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	cfg, err := kube.FromKubeconfig([]byte(kc))
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.CheckServed(cfg); err == nil || !strings.Contains(err.Error(), "insecure-skip-tls-verify") {
		t.Errorf("a served kubeconfig with insecure-skip-tls-verify: %v, want it refused", err)
	}

	// ARM: the default transport (system roots) refuses the same server.
	_, err = azure.NewSession(context.Background(), azure.Config{
		SubscriptionID: "00000000-0000-0000-0000-000000000001", TenantID: "t", ClientID: "c", ClientSecret: "s",
		MetadataHost: strings.TrimPrefix(srv.URL, "https://"),
	}, azure.Options{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("ARM session against an untrusted server: %v, want a certificate verification error", err)
	}

	// Nothing else in the provider's code turns verification off.
	allowed := map[string]bool{"../kube/config.go": true} // the `insecure` attribute
	seenAllowed := 0
	re := regexp.MustCompile(`InsecureSkipVerify\s*[:=]\s*true|InsecureSkipTLSVerify\s*[:=]\s*true`)
	for _, root := range []string{"..", "../../provider"} { // the engine's packages, this one's among them, and the provider's
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			switch {
			case re.Match(src) && allowed[filepath.ToSlash(p)]:
				seenAllowed++
			case re.Match(src):
				t.Errorf("%s switches TLS verification off", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seenAllowed != 1 {
		t.Errorf("the scan found the documented insecure switch in %d files, want 1: the scan no longer sees it", seenAllowed)
	}
}
