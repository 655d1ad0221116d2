package acctest

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// The Fleet API emulator's admin endpoints (/_emulator/...) and its request
// log, for tests that inject faults or count what the provider sent.

// Admin sends a request to one of the emulator's admin endpoints (path
// starts with /_emulator/) and decodes a JSON answer into out (when not nil).
func (f *Fleet) Admin(t testing.TB, method, path string, body, out any) {
	t.Helper()
	if err := f.admin(method, path, body, out); err != nil {
		t.Fatal(err)
	}
}

func (f *Fleet) admin(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(f.Env["LOCALFLEET_URL"], "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	hc, err := f.httpClient()
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decoding %s: %v", method, path, b, err)
		}
	}
	return nil
}

// HTTPClient trusts the local fleet's CA only.
func (f *Fleet) HTTPClient(t testing.TB) *http.Client {
	t.Helper()
	hc, err := f.httpClient()
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

func (f *Fleet) httpClient() (*http.Client, error) {
	ca, err := os.ReadFile(filepath.Join(f.Dir, "ca.pem"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}, nil
}

// checkBodies reports how many Fleet API request bodies the emulator
// checked against the official document, and fails when it refused any:
// no request the provider makes may be one real ARM would refuse.
func (f *Fleet) checkBodies() error {
	var c emulator.BodyChecks
	if err := f.admin(http.MethodGet, "/_emulator/bodychecks", nil, &c); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "acctest: %d Fleet API request bodies checked against fleets.json, %d refused\n", c.Checked, c.Refused)
	if c.Refused > 0 {
		return fmt.Errorf("the emulator refused %d request bodies as ARM would (400 InvalidRequestContent): see the test log", c.Refused)
	}
	return nil
}

// AddFaults injects fault rules; the test's cleanup removes every rule.
func (f *Fleet) AddFaults(t testing.TB, rules ...emulator.FaultRule) {
	t.Helper()
	t.Cleanup(func() { f.Admin(t, http.MethodDelete, "/_emulator/faults", nil, nil) })
	for _, r := range rules {
		f.Admin(t, http.MethodPost, "/_emulator/faults", r, nil)
	}
}

// Faults lists the injected rules with their hits.
func (f *Fleet) Faults(t testing.TB) []emulator.FaultStatus {
	t.Helper()
	var out struct {
		Value []emulator.FaultStatus `json:"value"`
	}
	f.Admin(t, http.MethodGet, "/_emulator/faults", nil, &out)
	return out.Value
}

// IdentityCounts are the emulator's sign-in counters (emulator.Server.IdentityCounts).
func (f *Fleet) IdentityCounts(t testing.TB) map[string]int {
	t.Helper()
	var out struct {
		Counts map[string]int `json:"counts"`
	}
	f.Admin(t, http.MethodGet, "/_emulator/identity", nil, &out)
	return out.Counts
}

// SetTokenLifetime sets the lifetime of the access tokens the ARM_* client
// secret gets, until the test ends.
func (f *Fleet) SetTokenLifetime(t testing.TB, d time.Duration) {
	t.Helper()
	f.Admin(t, http.MethodPatch, "/_emulator/identity", map[string]string{"tokenLifetime": d.String()}, nil)
	t.Cleanup(func() { f.Admin(t, http.MethodPatch, "/_emulator/identity", map[string]string{}, nil) })
}

// Request is one line of the emulator's request log.
type Request struct {
	// Start and End are when the request arrived and was answered (the log
	// has the time of day to the millisecond, and the duration).
	Start, End   time.Time
	Method, Path string
	// Status is the HTTP status, or "reset" for a dropped connection.
	Status string
}

// "15:04:05.000 GET /path -> 200 (1.234ms)", as cmd/localfleet logs the emulator's requests.
var requestLine = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d\d\d) (GET|PUT|POST|PATCH|DELETE|HEAD) (\S+) -> (\S+) \((\S+)\)$`)

// Requests reads the emulator's request log (localfleet.log in the fleet's folder).
func (f *Fleet) Requests(t testing.TB) []Request {
	t.Helper()
	file, err := os.Open(filepath.Join(f.Dir, "localfleet.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	now := time.Now()
	var out []Request
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := requestLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		tod, err := time.ParseInLocation("15:04:05.000", m[1], time.Local)
		if err != nil {
			continue
		}
		end := time.Date(now.Year(), now.Month(), now.Day(), tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond(), time.Local)
		if end.After(now.Add(time.Minute)) { // logged before midnight
			end = end.AddDate(0, 0, -1)
		}
		took, err := time.ParseDuration(m[5])
		if err != nil {
			continue
		}
		out = append(out, Request{Start: end.Add(-took), End: end, Method: m[2], Path: m[3], Status: m[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(fmt.Errorf("reading the request log: %w", err))
	}
	return out
}

// FleetAPINow is the Fleet API's clock: the Date of its answer (the local fleet's simulated time).
func (f *Fleet) FleetAPINow(t testing.TB) time.Time {
	t.Helper()
	hc, err := f.httpClient()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(strings.TrimSuffix(f.Env["LOCALFLEET_URL"], "/") + "/subscriptions/00000000-0000-0000-0000-000000000000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	now, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		t.Fatalf("the Fleet API's Date %q: %v", resp.Header.Get("Date"), err)
	}
	return now
}
