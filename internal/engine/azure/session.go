package azure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/httplog"
)

// ApplicationID goes into every request's User-Agent (azcore allows 24
// characters, no spaces).
const ApplicationID = "terraform-provider-fleet"

const (
	telemetryModule = "fleet"
	moduleSemver    = "0.0.0"
)

// Retry settings of every ARM pipeline. azcore's retry policy retries
// connection errors (resets included; see ShouldRetry) and the status codes
// 408, 429, 500, 502, 503 and 504 (its defaults, kept), waits as long as Retry-After /
// x-ms-retry-after-ms / retry-after-ms say (up to MaxRetryDelay; a longer
// Retry-After returns the response instead) or else backs off
// exponentially from RetryDelay, and stops waiting as soon as the request's
// context is done.
const (
	MaxRetries    = 5
	RetryDelay    = 1 * time.Second
	MaxRetryDelay = 2 * time.Minute
)

// RetryStatusCodes are azcore's default retriable statuses.
var RetryStatusCodes = []int{
	http.StatusRequestTimeout,      // 408
	http.StatusTooManyRequests,     // 429
	http.StatusInternalServerError, // 500
	http.StatusBadGateway,          // 502
	http.StatusServiceUnavailable,  // 503
	http.StatusGatewayTimeout,      // 504
}

func retryOptions() policy.RetryOptions {
	return policy.RetryOptions{MaxRetries: MaxRetries, RetryDelay: RetryDelay, MaxRetryDelay: MaxRetryDelay, ShouldRetry: ShouldRetry}
}

// ShouldRetry is azcore's own rule (a connection error or a status of
// RetryStatusCodes) except that a TLS verification failure is final: a
// wrong CA (SSL_CERT_FILE) does not fix itself, so the user hears about it at
// once instead of after a minute of back-off.
func ShouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		var (
			verr *tls.CertificateVerificationError
			uerr x509.UnknownAuthorityError
			herr x509.HostnameError
			ierr x509.CertificateInvalidError
		)
		return !errors.As(err, &verr) && !errors.As(err, &uerr) && !errors.As(err, &herr) && !errors.As(err, &ierr)
	}
	return runtime.HasStatusCode(resp, RetryStatusCodes...)
}

// Options are the non-configuration inputs of a Session.
type Options struct {
	// Transport replaces azcore's default HTTP transport (tests). nil: the
	// default, which verifies TLS with the system roots (SSL_CERT_FILE).
	Transport policy.Transporter
	// ProviderVersion labels the User-Agent ("0.1.0", "dev", ...).
	ProviderVersion string
}

// Session is everything an ARM client needs, built once per provider
// configuration and shared by the Fleet API and AKS clients.
type Session struct {
	SubscriptionID string
	Cloud          cloud.Configuration
	// CustomCloud is true when Cloud was read from a metadata host.
	CustomCloud bool
	Credential  azcore.TokenCredential
	Method      AuthMethod
	// Clock holds the Date of the latest ARM response.
	Clock *DateClock
	// Pacer paces the session's ARM reads (pacing.go).
	Pacer *Pacer

	transport     policy.Transporter
	moduleVersion string
}

// NewSession resolves the cloud (fetching the metadata document of a
// custom cloud), builds the credential and the shared pipeline options.
// Configuration errors are *FieldError.
func NewSession(ctx context.Context, c Config, o Options) (*Session, error) {
	if err := CheckConfig(c); err != nil {
		return nil, err
	}
	var (
		cl     cloud.Configuration
		custom bool
		err    error
	)
	if c.MetadataHost != "" {
		env, _ := NormalizeEnvironment(c.Environment)
		cl, err = FetchCloud(ctx, c.MetadataHost, env, o.Transport)
		if err != nil {
			return nil, &FieldError{Field: "metadata_host", Summary: "Cannot read the Azure metadata host",
				Detail: "The cloud's endpoints could not be read from its metadata host: " + err.Error(), Err: err}
		}
		custom = true
	} else {
		cl, err = CloudForEnvironment(c.Environment)
		if err != nil {
			return nil, &FieldError{Field: "environment", Summary: "Invalid Azure environment", Detail: err.Error(), Err: err}
		}
	}
	s := &Session{
		SubscriptionID: c.SubscriptionID,
		Cloud:          cl,
		CustomCloud:    custom,
		Clock:          &DateClock{},
		Pacer:          NewPacer(),
		transport:      o.Transport,
		moduleVersion:  ModuleVersion(o.ProviderVersion),
	}
	cred, m, err := NewCredential(c, s.credentialOptions(), custom)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, &FieldError{Field: "client_id", Summary: "Cannot build the Azure credential", Detail: err.Error(), Err: err}
	}
	s.Credential = cred
	s.Method = m
	return s, nil
}

// NewTestSession wraps an existing credential (a test's) in a Session for
// the given cloud; the pipeline is the one NewSession builds.
func NewTestSession(subscriptionID string, cl cloud.Configuration, cred azcore.TokenCredential, transport policy.Transporter) *Session {
	return &Session{
		SubscriptionID: subscriptionID,
		Cloud:          cl,
		CustomCloud:    true,
		Credential:     cred,
		Clock:          &DateClock{},
		Pacer:          NewPacer(),
		transport:      transport,
		moduleVersion:  ModuleVersion(""),
	}
}

// ModuleVersion turns the provider's version into the "vX.Y.Z" azcore's
// telemetry wants ("dev", "test" and other non-semver become v0.0.0).
func ModuleVersion(v string) string {
	if v != "" && v[0] != 'v' {
		v = "v" + v
	}
	if semver.MatchString(v) {
		return v
	}
	return "v" + moduleSemver
}

var semver = regexp.MustCompile(`^v\d+\.\d+\.\d+(?:-[a-zA-Z0-9_.-]+)?$`)

// ClientOptions are the options of every ARM client of the session: the
// cloud, azcore's retry policy with the settings above, the read pacer
// (which retries 429s itself) and the Date recorder. Each call returns a fresh copy.
func (s *Session) ClientOptions() *arm.ClientOptions {
	return &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud:            copyCloud(s.Cloud),
			Transport:        s.transport,
			Retry:            retryOptions(),
			Telemetry:        policy.TelemetryOptions{ApplicationID: ApplicationID},
			PerRetryPolicies: []policy.Policy{s.Pacer.Policy(), s.Clock.Policy(), LogPolicy()},
		},
	}
}

// credentialOptions are the pipeline options of the credential's own
// requests (the token endpoint): same cloud, transport and retries.
func (s *Session) credentialOptions() azcore.ClientOptions {
	return azcore.ClientOptions{
		Cloud:            copyCloud(s.Cloud),
		Transport:        s.transport,
		Retry:            retryOptions(),
		Telemetry:        policy.TelemetryOptions{ApplicationID: ApplicationID},
		PerRetryPolicies: []policy.Policy{LogPolicy()},
	}
}

// ModuleVersion is the version the session's clients report to azcore.
func (s *Session) ModuleVersion() string { return s.moduleVersion }

// ResourceManagerEndpoint is the ARM base URL of the session's cloud.
func (s *Session) ResourceManagerEndpoint() string {
	return s.Cloud.Services[cloud.ResourceManager].Endpoint
}

// Token gets an access token for scope with the session's credential (for
// AKS clusters whose kubeconfig wants kubelogin).
func (s *Session) Token(ctx context.Context, scope string) (string, error) {
	tok, err := s.Credential.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{scope}})
	if err != nil {
		return "", err
	}
	return tok.Token, nil
}

// DateClock records the Date header of the latest ARM response so previews
// are computed at the Fleet API's clock (the emulator runs a simulated one).
type DateClock struct {
	mu     sync.Mutex
	latest time.Time
}

// Policy returns the pipeline policy that feeds the clock. It is placed per
// retry, so every response seen, retried or not, moves the clock.
func (c *DateClock) Policy() policy.Policy { return datePolicy{c} }

// Observe records a Date header value; unparseable values are ignored, and
// the clock never moves back.
func (c *DateClock) Observe(date string) {
	if date == "" {
		return
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return
	}
	c.mu.Lock()
	if t.After(c.latest) {
		c.latest = t.UTC()
	}
	c.mu.Unlock()
}

// Latest returns the Date of the latest response, and false before any.
func (c *DateClock) Latest() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest, !c.latest.IsZero()
}

// Now is the API's current time as of its latest response; before any
// response it falls back to fallback (the provider's clock).
func (c *DateClock) Now(fallback func() time.Time) time.Time {
	if t, ok := c.Latest(); ok {
		return t
	}
	if fallback == nil {
		return time.Now().UTC()
	}
	return fallback().UTC()
}

type datePolicy struct{ c *DateClock }

func (p datePolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp != nil {
		p.c.Observe(resp.Header.Get("Date"))
	}
	return resp, err
}

// LogPolicy logs every ARM, token-endpoint and OIDC request (httplog,
// subsystem "arm"). It runs per retry, so each attempt is a line.
func LogPolicy() policy.Policy { return logPolicy{trace: httplog.TraceEnabled()} }

type logPolicy struct{ trace bool }

func (p logPolicy) Do(req *policy.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := req.Next()
	raw := req.Raw()
	httplog.Request(raw.Context(), httplog.ARM, raw, resp, err, time.Since(start), httplog.ResponseBody(p.trace, raw, resp))
	return resp, err
}
