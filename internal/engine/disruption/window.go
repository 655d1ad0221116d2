package disruption

import (
	"math/bits"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// WindowHorizon bounds the search for a window's edges: a window still open WindowHorizon after now
// is reported Continuous, and a current window's opening is not looked for further back than that.
const WindowHorizon = 366 * 24 * time.Hour

// maxWindowSteps bounds the Next calls per edge search, whatever the schedule.
const maxWindowSteps = 1 << 16

// Span is a scheduled budget's current or next window: the budget is in force on [OpensAt, ClosesAt).
// Hits whose windows [hit, hit+duration) touch or overlap are merged into one span, since Karpenter's
// IsActive is true throughout.
type Span struct {
	OpensAt  time.Time
	ClosesAt time.Time
	// Open says the window is open at now (OpensAt <= now); OpensAt is then at most WindowHorizon back.
	Open bool
	// Continuous says no closing was found within WindowHorizon of now: ClosesAt is a lower bound.
	Continuous bool
}

// SpanKind says whether a budget has windows at all.
type SpanKind int

const (
	// Windowed: the Span holds the budget's current or next window.
	Windowed SpanKind = iota
	// AlwaysActive: no schedule and no duration, or a schedule that never fires (robfig's Next then
	// returns the zero time, which IsActive reads as "the last hit is not after now").
	AlwaysActive
	// NeverActive: a firing schedule with a zero or negative duration (or none): every window
	// [hit, hit+duration) is empty.
	NeverActive
)

// NextSpan returns the budget's current window, or its next one if it is inactive now, as Karpenter's
// IsActive would see it at every instant (UTC), with the kind of budget it is. err is the schedule's
// parse error (also for a duration without a schedule): Karpenter then blocks all disruption for the
// NodePool. pkg/apis/v1/nodepool.go (*Budget).IsActive.
func NextSpan(b karpv1.Budget, now time.Time) (Span, SpanKind, error) {
	if b.Schedule == nil && b.Duration == nil {
		return Span{}, AlwaysActive, nil
	}
	sched, err := ParseSchedule(scheduleText(b))
	if err != nil {
		return Span{}, NeverActive, err
	}
	d := budgetDuration(b)
	now = now.UTC()
	if _, isSpec := sched.(*cron.SpecSchedule); !isSpec {
		// Only "@every" parses to another schedule, whose Next counts from its argument: IsActive is
		// then the same at (almost) every instant. The CRD's pattern never lets "@every" through.
		if scheduleActive(sched, d, now) {
			return Span{}, AlwaysActive, nil
		}
		return Span{}, NeverActive, nil
	}
	first := sched.Next(now.Add(-d)) // earliest hit strictly after now-d
	switch {
	case first.IsZero():
		return Span{}, AlwaysActive, nil
	case d <= 0:
		return Span{}, NeverActive, nil
	}
	r := newHitRuns(sched, d)
	span := Span{OpensAt: first}
	if !first.After(now) {
		span.Open = true
		span.OpensAt = r.runStart(first, now.Add(-WindowHorizon))
	}
	span.ClosesAt, span.Continuous = r.runEnd(first, now.Add(WindowHorizon))
	return span, Windowed, nil
}

// hitRuns walks a schedule's hits in merged runs. For a standard cron schedule every matching UTC day
// has hits at the same times of day; when no gap between those exceeds the duration, a whole day's
// hits merge, so the walk can jump a day per Next call.
type hitRuns struct {
	sched     cron.Schedule
	d         time.Duration
	offsets   []time.Duration // sorted times of day of the hits, when the schedule is a *cron.SpecSchedule
	dayMerges bool
}

// newHitRuns prepares the walk for one schedule and duration.
func newHitRuns(sched cron.Schedule, d time.Duration) hitRuns {
	r := hitRuns{sched: sched, d: d}
	spec, isSpec := sched.(*cron.SpecSchedule)
	if !isSpec {
		return r
	}
	r.offsets = timesOfDay(spec)
	r.dayMerges = len(r.offsets) > 0 && maxGap(r.offsets) <= d
	return r
}

// timesOfDay lists the offsets from midnight of a spec schedule's hits on a matching day.
func timesOfDay(spec *cron.SpecSchedule) []time.Duration {
	var out []time.Duration
	for _, h := range bitIndexes(spec.Hour, 23) {
		for _, m := range bitIndexes(spec.Minute, 59) {
			for _, s := range bitIndexes(spec.Second, 59) {
				out = append(out, time.Duration(h)*time.Hour+time.Duration(m)*time.Minute+time.Duration(s)*time.Second)
			}
		}
	}
	slices.Sort(out)
	return out
}

// bitIndexes lists the set bits 0..limit of a cron field (robfig keeps its star flag in bit 63).
func bitIndexes(field uint64, limit int) []int {
	var out []int
	field &= (uint64(1) << (limit + 1)) - 1
	for field != 0 {
		i := bits.TrailingZeros64(field)
		out = append(out, i)
		field &^= uint64(1) << i
	}
	return out
}

// maxGap is the largest gap between consecutive times of day.
func maxGap(offsets []time.Duration) time.Duration {
	var g time.Duration
	for i := 1; i < len(offsets); i++ {
		g = max(g, offsets[i]-offsets[i-1])
	}
	return g
}

// midnight is the start of t's UTC day.
func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// lastOfRun is the last hit that hit h chains to without leaving its day (h itself unless days merge).
func (r hitRuns) lastOfRun(h time.Time) time.Time {
	if !r.dayMerges {
		return h
	}
	return midnight(h).Add(r.offsets[len(r.offsets)-1])
}

// firstOfRun is the first hit that chains to hit h within its day (h itself unless days merge).
func (r hitRuns) firstOfRun(h time.Time) time.Time {
	if !r.dayMerges {
		return h
	}
	return midnight(h).Add(r.offsets[0])
}

// runEnd is where the merged run containing hit h closes: the end of the last hit's window when the
// following hit comes strictly after it. continuous when the run outlasts limit.
func (r hitRuns) runEnd(h, limit time.Time) (end time.Time, continuous bool) {
	for step := 0; ; step++ {
		last := r.lastOfRun(h)
		end = last.Add(r.d)
		if end.After(limit) || step >= maxWindowSteps {
			return end, true
		}
		next := r.sched.Next(last)
		if next.IsZero() || next.After(end) {
			return end, false
		}
		h = next
	}
}

// runStart is where the merged run containing hit h opened: walk back while some earlier hit's window
// reaches the run's first hit (the earliest hit at or after first-d, found with Next from just before).
// Stops at limit.
func (r hitRuns) runStart(h, limit time.Time) time.Time {
	for step := 0; ; step++ {
		first := r.firstOfRun(h)
		if first.Before(limit) || step >= maxWindowSteps {
			return first
		}
		prev := r.sched.Next(first.Add(-r.d - time.Nanosecond))
		if prev.IsZero() || !prev.Before(first) {
			return first
		}
		h = prev
	}
}
