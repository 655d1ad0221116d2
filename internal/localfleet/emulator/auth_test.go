package emulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

func TestClientSecretCredentialGetsAToken(t *testing.T) {
	fx := newFixture(t)
	tok, err := fx.cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fx.srv.URL() + "//.default"}})
	if err != nil {
		t.Fatalf("GetToken: %v", err)
	}
	if tok.Token == "" || time.Until(tok.ExpiresOn) < 30*time.Minute {
		t.Fatalf("token %q expiring %v", tok.Token, tok.ExpiresOn)
	}
	if n := len(fx.log.matching("GET /" + tenantID + "/v2.0/.well-known/openid-configuration -> 200")); n != 1 {
		t.Errorf("tenant discovery called %d times, want 1", n)
	}
	if n := len(fx.log.matching("POST /" + tenantID + "/oauth2/v2.0/token -> 200")); n != 1 {
		t.Errorf("token endpoint called %d times, want 1", n)
	}
}

func TestWrongSecretIsAnAADError(t *testing.T) {
	fx := newFixture(t)
	cred := fx.credential(t, "not-the-secret")
	_, err := cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fx.srv.URL() + "//.default"}})
	var afe *azidentity.AuthenticationFailedError
	if !errors.As(err, &afe) {
		t.Fatalf("GetToken with a wrong secret: %v (%T), want *azidentity.AuthenticationFailedError", err, err)
	}
	if afe.RawResponse == nil || afe.RawResponse.StatusCode != http.StatusUnauthorized {
		t.Fatalf("raw response %+v, want 401", afe.RawResponse)
	}
	for _, want := range []string{"invalid_client", "AADSTS7000215", "Invalid client secret provided"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "not-the-secret") {
		t.Errorf("error leaks the secret: %v", err)
	}
}

func TestTokenEndpointRejects(t *testing.T) {
	fx := newFixture(t)
	hc := fx.httpClient(t, true)
	post := func(tenant string, form url.Values) (int, map[string]any) {
		resp, err := hc.PostForm(fx.srv.URL()+"/"+tenant+"/oauth2/v2.0/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	good := url.Values{"client_id": {clientID}, "client_secret": {clientSecret}, "grant_type": {"client_credentials"}, "scope": {fx.srv.URL() + "//.default"}}
	with := func(k, v string) url.Values {
		f := url.Values{}
		for key, vs := range good {
			f[key] = vs
		}
		f.Set(k, v)
		return f
	}
	for _, tc := range []struct {
		name, tenant string
		form         url.Values
		status       int
		code, aadsts string
	}{
		{"unknown tenant", "someone-else", good, 400, "invalid_request", "AADSTS90002"},
		{"unknown client", tenantID, with("client_id", "nobody"), 400, "unauthorized_client", "AADSTS700016"},
		{"password grant", tenantID, with("grant_type", "password"), 400, "unsupported_grant_type", "AADSTS70003"},
		{"scope without /.default", tenantID, with("scope", fx.srv.URL()), 400, "invalid_scope", "AADSTS1002012"},
	} {
		status, body := post(tc.tenant, tc.form)
		desc, _ := body["error_description"].(string)
		if status != tc.status || body["error"] != tc.code || !strings.HasPrefix(desc, tc.aadsts+":") {
			t.Errorf("%s: %d %v, want %d %s %s", tc.name, status, body, tc.status, tc.code, tc.aadsts)
		}
	}
	if status, body := post(tenantID, good); status != 200 || body["token_type"] != "Bearer" || body["access_token"] == "" {
		t.Errorf("good request: %d %v", status, body)
	}
}

func TestARMRequiresAnIssuedBearerToken(t *testing.T) {
	fx := newFixture(t)
	hc := fx.httpClient(t, true)
	u := fx.srv.URL() + fx.fleetPath("") + "?api-version=" + fleetapi.APIVersion
	for _, tc := range []struct{ auth, code string }{
		{"", "AuthenticationFailed"},
		{"Bearer forged-token", "InvalidAuthenticationToken"},
		{"Basic dXNlcjpwYXNz", "InvalidAuthenticationToken"},
	} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("Authorization %q: status %d, want 401", tc.auth, resp.StatusCode)
		}
		if e := armError(t, b); e.Code != tc.code {
			t.Errorf("Authorization %q: code %s, want %s", tc.auth, e.Code, tc.code)
		}
	}
	// The same request with the credential's token succeeds.
	var fleet fleetapi.Fleet
	fx.getFleetAPI(t, fx.fleetPath(""), &fleet)
	if fleet.Name != "demo" {
		t.Fatalf("fleet %q", fleet.Name)
	}
}

func TestOpenIDConfigurationAndInstanceDiscovery(t *testing.T) {
	fx := newFixture(t)
	hc := fx.httpClient(t, true)
	get := func(path string) (int, map[string]any) {
		resp, err := hc.Get(fx.srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	status, oidc := get("/" + tenantID + "/v2.0/.well-known/openid-configuration")
	if status != 200 || oidc["issuer"] != fx.srv.URL()+"/"+tenantID+"/v2.0" || oidc["token_endpoint"] != fx.srv.URL()+"/"+tenantID+"/oauth2/v2.0/token" || oidc["authorization_endpoint"] == "" {
		t.Errorf("openid-configuration: %d %v", status, oidc)
	}
	if status, body := get("/other-tenant/v2.0/.well-known/openid-configuration"); status != 400 || body["error"] != "invalid_tenant" {
		t.Errorf("unknown tenant: %d %v", status, body)
	}
	status, disc := get("/common/discovery/instance?api-version=1.1&authorization_endpoint=" + url.QueryEscape(fx.srv.URL()+"/"+tenantID+"/oauth2/v2.0/authorize"))
	if status != 200 || disc["tenant_discovery_endpoint"] != fx.srv.URL()+"/"+tenantID+"/v2.0/.well-known/openid-configuration" {
		t.Errorf("instance discovery: %d %v", status, disc)
	}
}

// A short client-secret token lifetime (set through the admin endpoint):
// azidentity asks for a new token whenever it is asked for one (MSAL's
// cache keeps no token within 5 minutes of expiry; azcore's BearerTokenPolicy
// then uses it until it expires), and a token used after it expired is
// refused and counted.
func TestTokenLifetimeAdmin(t *testing.T) {
	var offset atomic.Int64
	fx := newFixture(t, func(c *emulator.Config) {
		c.IdentityNow = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	})
	hc := fx.httpClient(t, true)
	admin := fx.srv.URL() + "/_emulator/identity"
	patch := func(body string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPatch, admin, strings.NewReader(body))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	for _, bad := range []string{`{"tokenLifetime":"1s"}`, `{"tokenLifetime":"-3s"}`, `{"tokenLifetime":"soon"}`, `{"lifetime":"3s"}`} {
		if status, out := patch(bad); status != http.StatusBadRequest {
			t.Errorf("PATCH %s: %d %v, want 400", bad, status, out)
		}
	}
	if status, out := patch(`{"tokenLifetime":"3s"}`); status != http.StatusOK || out["tokenLifetime"] != "3s" {
		t.Fatalf("PATCH 3s: %d %v", status, out)
	}
	before := fx.srv.IdentityCounts()["token_client_secret"]
	var tok azcore.AccessToken
	for range 2 {
		var err error
		if tok, err = fx.cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fx.srv.URL() + "//.default"}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := fx.srv.IdentityCounts()["token_client_secret"] - before; got != 2 {
		t.Fatalf("%d tokens issued for 2 GetToken calls with a 3 s lifetime, want 2", got)
	}
	if life := time.Until(tok.ExpiresOn); life > 3*time.Second {
		t.Fatalf("token expires in %s, want at most the 3 s lifetime", life)
	}
	// A token used once expired (the identity clock moved past it) is refused as expired.
	offset.Store(int64(4 * time.Second))
	req, _ := http.NewRequest(http.MethodGet, fx.srv.URL()+fx.fleetPath("")+"?api-version="+fleetapi.APIVersion, nil)
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if e := armError(t, b); resp.StatusCode != http.StatusUnauthorized || e.Code != "ExpiredAuthenticationToken" {
		t.Fatalf("expired token: %d %+v", resp.StatusCode, e)
	}
	if n := fx.srv.IdentityCounts()["rejected_expired_token"]; n != 1 {
		t.Fatalf("rejected_expired_token = %d, want 1", n)
	}
	if status, out := patch(`{}`); status != http.StatusOK || out["tokenLifetime"] != "1h0m0s" {
		t.Fatalf("PATCH {} (default): %d %v", status, out)
	}
}
