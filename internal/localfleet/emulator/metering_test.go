package emulator_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// meterClock is the real time the read buckets refill by, moved by the test.
type meterClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *meterClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *meterClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// raw sends one request with a bearer token and no retry policy, so the
// test sees every 429 as ARM sends it.
func (fx *fixture) raw(t *testing.T, method, path string) (*http.Response, []byte) {
	t.Helper()
	tok, err := fx.cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fx.srv.URL() + "/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, fx.srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	resp, err := fx.httpClient(t, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestReadMeteringAsARM: ARM's token bucket (request-limits-and-throttling):
// reads spend tokens, the remaining-reads header counts down on every
// response, an empty bucket answers 429 SubscriptionRequestsThrottled with
// Retry-After, and the bucket refills at its rate.
func TestReadMeteringAsARM(t *testing.T) {
	clk := &meterClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	fx := newFixture(t, func(c *emulator.Config) {
		c.File.FleetAPI.ReadLimits = &fleetfile.ReadLimits{Bucket: 5, RefillPerSecond: 2}
		c.MeterNow = clk.now
	})
	get := fx.fleetPath("/members?api-version=2026-06-01")
	for want := 4; want >= 0; want-- {
		resp, b := fx.raw(t, http.MethodGet, get)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("read %d: %d %s", 5-want, resp.StatusCode, b)
		}
		if got := resp.Header.Get(emulator.ReadRemainingHeader); got != strconv.Itoa(want) {
			t.Fatalf("read %d: %s = %q, want %d", 5-want, emulator.ReadRemainingHeader, got, want)
		}
	}
	resp, b := fx.raw(t, http.MethodGet, get)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("6th read of a 5-token bucket: %d, want 429", resp.StatusCode)
	}
	if e := armError(t, b); e.Code != "SubscriptionRequestsThrottled" {
		t.Errorf("code %q, want SubscriptionRequestsThrottled", e.Code)
	}
	// One token at 2/s is 0.5 s away: Retry-After is in whole seconds.
	if ra, rem := resp.Header.Get("Retry-After"), resp.Header.Get(emulator.ReadRemainingHeader); ra != "1" || rem != "0" {
		t.Errorf("Retry-After %q, remaining %q; want 1 and 0", ra, rem)
	}
	// A write is not a read, yet reports what is left.
	resp, _ = fx.raw(t, http.MethodPost, fx.fleetPath("/listCredentials?api-version=2026-06-01"))
	if resp.StatusCode == http.StatusTooManyRequests || resp.Header.Get(emulator.ReadRemainingHeader) != "0" {
		t.Errorf("POST with an empty read bucket: %d, remaining %q; want not throttled and 0", resp.StatusCode, resp.Header.Get(emulator.ReadRemainingHeader))
	}
	clk.add(1500 * time.Millisecond) // 3 tokens back
	resp, _ = fx.raw(t, http.MethodGet, get)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(emulator.ReadRemainingHeader) != "2" {
		t.Fatalf("after 1.5 s at 2/s: %d, remaining %q; want 200 and 2", resp.StatusCode, resp.Header.Get(emulator.ReadRemainingHeader))
	}
	st, ok := fx.srv.Metering()
	if !ok {
		t.Fatal("Metering: not metered")
	}
	class := "GET Microsoft.ContainerService/fleets/*/members"
	if st.Reads[class] != 6 || st.Throttled[class] != 1 || len(st.Principals) != 1 || st.Principals[0] != clientID {
		t.Errorf("stats %+v; want 6 reads and 1 throttled of %s by %s", st, class, clientID)
	}
	// The POST is counted as an action of its class, not as a read.
	if action := "POST Microsoft.ContainerService/fleets/*/listCredentials"; st.Actions[action] != 1 || len(st.Actions) != 1 || st.Reads[action] != 0 {
		t.Errorf("actions %v; want one %s", st.Actions, action)
	}
	if st.Limits.SubscriptionBucket != fleetfile.ARMSubscriptionReadBucket || st.Limits.SubscriptionRefillPerSecond != fleetfile.ARMSubscriptionReadRefill {
		t.Errorf("limits %+v: the subscription's bucket should default to ARM's 3,750 and 375/s", st.Limits)
	}
}

// TestReadsNotMeteredWithoutLimits: a fleet file without readLimits meters
// nothing and sends no header.
func TestReadsNotMeteredWithoutLimits(t *testing.T) {
	fx := newFixture(t)
	for i := 0; i < 300; i++ {
		resp, b := fx.raw(t, http.MethodGet, fx.fleetPath("?api-version=2026-06-01"))
		if resp.StatusCode != http.StatusOK || resp.Header.Get(emulator.ReadRemainingHeader) != "" {
			t.Fatalf("read %d: %d %s, header %q", i, resp.StatusCode, b, resp.Header.Get(emulator.ReadRemainingHeader))
		}
	}
	if _, ok := fx.srv.Metering(); ok {
		t.Error("Metering reports metering without readLimits")
	}
}
