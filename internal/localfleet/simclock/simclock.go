// Package simclock is the local fleet's simulated clock: it starts at a
// simulated instant and runs speed times faster than real time (SPEC §6,
// fleet file `clock: {start, speed}`). The real time source is injected so
// tests control it (see Manual).
package simclock

import (
	"math"
	"sync"
	"time"
)

// Clock maps real time onto simulated time. It is safe for concurrent use.
type Clock struct {
	mu        sync.Mutex
	start     time.Time // simulated instant at realStart
	speed     float64   // simulated seconds per real second; 0 freezes the clock
	real      func() time.Time
	realStart time.Time
}

// New returns a clock that reads start now and then advances speed
// simulated seconds per real second of realNow(). A nil realNow means
// time.Now; a negative speed is treated as 0 (a frozen clock).
func New(start time.Time, speed float64, realNow func() time.Time) *Clock {
	if realNow == nil {
		realNow = time.Now
	}
	if speed < 0 || math.IsNaN(speed) {
		speed = 0
	}
	return &Clock{start: start, speed: speed, real: realNow, realStart: realNow()}
}

// Now is start + real elapsed × speed.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start.Add(scale(c.real().Sub(c.realStart), c.speed))
}

// Speed is the number of simulated seconds per real second.
func (c *Clock) Speed() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.speed
}

// RealDuration is how long, in real time, the clock takes to advance by
// simulated. A frozen clock never advances: it answers the largest duration
// for any positive simulated duration.
func (c *Clock) RealDuration(simulated time.Duration) time.Duration {
	c.mu.Lock()
	speed := c.speed
	c.mu.Unlock()
	if simulated <= 0 {
		return 0
	}
	if speed == 0 {
		return math.MaxInt64
	}
	return scale(simulated, 1/speed)
}

// Until is the real duration until the clock reads t; zero or negative once
// it has passed.
func (c *Clock) Until(t time.Time) time.Duration {
	d := t.Sub(c.Now())
	if d <= 0 {
		return d
	}
	return c.RealDuration(d)
}

// scale multiplies d by f, saturating instead of overflowing, and rounds up
// positive results so a wait computed from it never ends early.
func scale(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	case v > 0:
		return time.Duration(math.Ceil(v))
	}
	return time.Duration(v)
}

// Manual is a real-time source that only moves when told to; pass its Now
// to New in tests.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a Manual reading t.
func NewManual(t time.Time) *Manual { return &Manual{now: t} }

// Now returns the current manual time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the manual time forward by d.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}
