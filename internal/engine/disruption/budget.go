// Package disruption reproduces Karpenter v1.14.1's disruption budgets for one NodePool: which nodes
// count, which are already disrupting, how many disruptions each budget allows now per reason, when
// scheduled budgets open and close, and which nodes expire soon (expiry is not budgeted).
//
// Everything here is a pure function of Karpenter's API types (sigs.k8s.io/karpenter/pkg/apis/v1),
// core v1 Nodes and Pods and a `now` passed in: no I/O, no package state. Where Karpenter has the
// rule as a function of API objects, it is called, with a clock fixed at `now` (budgets:
// GetAllowedDisruptionsByReason, MustGetAllowedDisruptions, IsActive, GetAllowedDisruptions; drift:
// NodePool.Hash; pods: pkg/utils/pod; consolidateAfter and eviction cost: pkg/utils/disruption).
// What Karpenter keeps inside its controllers (cluster state, candidate filters) or does not have
// (window listing, explanations) is written here.
//
// Each rule cites, in a one-line comment, the upstream file it calls or reproduces: paths are files of
// sigs.k8s.io/karpenter v1.14.1 unless the comment names another module. Schedules are parsed with
// github.com/robfig/cron/v3 v3.0.1's ParseStandard, as Karpenter parses them.
package disruption

import (
	"math"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Unbounded is the allowance Karpenter uses for "no limit" (math.MaxInt32): what an inactive budget
// allows, and what a reason with no active budget gets.
const Unbounded = math.MaxInt32

// DefaultReasons returns the disruption reasons of the v1.14 NodePool CRD's enum, in the order the
// preview lists them. pkg/apis/crds/karpenter.sh_nodepools.yaml (budgets[].reasons enum).
func DefaultReasons() []karpv1.DisruptionReason {
	return []karpv1.DisruptionReason{
		karpv1.DisruptionReasonEmpty,
		karpv1.DisruptionReasonUnderutilized,
		karpv1.DisruptionReasonDrifted,
	}
}

// ReasonsWith returns DefaultReasons followed by every extra reason (e.g. Unhealthy from a v1.15 CRD's
// enum) not already listed, empty strings skipped.
func ReasonsWith(extra ...karpv1.DisruptionReason) []karpv1.DisruptionReason {
	reasons := DefaultReasons()
	for _, r := range extra {
		if r != "" && !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	return reasons
}

// DefaultBudgets is what the API server stores when `budgets` is omitted: one always-active 10% budget.
// Use it to preview a configuration that leaves budgets unset; an explicit empty list means no limit.
// pkg/apis/crds/karpenter.sh_nodepools.yaml (budgets default).
func DefaultBudgets() []karpv1.Budget {
	return []karpv1.Budget{{Nodes: "10%"}}
}

// ParseSchedule parses a budget schedule the way Karpenter does: robfig/cron v3 ParseStandard (five
// fields or an @descriptor) on "TZ=UTC " + schedule, so every schedule is evaluated in UTC and a
// time zone of the user's own becomes a sixth field. pkg/apis/v1/nodepool.go (*Budget).IsActive.
func ParseSchedule(schedule string) (cron.Schedule, error) {
	return cron.ParseStandard("TZ=UTC " + schedule)
}

// budgetDuration is the budget's duration, zero when unset (lo.FromPtr in upstream).
// pkg/apis/v1/nodepool.go (*Budget).IsActive.
func budgetDuration(b karpv1.Budget) time.Duration {
	if b.Duration == nil {
		return 0
	}
	return b.Duration.Duration
}

// scheduleText is the budget's schedule, "" when unset (lo.FromPtr in upstream).
func scheduleText(b karpv1.Budget) string {
	if b.Schedule == nil {
		return ""
	}
	return *b.Schedule
}

// At is Karpenter's clock interface fixed at one instant: the injected clock its own budget
// functions take. Only Now and Since are meaningful to them.
func At(now time.Time) clock.Clock { return clocktesting.NewFakeClock(now) }

// BudgetActive reports whether the budget is in force at now: Karpenter's own (*Budget).IsActive
// at a clock fixed at now. A budget without schedule and duration is always active; a schedule that
// never fires makes it always active, a zero duration never; a broken schedule is an error.
// pkg/apis/v1/nodepool.go (*Budget).IsActive.
func BudgetActive(b karpv1.Budget, now time.Time) (bool, error) {
	return b.IsActive(At(now))
}

// scheduleActive is IsActive's test on a parsed schedule, for the window walk (which evaluates the
// same schedule at many instants without re-parsing it). pkg/apis/v1/nodepool.go (*Budget).IsActive.
func scheduleActive(sched cron.Schedule, d time.Duration, now time.Time) bool {
	now = now.UTC()
	return !sched.Next(now.Add(-d)).After(now)
}

// BudgetNodes scales a budget's `nodes` against the node count with Karpenter's own conversion
// (GetIntStrFromValue: an integer is truncated to int32 and not capped) and apimachinery's rounding up
// of percentages; any other string is an error.
// pkg/apis/v1/nodepool.go (*Budget).GetAllowedDisruptions.
func BudgetNodes(nodes string, total int) (int, error) {
	v := karpv1.GetIntStrFromValue(nodes)
	return intstr.GetScaledValueFromIntOrPercent(&v, total, true)
}

// BudgetAllowed is how many disruptions one budget allows now: Karpenter's own
// (*Budget).GetAllowedDisruptions at a clock fixed at now (Unbounded while inactive, 0 with an error
// when broken). pkg/apis/v1/nodepool.go (*Budget).GetAllowedDisruptions.
func BudgetAllowed(b karpv1.Budget, total int, now time.Time) (int, error) {
	return b.GetAllowedDisruptions(At(now), total)
}

// BudgetAppliesTo reports whether a budget limits a reason: a budget with nil reasons applies to all
// reasons, a non-nil empty list (`reasons: []`) to none. pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason.
func BudgetAppliesTo(b karpv1.Budget, reason karpv1.DisruptionReason) bool {
	return b.Reasons == nil || slices.Contains(b.Reasons, reason)
}

// withBudgets is a NodePool holding only the budgets, for Karpenter's NodePool methods.
func withBudgets(budgets []karpv1.Budget) *karpv1.NodePool {
	return &karpv1.NodePool{Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: budgets}}}
}

// AllowedByReason is Karpenter's own GetAllowedDisruptionsByReason at a clock fixed at now: the
// minimum allowance over the budgets that apply to the reason (Unbounded if none is active), plus the
// errors of every broken budget, whatever its reasons.
// pkg/apis/v1/nodepool.go (*NodePool).GetAllowedDisruptionsByReason.
func AllowedByReason(budgets []karpv1.Budget, total int, reason karpv1.DisruptionReason, now time.Time) (int, error) {
	return withBudgets(budgets).GetAllowedDisruptionsByReason(At(now), total, reason)
}

// MustAllowedByReason is Karpenter's own MustGetAllowedDisruptions: one broken budget makes the
// NodePool allow 0 disruptions for every reason. pkg/apis/v1/nodepool.go (*NodePool).MustGetAllowedDisruptions.
func MustAllowedByReason(budgets []karpv1.Budget, total int, reason karpv1.DisruptionReason, now time.Time) int {
	return withBudgets(budgets).MustGetAllowedDisruptions(At(now), total, reason)
}

// ActiveBudgets lists the indexes of the budgets active at now (by Karpenter's IsActive, broken ones
// excluded) that apply to the reason. Karpenter has no such listing; the preview shows it.
func ActiveBudgets(budgets []karpv1.Budget, reason karpv1.DisruptionReason, now time.Time) []int {
	clk := At(now)
	var out []int
	for i := range budgets {
		if ok, err := budgets[i].IsActive(clk); ok && err == nil && BudgetAppliesTo(budgets[i], reason) {
			out = append(out, i)
		}
	}
	return out
}

// RemainingDisruptions is what the disruption controller may still start: the NodePool's allowance
// minus the nodes already disrupting, never below zero.
// pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping.
func RemainingDisruptions(allowed, disrupting int) int {
	return max(allowed-disrupting, 0)
}
