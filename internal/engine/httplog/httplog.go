// Package httplog logs the provider's HTTP requests through tflog, as
// azurerm and the kubernetes provider make them visible at TF_LOG=DEBUG:
// one line per request (method, URL, status, duration) in the subsystem
// "arm" or "kubernetes"; at TRACE also the headers and, for ARM, JSON
// response bodies. Credentials never reach the log: Authorization and
// other credential headers are masked, secret query parameters masked, the
// bodies of sign-in and credential endpoints (token endpoints, OIDC
// requests, listCredentials, listClusterUserCredential) are left out, and
// secret-looking JSON fields are masked everywhere. Kubernetes bodies are
// never logged (they can hold Secrets and kubeconfigs).
package httplog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Subsystems of the provider's log.
const (
	ARM        = "arm"
	Kubernetes = "kubernetes"
)

// Masked replaces a secret in the log.
const Masked = "(masked)"

// MaxBody is the most of a response body logged at TRACE.
const MaxBody = 16 << 10

// TraceEnabled reports whether the provider logs at TRACE (TF_LOG,
// TF_LOG_PROVIDER or TF_LOG_PROVIDER_FLEET): only then are bodies read for
// the log.
func TraceEnabled() bool {
	for _, e := range []string{"TF_LOG_PROVIDER_FLEET", "TF_LOG_PROVIDER", "TF_LOG"} {
		if v := strings.TrimSpace(os.Getenv(e)); v != "" {
			return strings.EqualFold(v, "TRACE") || (v == "1" && e == "TF_LOG")
		}
	}
	return false
}

// secretHeaders are masked; any header whose name mentions a token, key,
// secret, password, cookie or signature is masked too.
var secretHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true}

func secretName(name string) bool {
	n := strings.ToLower(name)
	if secretHeaders[n] {
		return true
	}
	for _, s := range []string{"token", "secret", "password", "passwd", "key", "assertion", "signature", "credential", "cert", "kubeconfig", "authorization"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// URL returns u with its user info and secret query parameters masked.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		c.User = url.User(Masked)
	}
	if c.RawQuery != "" {
		q := c.Query()
		changed := false
		for k := range q {
			if secretName(k) || strings.EqualFold(k, "code") || strings.EqualFold(k, "sig") {
				q[k] = []string{Masked}
				changed = true
			}
		}
		if changed {
			c.RawQuery = q.Encode()
		}
	}
	return c.String()
}

// Headers returns h as a map with secret values masked.
func Headers(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if secretName(k) {
			out[k] = Masked
			continue
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// CredentialEndpoint reports a request whose body carries credentials
// either way: sign-in (OAuth token endpoints, CI OIDC requests) and the
// ARM actions that return kubeconfigs or keys.
func CredentialEndpoint(req *http.Request) bool {
	p := strings.ToLower(req.URL.Path)
	if strings.Contains(p, "/oauth2/") || strings.Contains(p, "oidc") || strings.Contains(p, "idtoken") {
		return true
	}
	seg := p[strings.LastIndex(p, "/")+1:]
	return strings.HasPrefix(seg, "list") && (strings.Contains(seg, "credential") || strings.Contains(seg, "key") || strings.Contains(seg, "secret"))
}

// MaskJSON masks secret-looking fields of a JSON document, at any depth;
// anything that is not JSON is left out.
func MaskJSON(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "(not JSON: left out)"
	}
	out, err := json.Marshal(maskValue(v))
	if err != nil {
		return "(left out)"
	}
	return string(out)
}

func maskValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if secretName(k) || strings.EqualFold(k, "value") && looksSecret(e) {
				x[k] = Masked
				continue
			}
			x[k] = maskValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = maskValue(e)
		}
	case string:
		if looksSecret(x) {
			return Masked
		}
	}
	return v
}

// looksSecret catches secrets under innocent names: JWTs, PEM blocks and
// base64 kubeconfigs.
func looksSecret(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	return strings.HasPrefix(s, "eyJ") || strings.Contains(s, "-----BEGIN") || strings.HasPrefix(s, "YXBpVmVyc2lvbj") /* base64 "apiVersion" */ ||
		strings.Contains(s, "client-key-data") || strings.Contains(s, "certificate-authority-data")
}

// Request logs one request: DEBUG the line, TRACE the headers and the
// (masked) JSON body when given.
func Request(ctx context.Context, subsystem string, req *http.Request, resp *http.Response, err error, d time.Duration, body []byte) {
	ctx = tflog.NewSubsystem(ctx, subsystem)
	fields := map[string]any{
		"http_method": req.Method,
		"url":         URL(req.URL),
		"duration_ms": d.Milliseconds(),
	}
	msg := req.Method + " " + URL(req.URL)
	if err != nil {
		fields["error"] = err.Error()
		msg += ": error"
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
		msg += ": " + strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
		for _, h := range []string{"x-ms-request-id", "x-ms-correlation-request-id", "Audit-Id"} {
			if v := resp.Header.Get(h); v != "" {
				fields[strings.ToLower(h)] = v
			}
		}
	}
	tflog.SubsystemDebug(ctx, subsystem, msg, fields)
	trace := map[string]any{"request_headers": sortedHeaders(req.Header)}
	if resp != nil {
		trace["response_headers"] = sortedHeaders(resp.Header)
	}
	if body != nil {
		trace["response_body"] = string(body)
	}
	tflog.SubsystemTrace(ctx, subsystem, msg+" (detail)", trace)
}

func sortedHeaders(h http.Header) string {
	m := Headers(h)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k + ": " + m[k])
	}
	return b.String()
}

// ResponseBody reads a JSON response's body for the TRACE log (and puts it
// back): nil unless trace is on, the response is JSON and not a credential
// endpoint's.
func ResponseBody(trace bool, req *http.Request, resp *http.Response) []byte {
	if !trace || resp == nil || resp.Body == nil {
		return nil
	}
	if CredentialEndpoint(req) {
		return []byte("(left out: a credential endpoint's body)")
	}
	if !strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "json") {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil
	}
	rest := resp.Body
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(b), rest), rest}
	if len(b) > MaxBody {
		return []byte("(longer than 16 KiB: left out)")
	}
	return []byte(MaskJSON(b))
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Transport wraps a Kubernetes client's transport with the request log.
func Transport(next http.RoundTripper) http.RoundTripper { return &transport{next: next} }

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	Request(req.Context(), Kubernetes, req, resp, err, time.Since(start), nil)
	return resp, err
}

// WrappedRoundTripper lets client-go's debugging helpers reach the next
// transport.
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }
