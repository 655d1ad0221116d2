package azure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

func TestCloudForEnvironment(t *testing.T) {
	cases := map[string]struct{ login, rm string }{
		"":             {"https://login.microsoftonline.com/", "https://management.azure.com"},
		"public":       {"https://login.microsoftonline.com/", "https://management.azure.com"},
		"USGovernment": {"https://login.microsoftonline.us/", "https://management.usgovcloudapi.net"},
		"china":        {"https://login.chinacloudapi.cn/", "https://management.chinacloudapi.cn"},
	}
	for env, want := range cases {
		c, err := CloudForEnvironment(env)
		if err != nil {
			t.Fatalf("%q: %v", env, err)
		}
		if c.ActiveDirectoryAuthorityHost != want.login || c.Services[cloud.ResourceManager].Endpoint != want.rm {
			t.Errorf("%q: %+v", env, c)
		}
	}
	c, _ := CloudForEnvironment("public")
	c.Services[cloud.ResourceManager] = cloud.ServiceConfiguration{Endpoint: "https://changed"}
	if cloud.AzurePublic.Services[cloud.ResourceManager].Endpoint != "https://management.azure.com" {
		t.Error("CloudForEnvironment returned azcore's shared map")
	}
	if _, err := CloudForEnvironment("german"); err == nil || !strings.Contains(err.Error(), "public, usgovernment, china") {
		t.Errorf("german: %v", err)
	}
}

func TestMetadataURL(t *testing.T) {
	good := map[string]string{
		"management.local:8443":          "https://management.local:8443/metadata/endpoints?api-version=2022-09-01",
		"https://management.local/":      "https://management.local/metadata/endpoints?api-version=2022-09-01",
		" HTTPS://127.0.0.1:9443 ":       "https://127.0.0.1:9443/metadata/endpoints?api-version=2022-09-01",
		"management.azure.com":           "https://management.azure.com/metadata/endpoints?api-version=2022-09-01",
		"[::1]:443":                      "https://[::1]:443/metadata/endpoints?api-version=2022-09-01",
		"management.usgovcloudapi.net//": "https://management.usgovcloudapi.net/metadata/endpoints?api-version=2022-09-01",
	}
	for in, want := range good {
		got, err := MetadataURL(in)
		if err != nil || got != want {
			t.Errorf("MetadataURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "http://insecure.local", "host/with/path", "https://", "user@host"} {
		if _, err := MetadataURL(bad); err == nil {
			t.Errorf("MetadataURL(%q) accepted", bad)
		}
	}
}

const metadataArray = `[
 {"name":"AzureCloud","resourceManager":"https://management.azure.com/","authentication":{"loginEndpoint":"https://login.microsoftonline.com","audiences":["https://management.core.windows.net/","https://management.azure.com/"]}},
 {"name":"AzureChinaCloud","resourceManager":"https://management.chinacloudapi.cn","authentication":{"loginEndpoint":"https://login.chinacloudapi.cn/","audiences":["https://management.core.chinacloudapi.cn"]}},
 {"name":"LocalFleet","resourceManager":"https://127.0.0.1:9443","authentication":{"loginEndpoint":"https://127.0.0.1:9443/login","audiences":["https://management.local/"]}}
]`

func TestParseMetadata(t *testing.T) {
	c, name, err := ParseMetadata([]byte(metadataArray), "china")
	if err != nil {
		t.Fatal(err)
	}
	if name != "AzureChinaCloud" || c.ActiveDirectoryAuthorityHost != "https://login.chinacloudapi.cn/" ||
		c.Services[cloud.ResourceManager] != (cloud.ServiceConfiguration{Endpoint: "https://management.chinacloudapi.cn", Audience: "https://management.core.chinacloudapi.cn"}) {
		t.Errorf("china: %s %+v", name, c)
	}
	c, name, _ = ParseMetadata([]byte(metadataArray), "LocalFleet")
	if name != "LocalFleet" || c.ActiveDirectoryAuthorityHost != "https://127.0.0.1:9443/login/" {
		t.Errorf("by literal name: %s %+v", name, c)
	}
	c, name, _ = ParseMetadata([]byte(metadataArray), "usgovernment")
	if name != "AzureCloud" || c.Services[cloud.ResourceManager].Endpoint != "https://management.azure.com" ||
		c.Services[cloud.ResourceManager].Audience != "https://management.core.windows.net/" {
		t.Errorf("no match takes the first: %s %+v", name, c)
	}
	// a single object (older hosts), with a byte-order mark
	single := "\xef\xbb\xbf" + `{"name":"AzureStack","resourceManager":"https://management.stack.local","authentication":{"loginEndpoint":"https://adfs.stack.local/adfs","audiences":["https://management.adfs.stack.local/x"]}}`
	c, name, err = ParseMetadata([]byte(single), "public")
	if err != nil || name != "AzureStack" || c.Services[cloud.ResourceManager].Audience != "https://management.adfs.stack.local/x" {
		t.Errorf("single: %s %+v %v", name, c, err)
	}
	bad := map[string]string{
		"empty array":  `[]`,
		"not json":     `<html>`,
		"no rm":        `{"name":"x","authentication":{"loginEndpoint":"https://l","audiences":["a"]}}`,
		"http rm":      `{"name":"x","resourceManager":"http://rm","authentication":{"loginEndpoint":"https://l","audiences":["a"]}}`,
		"no login":     `{"name":"x","resourceManager":"https://rm","authentication":{"audiences":["a"]}}`,
		"no audiences": `{"name":"x","resourceManager":"https://rm","authentication":{"loginEndpoint":"https://l","audiences":[]}}`,
	}
	for what, body := range bad {
		if _, _, err := ParseMetadata([]byte(body), ""); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("jwt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := Config{SubscriptionID: "sub", UseCLI: true}
	cases := []struct {
		name  string
		cfg   func(c *Config)
		field string
	}{
		{"ok cli", func(c *Config) {}, ""},
		{"no subscription", func(c *Config) { c.SubscriptionID = "" }, "subscription_id"},
		{"bad environment", func(c *Config) { c.Environment = "mars" }, "environment"},
		{"bad metadata host", func(c *Config) { c.MetadataHost = "http://x" }, "metadata_host"},
		{"secret without tenant", func(c *Config) { c.ClientSecret = "s"; c.ClientID = "id" }, "tenant_id"},
		{"secret without client", func(c *Config) { c.ClientSecret = "s"; c.TenantID = "t" }, "client_id"},
		{"secret ok", func(c *Config) { c.ClientSecret = "s"; c.TenantID = "t"; c.ClientID = "id" }, ""},
		{"oidc without token", func(c *Config) { c.UseOIDC = true; c.TenantID = "t"; c.ClientID = "id" }, "oidc_token_file_path"},
		{"oidc missing file", func(c *Config) {
			c.UseOIDC = true
			c.TenantID = "t"
			c.ClientID = "id"
			c.OIDCTokenFilePath = filepath.Join(dir, "missing")
		}, "oidc_token_file_path"},
		{"oidc file ok", func(c *Config) {
			c.UseOIDC = true
			c.TenantID = "t"
			c.ClientID = "id"
			c.OIDCTokenFilePath = tokenFile
		}, ""},
		{"oidc token ok", func(c *Config) { c.UseOIDC = true; c.TenantID = "t"; c.ClientID = "id"; c.OIDCToken = "jwt" }, ""},
		{"oidc without client", func(c *Config) { c.UseOIDC = true; c.TenantID = "t"; c.OIDCToken = "jwt" }, "client_id"},
		{"nothing enabled", func(c *Config) { c.UseCLI = false }, "use_cli"},
		{"msi", func(c *Config) { c.UseMSI = true; c.UseCLI = false }, ""},
	}
	for _, tc := range cases {
		c := base
		tc.cfg(&c)
		err := CheckConfig(c)
		var fe *FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%s: got %v, want an error on %s", tc.name, err, tc.field)
		}
	}
	err := CheckConfig(Config{})
	if err == nil || !strings.Contains(err.Error(), "ARM_SUBSCRIPTION_ID") {
		t.Errorf("missing subscription error does not name ARM_SUBSCRIPTION_ID: %v", err)
	}
	err = CheckConfig(Config{SubscriptionID: "s", UseOIDC: true, TenantID: "t", ClientID: "c", OIDCTokenFilePath: filepath.Join(dir, "missing")})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing token file error does not carry the OS error: %v", err)
	}
}

func TestMethodOrder(t *testing.T) {
	all := Config{ClientSecret: "s", UseOIDC: true, UseMSI: true, UseCLI: true}
	if Method(all) != AuthClientSecret {
		t.Error("client secret first")
	}
	all.ClientSecret = ""
	if Method(all) != AuthOIDC {
		t.Error("then OIDC")
	}
	all.UseOIDC = false
	if Method(all) != AuthMSI {
		t.Error("then MSI")
	}
	all.UseMSI = false
	if Method(all) != AuthCLI {
		t.Error("then the CLI")
	}
	all.UseCLI = false
	if Method(all) != "" {
		t.Error("none")
	}
}

func TestConfigStringHidesSecrets(t *testing.T) {
	c := Config{SubscriptionID: "sub", ClientSecret: "s3cr3t-value", OIDCToken: "jwt-token-value"}
	for _, s := range []string{c.String(), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if strings.Contains(s, "s3cr3t-value") || strings.Contains(s, "jwt-token-value") {
			t.Errorf("secret in %q", s)
		}
	}
}

func TestModuleVersion(t *testing.T) {
	for in, want := range map[string]string{"0.3.1": "v0.3.1", "v1.2.3-rc.1": "v1.2.3-rc.1", "dev": "v0.0.0", "": "v0.0.0", "test": "v0.0.0"} {
		if got := ModuleVersion(in); got != want {
			t.Errorf("ModuleVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDateClock(t *testing.T) {
	var c DateClock
	fallback := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := c.Now(func() time.Time { return fallback }); !got.Equal(fallback) {
		t.Errorf("before any response Now = %v", got)
	}
	c.Observe("Sun, 22 Nov 2026 23:59:59 GMT")
	c.Observe("not a date")
	if got, ok := c.Latest(); !ok || !got.Equal(time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC)) {
		t.Errorf("Latest = %v %v", got, ok)
	}
	c.Observe("Mon, 23 Nov 2026 10:00:00 GMT")
	c.Observe("Mon, 23 Nov 2026 09:00:00 GMT") // an older answer arriving late
	if got := c.Now(nil); !got.Equal(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("Now = %v", got)
	}
}

// fakeAzure is a loopback HTTPS server playing a custom cloud: metadata
// endpoints, Entra's OpenID configuration and token endpoint, and ARM.
type fakeAzure struct {
	srv        *httptest.Server
	mu         sync.Mutex
	tokenForms []url.Values
	armAuth    []string
	armHandler http.HandlerFunc
	metaCalls  atomic.Int32
	metaFail   int32
}

func newFakeAzure(t *testing.T) *fakeAzure {
	f := &fakeAzure{}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-CA test's handshake error
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAzure) host() string { return strings.TrimPrefix(f.srv.URL, "https://") }

func (f *fakeAzure) serve(w http.ResponseWriter, r *http.Request) {
	base := f.srv.URL
	switch {
	case r.URL.Path == "/metadata/endpoints":
		if n := f.metaCalls.Add(1); n <= f.metaFail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.URL.Query().Get("api-version") != "2022-09-01" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// no entry is named after the public cloud: the first is taken
		fmt.Fprintf(w, `[{"name":"LocalFleet","resourceManager":"%s/","authentication":{"loginEndpoint":"%s/login","audiences":["https://management.local/"]}},
		{"name":"AzureChinaCloud","resourceManager":"https://wrong.example","authentication":{"loginEndpoint":"https://wrong.example","audiences":["https://wrong/"]}}]`, base, base)
	case strings.HasSuffix(r.URL.Path, "/v2.0/.well-known/openid-configuration"):
		tenant := strings.Split(strings.TrimPrefix(r.URL.Path, "/login/"), "/")[0]
		fmt.Fprintf(w, `{"token_endpoint":"%[1]s/login/%[2]s/oauth2/v2.0/token","authorization_endpoint":"%[1]s/login/%[2]s/oauth2/v2.0/authorize","issuer":"%[1]s/login/%[2]s/v2.0"}`, base, tenant)
	case strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token"):
		_ = r.ParseForm()
		f.mu.Lock()
		f.tokenForms = append(f.tokenForms, r.PostForm)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"token_type":"Bearer","expires_in":3600,"ext_expires_in":3600,"access_token":"local-access-token"}`)
	default:
		f.mu.Lock()
		f.armAuth = append(f.armAuth, r.Header.Get("Authorization"))
		h := f.armHandler
		f.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Date", "Mon, 23 Nov 2026 00:00:00 GMT")
		fmt.Fprint(w, `{"ok":true}`)
	}
}

func armGet(t *testing.T, s *Session, ctx context.Context, path string) (*http.Response, error) {
	t.Helper()
	c, err := arm.NewClient("test", "v0.0.1", s.Credential, s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(ctx, http.MethodGet, runtime.JoinPaths(c.Endpoint(), path))
	if err != nil {
		t.Fatal(err)
	}
	return c.Pipeline().Do(req)
}

func TestSessionClientSecretOnCustomCloud(t *testing.T) {
	f := newFakeAzure(t)
	f.metaFail = 1 // the metadata fetch is retried
	s, err := NewSession(context.Background(), Config{
		SubscriptionID: "sub", TenantID: "tenant-1", ClientID: "app-1", ClientSecret: "secret-1",
		UseCLI: true, MetadataHost: f.host(),
	}, Options{Transport: f.srv.Client(), ProviderVersion: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != AuthClientSecret || !s.CustomCloud || s.ResourceManagerEndpoint() != f.srv.URL {
		t.Errorf("session: method %s custom %v endpoint %s", s.Method, s.CustomCloud, s.ResourceManagerEndpoint())
	}
	if s.Cloud.ActiveDirectoryAuthorityHost != f.srv.URL+"/login/" {
		t.Errorf("authority = %s", s.Cloud.ActiveDirectoryAuthorityHost)
	}
	if f.metaCalls.Load() != 2 {
		t.Errorf("metadata calls = %d, want a retry after the 503", f.metaCalls.Load())
	}
	resp, err := armGet(t, s, context.Background(), "/subscriptions/sub")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.armAuth) != 1 || f.armAuth[0] != "Bearer local-access-token" {
		t.Errorf("ARM saw Authorization %v", f.armAuth)
	}
	if len(f.tokenForms) != 1 {
		t.Fatalf("token requests = %d", len(f.tokenForms))
	}
	form := f.tokenForms[0]
	if form.Get("client_id") != "app-1" || form.Get("client_secret") != "secret-1" || !strings.HasPrefix(form.Get("scope"), "https://management.local//.default") {
		t.Errorf("token form: client_id=%q scope=%q secret set=%v", form.Get("client_id"), form.Get("scope"), form.Get("client_secret") != "")
	}
	if got, ok := s.Clock.Latest(); !ok || !got.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("clock = %v %v", got, ok)
	}
}

func TestSessionOIDCReadsTokenFileEachTime(t *testing.T) {
	f := newFakeAzure(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("federated-jwt-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(context.Background(), Config{
		SubscriptionID: "sub", TenantID: "tenant-1", ClientID: "app-1", UseOIDC: true, OIDCTokenFilePath: tokenFile, MetadataHost: f.host(),
	}, Options{Transport: f.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != AuthOIDC {
		t.Fatalf("method = %s", s.Method)
	}
	if _, err := s.Token(context.Background(), "https://one/.default"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte("federated-jwt-2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token(context.Background(), "https://two/.default"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tokenForms) != 2 {
		t.Fatalf("token requests = %d", len(f.tokenForms))
	}
	for i, want := range []string{"federated-jwt-1", "federated-jwt-2"} {
		form := f.tokenForms[i]
		if form.Get("client_assertion") != want || form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			t.Errorf("token request %d: assertion %q type %q", i, form.Get("client_assertion"), form.Get("client_assertion_type"))
		}
	}
}

func TestSessionMetadataHostErrors(t *testing.T) {
	f := newFakeAzure(t)
	f.metaFail = 100
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fast := policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, ShouldRetry: ShouldRetry})
	_, err := NewSession(fast, Config{SubscriptionID: "sub", UseCLI: true, MetadataHost: f.host()},
		Options{Transport: f.srv.Client()})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "metadata_host" || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v", err)
	}
	if f.metaCalls.Load() != 3 {
		t.Errorf("metadata calls = %d, want 3 (two retries)", f.metaCalls.Load())
	}
	// an untrusted certificate: the default transport does not trust the
	// test CA, and the failure is not retried
	start := time.Now()
	_, err = NewSession(ctx, Config{SubscriptionID: "sub", UseCLI: true, MetadataHost: f.host()}, Options{})
	if !errors.As(err, &fe) || fe.Field != "metadata_host" || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted: %v", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a certificate error was retried for %v", d)
	}
}

func TestSessionPublicCloud(t *testing.T) {
	s, err := NewSession(context.Background(), Config{SubscriptionID: "sub", UseCLI: true, Environment: "usgovernment"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.CustomCloud || s.Method != AuthCLI || s.ResourceManagerEndpoint() != "https://management.usgovcloudapi.net" {
		t.Errorf("session = %+v", s)
	}
	o := s.ClientOptions()
	if o.Retry.MaxRetries != MaxRetries || o.Retry.ShouldRetry == nil || len(o.PerRetryPolicies) != 3 { // pacer, Date clock, log
		t.Errorf("options: %+v", o.Retry)
	}
}

func TestRetryHonoursRetryAfterAndCancel(t *testing.T) {
	f := newFakeAzure(t)
	var calls atomic.Int32
	f.armHandler = func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/slow"):
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		case n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}
	s := NewTestSession("sub", cloud.Configuration{
		ActiveDirectoryAuthorityHost: f.srv.URL + "/login/",
		Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: f.srv.URL, Audience: "https://management.local/"}},
	}, nil, f.srv.Client())
	cred, _, err := NewCredential(Config{SubscriptionID: "sub", TenantID: "t", ClientID: "c", ClientSecret: "s"}, s.credentialOptions(), true)
	if err != nil {
		t.Fatal(err)
	}
	s.Credential = cred

	start := time.Now()
	resp, err := armGet(t, s, context.Background(), "/fast")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); resp.StatusCode != 200 || calls.Load() != 2 || d < 900*time.Millisecond {
		t.Errorf("status %d after %d calls in %v: Retry-After: 1 not honoured", resp.StatusCode, calls.Load(), d)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	start = time.Now()
	_, err = armGet(t, s, ctx, "/slow")
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("cancel: err %v after %v", err, time.Since(start))
	}
}

func TestShouldRetry(t *testing.T) {
	status := func(code int) *http.Response { return &http.Response{StatusCode: code} }
	for _, code := range []int{408, 429, 500, 502, 503, 504} {
		if !ShouldRetry(status(code), nil) {
			t.Errorf("%d not retried", code)
		}
	}
	for _, code := range []int{200, 400, 401, 403, 404, 409, 412} {
		if ShouldRetry(status(code), nil) {
			t.Errorf("%d retried", code)
		}
	}
	if !ShouldRetry(nil, fmt.Errorf("read tcp: %w", syscall.ECONNRESET)) {
		t.Error("connection reset not retried")
	}
	if ShouldRetry(nil, fmt.Errorf("Get: %w", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}})) {
		t.Error("certificate error retried")
	}
	if ShouldRetry(nil, x509.HostnameError{Host: "x"}) {
		t.Error("hostname error retried")
	}
}

func TestFetchCloudRefusedIsFinal(t *testing.T) {
	f := newFakeAzure(t)
	host := f.host()
	f.srv.Close()
	start := time.Now()
	_, err := FetchCloud(context.Background(), host, "", nil)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a refused connection was retried for %v", d)
	}
}
