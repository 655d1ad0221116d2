package emulator

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1" //nolint:gosec // x5t is a SHA-1 thumbprint by definition (RFC 7515 §4.1.7)
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Sign-in without a secret, as CI systems and AKS do it:
//
//   - an OIDC issuer of the emulator's own stands for GitHub Actions, Azure
//     DevOps and AKS's service-account issuer: GET <base>/_oidc/github/token
//     (ACTIONS_ID_TOKEN_REQUEST_URL, bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN)
//     answers {"value": <jwt>}, POST <base>/_oidc/ado/oidctoken
//     (SYSTEM_OIDCREQUESTURI, bearer SYSTEM_ACCESSTOKEN, ?serviceConnectionId=)
//     answers {"oidcToken": <jwt>};
//   - the token endpoint takes such a token as client_assertion for the
//     federated client (Entra's workload identity federation), or an
//     assertion signed with the certificate of the certificate client
//     (x5t / x5t#S256 header, audience the token endpoint), verifying
//     signature, audience and time range.
//
// Access tokens for these clients live ShortTokenLifetime (default 2
// minutes): under azcore's 5-minute refresh margin, so a client gets a fresh
// one, and with it a fresh assertion, for every request, which is what a
// long wait needs and what a test can count.

// FederatedAudience is the audience Entra wants in federated tokens.
const FederatedAudience = "api://AzureADTokenExchange"

const (
	defaultShortTokenLifetime     = 2 * time.Minute
	defaultFederatedTokenLifetime = 10 * time.Minute
	jwtBearer                     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

type identity struct {
	key    *rsa.PrivateKey
	kid    string
	cert   *x509.Certificate
	mu     sync.Mutex
	counts map[string]int
}

func newIdentity(cfg Config) (*identity, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	id := &identity{key: key, kid: newUUID(), counts: map[string]int{}}
	if len(cfg.ClientCertificate) != 0 {
		b, _ := pem.Decode(cfg.ClientCertificate)
		if b == nil || b.Type != "CERTIFICATE" {
			return nil, errors.New("ClientCertificate holds no PEM certificate")
		}
		if id.cert, err = x509.ParseCertificate(b.Bytes); err != nil {
			return nil, fmt.Errorf("ClientCertificate: %w", err)
		}
	}
	return id, nil
}

func (id *identity) count(what string) {
	id.mu.Lock()
	id.counts[what]++
	id.mu.Unlock()
}

// IdentityCounts reports how many requests each sign-in endpoint answered:
// oidc_github, oidc_ado (federated tokens handed out), token_client_secret,
// token_federated, token_certificate (access tokens issued), and
// rejected_assertion, rejected_oidc_request; and how many ARM requests were
// refused for their bearer token: rejected_expired_token,
// rejected_invalid_token.
func (s *Server) IdentityCounts() map[string]int {
	s.identity.mu.Lock()
	defer s.identity.mu.Unlock()
	out := make(map[string]int, len(s.identity.counts))
	for k, v := range s.identity.counts {
		out[k] = v
	}
	return out
}

func (s *Server) federatedClient(id string) bool {
	return s.cfg.FederatedClientID != "" && id == s.cfg.FederatedClientID
}

func (s *Server) certificateClient(id string) bool {
	return s.cfg.CertificateClientID != "" && s.identity.cert != nil && id == s.cfg.CertificateClientID
}

func (s *Server) shortLifetime() time.Duration {
	if s.cfg.ShortTokenLifetime > 0 {
		return s.cfg.ShortTokenLifetime
	}
	return defaultShortTokenLifetime
}

// Issuer is the iss of the federated tokens the emulator signs.
func (s *Server) Issuer() string { return s.URL() + "/_oidc" }

// FederatedToken signs a federated token for subject, as GitHub Actions,
// Azure DevOps or AKS's service-account issuer would.
func (s *Server) FederatedToken(subject string) (string, error) {
	life := s.cfg.FederatedTokenLifetime
	if life <= 0 {
		life = defaultFederatedTokenLifetime
	}
	now := s.tokens.now()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": s.Issuer(),
		"sub": subject,
		"aud": FederatedAudience,
		"iat": now.Unix(),
		"nbf": now.Add(-time.Minute).Unix(),
		"exp": now.Add(life).Unix(),
		"jti": newUUID(),
	})
	t.Header["kid"] = s.identity.kid
	return t.SignedString(s.identity.key)
}

// serveOIDC answers the CI systems' OIDC request endpoints; false for any
// other path.
func (s *Server) serveOIDC(w http.ResponseWriter, r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	var (
		kind, subject string
		answer        func(string) any
	)
	switch {
	case p == "/_oidc/github/token" && r.Method == http.MethodGet:
		kind, subject = "oidc_github", "repo:fleetops/terraform-provider-fleet:ref:refs/heads/main"
		if aud := r.URL.Query().Get("audience"); aud != FederatedAudience {
			s.identity.count("rejected_oidc_request")
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": fmt.Sprintf("audience %q: this issuer signs tokens for %s only", aud, FederatedAudience)})
			return true
		}
		answer = func(tok string) any { return map[string]any{"count": 1, "value": tok} }
	case p == "/_oidc/ado/oidctoken" && r.Method == http.MethodPost:
		kind = "oidc_ado"
		sc := r.URL.Query().Get("serviceConnectionId")
		if s.cfg.ADOServiceConnectionID == "" || !strings.EqualFold(sc, s.cfg.ADOServiceConnectionID) {
			s.identity.count("rejected_oidc_request")
			writeJSON(w, http.StatusNotFound, map[string]any{"message": fmt.Sprintf("service connection %q not found", sc)})
			return true
		}
		subject = "sc://fleetops/terraform-provider-fleet/" + sc
		answer = func(tok string) any { return map[string]any{"oidcToken": tok} }
	default:
		return false
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if s.cfg.OIDCRequestToken == "" || !strings.EqualFold(scheme, "Bearer") ||
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.cfg.OIDCRequestToken)) != 1 {
		s.identity.count("rejected_oidc_request")
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "the OIDC request token is missing or wrong"})
		return true
	}
	jwtTok, err := s.FederatedToken(subject)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return true
	}
	s.identity.count(kind)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, answer(jwtTok))
	return true
}

type aadError struct {
	status      int
	code        string
	aadsts      int
	description string
}

func invalidAssertion(aadsts int, format string, args ...any) *aadError {
	return &aadError{status: http.StatusUnauthorized, code: "invalid_client", aadsts: aadsts, description: fmt.Sprintf(format, args...)}
}

// checkAssertion verifies a client_assertion and returns the lifetime of
// the access token to issue.
func (s *Server) checkAssertion(r *http.Request, tenant string, f map[string][]string) (time.Duration, *aadError) {
	get := func(k string) string {
		if v := f[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	client := get("client_id")
	if get("client_assertion_type") != jwtBearer {
		return 0, &aadError{status: http.StatusBadRequest, code: "invalid_request", aadsts: 50027,
			description: fmt.Sprintf("client_assertion_type must be %s.", jwtBearer)}
	}
	if get("client_assertion") == "" {
		return 0, &aadError{status: http.StatusBadRequest, code: "invalid_request", aadsts: 50027, description: "client_assertion is empty."}
	}
	federated := s.federatedClient(client)
	certificate := s.certificateClient(client)
	tokenEndpoint := baseURL(r) + "/" + tenant + "/oauth2/v2.0/token"
	var kind string
	parsed, err := jwt.Parse(get("client_assertion"), func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		switch {
		case kid == s.identity.kid:
			if !federated {
				return nil, fmt.Errorf("application '%s' has no federated identity credential for issuer %s", client, s.Issuer())
			}
			kind = "federated"
			return &s.identity.key.PublicKey, nil
		case t.Header["x5t#S256"] != nil || t.Header["x5t"] != nil:
			if !certificate {
				return nil, fmt.Errorf("application '%s' has no certificate credential", client)
			}
			sum256 := sha256.Sum256(s.identity.cert.Raw)
			sum1 := sha1.Sum(s.identity.cert.Raw) //nolint:gosec // thumbprint, not a signature
			if !thumbprintIs(t.Header["x5t#S256"], sum256[:]) && !thumbprintIs(t.Header["x5t"], sum1[:]) {
				return nil, fmt.Errorf("the assertion's certificate thumbprint is not registered for application '%s'", client)
			}
			kind = "certificate"
			return s.identity.cert.PublicKey, nil
		}
		return nil, errors.New("the assertion names no key (kid) or certificate (x5t) this directory knows")
	}, jwt.WithValidMethods([]string{"RS256", "PS256"}), jwt.WithTimeFunc(s.tokens.now), jwt.WithExpirationRequired(), jwt.WithLeeway(0))
	if err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) || errors.Is(err, jwt.ErrTokenNotValidYet) {
			return 0, invalidAssertion(700024, "Client assertion is not within its valid time range. Current time: %s.", s.tokens.now().UTC().Format(time.RFC3339))
		}
		return 0, invalidAssertion(700027, "Client assertion failed signature validation: %v", err)
	}
	claims, _ := parsed.Claims.(jwt.MapClaims)
	auds, _ := claims.GetAudience()
	iss, _ := claims.GetIssuer()
	sub, _ := claims.GetSubject()
	switch kind {
	case "federated":
		if iss != s.Issuer() || !contains(auds, FederatedAudience) {
			return 0, invalidAssertion(700211, "No matching federated identity record found for presented assertion issuer '%s' and audience %v.", iss, auds)
		}
		s.identity.count("token_federated")
	case "certificate":
		if !containsFold(auds, tokenEndpoint) || iss != client || sub != client {
			return 0, invalidAssertion(700021, "Client assertion audience claim does not match the token endpoint, or its issuer and subject are not the client.")
		}
		s.identity.count("token_certificate")
	}
	return s.shortLifetime(), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// serveIdentityAdmin answers GET /_emulator/identity with the counts and the
// client-secret flow's token lifetime; PATCH {"tokenLifetime": "4s"} sets
// that lifetime ("" or "0s": the default).
func (s *Server) serveIdentityAdmin(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodPatch:
		var body struct {
			TokenLifetime string `json:"tokenLifetime"`
		}
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "identity: %v", err))
			return
		}
		var d time.Duration
		if body.TokenLifetime != "" {
			var err error
			if d, err = time.ParseDuration(body.TokenLifetime); err != nil {
				writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "identity: tokenLifetime: %v", err))
				return
			}
		}
		if err := s.SetTokenLifetime(d); err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "identity: %v", err))
			return
		}
	default:
		w.Header().Set("Allow", "GET, PATCH")
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "/_emulator/identity supports GET and PATCH"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"counts": s.IdentityCounts(), "issuer": s.Issuer(), "tokenLifetime": s.tokens.secretLifetime().String()})
}

// thumbprintIs compares a JWT thumbprint header with sum: base64url as
// RFC 7515 says, or standard base64 as MSAL sends it.
func thumbprintIs(h any, sum []byte) bool {
	v, ok := h.(string)
	if !ok || v == "" {
		return false
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(v); err == nil && subtle.ConstantTimeCompare(b, sum) == 1 {
			return true
		}
	}
	return false
}
