package simclock

import (
	"math"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

func TestNowRunsSpeedTimesFaster(t *testing.T) {
	wall := NewManual(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	c := New(start, 3600, wall.Now)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("at creation Now() = %v, want %v", got, start)
	}
	wall.Advance(2 * time.Second)
	if got, want := c.Now(), start.Add(2*time.Hour); !got.Equal(want) {
		t.Fatalf("after 2 real seconds Now() = %v, want %v", got, want)
	}
	wall.Advance(1500 * time.Millisecond)
	if got, want := c.Now(), start.Add(3*time.Hour+30*time.Minute); !got.Equal(want) {
		t.Fatalf("after 3.5 real seconds Now() = %v, want %v", got, want)
	}
	if c.Speed() != 3600 {
		t.Fatalf("Speed() = %v", c.Speed())
	}
}

func TestRealDurationAndUntil(t *testing.T) {
	wall := NewManual(time.Unix(0, 0))
	c := New(start, 3600, wall.Now)
	// 20 simulated minutes at 3600x are a third of a real second, rounded up
	// so that a wait never ends before the simulated instant.
	if got := c.RealDuration(20 * time.Minute); got != 333333334*time.Nanosecond {
		t.Fatalf("RealDuration(20m) = %v, want 333.333334ms", got)
	}
	if got := c.RealDuration(time.Hour); got != time.Second {
		t.Fatalf("RealDuration(1h) = %v, want 1s", got)
	}
	if got := c.RealDuration(-time.Hour); got != 0 {
		t.Fatalf("RealDuration(-1h) = %v, want 0", got)
	}
	target := start.Add(12 * time.Hour)
	if got := c.Until(target); got != 12*time.Second {
		t.Fatalf("Until(start+12h) = %v, want 12s", got)
	}
	wall.Advance(12 * time.Second)
	if got := c.Until(target); got != 0 {
		t.Fatalf("Until(now) = %v, want 0", got)
	}
	wall.Advance(time.Second)
	if got := c.Until(target); got >= 0 {
		t.Fatalf("Until(past) = %v, want negative", got)
	}
}

func TestFrozenClock(t *testing.T) {
	wall := NewManual(time.Unix(0, 0))
	c := New(start, 0, wall.Now)
	wall.Advance(time.Hour)
	if !c.Now().Equal(start) {
		t.Fatalf("frozen clock moved to %v", c.Now())
	}
	if got := c.RealDuration(time.Minute); got != math.MaxInt64 {
		t.Fatalf("frozen RealDuration = %v", got)
	}
	if got := New(start, -5, wall.Now).Speed(); got != 0 {
		t.Fatalf("negative speed became %v, want 0", got)
	}
}

func TestDefaultsToWallClock(t *testing.T) {
	c := New(start, 1, nil)
	if d := c.Now().Sub(start); d < 0 || d > time.Minute {
		t.Fatalf("wall-clock-driven Now() is %v from start", d)
	}
}

func TestSaturatesInsteadOfOverflowing(t *testing.T) {
	wall := NewManual(time.Unix(0, 0))
	c := New(start, 1e12, wall.Now)
	wall.Advance(1000 * time.Hour)
	if got := c.Now(); got.Before(start) {
		t.Fatalf("overflow: Now() = %v went before start", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	wall := NewManual(time.Unix(0, 0))
	c := New(start, 60, wall.Now)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := c.Now()
			for j := 0; j < 1000; j++ {
				wall.Advance(time.Millisecond)
				now := c.Now()
				if now.Before(prev) {
					t.Errorf("clock went backwards: %v after %v", now, prev)
					return
				}
				prev = now
				_ = c.RealDuration(time.Minute)
			}
		}()
	}
	wg.Wait()
	if got, want := c.Now(), start.Add(8*1000*time.Millisecond*60); !got.Equal(want) {
		t.Fatalf("after concurrent advances Now() = %v, want %v", got, want)
	}
}
