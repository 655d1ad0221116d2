package azure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Pacing ARM reads. "Understand how Azure Resource Manager throttles
// requests" (learn.microsoft.com/azure/azure-resource-manager/management/
// request-limits-and-throttling) meters reads with a token bucket per
// subscription × principal × region — "bucket size 250, refill rate per
// second 25" — and one per subscription across principals (3,750, 375/s);
// beyond them ARM answers 429 with Retry-After, and every response reports
// what is left in x-ms-ratelimit-remaining-subscription-global-reads.
//
// The Pacer spends the bucket freely while the header says plenty is left,
// then keeps ReadReserve reads for the subscription's other tools (azurerm,
// the portal, AKS's controllers) by sending no faster than the bucket
// refills, slowing further while other clients of the principal drain it.
// A 429 holds every read of the process until its Retry-After has passed and
// is retried here, so it never reaches azcore's retry policy nor a
// diagnostic; only throttling that outlasts MaxThrottledAttempts or the
// request's deadline ends in a *ThrottledError.

// ReadRemainingHeader is where ARM reports the reads left.
const ReadRemainingHeader = "x-ms-ratelimit-remaining-subscription-global-reads"

const (
	// ARMReadRefillPerSecond is ARM's documented refill rate of a principal's read bucket.
	ARMReadRefillPerSecond = 25
	// ARMReadBucket is the size of that bucket.
	ARMReadBucket = 250
	// ReadReserve is how many reads the pacer leaves in the bucket.
	ReadReserve = 25
	// MaxThrottledAttempts is how many 429s in a row one read rides out.
	MaxThrottledAttempts = 8
	// MaxThrottledWait is how long a process rides out nothing but 429s
	// (no read succeeding) before it gives up.
	MaxThrottledWait = 30 * time.Second
	// trippedFor is how long, after giving up, every read fails at once with
	// the same error: the plan is lost, and its other reads would only spend
	// more of the subscription's budget and the user's time.
	trippedFor = time.Minute
	// maxReadInterval bounds the spacing of reads when others drain the bucket.
	maxReadInterval = 2 * time.Second
)

// ThrottledError is ARM's read throttling that pacing could not absorb.
type ThrottledError struct {
	Method, URL string
	Attempts    int
	Waited      time.Duration
	// RetryAfter and Remaining are the last 429's headers ("" if absent).
	RetryAfter, Remaining string
	// Code and Message are ARM's error.
	Code, Message string
	// DeadlineFirst: the next wait would have passed the request's deadline.
	DeadlineFirst bool
	// TooLong: Retry-After alone asks for longer than MaxThrottledWait.
	TooLong bool
}

func (e *ThrottledError) Error() string {
	why := fmt.Sprintf("%d answers in a row over %s, with no read of this process let through meanwhile", e.Attempts, e.Waited.Round(time.Second))
	switch {
	case e.TooLong:
		why = fmt.Sprintf("with a Retry-After longer than the %s of throttling this process waits out", MaxThrottledWait)
	case e.DeadlineFirst:
		why = fmt.Sprintf("%d answers over %s, and waiting again would pass the configured timeout", e.Attempts, e.Waited.Round(time.Second))
	}
	return fmt.Sprintf("Azure Resource Manager throttled the read %s %s: 429 %s, %s. "+
		"ARM meters reads per subscription and principal with a token bucket of %d reads refilled at %d a second "+
		"(and %s, %d a second, across all principals of the subscription): request-limits-and-throttling. "+
		"The last answer said Retry-After: %s, %s: %s (%s). "+
		"Other clients of this subscription and principal are spending its read budget: run fewer plans in parallel against it, "+
		"or give this provider a principal of its own (each principal has its own bucket).",
		e.Method, e.URL, e.Code, why, ARMReadBucket, ARMReadRefillPerSecond, "3,750", 375,
		orNone(e.RetryAfter), ReadRemainingHeader, orNone(e.Remaining), e.Message)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// NonRetriable tells azcore's retry policy not to retry: the pacer already did.
func (*ThrottledError) NonRetriable() {}

// IsThrottled reports a *ThrottledError in err's chain.
func IsThrottled(err error) bool {
	var te *ThrottledError
	return errors.As(err, &te)
}

// PacerStats are what a pacer saw.
type PacerStats struct {
	Reads       int // attempts sent
	Throttled   int // 429s received (each retried or surfaced)
	Surfaced    int // ThrottledErrors returned
	Paced       int // reads delayed to spare the bucket
	WaitedTotal time.Duration
}

// Pacer paces a session's ARM reads; one per session (provider process).
type Pacer struct {
	mu sync.Mutex
	// remaining is the last header value; -1 before any.
	remaining int
	interval  time.Duration
	next      time.Time // earliest send of the next paced read
	blocked   time.Time // no read before this (a 429's Retry-After)
	stats     PacerStats
	logged    bool
	// throttledSince is the first 429 since the last read that succeeded.
	throttledSince time.Time
	maxThrottled   time.Duration
	tripped        *ThrottledError
	trippedUntil   time.Time
	tripCh         chan struct{}   // closed when the pacer gives up: sleeping reads wake
	last           *ThrottledError // the latest 429, what a read that cannot wait reports
	now            func() time.Time
	sleep          func(ctx context.Context, d time.Duration, wake <-chan struct{}) error
}

// NewPacer returns a pacer on real time.
func NewPacer() *Pacer {
	return &Pacer{remaining: -1, interval: time.Second / ARMReadRefillPerSecond, maxThrottled: MaxThrottledWait, tripCh: make(chan struct{}), now: time.Now, sleep: sleepCtx}
}

// SetMaxThrottledWait changes MaxThrottledWait for this pacer (tests).
func (p *Pacer) SetMaxThrottledWait(d time.Duration) {
	p.mu.Lock()
	p.maxThrottled = d
	p.mu.Unlock()
}

func sleepCtx(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns what the pacer saw so far.
func (p *Pacer) Stats() PacerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Policy is the pipeline policy; it runs per retry, before the Date and log policies.
func (p *Pacer) Policy() policy.Policy { return pacerPolicy{p} }

type pacerPolicy struct{ p *Pacer }

// slot reserves the send time of a read: at once while the bucket has more
// than ReadReserve, else one refill interval after the previous paced read;
// never before a 429's Retry-After.
func (p *Pacer) slot(ctx context.Context, attempt int) (wait time.Duration, paced bool, wake <-chan struct{}, fail error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.tripped != nil {
		if now.Before(p.trippedUntil) {
			p.stats.Surfaced++
			return 0, false, nil, p.tripped
		}
		p.tripped, p.tripCh = nil, make(chan struct{})
	}
	if deadline, ok := ctx.Deadline(); ok && p.last != nil && p.blocked.After(deadline) {
		// Retry-After passes the request's deadline: say so now rather than time out.
		te := *p.last
		te.Attempts, te.DeadlineFirst = attempt-1, true
		p.stats.Surfaced++
		return 0, false, nil, &te
	}
	at := now
	if p.blocked.After(at) {
		at = p.blocked
	}
	if p.remaining >= 0 && p.remaining <= ReadReserve {
		if p.next.After(at) {
			at = p.next
		}
		p.next = at.Add(p.interval)
		paced = true
		p.stats.Paced++
	} else if p.remaining > 0 {
		p.remaining-- // spent by this read until its answer says otherwise
	}
	p.stats.Reads++
	return at.Sub(now), paced, p.tripCh, nil
}

// observe records an answer's header: below the reserve the spacing grows
// (others drain the bucket too), above it it returns to the refill rate.
func (p *Pacer) observe(resp *http.Response) {
	v := resp.Header.Get(ReadRemainingHeader)
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	base := time.Second / ARMReadRefillPerSecond
	switch {
	case n < ReadReserve/2:
		p.interval = min(maxReadInterval, p.interval*5/4)
	case n > ReadReserve:
		p.interval = max(base, p.interval*4/5)
	}
	p.remaining = n
}

func (pp pacerPolicy) Do(req *policy.Request) (*http.Response, error) {
	p := pp.p
	raw := req.Raw()
	if raw.Method != http.MethodGet && raw.Method != http.MethodHead {
		resp, err := req.Next()
		if resp != nil {
			p.observe(resp)
		}
		return resp, err
	}
	ctx := raw.Context()
	start := time.Now()
	for attempt := 1; ; attempt++ {
		wait, paced, wake, fail := p.slot(ctx, attempt)
		if fail != nil {
			return nil, fail
		}
		if paced {
			p.logPacing(ctx)
		}
		if err := p.sleep(ctx, wait, wake); err != nil {
			return nil, err
		}
		if p.isTripped() {
			attempt--
			continue // slot reports it
		}
		resp, err := req.Next()
		if err != nil || resp == nil {
			return resp, err
		}
		p.observe(resp)
		if resp.StatusCode != http.StatusTooManyRequests {
			p.mu.Lock()
			p.throttledSince = time.Time{}
			p.mu.Unlock()
			return resp, nil
		}
		retryAfter := resp.Header.Get("Retry-After")
		d := retryAfterDuration(retryAfter)
		p.mu.Lock()
		now := p.now()
		p.stats.Throttled++
		if until := now.Add(d); until.After(p.blocked) {
			p.blocked = until
		}
		p.interval = min(maxReadInterval, p.interval*2)
		if p.throttledSince.IsZero() {
			p.throttledSince = now
		}
		storm := now.Add(d).Sub(p.throttledSince) > p.maxThrottled
		p.mu.Unlock()
		deadline, hasDeadline := ctx.Deadline()
		late := hasDeadline && time.Now().Add(d).After(deadline)
		if attempt >= MaxThrottledAttempts || late || storm {
			te := &ThrottledError{Method: raw.Method, URL: raw.URL.Path, Attempts: attempt, Waited: time.Since(start),
				RetryAfter: retryAfter, Remaining: resp.Header.Get(ReadRemainingHeader), DeadlineFirst: late && !storm && attempt < MaxThrottledAttempts,
				TooLong: storm && d > p.maxThrottled}
			te.Code, te.Message = armError(resp)
			p.mu.Lock()
			p.stats.Surfaced++
			p.last = te
			if (!late || storm) && p.tripped == nil {
				p.tripped, p.trippedUntil = te, now.Add(trippedFor)
				close(p.tripCh)
			}
			p.mu.Unlock()
			return nil, te
		}
		last := &ThrottledError{Method: raw.Method, URL: raw.URL.Path, Waited: time.Since(start), RetryAfter: retryAfter, Remaining: resp.Header.Get(ReadRemainingHeader)}
		last.Code, last.Message = armError(resp)
		p.mu.Lock()
		p.last = last
		p.mu.Unlock()
		tflog.Debug(ctx, "ARM throttled a read; waiting for Retry-After", map[string]any{"url": raw.URL.Path, "retry_after": retryAfter, "attempt": attempt})
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
	}
}

func (p *Pacer) isTripped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tripped != nil
}

// logPacing says once per process, at INFO, why reads slow down.
func (p *Pacer) logPacing(ctx context.Context) {
	p.mu.Lock()
	if p.logged {
		p.mu.Unlock()
		return
	}
	p.logged = true
	remaining := p.remaining
	p.mu.Unlock()
	tflog.Info(ctx, fmt.Sprintf("Azure Resource Manager's read budget of this subscription and principal is nearly spent (%s: %d): "+
		"reads are now paced at ARM's refill rate (%d a second), keeping %d for other tools; a plan over many members takes longer",
		ReadRemainingHeader, remaining, ARMReadRefillPerSecond, ReadReserve))
}

// retryAfterDuration reads Retry-After in seconds (ARM sends seconds); 1 s when absent or unreadable.
func retryAfterDuration(v string) time.Duration {
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return time.Second
}

func drain(resp *http.Response) {
	if resp.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
	}
}

func armError(resp *http.Response) (code, message string) {
	defer drain(resp)
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", ""
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil {
		return "", string(b)
	}
	return e.Error.Code, e.Error.Message
}
