package disruption

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// crossCheckCases is how many random NodePools the cross-checks generate; -crosscheck.n raises it.
var crossCheckCases = flag.Int("crosscheck.n", 3000, "random NodePools per cross-check")

// quietKlog silences the stack traces intstr.FromInt logs for the int32 overflows the generator
// makes on purpose.
func quietKlog(t *testing.T) {
	t.Helper()
	klog.SetLogger(logr.Discard())
	t.Cleanup(klog.ClearLogger)
}

// gen makes random budgets, node counts and times, including everything the CRD accepts but
// Karpenter rejects, and things the CRD rejects that Karpenter would still have to evaluate.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g gen) nodes() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return fmt.Sprint(g.r.IntN(30))
	case 3, 4, 5:
		return fmt.Sprintf("%d%%", g.r.IntN(101))
	case 6:
		return fmt.Sprintf("%02d%%", g.r.IntN(100))
	case 7:
		return fmt.Sprint(g.r.IntN(2000))
	case 8:
		return g.pick("0", "0%", "100%", "00%", "007", "1")
	default:
		return g.pick("2147483647", "2147483648", "4294967306", "99999999999999999999", "-5", "-5%", "150%",
			"1000a%", "abc", "", "%", "5%%", "+3", " 5", "5.5%")
	}
}

// cronField makes one field of a five-field schedule over [lo, hi], with names where names != nil.
func (g gen) cronField(lo, hi int, names []string) string {
	val := func() string {
		v := lo + g.r.IntN(hi-lo+1)
		if names != nil && g.r.IntN(4) == 0 {
			return names[v-lo]
		}
		return fmt.Sprint(v)
	}
	switch g.r.IntN(12) {
	case 0, 1, 2, 3:
		return "*"
	case 4:
		return "?"
	case 5, 6:
		return val()
	case 7:
		a, b := lo+g.r.IntN(hi-lo+1), lo+g.r.IntN(hi-lo+1)
		if a > b && g.r.IntN(8) != 0 {
			a, b = b, a // wrap-arounds, which Karpenter rejects, one time in eight
		}
		return fmt.Sprintf("%d-%d", a, b)
	case 8:
		return fmt.Sprintf("*/%d", 1+g.r.IntN(hi-lo+1))
	case 9:
		return fmt.Sprintf("%s/%d", val(), 1+g.r.IntN(hi-lo+1))
	case 10:
		return val() + "," + val() + "," + val()
	default:
		return fmt.Sprintf("%d-%d/%d", lo, hi, 1+g.r.IntN(3))
	}
}

var (
	monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	dayNames   = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
)

func (g gen) schedule() string {
	switch g.r.IntN(20) {
	case 0, 1:
		return g.pick("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
	case 2:
		return g.pick("* * * * *", "0 * * * *", "0 0 * * *", "30 6 * * SUN", "0 9 * * 1-5", "*/15 * * * *", "0 22 * * fri")
	case 3:
		// CRD-valid, Karpenter-invalid, or never firing.
		return g.pick("0 0 * * 7", "0 0 * * sat-sun", "0 22-2 * * *", "CRON_TZ=UTC 0 9 * * *", "TZ=Europe/Paris 0 9 * * *",
			"0 0 9 * * *", "@dailyX", "@every 1h", "0 0 30 2 *", "0 0 31 4 ?", "0 0 29 2 *", "0 0 L * *", "* * * *", "", "*")
	}
	var dow string
	if g.r.IntN(20) == 0 {
		dow = "7"
	} else {
		dow = g.cronField(0, 6, dayNames)
	}
	return strings.Join([]string{g.cronField(0, 59, nil), g.cronField(0, 23, nil), g.cronField(1, 31, nil), g.cronField(1, 12, monthNames), dow}, " ")
}

func (g gen) duration() time.Duration {
	switch g.r.IntN(6) {
	case 0:
		return time.Duration(g.r.IntN(120)) * time.Minute
	case 1:
		return time.Duration(g.r.IntN(72)) * time.Hour
	case 2:
		return time.Duration(g.r.IntN(60*24*40)) * time.Minute
	case 3:
		return 0
	case 4:
		return time.Duration(g.r.Int64N(int64(48 * time.Hour))) // sub-minute precision, which the CRD forbids
	default:
		return time.Duration(1+g.r.IntN(24)) * time.Hour
	}
}

func (g gen) reasons() []karpv1.DisruptionReason {
	switch g.r.IntN(5) {
	case 0, 1:
		return nil
	case 2:
		return []karpv1.DisruptionReason{}
	}
	all := []karpv1.DisruptionReason{"Empty", "Underutilized", "Drifted", "Unhealthy"}
	var out []karpv1.DisruptionReason
	for _, r := range all {
		if g.r.IntN(2) == 0 {
			out = append(out, r)
		}
	}
	return out
}

func (g gen) budget() karpv1.Budget {
	b := karpv1.Budget{Nodes: g.nodes(), Reasons: g.reasons()}
	switch g.r.IntN(24) {
	case 0, 1, 2, 3, 4, 5:
	case 6:
		b.Schedule = ptr(g.schedule()) // no duration: never active
	case 7:
		b.Duration = &metav1.Duration{Duration: g.duration()} // no schedule: an error
	default:
		b.Schedule = ptr(g.schedule())
		b.Duration = &metav1.Duration{Duration: g.duration()}
	}
	return b
}

func (g gen) budgets() []karpv1.Budget {
	if g.r.IntN(20) == 0 {
		return nil
	}
	out := make([]karpv1.Budget, g.r.IntN(6))
	for i := range out {
		out[i] = g.budget()
	}
	return out
}

// now is a random instant between 1999 and 2031, sometimes on a minute boundary, in a random zone.
func (g gen) now() time.Time {
	base := time.Date(1999, time.January, 1, 0, 0, 0, 0, time.UTC)
	t := base.Add(time.Duration(g.r.Int64N(int64(32 * 365 * 24 * time.Hour))))
	switch g.r.IntN(4) {
	case 0:
		t = t.Truncate(time.Minute)
	case 1:
		t = t.Truncate(time.Hour)
	}
	if g.r.IntN(4) == 0 {
		t = t.In(time.FixedZone("offset", (g.r.IntN(27)-12)*3600))
	}
	return t
}

// describe renders a failing case's inputs.
func describe(budgets []karpv1.Budget, total int, now time.Time) string {
	b, _ := json.Marshal(budgets)
	return fmt.Sprintf("budgets=%s total=%d now=%s", b, total, now.Format(time.RFC3339Nano))
}

// TestCrossCheckWindows checks every window NextSpan reports against Karpenter's own IsActive: closed
// just before it opens (unless the walk back stopped at the horizon), open at its edges' inner side
// and at random instants inside, closed when it closes, and closed from now until it opens.
func TestCrossCheckWindows(t *testing.T) {
	g := newGen(7)
	clk := clocktesting.NewFakeClock(time.Time{})
	active := func(b karpv1.Budget, at time.Time) bool {
		clk.SetTime(at)
		ok, err := b.IsActive(clk)
		if err != nil {
			t.Fatalf("IsActive: %v", err)
		}
		return ok
	}
	var windows, open, continuous, none int
	for range *crossCheckCases {
		b := karpv1.Budget{Nodes: "1", Schedule: ptr(g.schedule()), Duration: &metav1.Duration{Duration: g.duration()}}
		now := g.now()
		span, kind, err := NextSpan(b, now)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf(format+"\nschedule=%q duration=%s now=%s span=%+v", append(args, *b.Schedule, b.Duration.Duration, now.Format(time.RFC3339Nano), span)...)
		}
		if _, perr := ParseSchedule(*b.Schedule); (perr != nil) != (err != nil) {
			fail("parse error mismatch: %v vs %v", perr, err)
		}
		if err != nil {
			continue
		}
		if kind != Windowed {
			none++
			probes := []time.Time{now, now.Add(time.Duration(g.r.Int64N(int64(400 * 24 * time.Hour))))}
			if strings.HasPrefix(*b.Schedule, "@every") {
				probes = probes[:1] // its IsActive flips with the fraction of a second of now-duration
			}
			for _, at := range probes {
				if active(b, at) != (kind == AlwaysActive) {
					fail("kind %d but IsActive(%s)=%v", kind, at, kind != AlwaysActive)
				}
			}
			continue
		}
		windows++
		if span.Open != active(b, now) {
			fail("Open=%v but IsActive(now)=%v", span.Open, !span.Open)
		}
		if !active(b, span.OpensAt) {
			fail("inactive at OpensAt")
		}
		if !span.OpensAt.Before(now.Add(-WindowHorizon)) && active(b, span.OpensAt.Add(-time.Nanosecond)) {
			fail("active just before OpensAt")
		}
		if !active(b, span.ClosesAt.Add(-time.Nanosecond)) {
			fail("inactive just before ClosesAt")
		}
		if span.Continuous {
			continuous++
		} else if active(b, span.ClosesAt) {
			fail("active at ClosesAt")
		}
		if span.Open {
			open++
		} else {
			for range 8 {
				at := now.Add(time.Duration(g.r.Int64N(int64(span.OpensAt.Sub(now)))))
				if active(b, at) {
					fail("active at %s, before the window opens", at)
				}
			}
		}
		for range 8 {
			width := span.ClosesAt.Sub(span.OpensAt)
			at := span.OpensAt.Add(time.Duration(g.r.Int64N(int64(width))))
			if !active(b, at) {
				fail("inactive at %s, inside the window", at)
			}
		}
	}
	t.Logf("%d schedules: %d windows checked against IsActive (%d open now, %d continuous), %d without a window", *crossCheckCases, windows, open, continuous, none)
}
