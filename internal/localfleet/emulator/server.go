// Package emulator is the local fleet's Fleet API: an HTTPS server on
// loopback that answers the Azure Resource Manager API of
// Microsoft.ContainerService/fleets (api-versions 2026-06-01 and
// 2026-11-01-preview, apiversions.go) and the
// managedClusters and locations calls the provider makes, plus the Entra ID
// token endpoints azidentity's client-secret flow calls and ARM's
// metadata/endpoints for custom-cloud discovery (SPEC §6). The provider
// reaches it through its ordinary Azure code path.
//
// Time is simulated (simclock): every ARM response's Date header is the
// simulated time, which fleet previews are computed at.
package emulator

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// Config describes the fleet the emulator serves and the one client
// identity it accepts.
type Config struct {
	File  *fleetfile.File
	Clock *simclock.Clock // default: the file's clock, driven by real time
	// TenantID, ClientID and ClientSecret are the service principal the
	// token endpoint accepts.
	TenantID, ClientID, ClientSecret string
	// FederatedClientID is an application that trusts the emulator's OIDC
	// issuer (workload identity federation): the GitHub Actions and Azure
	// DevOps OIDC request endpoints, which want OIDCRequestToken as bearer
	// (and ADOServiceConnectionID), and tokens from FederatedToken (an AKS
	// workload identity's token file).
	FederatedClientID      string
	OIDCRequestToken       string
	ADOServiceConnectionID string
	// CertificateClientID authenticates with ClientCertificate (PEM).
	CertificateClientID string
	ClientCertificate   []byte
	// ShortTokenLifetime is the lifetime of the access tokens of the
	// federated and certificate clients (default 2 minutes);
	// FederatedTokenLifetime that of federated tokens (default 10 minutes).
	ShortTokenLifetime     time.Duration
	FederatedTokenLifetime time.Duration
	// IdentityNow is the clock of token expiry and assertion validity
	// (default: real time, which clients judge expiry by).
	IdentityNow func() time.Time
	// HubKubeconfig is served by fleets/listCredentials.
	HubKubeconfig []byte
	// MemberKubeconfigs maps a member name to its kubeconfig, served by
	// managedClusters/listClusterUserCredential. Members without one are
	// simulated and have no API server.
	MemberKubeconfigs map[string][]byte
	// HubKubernetesVersion is the fleet's hubProfile.kubernetesVersion;
	// default: the newest GA version of the fleet's region.
	HubKubernetesVersion string
	// RetryAfterSeconds, when set, is the Retry-After of long-running
	// operations' answers (0 sends none: clients poll at their own pace and
	// wait for nothing on operations that are done at once); default the
	// fleet file's fleetAPI.retryAfterSeconds, else DefaultRetryAfterSeconds.
	RetryAfterSeconds *int
	// Members, when set, makes the hub follow members that join, change or
	// leave through the Fleet API (the local fleet's member agents).
	Members MemberHooks
	// Namespaces, when set, makes the hub follow the managed namespaces
	// written and deleted through the Fleet API (the local fleet's hub and
	// its real hub agent); nil keeps them as records only.
	Namespaces NamespaceHooks
	// MeterNow is the clock ARM read buckets refill by (default real time;
	// tests inject one). Reads are metered when the fleet file has
	// fleetAPI.readLimits.
	MeterNow func() time.Time
	// Addr is the listen address; default "127.0.0.1:0".
	Addr string
	// Logf, when set, receives one line per request (method, path, status,
	// duration; never headers or bodies, so never credentials).
	Logf func(format string, args ...any)
}

// Server is the Fleet API emulator.
type Server struct {
	cfg      Config
	tls      *serverTLS
	world    *world
	tokens   *tokens
	identity *identity
	faults   *faults
	router   *router
	runner   *runner
	bodies   bodyChecks
	meter    *meter // nil: reads are not metered
	graph    *graphQuota

	mu  sync.Mutex
	ln  net.Listener
	srv *http.Server
	url string
}

// New checks cfg and prepares a server with a fresh CA and certificate.
func New(cfg Config) (*Server, error) {
	if cfg.File == nil {
		return nil, errors.New("emulator: Config.File is required")
	}
	if cfg.TenantID == "" || cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("emulator: TenantID, ClientID and ClientSecret are required")
	}
	for name := range cfg.MemberKubeconfigs {
		if _, ok := cfg.File.Member(name); !ok {
			return nil, fmt.Errorf("emulator: MemberKubeconfigs has %q, which is not a member of the fleet file", name)
		}
	}
	if cfg.Clock == nil {
		cfg.Clock = simclock.New(cfg.File.Clock.Start, cfg.File.Clock.Speed, nil)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	t, err := newServerTLS(time.Now())
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	id, err := newIdentity(cfg)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	s := &Server{
		cfg:      cfg,
		tls:      t,
		world:    newWorld(cfg.File, cfg.Clock, cfg.HubKubeconfig, cfg.HubKubernetesVersion),
		tokens:   newTokens(cfg.IdentityNow),
		identity: id,
		faults:   &faults{},
		router:   &router{},
	}
	s.world.retryAfter = DefaultRetryAfterSeconds
	if v := cfg.File.FleetAPI.RetryAfterSeconds; v != nil {
		s.world.retryAfter = *v
	}
	if v := cfg.RetryAfterSeconds; v != nil {
		if *v < 0 {
			return nil, errors.New("emulator: RetryAfterSeconds must not be negative")
		}
		s.world.retryAfter = *v
	}
	if l := cfg.File.FleetAPI.ReadLimits; l != nil {
		s.meter = newMeter(*l, cfg.MeterNow)
	}
	s.graph = &graphQuota{now: cfg.MeterNow, windows: map[string]*graphWindow{}}
	if s.graph.now == nil {
		s.graph.now = time.Now
	}
	s.registerFleetRoutes()
	s.registerManagedClusterRoutes()
	s.registerVersionRoutes()
	s.registerOperationRoutes()
	s.registerUpdateRoutes()
	s.registerAutoUpgradeRoutes()
	s.registerManagedNamespaceRoutes()
	s.registerCredentialRoutes()
	s.registerResourceGraphRoutes()
	s.runner = newRunner(s)
	return s, nil
}

// Start listens on cfg.Addr and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("emulator: already started")
	}
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	errLog := log.New(io.Discard, "", 0)
	if s.cfg.Logf != nil {
		errLog = log.New(logfWriter(s.cfg.Logf), "", 0)
	}
	s.srv = &http.Server{
		Handler:           s,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.tls.cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          errLog,
	}
	s.ln = ln
	s.url = "https://" + ln.Addr().String()
	srv := s.srv
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	s.runner.start()
	return nil
}

// URL is the server's base address, https://127.0.0.1:PORT; empty before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// CACertPEM is the PEM of the CA that signed the server's certificate.
func (s *Server) CACertPEM() []byte { return append([]byte(nil), s.tls.caPEM...) }

// Close stops the server and closes its connections.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	s.runner.stop()
	err := s.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// ServeHTTP runs a request through the emulator: request log, the admin
// endpoints, fault injection, then metadata, identity or ARM.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	start := time.Now()
	defer func() {
		p := recover()
		if s.cfg.Logf != nil {
			status := fmt.Sprint(rec.status)
			if p != nil || rec.reset {
				status = "reset"
			} else if rec.status == 0 {
				status = "200"
			}
			s.cfg.Logf("%s %s -> %s (%s)", r.Method, r.URL.Path, status, time.Since(start).Round(time.Microsecond))
		}
		if p != nil {
			panic(p)
		}
	}()
	if strings.HasPrefix(r.URL.Path, "/_emulator/") {
		s.serveAdmin(rec, r)
		return
	}
	if rule, ok := s.faults.take(r.Method, r.URL.Path); ok {
		rec.reset = rule.Reset
		s.applyFault(rec, r, rule)
		return
	}
	if strings.EqualFold(strings.TrimSuffix(r.URL.Path, "/"), "/metadata/endpoints") && r.Method == http.MethodGet {
		s.metadataEndpoints(rec, r)
		return
	}
	if s.serveIdentity(rec, r) || s.serveOIDC(rec, r) {
		return
	}
	s.serveARM(rec, r)
}

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_emulator/members/") {
		s.serveMembersAdmin(w, r)
		return
	}
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/_emulator/faults":
		s.serveFaultsAdmin(w, r)
	case "/_emulator/releases":
		s.serveReleasesAdmin(w, r)
	case "/_emulator/identity":
		s.serveIdentityAdmin(w, r)
	case "/_emulator/bodychecks":
		s.serveBodyChecksAdmin(w, r)
	case "/_emulator/metering":
		s.serveMeteringAdmin(w, r)
	default:
		writeARMError(w, armErrorf(http.StatusNotFound, "NotFound", "no emulator endpoint %s", r.URL.Path))
	}
}

// armHeaders sets what every ARM response carries: the simulated Date and
// request IDs.
func (s *Server) armHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Date", s.world.clock.Now().UTC().Format(http.TimeFormat))
	h.Set("x-ms-request-id", newUUID())
	h.Set("x-ms-correlation-request-id", newUUID())
}

func (s *Server) serveARM(w http.ResponseWriter, r *http.Request) {
	s.armHeaders(w)
	if id := r.Header.Get("x-ms-client-request-id"); id != "" {
		w.Header().Set("x-ms-client-request-id", id)
	}
	if err := s.authorize(r); err != nil {
		writeARMError(w, err)
		return
	}
	if !s.meterRead(w, r) {
		return
	}
	rte, p, pathKnown := s.router.match(r.Method, r.URL.Path)
	if rte == nil {
		if pathKnown {
			writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested resource does not support http method '%s'.", r.Method))
			return
		}
		writeARMError(w, armErrorf(http.StatusNotFound, "InvalidResourceType", "The resource path '%s' is not served by the local Fleet API emulator.", r.URL.Path))
		return
	}
	if err := checkAPIVersion(r, rte.versions); err != nil {
		writeARMError(w, err)
		return
	}
	if err := s.checkBody(r, rte); err != nil {
		writeARMError(w, err)
		return
	}
	w, flush := stableView(w, r)
	defer flush()
	if err := rte.handler(w, r, p); err != nil {
		writeARMError(w, err)
	}
}

func checkAPIVersion(r *http.Request, versions apiVersions) error {
	v := r.URL.Query().Get("api-version")
	if v == "" {
		return armErrorf(http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
	}
	if versions == nil {
		return nil
	}
	for _, ok := range versions {
		if v == ok {
			return nil
		}
	}
	return armErrorf(http.StatusBadRequest, "InvalidApiVersion", "The api-version '%s' is invalid. The supported versions are '%s'.", v, strings.Join(versions, ","))
}

// fleetAPI accepts the Fleet API's stable version and its preview
// (apiversions.go: what each shows and accepts).
var fleetAPI = apiVersions{fleetapi.APIVersion, fleetapi.PreviewAPIVersion}

// checkSubscription answers 404 SubscriptionNotFound for any subscription
// but the fleet's.
func (s *Server) checkSubscription(p params) error {
	if !strings.EqualFold(p["subscriptionId"], s.cfg.File.Fleet.SubscriptionID) {
		return armErrorf(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", p["subscriptionId"])
	}
	return nil
}

// checkResourceGroup answers 404 for any subscription or resource group
// but the fleet's (its members' clusters live there too).
func (s *Server) checkResourceGroup(p params) error {
	if err := s.checkSubscription(p); err != nil {
		return err
	}
	if !strings.EqualFold(p["resourceGroupName"], s.cfg.File.Fleet.ResourceGroup) {
		return armErrorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", p["resourceGroupName"])
	}
	return nil
}

// statusRecorder remembers the status a handler wrote, for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	reset  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (Hijack, Flush).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type logfWriter func(format string, args ...any)

func (l logfWriter) Write(b []byte) (int, error) {
	l("%s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
