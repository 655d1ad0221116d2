package emulator

import (
	"maps"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// ARM's read throttling, as "Understand how Azure Resource Manager throttles
// requests" (learn.microsoft.com/azure/azure-resource-manager/management/
// request-limits-and-throttling) documents it:
//
//	"Azure Resource Manager uses the token bucket algorithm … per subscription,
//	 per principal (user or application), per region … Subscription reads:
//	 bucket size 250, refill rate per second 25 … Subscription reads across all
//	 principals: 3,750, 375 … When you reach the limit, you receive the HTTP
//	 status code 429 Too many requests … The response includes a Retry-After
//	 value … x-ms-ratelimit-remaining-subscription-global-reads: Subscription
//	 scoped reads remaining."
//
// The emulator serves one region, so a principal's bucket is per subscription
// × principal. Buckets refill with real time (clients wait in real time),
// not the simulated clock.

// ReadRemainingHeader is the header ARM reports the reads left in.
const ReadRemainingHeader = "x-ms-ratelimit-remaining-subscription-global-reads"

type tokenBucket struct {
	size, rate float64
	tokens     float64
	last       time.Time
}

func (b *tokenBucket) refill(now time.Time) {
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(b.size, b.tokens+el*b.rate)
	}
	b.last = now
}

// wait is how long until one token is there.
func (b *tokenBucket) wait() time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
}

// MeterStats is what the meter counted since start (or the last reset).
type MeterStats struct {
	Limits fleetfile.ReadLimits `json:"limits"`
	// Reads are the reads served, Throttled those answered 429, by operation
	// class ("GET managedClusters/*").
	Reads     map[string]int `json:"reads"`
	Throttled map[string]int `json:"throttled"`
	// Actions are the other requests served (writes, deletes and POST
	// actions such as listMemberCredentials) by operation class ("POST
	// Microsoft.ContainerService/fleets/*/listMemberCredentials"): counted,
	// not throttled (ARM meters them in buckets of their own, which the
	// emulator does not model), so a test can count what a client sent.
	Actions map[string]int `json:"actions"`
	// Principals are the principals that read.
	Principals []string `json:"principals"`
	// Graph counts Azure Resource Graph's queries (resourcegraph.go), which ARM's read buckets do not meter.
	Graph GraphStats `json:"graph"`
}

type meter struct {
	mu         sync.Mutex
	limits     fleetfile.ReadLimits
	now        func() time.Time
	sub        *tokenBucket
	principals map[string]*tokenBucket
	reads      map[string]int
	throttled  map[string]int
	actions    map[string]int
}

func newMeter(l fleetfile.ReadLimits, now func() time.Time) *meter {
	if now == nil {
		now = time.Now
	}
	l = l.WithDefaults()
	m := &meter{limits: l, now: now}
	m.resetLocked()
	return m
}

func (m *meter) resetLocked() {
	t := m.now()
	m.sub = &tokenBucket{size: float64(m.limits.SubscriptionBucket), rate: float64(m.limits.SubscriptionRefillPerSecond), tokens: float64(m.limits.SubscriptionBucket), last: t}
	m.principals = map[string]*tokenBucket{}
	m.reads, m.throttled, m.actions = map[string]int{}, map[string]int{}, map[string]int{}
}

func (m *meter) bucket(principal string, t time.Time) *tokenBucket {
	b, ok := m.principals[principal]
	if !ok {
		b = &tokenBucket{size: float64(m.limits.Bucket), rate: float64(m.limits.RefillPerSecond), tokens: float64(m.limits.Bucket), last: t}
		m.principals[principal] = b
	}
	return b
}

// take spends a read of principal's: remaining is what the header reports
// after it; when either bucket is empty the read is refused and retryAfter
// says when a token is back (whole seconds, as ARM's Retry-After).
func (m *meter) take(principal, class string) (remaining int, retryAfter int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.now()
	b := m.bucket(principal, t)
	b.refill(t)
	m.sub.refill(t)
	if b.tokens < 1 || m.sub.tokens < 1 {
		m.throttled[class]++
		w := max(b.wait(), m.sub.wait())
		return 0, max(1, int(math.Ceil(w.Seconds()))), false
	}
	b.tokens--
	m.sub.tokens--
	m.reads[class]++
	return int(math.Floor(math.Min(b.tokens, m.sub.tokens))), 0, true
}

// act counts a request that is not a read and returns the header's value
// for principal (no read spent).
func (m *meter) act(principal, class string) int {
	m.mu.Lock()
	m.actions[class]++
	m.mu.Unlock()
	return m.remaining(principal)
}

// remaining is the header's value for principal without spending a read.
func (m *meter) remaining(principal string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.now()
	b := m.bucket(principal, t)
	b.refill(t)
	m.sub.refill(t)
	return int(math.Floor(math.Min(b.tokens, m.sub.tokens)))
}

func (m *meter) stats() MeterStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := MeterStats{Limits: m.limits, Reads: maps.Clone(m.reads), Throttled: maps.Clone(m.throttled), Actions: maps.Clone(m.actions)}
	for p := range m.principals {
		st.Principals = append(st.Principals, p)
	}
	sort.Strings(st.Principals)
	return st
}

// isRead reports the requests ARM meters as reads.
func isRead(r *http.Request) bool { return r.Method == http.MethodGet || r.Method == http.MethodHead }

// readClass names a request's operation: the path with names replaced by *
// ("GET Microsoft.ContainerService/managedClusters/*/maintenanceConfigurations").
func readClass(r *http.Request) string {
	segs := splitPath(r.URL.Path)
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			segs = segs[i+1:]
			break
		}
	}
	for i := 2; i < len(segs); i += 2 {
		segs[i] = "*"
	}
	return r.Method + " " + strings.Join(segs, "/")
}

// meterRead spends a read of r's principal and sets the remaining-reads
// header; false when it answered 429 instead. A request that is not a read
// gets the header of what is left, as ARM reports it on every response.
func (s *Server) meterRead(w http.ResponseWriter, r *http.Request) bool {
	if s.meter == nil {
		return true
	}
	principal := s.tokens.principal(r)
	if !isRead(r) {
		w.Header().Set(ReadRemainingHeader, strconv.Itoa(s.meter.act(principal, readClass(r))))
		return true
	}
	remaining, retryAfter, ok := s.meter.take(principal, readClass(r))
	w.Header().Set(ReadRemainingHeader, strconv.Itoa(remaining))
	if ok {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	// ARM's throttling error (request-limits-and-throttling, "Error code").
	writeARMError(w, armErrorf(http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
		"Number of 'read' requests for subscription '%s' actor '%s' exceeded. Please try again after '%d' seconds after additional tokens are available. Refer to https://aka.ms/arm-throttling for additional information.",
		s.cfg.File.Fleet.SubscriptionID, principal, retryAfter))
	return false
}

// Metering reports the meter's counts; false when reads are not metered.
func (s *Server) Metering() (MeterStats, bool) {
	if s.meter == nil {
		return MeterStats{}, false
	}
	st := s.meter.stats()
	st.Graph = s.graph.stats()
	return st, true
}

// serveMeteringAdmin serves /_emulator/metering: GET the counts, DELETE to
// refill the buckets and zero the counts.
func (s *Server) serveMeteringAdmin(w http.ResponseWriter, r *http.Request) {
	if s.meter == nil {
		writeARMError(w, armErrorf(http.StatusNotFound, "NotFound", "reads are not metered: set fleetAPI.readLimits in the fleet file"))
		return
	}
	switch r.Method {
	case http.MethodGet:
		st, _ := s.Metering()
		writeJSON(w, http.StatusOK, st)
	case http.MethodDelete:
		s.meter.mu.Lock()
		s.meter.resetLocked()
		s.meter.mu.Unlock()
		s.graph.reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, DELETE")
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "/_emulator/metering supports GET and DELETE, not %s", r.Method))
	}
}
