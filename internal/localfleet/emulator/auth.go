package emulator

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The Microsoft Entra ID (AAD) endpoints that azidentity's flows call:
// tenant discovery, then the v2.0 token endpoint (client secret, client
// certificate or a federated token as client assertion; federation.go).
// Access tokens are opaque; ARM routes accept only tokens issued here.

// tokenLifetime is the client-secret flow's default token lifetime (Entra ID
// issues 60 to 90 minutes); SetTokenLifetime changes it.
const tokenLifetime = time.Hour

// AccessTokenPrefix starts every access token the emulator issues, so a
// test can search logs for any of them.
const AccessTokenPrefix = "lfat_"

type tokens struct {
	mu         sync.Mutex
	issued     map[string]time.Time // token -> real expiry
	principals map[string]string    // token -> client ID, the principal ARM meters reads by
	now        func() time.Time     // real time: clients judge expiry by it
	secretLife time.Duration        // the client-secret flow's lifetime; 0: tokenLifetime
}

func (t *tokens) secretLifetime() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.secretLife > 0 {
		return t.secretLife
	}
	return tokenLifetime
}

// SetTokenLifetime sets the lifetime of the client-secret flow's access
// tokens from now on (0: the default, an hour). Clients refresh a token 5
// minutes before it expires (azcore's BearerTokenPolicy, MSAL's cache), so a
// lifetime under that makes every request sign in again, and one a few
// seconds over it makes a client reuse a token for those seconds.
func (s *Server) SetTokenLifetime(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("token lifetime %s: must not be negative", d)
	}
	if d > 0 && d < 2*time.Second {
		// writeToken answers expires_in one second short of the lifetime.
		return fmt.Errorf("token lifetime %s: must be at least 2s", d)
	}
	s.tokens.mu.Lock()
	s.tokens.secretLife = d
	s.tokens.mu.Unlock()
	return nil
}

func newTokens(now func() time.Time) *tokens {
	if now == nil {
		now = time.Now
	}
	return &tokens{issued: map[string]time.Time{}, now: now}
}

func (t *tokens) issue(principal string, life time.Duration) (string, time.Duration) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	tok := AccessTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	t.issued[tok] = t.now().Add(life)
	if t.principals == nil {
		t.principals = map[string]string{}
	}
	t.principals[tok] = principal
	return tok, life
}

func (t *tokens) valid(tok string) (ok, expired bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	exp, found := t.issued[tok]
	if !found {
		return false, false
	}
	if !t.now().Before(exp) {
		delete(t.issued, tok)
		delete(t.principals, tok)
		return false, true
	}
	return true, false
}

// authorize checks an ARM request's bearer token. The codes are ARM's:
// AuthenticationFailed for a missing header, InvalidAuthenticationToken for
// a token this emulator did not issue or that expired.
func (s *Server) authorize(r *http.Request) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return armErrorf(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
	}
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return armErrorf(http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid: the 'Authorization' header must be 'Bearer <token>'.")
	}
	ok, expired := s.tokens.valid(strings.TrimSpace(tok))
	switch {
	case expired:
		s.identity.count("rejected_expired_token")
		return armErrorf(http.StatusUnauthorized, "ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than current UTC time.")
	case !ok:
		s.identity.count("rejected_invalid_token")
		return armErrorf(http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid: it was not issued by this Fleet API emulator's token endpoint.")
	}
	return nil
}

// serveIdentity answers the Entra ID paths; it reports false for any other path.
func (s *Server) serveIdentity(w http.ResponseWriter, r *http.Request) bool {
	segs := splitPath(r.URL.Path)
	switch {
	case len(segs) == 4 && segs[1] == "v2.0" && segs[2] == ".well-known" && segs[3] == "openid-configuration" && r.Method == http.MethodGet:
		s.openIDConfiguration(w, r, segs[0])
	case len(segs) == 4 && segs[1] == "oauth2" && segs[2] == "v2.0" && segs[3] == "token" && r.Method == http.MethodPost:
		s.token(w, r, segs[0])
	case len(segs) == 3 && segs[1] == "discovery" && segs[2] == "instance" && r.Method == http.MethodGet:
		s.instanceDiscovery(w, r)
	default:
		return false
	}
	return true
}

func (s *Server) knownTenant(tenant string) bool {
	return strings.EqualFold(tenant, s.cfg.TenantID)
}

func (s *Server) openIDConfiguration(w http.ResponseWriter, r *http.Request, tenant string) {
	if !s.knownTenant(tenant) {
		s.writeAADError(w, r, http.StatusBadRequest, "invalid_tenant", 90002,
			fmt.Sprintf("Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant))
		return
	}
	base := baseURL(r) + "/" + tenant
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                base + "/v2.0",
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"token_endpoint":                        base + "/oauth2/v2.0/token",
		"device_authorization_endpoint":         base + "/oauth2/v2.0/devicecode",
		"end_session_endpoint":                  base + "/oauth2/v2.0/logout",
		"jwks_uri":                              baseURL(r) + "/" + tenant + "/discovery/v2.0/keys",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt"},
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"tenant_region_scope":                   "NA",
		"cloud_instance_name":                   r.Host,
	})
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, tenant string) {
	if err := r.ParseForm(); err != nil {
		s.writeAADError(w, r, http.StatusBadRequest, "invalid_request", 900144, "The request body must contain a form-encoded body.")
		return
	}
	f := r.PostForm
	switch {
	case !s.knownTenant(tenant):
		s.writeAADError(w, r, http.StatusBadRequest, "invalid_request", 90002,
			fmt.Sprintf("Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant))
	case f.Get("grant_type") != "client_credentials":
		s.writeAADError(w, r, http.StatusBadRequest, "unsupported_grant_type", 70003,
			fmt.Sprintf("The app requested an unsupported grant type '%s'. The local Fleet API emulator supports client_credentials.", f.Get("grant_type")))
	case f.Get("client_id") != s.cfg.ClientID && !s.federatedClient(f.Get("client_id")) && !s.certificateClient(f.Get("client_id")):
		s.writeAADError(w, r, http.StatusBadRequest, "unauthorized_client", 700016,
			fmt.Sprintf("Application with identifier '%s' was not found in the directory '%s'.", f.Get("client_id"), tenant))
	case !defaultScope(f.Get("scope")):
		s.writeAADError(w, r, http.StatusBadRequest, "invalid_scope", 1002012,
			fmt.Sprintf("The provided value for scope %s is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", f.Get("scope")))
	case f.Get("client_assertion") != "" || f.Get("client_assertion_type") != "":
		life, aerr := s.checkAssertion(r, tenant, f)
		if aerr != nil {
			s.identity.count("rejected_assertion")
			s.writeAADError(w, r, aerr.status, aerr.code, aerr.aadsts, aerr.description)
			return
		}
		s.writeToken(w, f.Get("client_id"), life)
	case f.Get("client_id") != s.cfg.ClientID:
		s.writeAADError(w, r, http.StatusUnauthorized, "invalid_client", 700027,
			fmt.Sprintf("Application '%s' authenticates with a certificate or a federated token: a client_assertion is required.", f.Get("client_id")))
	case f.Get("client_secret") == "":
		s.writeAADError(w, r, http.StatusUnauthorized, "invalid_client", 7000216,
			"'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.")
	case subtle.ConstantTimeCompare([]byte(f.Get("client_secret")), []byte(s.cfg.ClientSecret)) != 1:
		s.writeAADError(w, r, http.StatusUnauthorized, "invalid_client", 7000215,
			fmt.Sprintf("Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", s.cfg.ClientID))
	default:
		s.identity.count("token_client_secret")
		s.writeToken(w, f.Get("client_id"), s.tokens.secretLifetime())
	}
}

// principal is the client a request's bearer token was issued to ("" if none).
func (t *tokens) principal(r *http.Request) string {
	_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.principals[strings.TrimSpace(tok)]
}

func (s *Server) writeToken(w http.ResponseWriter, principal string, life time.Duration) {
	tok, life := s.tokens.issue(principal, life)
	w.Header().Set("Cache-Control", "no-store, no-cache")
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type":     "Bearer",
		"expires_in":     int(life.Seconds()) - 1,
		"ext_expires_in": int(life.Seconds()) - 1,
		"access_token":   tok,
	})
}

// instanceDiscovery answers MSAL's instance discovery, for clients that do
// not disable it: this host is its own only alias.
func (s *Server) instanceDiscovery(w http.ResponseWriter, r *http.Request) {
	tenant := s.cfg.TenantID
	if u := r.URL.Query().Get("authorization_endpoint"); u != "" {
		if segs := splitPath(strings.TrimPrefix(u, baseURL(r))); len(segs) > 0 {
			tenant = segs[0]
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_discovery_endpoint": baseURL(r) + "/" + tenant + "/v2.0/.well-known/openid-configuration",
		"api-version":               "1.1",
		"metadata": []map[string]any{{
			"preferred_network": r.Host,
			"preferred_cache":   r.Host,
			"aliases":           []string{r.Host},
		}},
	})
}

// writeAADError answers in Entra ID's error shape.
func (s *Server) writeAADError(w http.ResponseWriter, r *http.Request, status int, code string, aadsts int, description string) {
	trace, corr := newUUID(), newUUID()
	now := time.Now().UTC().Format("2006-01-02 15:04:05Z")
	writeJSON(w, status, map[string]any{
		"error": code,
		"error_description": fmt.Sprintf("AADSTS%d: %s Trace ID: %s Correlation ID: %s Timestamp: %s",
			aadsts, description, trace, corr, now),
		"error_codes":    []int{aadsts},
		"timestamp":      now,
		"trace_id":       trace,
		"correlation_id": corr,
		"error_uri":      fmt.Sprintf("%s/error?code=%d", baseURL(r), aadsts),
	})
}

// defaultScope reports whether a client-credentials scope names one
// resource's "/.default" scope; MSAL adds the OpenID scopes, which Entra ID
// ignores for this grant.
func defaultScope(scope string) bool {
	var resources []string
	for _, sc := range strings.Fields(scope) {
		switch sc {
		case "openid", "offline_access", "profile", "email":
		default:
			resources = append(resources, sc)
		}
	}
	return len(resources) == 1 && strings.HasSuffix(resources[0], "/.default")
}
