package kube

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const kubeconfig = `apiVersion: v1
kind: Config
current-context: hub
clusters:
- name: hub
  cluster:
    server: https://hub.example:6443
- name: member
  cluster:
    server: https://member.example:443
    insecure-skip-tls-verify: true
users:
- name: hub-admin
  user:
    token: hub-token
- name: member-user
  user:
    token: member-token
contexts:
- name: hub
  context: {cluster: hub, user: hub-admin}
- name: member
  context: {cluster: member, user: member-user}
`

func writeKubeconfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func attrOf(err error) string {
	var ae *AttributeError
	if errors.As(err, &ae) {
		return ae.Attribute
	}
	return ""
}

func TestRESTConfigFromConfigPath(t *testing.T) {
	p := writeKubeconfig(t, kubeconfig)
	cfg, err := RESTConfig(Config{ConfigPath: p})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://hub.example:6443" || cfg.BearerToken != "hub-token" {
		t.Errorf("current context: host %s token %q", cfg.Host, cfg.BearerToken)
	}
	cfg, err = RESTConfig(Config{ConfigPath: p, ConfigContext: "member"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://member.example:443" || cfg.BearerToken != "member-token" || !cfg.Insecure {
		t.Errorf("member context: host %s token %q insecure %v", cfg.Host, cfg.BearerToken, cfg.Insecure)
	}
	// attributes override the kubeconfig, as in the kubernetes provider
	cfg, err = RESTConfig(Config{ConfigPath: p, Token: "override", Host: "https://other.example"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://other.example" || cfg.BearerToken != "override" {
		t.Errorf("overrides: host %s token %q", cfg.Host, cfg.BearerToken)
	}
}

func TestRESTConfigConfigPathErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope", "config")
	_, err := RESTConfig(Config{ConfigPath: missing})
	if attrOf(err) != "config_path" || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	_, err = RESTConfig(Config{ConfigPath: dir})
	if attrOf(err) != "config_path" || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	_, err = RESTConfig(Config{ConfigPath: writeKubeconfig(t, "clusters: [oops")})
	if attrOf(err) != "config_path" {
		t.Errorf("garbage: %v", err)
	}
	_, err = RESTConfig(Config{ConfigPath: writeKubeconfig(t, kubeconfig), ConfigContext: "nope"})
	if attrOf(err) != "config_context" || !strings.Contains(err.Error(), "hub, member") {
		t.Errorf("unknown context: %v", err)
	}
	_, err = RESTConfig(Config{ConfigContext: "hub", Host: "https://x"})
	if attrOf(err) != "config_context" {
		t.Errorf("context without path: %v", err)
	}
	// a kubeconfig whose current context has no server
	_, err = RESTConfig(Config{ConfigPath: writeKubeconfig(t, "apiVersion: v1\nkind: Config\n")})
	if attrOf(err) != "config_path" {
		t.Errorf("empty kubeconfig: %v", err)
	}
}

func TestRESTConfigHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "hub"), []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := RESTConfig(Config{ConfigPath: "~/.kube/hub"})
	if err != nil || cfg.Host != "https://hub.example:6443" {
		t.Fatalf("~ path: %v %v", cfg, err)
	}
}

func TestRESTConfigStaticAttributes(t *testing.T) {
	ca, certPEM, keyPEM := testPKI(t)
	cfg, err := RESTConfig(Config{Host: "hub.example:6443", Token: "tok", ClusterCACertificate: ca})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://hub.example:6443" || cfg.BearerToken != "tok" || string(cfg.CAData) != ca || cfg.Insecure {
		t.Errorf("host/token/ca: %+v", cfg)
	}
	cfg, err = RESTConfig(Config{Host: "hub.example:6443", ClientCertificate: certPEM, ClientKey: keyPEM, ClusterCACertificate: ca})
	if err != nil {
		t.Fatal(err)
	}
	if string(cfg.CertData) != certPEM || string(cfg.KeyData) != keyPEM {
		t.Error("client certificate not carried")
	}
	// without TLS material a bare host:port is plain http, as client-go defaults it
	cfg, err = RESTConfig(Config{Host: "127.0.0.1:8080"})
	if err != nil || cfg.Host != "http://127.0.0.1:8080" {
		t.Errorf("bare host: %v %v", cfg, err)
	}
	cfg, err = RESTConfig(Config{Host: "hub.example", Insecure: true})
	if err != nil || cfg.Host != "https://hub.example" || !cfg.Insecure {
		t.Errorf("insecure: %v %v", cfg, err)
	}
}

func TestRESTConfigAttributeErrors(t *testing.T) {
	ca, certPEM, keyPEM := testPKI(t)
	_, otherCert, _ := testPKI(t)
	cases := []struct {
		name string
		cfg  Config
		attr string
	}{
		{"bad CA", Config{Host: "https://h", ClusterCACertificate: "not a pem"}, "cluster_ca_certificate"},
		{"cert without key", Config{Host: "https://h", ClientCertificate: certPEM}, "client_key"},
		{"key without cert", Config{Host: "https://h", ClientKey: keyPEM}, "client_certificate"},
		{"mismatched pair", Config{Host: "https://h", ClientCertificate: otherCert, ClientKey: keyPEM}, "client_key"},
		{"bad host", Config{Host: "https://h:port:x/%zz"}, "host"},
		{"no host", Config{Token: "t"}, "host"},
		{"insecure with CA", Config{Host: "https://h", Insecure: true, ClusterCACertificate: ca}, "insecure"},
		{"exec without command", Config{Host: "https://h", Exec: &ExecConfig{APIVersion: ExecAPIVersions[0]}}, "exec"},
		{"exec bad version", Config{Host: "https://h", Exec: &ExecConfig{APIVersion: "client.authentication.k8s.io/v1alpha1", Command: "x"}}, "exec"},
	}
	for _, tc := range cases {
		_, err := RESTConfig(tc.cfg)
		if attrOf(err) != tc.attr {
			t.Errorf("%s: got %v (attribute %q), want attribute %q", tc.name, err, attrOf(err), tc.attr)
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: the key leaks into the error", tc.name)
		}
	}
	if _, err := RESTConfig(Config{}); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("empty config: %v", err)
	}
}

func TestRESTConfigExec(t *testing.T) {
	cfg, err := RESTConfig(Config{Host: "https://hub.example", Exec: &ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1beta1",
		Command:    "kubelogin",
		Args:       []string{"get-token", "--server-id", "abc"},
		Env:        map[string]string{"Z": "1", "A": "2"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.ExecProvider
	if e == nil || e.Command != "kubelogin" || e.APIVersion != "client.authentication.k8s.io/v1beta1" ||
		!reflect.DeepEqual(e.Args, []string{"get-token", "--server-id", "abc"}) ||
		!reflect.DeepEqual(e.Env, []clientcmdapi.ExecEnvVar{{Name: "A", Value: "2"}, {Name: "Z", Value: "1"}}) ||
		e.InteractiveMode != clientcmdapi.IfAvailableExecInteractiveMode {
		t.Errorf("exec = %+v", e)
	}
	if id, ok := KubeloginServerID(cfg); !ok || id != "abc" {
		t.Errorf("KubeloginServerID = %q %v", id, ok)
	}
}

func TestConfigStringHidesSecrets(t *testing.T) {
	c := Config{Host: "h", Token: "tok-secret", ClientKey: "key-secret", ClientCertificate: "cert"}
	for _, s := range []string{fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if strings.Contains(s, "tok-secret") || strings.Contains(s, "key-secret") {
			t.Errorf("secret in %q", s)
		}
	}
	if (Config{}).IsZero() != true || (Config{Insecure: true}).IsZero() {
		t.Error("IsZero")
	}
}

func TestFromKubeconfig(t *testing.T) {
	cfg, err := FromKubeconfig([]byte(kubeconfig))
	if err != nil || cfg.Host != "https://hub.example:6443" || cfg.BearerToken != "hub-token" {
		t.Fatalf("FromKubeconfig = %v, %v", cfg, err)
	}
	for _, bad := range []string{"", "  \n", "credentialValue1", "apiVersion: v1\nkind: Config\n"} {
		if _, err := FromKubeconfig([]byte(bad)); err == nil {
			t.Errorf("FromKubeconfig(%q) accepted", bad)
		}
	}
}

func TestKubeloginServerID(t *testing.T) {
	cases := []struct {
		cfg  *rest.Config
		id   string
		want bool
	}{
		{&rest.Config{}, "", false},
		{&rest.Config{ExecProvider: &clientcmdapi.ExecConfig{Command: "aws"}}, "", false},
		{&rest.Config{ExecProvider: &clientcmdapi.ExecConfig{Command: "/usr/local/bin/kubelogin", Args: []string{"get-token", "--server-id=xyz"}}}, "xyz", true},
		{&rest.Config{ExecProvider: &clientcmdapi.ExecConfig{Command: "kubelogin", Args: []string{"get-token"}}}, AKSServerID, true},
		{&rest.Config{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "azure", Config: map[string]string{"apiserver-id": "legacy"}}}, "legacy", true},
	}
	for i, tc := range cases {
		id, ok := KubeloginServerID(tc.cfg)
		if id != tc.id || ok != tc.want {
			t.Errorf("%d: %q %v", i, id, ok)
		}
	}
}

// TestClientReachesServer builds the clients of a host/token/CA connection
// and reads from a TLS server that checks the token.
func TestClientReachesServer(t *testing.T) {
	var auth atomic.Value
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/namespaces/fleet-system":
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fleet-system"}}`)
		case "/apis/cluster.kubernetes-fleet.io/v1beta1/memberclusters":
			fmt.Fprint(w, `{"apiVersion":"cluster.kubernetes-fleet.io/v1beta1","kind":"MemberClusterList","metadata":{},"items":[{"apiVersion":"cluster.kubernetes-fleet.io/v1beta1","kind":"MemberCluster","metadata":{"name":"m1"}}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	cfg, err := RESTConfig(Config{Host: srv.URL, Token: "hub-token", ClusterCACertificate: ca})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(cfg, "terraform-provider-fleet/test")
	if err != nil {
		t.Fatal(err)
	}
	if c.Config.QPS != DefaultQPS || c.Config.Burst != DefaultBurst || c.Config.UserAgent != "terraform-provider-fleet/test" {
		t.Errorf("config: %v %v %q", c.Config.QPS, c.Config.Burst, c.Config.UserAgent)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ns, err := c.Kubernetes.CoreV1().Namespaces().Get(ctx, "fleet-system", metav1.GetOptions{})
	if err != nil || ns.Name != "fleet-system" {
		t.Fatalf("namespace: %v %v", ns, err)
	}
	if auth.Load() != "Bearer hub-token" {
		t.Errorf("Authorization = %v", auth.Load())
	}
	list, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "cluster.kubernetes-fleet.io", Version: "v1beta1", Resource: "memberclusters"}).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "m1" {
		t.Fatalf("member clusters: %v %v", list, err)
	}

	// the same cluster through an Azure token instead of kubelogin
	kl := rest.CopyConfig(cfg)
	kl.BearerToken = ""
	kl.ExecProvider = &clientcmdapi.ExecConfig{Command: "kubelogin", Args: []string{"get-token", "--server-id", "srv-app"}, APIVersion: ExecAPIVersions[1]}
	var scopes []string
	conv := WithAzureToken(kl, "srv-app", func(_ context.Context, scope string) (string, error) {
		scopes = append(scopes, scope)
		return "entra-token", nil
	})
	if conv.ExecProvider != nil || kl.ExecProvider == nil {
		t.Fatal("WithAzureToken must drop the exec plugin on a copy only")
	}
	c2, err := NewClient(conv, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Kubernetes.CoreV1().Namespaces().Get(ctx, "fleet-system", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if auth.Load() != "Bearer entra-token" || len(scopes) != 1 || scopes[0] != "srv-app/.default" {
		t.Errorf("Authorization = %v, scopes %v", auth.Load(), scopes)
	}
}

// testPKI returns a CA certificate and a client certificate/key it signed.
func testPKI(t *testing.T) (caPEM, certPEM, keyPEM string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admin"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
}

// A kubeconfig an API returns never runs a command or skips TLS
// verification on its own.
func TestCheckServed(t *testing.T) {
	for name, doc := range map[string]string{
		"exec":     "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, 'curl evil'], interactiveMode: Never}}}]",
		"insecure": "users: [{name: u, user: {token: t}}]",
	} {
		cluster := `{server: "https://h:443"}`
		if name == "insecure" {
			cluster = `{server: "https://h:443", insecure-skip-tls-verify: true}`
		}
		kc := "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: " + cluster + "}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n" + doc + "\n"
		cfg, err := FromKubeconfig([]byte(kc))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckServed(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	cfg, err := FromKubeconfig([]byte("apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: {server: \"https://h:443\"}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nusers: [{name: u, user: {token: t}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckServed(cfg); err != nil {
		t.Errorf("plain kubeconfig: %v", err)
	}
}

// A server that takes the connection and never answers fails the request
// after RequestTimeout instead of holding the plan.
func TestClientGivesUpOnASilentServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	defer func(d time.Duration) { RequestTimeout = d }(RequestTimeout)
	RequestTimeout = 200 * time.Millisecond
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	cfg, err := RESTConfig(Config{Host: srv.URL, Token: "t", ClusterCACertificate: ca})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Kubernetes.CoreV1().Namespaces().Get(context.Background(), "x", metav1.GetOptions{})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("a silent server: %v after %s, want a timeout after about %s", err, time.Since(start), RequestTimeout)
	}
}
