package emulator_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

const (
	federatedClient = "00000000-0000-0000-0000-00000000000f"
	certClient      = "00000000-0000-0000-0000-0000000000ce"
	requestToken    = "ci-request-token"
	adoConnection   = "00000000-0000-0000-0000-0000000000ad"
)

type clientCert struct {
	certPEM, keyPEM []byte
	pfx             []byte
}

func newClientCert(t *testing.T, password string) clientCert {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pfx, err := pkcs12.Legacy.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return clientCert{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		pfx:     pfx,
	}
}

// federationFixture is an emulator with the federated and certificate
// applications, on an identity clock the test moves.
type federationFixture struct {
	*fixture
	offset atomic.Int64
	cert   clientCert
}

func newFederationFixture(t *testing.T) *federationFixture {
	ff := &federationFixture{cert: newClientCert(t, "pfx-password")}
	ff.fixture = newFixture(t, func(c *emulator.Config) {
		c.FederatedClientID, c.OIDCRequestToken, c.ADOServiceConnectionID = federatedClient, requestToken, adoConnection
		c.CertificateClientID, c.ClientCertificate = certClient, ff.cert.certPEM
		c.IdentityNow = func() time.Time { return time.Now().Add(time.Duration(ff.offset.Load())) }
	})
	return ff
}

// token signs in with c through the provider's own session code (the real
// azidentity credentials) and gets an ARM token.
func (ff *federationFixture) token(t *testing.T, c azure.Config) (azure.AuthMethod, error) {
	t.Helper()
	c.SubscriptionID = ff.sub
	c.MetadataHost = strings.TrimPrefix(ff.srv.URL(), "https://")
	c.UseCLI = false
	s, err := azure.NewSession(context.Background(), c, azure.Options{Transport: ff.httpClient(t, true)})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	_, err = s.Token(context.Background(), ff.srv.URL()+"/.default")
	return s.Method, err
}

func TestSignInWithoutASecret(t *testing.T) {
	ff := newFederationFixture(t)
	dir := t.TempDir()
	pfxPath := filepath.Join(dir, "client.pfx")
	if err := os.WriteFile(pfxPath, ff.cert.pfx, 0o600); err != nil {
		t.Fatal(err)
	}
	wiToken, err := ff.srv.FederatedToken("system:serviceaccount:infra:terraform")
	if err != nil {
		t.Fatal(err)
	}
	wiFile := filepath.Join(dir, "azure-identity-token")
	if err := os.WriteFile(wiFile, []byte(wiToken), 0o600); err != nil {
		t.Fatal(err)
	}
	base := azure.Config{TenantID: tenantID}
	for _, tc := range []struct {
		name   string
		cfg    func(azure.Config) azure.Config
		method azure.AuthMethod
		counts map[string]int
	}{
		{"GitHub Actions OIDC", func(c azure.Config) azure.Config {
			c.ClientID, c.UseOIDC, c.OIDCRequestURL, c.OIDCRequestToken = federatedClient, true, ff.srv.URL()+"/_oidc/github/token?api-version=2.0", requestToken
			return c
		}, azure.AuthOIDCGitHub, map[string]int{"oidc_github": 1, "token_federated": 1}},
		{"Azure DevOps OIDC", func(c azure.Config) azure.Config {
			c.ClientID, c.UseOIDC, c.OIDCRequestURL, c.OIDCRequestToken, c.ADOServiceConnectionID = federatedClient, true, ff.srv.URL()+"/_oidc/ado/oidctoken", requestToken, adoConnection
			return c
		}, azure.AuthOIDCAzureDevOps, map[string]int{"oidc_ado": 1, "token_federated": 1}},
		{"PKCS#12 certificate with password", func(c azure.Config) azure.Config {
			c.ClientID, c.ClientCertificatePath, c.ClientCertificatePassword = certClient, pfxPath, "pfx-password"
			return c
		}, azure.AuthClientCertificate, map[string]int{"token_certificate": 1}},
		{"PEM certificate, base64", func(c azure.Config) azure.Config {
			c.ClientID, c.ClientCertificate = certClient, base64.StdEncoding.EncodeToString(append(append([]byte(nil), ff.cert.certPEM...), ff.cert.keyPEM...))
			return c
		}, azure.AuthClientCertificate, map[string]int{"token_certificate": 1}},
		{"AKS workload identity", func(c azure.Config) azure.Config {
			c.ClientID, c.UseAKSWorkloadIdentity, c.OIDCTokenFilePath = federatedClient, true, wiFile
			return c
		}, azure.AuthWorkloadIdentity, map[string]int{"token_federated": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ff.srv.IdentityCounts()
			m, err := ff.token(t, tc.cfg(base))
			if err != nil {
				t.Fatalf("token: %v", err)
			}
			if m != tc.method {
				t.Errorf("method %s, want %s", m, tc.method)
			}
			after := ff.srv.IdentityCounts()
			for k, n := range tc.counts {
				if after[k]-before[k] != n {
					t.Errorf("%s: %d requests, want %d (%v)", k, after[k]-before[k], n, after)
				}
			}
			if after["token_client_secret"] != before["token_client_secret"] {
				t.Error("signed in with the client secret")
			}
		})
	}

	// A wrong certificate, a wrong password, a wrong request token and an
	// unknown service connection are refused.
	other := newClientCert(t, "x")
	for name, c := range map[string]azure.Config{
		"unregistered certificate": {ClientID: certClient, ClientCertificate: base64.StdEncoding.EncodeToString(append(other.certPEM, other.keyPEM...))},
		"wrong request token":      {ClientID: federatedClient, UseOIDC: true, OIDCRequestURL: ff.srv.URL() + "/_oidc/github/token?api-version=2.0", OIDCRequestToken: "nope"},
		"unknown service connection": {ClientID: federatedClient, UseOIDC: true, OIDCRequestURL: ff.srv.URL() + "/_oidc/ado/oidctoken", OIDCRequestToken: requestToken,
			ADOServiceConnectionID: "11111111-0000-0000-0000-000000000000"},
	} {
		c.TenantID = tenantID
		if _, err := ff.token(t, c); err == nil {
			t.Errorf("%s: signed in", name)
		} else if strings.Contains(err.Error(), requestToken) {
			t.Errorf("%s: the error shows the request token: %v", name, err)
		}
	}
	c := azure.Config{TenantID: tenantID, ClientID: certClient, ClientCertificatePath: pfxPath, ClientCertificatePassword: "wrong", SubscriptionID: ff.sub,
		MetadataHost: strings.TrimPrefix(ff.srv.URL(), "https://")}
	if _, err := azure.NewSession(context.Background(), c, azure.Options{Transport: ff.httpClient(t, true)}); err == nil || !strings.Contains(err.Error(), "client_certificate") {
		t.Errorf("wrong PKCS#12 password: %v", err)
	}
}

// A fixed OIDC token (ARM_OIDC_TOKEN) stops working once it expires, as in
// a three-hour wait; the GitHub Actions flow requests a fresh one for every
// access token, so the same wait keeps working. The emulator's identity
// clock stands in for the wait.
func TestOIDCRequestOutlivesAFixedToken(t *testing.T) {
	ff := newFederationFixture(t)
	fixed, err := ff.srv.FederatedToken("repo:o/r:ref:refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	fixedCfg := azure.Config{TenantID: tenantID, ClientID: federatedClient, UseOIDC: true, OIDCToken: fixed}
	github := azure.Config{TenantID: tenantID, ClientID: federatedClient, UseOIDC: true,
		OIDCRequestURL: ff.srv.URL() + "/_oidc/github/token?api-version=2.0", OIDCRequestToken: requestToken}

	c := fixedCfg
	c.SubscriptionID, c.MetadataHost = ff.sub, strings.TrimPrefix(ff.srv.URL(), "https://")
	fixedSession, err := azure.NewSession(context.Background(), c, azure.Options{Transport: ff.httpClient(t, true)})
	if err != nil {
		t.Fatal(err)
	}
	g := github
	g.SubscriptionID, g.MetadataHost = ff.sub, c.MetadataHost
	ghSession, err := azure.NewSession(context.Background(), g, azure.Options{Transport: ff.httpClient(t, true)})
	if err != nil {
		t.Fatal(err)
	}
	scope := ff.srv.URL() + "/.default"
	for _, s := range []*azure.Session{fixedSession, ghSession} {
		if _, err := s.Token(context.Background(), scope); err != nil {
			t.Fatalf("%s before the wait: %v", s.Method, err)
		}
	}
	// The access tokens live 2 minutes, under azcore's 5-minute refresh
	// margin: every request signs in again, with a fresh assertion.
	before := ff.srv.IdentityCounts()
	if _, err := ghSession.Token(context.Background(), scope); err != nil {
		t.Fatal(err)
	}
	if after := ff.srv.IdentityCounts(); after["oidc_github"] != before["oidc_github"]+1 || after["token_federated"] != before["token_federated"]+1 {
		t.Errorf("no refresh with a fresh OIDC token: %v -> %v", before, after)
	}

	ff.offset.Store(int64(3 * time.Hour))
	_, err = fixedSession.Token(context.Background(), scope)
	if err == nil || !strings.Contains(err.Error(), "AADSTS700024") {
		t.Fatalf("fixed token after 3 hours: %v, want AADSTS700024 (assertion not within its valid time range)", err)
	}
	if _, err := ghSession.Token(context.Background(), scope); err != nil {
		t.Fatalf("GitHub Actions OIDC after 3 hours: %v", err)
	}
}
