package emulator_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

const (
	tenantID     = "11111111-2222-3333-4444-555555555555"
	clientID     = "66666666-7777-8888-9999-000000000000"
	clientSecret = "s3cret-value"
	quickstart   = "../../../examples/quickstart/fleet.yaml"
)

var (
	hubKubeconfig    = []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: hub\n  cluster:\n    server: https://127.0.0.1:6443\n")
	canaryKubeconfig = []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: canary-east\n  cluster:\n    server: https://127.0.0.1:7443\n")
)

// fixture is a started emulator serving the quickstart fleet on a clock
// whose real time the test moves, and real Azure clients pointed at it.
type fixture struct {
	srv   *emulator.Server
	file  *fleetfile.File
	real  *simclock.Manual
	clock *simclock.Clock
	log   *requestLog
	// opts are the azcore client options every client of the test uses.
	opts azcore.ClientOptions
	cred azcore.TokenCredential
	arm  *arm.Client
	sub  string
	rg   string
}

type logLine struct {
	at   time.Time
	line string
}

type requestLog struct {
	mu    sync.Mutex
	lines []logLine
}

func (l *requestLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, logLine{time.Now(), fmt.Sprintf(format, args...)})
}

// matching returns the logged lines that contain all of parts.
func (l *requestLog) matching(parts ...string) []logLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logLine
next:
	for _, ln := range l.lines {
		for _, p := range parts {
			if !strings.Contains(ln.line, p) {
				continue next
			}
		}
		out = append(out, ln)
	}
	return out
}

func newFixture(t *testing.T, configure ...func(*emulator.Config)) *fixture {
	t.Helper()
	f, err := fleetfile.Load(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	wall := simclock.NewManual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	clock := simclock.New(f.Clock.Start, f.Clock.Speed, wall.Now)
	log := &requestLog{}
	cfg := emulator.Config{
		File: f, Clock: clock,
		TenantID: tenantID, ClientID: clientID, ClientSecret: clientSecret,
		HubKubeconfig:     hubKubeconfig,
		MemberKubeconfigs: map[string][]byte{"canary-east": canaryKubeconfig},
		Logf:              log.logf,
	}
	for _, c := range configure {
		c(&cfg)
	}
	srv, err := emulator.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	fx := &fixture{srv: srv, file: f, real: wall, clock: clock, log: log, sub: f.Fleet.SubscriptionID, rg: f.Fleet.ResourceGroup}
	fx.opts = fx.clientOptions(t, true)
	fx.cred = fx.credential(t, clientSecret)
	fx.arm, err = arm.NewClient("localfleet-emulator-test", "v0.0.0", fx.cred, &arm.ClientOptions{ClientOptions: fx.opts})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// httpClient trusts only the emulator's CA.
func (fx *fixture) httpClient(t *testing.T, http2 bool) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(fx.srv.CACertPEM()) {
		t.Fatal("CACertPEM is not a PEM certificate")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: http2}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// clientOptions point azcore at the emulator as a custom cloud, with quick
// retries that still honour a Retry-After of a second or two.
func (fx *fixture) clientOptions(t *testing.T, http2 bool) azcore.ClientOptions {
	url := fx.srv.URL()
	return azcore.ClientOptions{
		Cloud: cloud.Configuration{
			ActiveDirectoryAuthorityHost: url + "/",
			Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: url, Audience: url + "/"}},
		},
		Transport: fx.httpClient(t, http2),
		Retry:     policy.RetryOptions{MaxRetries: 3, RetryDelay: 10 * time.Millisecond, MaxRetryDelay: 5 * time.Second},
	}
}

func (fx *fixture) credential(t *testing.T, secret string) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(tenantID, clientID, secret, &azidentity.ClientSecretCredentialOptions{
		ClientOptions: fx.opts, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func (fx *fixture) armOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: fx.opts}
}

func (fx *fixture) fleetPath(rest string) string {
	return "/subscriptions/" + fx.sub + "/resourceGroups/" + fx.rg + "/providers/Microsoft.ContainerService/fleets/" + fx.file.Fleet.Name + rest
}

// do sends a request through the azcore ARM pipeline (bearer token, retry
// policy) and returns the response with its body read.
func (fx *fixture) do(t *testing.T, method, pathAndQuery string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := runtime.NewRequest(ctx, method, fx.arm.Endpoint()+pathAndQuery)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := fx.arm.Pipeline().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, pathAndQuery, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// getFleetAPI is a GET with the Fleet API's api-version, expecting 200 and
// decoding the body into v.
func (fx *fixture) getFleetAPI(t *testing.T, path string, v any) *http.Response {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	resp, b := fx.do(t, http.MethodGet, path+sep+"api-version="+fleetapi.APIVersion)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: decoding %s: %v", path, b, err)
	}
	return resp
}

// armError decodes an ARM error body, failing the test when it is not one.
func armError(t *testing.T, b []byte) fleetapi.ErrorDetail {
	t.Helper()
	var e fleetapi.ErrorResponse
	if err := json.Unmarshal(b, &e); err != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an ARM error {\"error\":{\"code\",\"message\"}}: %s (%v)", b, err)
	}
	return *e.Error
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}
