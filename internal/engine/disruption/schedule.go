package disruption

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// ScheduleHorizon is how far ahead the preview's schedule looks.
const ScheduleHorizon = 7 * 24 * time.Hour

// ScheduleCap is the most ranges the preview lists, whatever the configuration: a schedule such as
// "*/5 * * * *" with a 1m duration changes 4,000 times a week, which no plan should print.
const ScheduleCap = 48

// maxScheduleWindows bounds the windows walked per budget in the horizon (a minute schedule has
// 10,080 a week).
const maxScheduleWindows = 20000

// ScheduleRange is one time range [From, To) of the week ahead in which no budget opens or closes
// (UTC, as Karpenter evaluates schedules), with per reason what Karpenter's
// MustGetAllowedDisruptions gives at From.
type ScheduleRange struct {
	From, To time.Time
	// Budgeted is, per reason, Karpenter's allowance (Unbounded when no active budget applies).
	Budgeted map[karpv1.DisruptionReason]int
	// Active are the indexes of the budgets active in the range (by Karpenter's IsActive).
	Active []int
}

// Allowed is how many more nodes Karpenter may start disrupting for the reason in the range, with
// disrupting nodes already counted (as ReasonPreview.Allowed); unbounded says no budget limits it.
func (r ScheduleRange) Allowed(reason karpv1.DisruptionReason, disrupting int) (n int, unbounded bool) {
	b := r.Budgeted[reason]
	return RemainingDisruptions(b, disrupting), b == Unbounded
}

// scheduleEdges lists the instants in (now, end) at which one budget opens or closes, walking its
// windows with NextSpan (the same walk as the windows list).
func scheduleEdges(b karpv1.Budget, now, end time.Time) []time.Time {
	var out []time.Time
	t := now
	for range maxScheduleWindows {
		span, kind, err := NextSpan(b, t)
		if err != nil || kind != Windowed {
			return out
		}
		if !span.Open {
			if !span.OpensAt.Before(end) {
				return out
			}
			out = append(out, span.OpensAt)
		}
		if span.Continuous || !span.ClosesAt.Before(end) {
			return out
		}
		out = append(out, span.ClosesAt)
		t = span.ClosesAt
	}
	return out
}

// weekSegments splits [now, now+ScheduleHorizon) at every instant a budget opens or closes and
// evaluates each piece at its start with Karpenter's own functions: MustGetAllowedDisruptions per
// reason, IsActive per budget. pkg/apis/v1/nodepool.go (*NodePool).MustGetAllowedDisruptions,
// (*Budget).IsActive.
func weekSegments(budgets []karpv1.Budget, reasons []karpv1.DisruptionReason, nodes int, now time.Time) []ScheduleRange {
	now = now.UTC()
	end := now.Add(ScheduleHorizon)
	edges := []time.Time{now}
	for _, b := range budgets {
		edges = append(edges, scheduleEdges(b, now, end)...)
	}
	slices.SortFunc(edges, func(a, b time.Time) int { return a.Compare(b) })
	edges = slices.CompactFunc(edges, func(a, b time.Time) bool { return a.Equal(b) })
	out := make([]ScheduleRange, 0, len(edges))
	for i, from := range edges {
		to := end
		if i+1 < len(edges) {
			to = edges[i+1]
		}
		r := ScheduleRange{From: from, To: to, Budgeted: map[karpv1.DisruptionReason]int{}}
		for _, reason := range reasons {
			r.Budgeted[reason] = MustAllowedByReason(budgets, nodes, reason, from)
		}
		clk := At(from)
		for j := range budgets {
			if ok, err := budgets[j].IsActive(clk); ok && err == nil {
				r.Active = append(r.Active, j)
			}
		}
		out = append(out, r)
	}
	return out
}

// WeekSchedule is the week ahead from now: the ranges in which Karpenter's allowance of every
// reason stays the same, consecutive ranges with equal allowances merged. Every range's allowance
// is Karpenter's own MustGetAllowedDisruptions at the range's start.
func WeekSchedule(budgets []karpv1.Budget, reasons []karpv1.DisruptionReason, nodes, disrupting int, now time.Time) []ScheduleRange {
	var out []ScheduleRange
	for _, s := range weekSegments(budgets, reasons, nodes, now) {
		if n := len(out); n > 0 && maps.Equal(out[n-1].Budgeted, s.Budgeted) {
			out[n-1].To = s.To
			continue
		}
		s.Active = nil // merged ranges may span budgets opening and closing
		out = append(out, s)
	}
	return out
}

// CapSchedule keeps the first ScheduleCap ranges and counts the rest; capped false keeps them all
// (preview_detail = "full").
func CapSchedule(week []ScheduleRange, capped ...bool) ([]ScheduleRange, int) {
	if len(week) <= ScheduleCap || (len(capped) > 0 && !capped[0]) {
		return week, 0
	}
	return week[:ScheduleCap], len(week) - ScheduleCap
}

// UsedReasons are the budget reasons the NodePool's disruption would use: Drifted always; Empty
// when consolidation is on (consolidateAfter not Never, no static replicas); Underutilized also
// needs a policy other than WhenEmpty. pkg/controllers/disruption/emptiness.go, consolidation.go
// ShouldDisrupt + pkg/controllers/disruption/drift.go.
func UsedReasons(pool *karpv1.NodePool) []karpv1.DisruptionReason {
	out := []karpv1.DisruptionReason{}
	consolidates := pool.Spec.Replicas == nil && pool.Spec.Disruption.ConsolidateAfter.Duration != nil
	if consolidates {
		out = append(out, karpv1.DisruptionReasonEmpty)
		if pool.Spec.Disruption.ConsolidationPolicy != karpv1.ConsolidationPolicyWhenEmpty {
			out = append(out, karpv1.DisruptionReasonUnderutilized)
		}
	}
	return append(out, karpv1.DisruptionReasonDrifted)
}

// ScheduleWarnings warns about budgets that cancel each other in the week ahead: a budget that is
// active but never the effective limit (another active budget for the same reason is always
// stricter), and reasons the NodePool would use for which no disruption is allowed at any time.
// Allowances are compared at the pool's node count (at least one node, so that percentages of an
// empty pool do not make every budget equal), with Karpenter's own functions.
func ScheduleWarnings(pool *karpv1.NodePool, budgets []karpv1.Budget, reasons []karpv1.DisruptionReason, nodes int, week []ScheduleRange) []string {
	n := max(nodes, 1)
	segs := weekSegments(budgets, reasons, n, week0(week))
	var out []string
	for i, b := range budgets {
		if _, err := BudgetNodes(b.Nodes, n); err != nil {
			continue
		}
		seen, effective := false, false
		stricter := map[int]bool{}
		for _, s := range segs {
			if !slices.Contains(s.Active, i) {
				continue
			}
			own, _ := BudgetAllowed(b, n, s.From)
			for _, r := range reasons {
				if !BudgetAppliesTo(b, r) {
					continue
				}
				seen = true
				if s.Budgeted[r] >= own {
					effective = true
					continue
				}
				for _, j := range s.Active {
					if a, err := BudgetAllowed(budgets[j], n, s.From); j != i && err == nil && a < own && BudgetAppliesTo(budgets[j], r) {
						stricter[j] = true
					}
				}
			}
		}
		if seen && !effective {
			out = append(out, fmt.Sprintf("budget %d (%s) is never the effective limit in the coming week: %s, active whenever it is, always %s fewer disruptions",
				i, budgetText(b), budgetList(budgets, slices.Sorted(maps.Keys(stricter))), plural(len(stricter), "allows", "allow")))
		}
	}
	var zero []string
	for _, r := range UsedReasons(pool) {
		if !slices.Contains(reasons, r) || len(segs) == 0 {
			continue
		}
		if !slices.ContainsFunc(segs, func(s ScheduleRange) bool { return s.Budgeted[r] > 0 }) {
			zero = append(zero, string(r))
		}
	}
	if len(zero) > 0 {
		out = append(out, fmt.Sprintf("no disruption is allowed at any time in the coming week (UTC, as Karpenter evaluates schedules) for %s, which this NodePool would otherwise use: "+
			"the most restrictive active budget wins at every moment, so a window never opens while a stricter budget is active with it",
			strings.Join(zero, ", ")))
	}
	return out
}

// week0 is where the week starts.
func week0(week []ScheduleRange) time.Time {
	if len(week) == 0 {
		return time.Time{}
	}
	return week[0].From
}

// budgetText is a budget in one line: nodes, then schedule and duration, then reasons.
func budgetText(b karpv1.Budget) string {
	s := fmt.Sprintf("nodes %q", b.Nodes)
	if b.Schedule != nil {
		s += fmt.Sprintf(", schedule %q", *b.Schedule)
	}
	if b.Duration != nil {
		s += ", duration " + shortDuration(b.Duration.Duration)
	}
	if b.Reasons != nil {
		rs := make([]string, 0, len(b.Reasons))
		for _, r := range b.Reasons {
			rs = append(rs, string(r))
		}
		s += ", reasons " + strings.Join(rs, ", ")
	}
	return s
}

// budgetList names budgets by index with their settings.
func budgetList(budgets []karpv1.Budget, idx []int) string {
	parts := make([]string, 0, len(idx))
	for _, j := range idx {
		parts = append(parts, fmt.Sprintf("budget %d (%s)", j, budgetText(budgets[j])))
	}
	return strings.Join(parts, " and ")
}

// shortDuration spells a duration as the CRD's pattern does ("48h", "1h30m"), not "48h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
