package disruption

import (
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// TestCrossCheckWeekSchedule checks the week-ahead schedule against Karpenter's own
// MustGetAllowedDisruptions at every minute of the week (from now, now+1m, ...) for generated
// budget sets: the range holding the minute must carry exactly Karpenter's allowance for every
// reason. It also checks the ranges tile the week and that neighbours differ.
func TestCrossCheckWeekSchedule(t *testing.T) {
	quietKlog(t)
	g := newGen(20261125)
	sets := max(*crossCheckCases/100, 1)
	reasons := ReasonsWith("Unhealthy")
	var minutes, checks, ranges, maxRanges, capped int
	for i := range sets {
		budgets := g.budgets()
		if i%2 == 1 {
			budgets = g.windowedBudgets()
		}
		now := g.now()
		nodes := g.r.IntN(50)
		week := WeekSchedule(budgets, reasons, nodes, 0, now)
		ranges += len(week)
		maxRanges = max(maxRanges, len(week))
		if _, omitted := CapSchedule(week); omitted > 0 {
			capped++
		}
		start, end := now.UTC(), now.UTC().Add(ScheduleHorizon)
		if len(week) == 0 || !week[0].From.Equal(start) || !week[len(week)-1].To.Equal(end) {
			t.Fatalf("the ranges do not cover [now, now+7d): %s", describe(budgets, nodes, now))
		}
		for i := 1; i < len(week); i++ {
			if !week[i].From.Equal(week[i-1].To) || !week[i].From.After(week[i-1].From) {
				t.Fatalf("ranges %d and %d do not follow each other: %s", i-1, i, describe(budgets, nodes, now))
			}
		}
		for m := start; m.Before(end); m = m.Add(time.Minute) {
			i := sort.Search(len(week), func(i int) bool { return week[i].To.After(m) })
			for _, r := range reasons {
				want := MustAllowedByReason(budgets, nodes, r, m)
				if got := week[i].Budgeted[r]; got != want {
					t.Fatalf("%s at %s: schedule range %d [%s, %s) gives %d, Karpenter %d\n%s", r, m.Format(time.RFC3339), i,
						week[i].From.Format(time.RFC3339), week[i].To.Format(time.RFC3339), got, want, describe(budgets, nodes, now))
				}
				checks++
			}
			minutes++
		}
	}
	t.Logf("%d generated budget sets, %d minutes, %d (minute, reason) allowances equal to Karpenter's MustGetAllowedDisruptions (0 mismatches); "+
		"%d ranges in all, at most %d in one week, %d weeks over the cap of %d", sets, minutes, checks, ranges, maxRanges, capped, ScheduleCap)
}

// windowedBudgets are up to four budgets that open and close within a week (business hours,
// weekends, every few minutes or hours), sometimes with an always-active one.
func (g gen) windowedBudgets() []karpv1.Budget {
	var out []karpv1.Budget
	for range 1 + g.r.IntN(4) {
		sched := g.pick("0 9 * * 1-5", "0 0 * * 6", "*/20 * * * *", "30 */3 * * *", "0 22 * * fri", "@daily", "@hourly", "15 6,18 * * *", g.schedule())
		d := time.Duration(1+g.r.IntN(3000)) * time.Minute
		out = append(out, karpv1.Budget{Nodes: g.pick("0", "1", "3", "10%", "50%", "100%"), Reasons: g.reasons(), Schedule: &sched, Duration: &metav1.Duration{Duration: d}})
	}
	if g.r.IntN(2) == 0 {
		out = append(out, karpv1.Budget{Nodes: g.pick("0", "2", "20%")})
	}
	return out
}

// weekendBudgets is the example of AKS's node auto-provisioning disruption docs ("only allow
// disruption at weekends"): https://learn.microsoft.com/azure/aks/node-autoprovision-disruption
// budgets: [{nodes: "50%", schedule: "0 0 * * 6", duration: "48h"}, {nodes: "0"}].
func weekendBudgets() []karpv1.Budget {
	s := "0 0 * * 6"
	return []karpv1.Budget{{Nodes: "50%", Schedule: &s, Duration: &metav1.Duration{Duration: 48 * time.Hour}}, {Nodes: "0"}}
}

// TestWeekendExampleNeverOpens: the always-active "0" overrides the weekend window, so the week is
// zero throughout, and both warnings name the budgets.
func TestWeekendExampleNeverOpens(t *testing.T) {
	pool := &karpv1.NodePool{}
	pool.Name = "default"
	pool.Spec.Disruption.Budgets = weekendBudgets()
	pool.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
	pool.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("1m")
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC) // a Wednesday
	p := BuildPreview(Input{NodePool: pool, Now: now})
	if len(p.Schedule) != 1 {
		t.Fatalf("schedule %+v: want one range of zeros", p.Schedule)
	}
	for _, r := range DefaultReasons() {
		if p.Schedule[0].Budgeted[r] != 0 {
			t.Errorf("%s: %d allowed, want 0", r, p.Schedule[0].Budgeted[r])
		}
	}
	var never, zero bool
	for _, w := range p.Warnings {
		never = never || strings.HasPrefix(w, `budget 0 (nodes "50%", schedule "0 0 * * 6", duration 48h) is never the effective limit`) && strings.Contains(w, `budget 1 (nodes "0")`)
		zero = zero || strings.HasPrefix(w, "no disruption is allowed at any time in the coming week") && strings.Contains(w, "for Empty, Underutilized, Drifted,")
	}
	if !never || !zero {
		t.Fatalf("warnings %q: want the never-effective warning naming budgets 0 and 1, and the zero-week warning", p.Warnings)
	}
}

// TestWeekendWindowAlone: without the "0" budget the window opens on Saturday 00:00 UTC for 48h,
// and the schedule shows the three ranges (now to Saturday unbounded, the weekend at 50%, then
// unbounded) with no warning about it.
func TestWeekendWindowAlone(t *testing.T) {
	budgets := weekendBudgets()[:1]
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	week := WeekSchedule(budgets, DefaultReasons(), 10, 1, now)
	sat := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	if len(week) != 3 || !week[1].From.Equal(sat) || !week[1].To.Equal(sat.Add(48*time.Hour)) {
		t.Fatalf("week %+v", week)
	}
	if n, unb := week[1].Allowed(karpv1.DisruptionReasonDrifted, 1); n != 4 || unb {
		t.Errorf("weekend: %d allowed (unbounded %v), want 50%% of 10 minus 1 disrupting = 4", n, unb)
	}
	if _, unb := week[0].Allowed(karpv1.DisruptionReasonDrifted, 1); !unb {
		t.Errorf("weekdays: want unbounded")
	}
	pool := &karpv1.NodePool{}
	if w := ScheduleWarnings(pool, budgets, DefaultReasons(), 10, week); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}
}

// TestScheduleCapped: a minute schedule with a 30s window changes 20,160 times a week; the
// preview lists ScheduleCap ranges and counts the rest.
func TestScheduleCapped(t *testing.T) {
	s := "* * * * *"
	budgets := []karpv1.Budget{{Nodes: "1", Schedule: &s, Duration: &metav1.Duration{Duration: 30 * time.Second}}}
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	week := WeekSchedule(budgets, DefaultReasons(), 10, 0, now)
	listed, omitted := CapSchedule(week)
	if len(week) != 20160 || len(listed) != ScheduleCap || omitted != 20160-ScheduleCap {
		t.Fatalf("%d ranges, %d listed, %d omitted", len(week), len(listed), omitted)
	}
	if all, omitted := CapSchedule(week, false); len(all) != 20160 || omitted != 0 {
		t.Fatalf("uncapped: %d listed, %d omitted", len(all), omitted)
	}
}
