package httplog

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

const kubeconfigB64 = "YXBpVmVyc2lvbjogdjEKY2x1c3RlcnM6IFtdCg==" // "apiVersion: v1\nclusters: []\n"

func TestRequestLogMasksCredentials(t *testing.T) {
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	u, _ := url.Parse("https://user:pw@arm.example/subscriptions/s/fleets/f?api-version=1&sig=SIGVALUE&code=CODEVALUE")
	req := (&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{
		"Authorization": {"Bearer eyJhbGciOi.secret.token"}, "X-Ms-Client-Request-Id": {"rid"}, "Cookie": {"c=COOKIE"},
	}}).WithContext(ctx)
	body := `{"name":"f","properties":{"state":"Running","clientSecret":"CS","nested":[{"value":"` + kubeconfigB64 + `"},{"token":"TK"}],"pem":"-----BEGIN PRIVATE KEY-----x"},"error":{"code":"Conflict"}}`
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}, "X-Ms-Request-Id": {"req-1"}},
		Body: io.NopCloser(strings.NewReader(body))}
	logged := ResponseBody(true, req, resp)
	rest, _ := io.ReadAll(resp.Body)
	if string(rest) != body {
		t.Fatalf("the body was not put back: %s", rest)
	}
	Request(ctx, ARM, req, resp, nil, 12*time.Millisecond, logged)
	s := out.String()
	for _, secret := range []string{"eyJhbGciOi", "pw@", "SIGVALUE", "CODEVALUE", "COOKIE", `"CS"`, kubeconfigB64, `"TK"`, "BEGIN PRIVATE"} {
		if strings.Contains(s, secret) {
			t.Errorf("%q logged:\n%s", secret, s)
		}
	}
	for _, want := range []string{"GET https://", ": 200 OK", `"duration_ms":12`, `"status":200`, "req-1", `\"state\":\"Running\"`, `\"code\":\"Conflict\"`, `"@module":"provider.arm"`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s not logged:\n%s", want, s)
		}
	}
}

func TestCredentialEndpointBodiesAreLeftOut(t *testing.T) {
	for path, want := range map[string]bool{
		"/tenant/oauth2/v2.0/token": true,
		"/subscriptions/s/resourceGroups/r/providers/Microsoft.ContainerService/fleets/f/listCredentials":                    true,
		"/subscriptions/s/resourceGroups/r/providers/Microsoft.ContainerService/managedClusters/c/listClusterUserCredential": true,
		"/_oidc/github/token": true,
		"/subscriptions/s/resourceGroups/r/providers/Microsoft.ContainerService/fleets/f/members": false,
	} {
		req := &http.Request{Method: http.MethodPost, URL: &url.URL{Scheme: "https", Host: "h", Path: path}}
		if got := CredentialEndpoint(req); got != want {
			t.Errorf("%s: %t", path, got)
		}
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"kubeconfigs":[{"value":"x"}]}`))}
		if b := ResponseBody(true, req, resp); want && strings.Contains(string(b), "kubeconfigs") {
			t.Errorf("%s: body logged: %s", path, b)
		}
	}
	// No trace: nothing read.
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/x"}}
	if b := ResponseBody(false, req, &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader("{}"))}); b != nil {
		t.Errorf("body read without trace: %s", b)
	}
}

func TestKubernetesTransportLogsAndMasks(t *testing.T) {
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	rt := Transport(roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 404, Header: http.Header{"Audit-Id": {"a-1"}}, Body: io.NopCloser(strings.NewReader("{}"))}, nil
	}))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://hub:6443/apis/placement.kubernetes-fleet.io/v1beta1/clusterresourceplacements/web", nil)
	req.Header.Set("Authorization", "Bearer hub-token-value")
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Contains(s, "hub-token-value") {
		t.Errorf("token logged: %s", s)
	}
	for _, want := range []string{"GET https://hub:6443/apis/placement.kubernetes-fleet.io/v1beta1/clusterresourceplacements/web: 404 Not Found", `"@module":"provider.kubernetes"`, "a-1", "Authorization: (masked)"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s not logged:\n%s", want, s)
		}
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
