package emulator

import (
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// TestSubscriptionBucketSharedByPrincipals: each principal has a bucket of
// its own, and all of them draw on the subscription's (request-limits-and-
// throttling: 250 per principal, 3,750 across principals).
func TestSubscriptionBucketSharedByPrincipals(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMeter(fleetfile.ReadLimits{Bucket: 3, RefillPerSecond: 1, SubscriptionBucket: 5, SubscriptionRefillPerSecond: 10}, func() time.Time { return now })
	for i, want := range []struct {
		principal string
		ok        bool
		remaining int
	}{{"a", true, 2}, {"a", true, 1}, {"a", true, 0}, {"a", false, 0}, {"b", true, 1}, {"b", true, 0}, {"b", false, 0}} {
		rem, ra, ok := m.take(want.principal, "GET x")
		if ok != want.ok || rem != want.remaining || (!ok && ra < 1) {
			t.Fatalf("read %d by %s: ok %v remaining %d retryAfter %d; want ok %v remaining %d", i, want.principal, ok, rem, ra, want.ok, want.remaining)
		}
	}
	now = now.Add(300 * time.Millisecond) // subscription +3, a +0.3, b +0.3
	if _, _, ok := m.take("c", "GET x"); !ok {
		t.Error("a new principal with the subscription refilled was throttled")
	}
	if _, ra, ok := m.take("a", "GET x"); ok || ra != 1 {
		t.Errorf("a with 0.3 tokens: ok %v retryAfter %d; want throttled, 1 s", ok, ra)
	}
	if st := m.stats(); st.Reads["GET x"] != 6 || st.Throttled["GET x"] != 3 {
		t.Errorf("stats %+v; want 6 reads, 3 throttled", st)
	}
}
