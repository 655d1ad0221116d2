// Package disruption reproduces Karpenter v1.14.1's disruption budgets for one NodePool: which nodes
// count, which are already disrupting, how many disruptions each budget allows now per reason, when
// scheduled budgets open and close, and which nodes expire soon (expiry is not budgeted).
//
// Everything here is a pure function of Karpenter's API types (sigs.k8s.io/karpenter/pkg/apis/v1),
// core v1 Nodes and a `now` passed in: no I/O, no clock, no package state.
//
// Each rule cites, in a one-line comment, the upstream file it reproduces: paths are files of
// sigs.k8s.io/karpenter v1.14.1 unless the comment names another module. Schedules are parsed with
// github.com/robfig/cron/v3 v3.0.1's ParseStandard, as Karpenter parses them.
package disruption

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
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

// BudgetActive reports whether the budget is in force at now. A budget without schedule and duration
// is always active; otherwise the schedule is parsed (an error means the budget is broken, and
// Karpenter then fails closed) and the budget is active iff the first hit strictly after
// now-duration is not after now, i.e. some hit h has h <= now < h+duration. A schedule that never
// fires (robfig's Next returns the zero time) therefore makes the budget always active, and a zero
// duration makes it never active. pkg/apis/v1/nodepool.go (*Budget).IsActive.
func BudgetActive(b karpv1.Budget, now time.Time) (bool, error) {
	if b.Schedule == nil && b.Duration == nil {
		return true, nil
	}
	sched, err := ParseSchedule(scheduleText(b))
	if err != nil {
		return false, fmt.Errorf("invalid cron %q: %w", scheduleText(b), err)
	}
	return scheduleActive(sched, budgetDuration(b), now), nil
}

// scheduleActive is IsActive's test on a parsed schedule. pkg/apis/v1/nodepool.go (*Budget).IsActive.
func scheduleActive(sched cron.Schedule, d time.Duration, now time.Time) bool {
	now = now.UTC()
	return !sched.Next(now.Add(-d)).After(now)
}

// BudgetNodes scales a budget's `nodes` against the node count as Karpenter does: a string that
// strconv.Atoi accepts is an integer, truncated to int32 (intstr.FromInt) and not capped by the node
// count; anything else must be a percentage, rounded up against the node count with
// math.Ceil(p*total/100); any other string is an error.
// pkg/apis/v1/nodepool.go GetIntStrFromValue + k8s.io/apimachinery/pkg/util/intstr GetScaledValueFromIntOrPercent(roundUp).
func BudgetNodes(nodes string, total int) (int, error) {
	if n, err := strconv.Atoi(nodes); err == nil {
		return int(int32(n)), nil //nolint:gosec // the int32 wrap is Karpenter's (intstr.FromInt)
	}
	digits, isPercent := strings.CutSuffix(nodes, "%")
	if !isPercent {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid type: string is not a percentage")
	}
	p, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", nodes, err)
	}
	return ceilPercent(p, total), nil
}

// ceilPercent rounds p percent of total up, in float64 exactly as intstr does.
// k8s.io/apimachinery/pkg/util/intstr GetScaledValueFromIntOrPercent.
func ceilPercent(p, total int) int {
	return int(math.Ceil(float64(p) * float64(total) / 100))
}

// BudgetAllowed is how many disruptions one budget allows now: Unbounded while inactive, the scaled
// `nodes` while active, and 0 with an error when the schedule or (while active) `nodes` is broken.
// pkg/apis/v1/nodepool.go (*Budget).GetAllowedDisruptions.
func BudgetAllowed(b karpv1.Budget, total int, now time.Time) (int, error) {
	active, err := BudgetActive(b, now)
	if err != nil {
		return 0, err
	}
	if !active {
		return Unbounded, nil
	}
	n, err := BudgetNodes(b.Nodes, total)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// BudgetAppliesTo reports whether a budget limits a reason: a budget with nil reasons applies to all
// reasons, a non-nil empty list (`reasons: []`) to none. pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason.
func BudgetAppliesTo(b karpv1.Budget, reason karpv1.DisruptionReason) bool {
	return b.Reasons == nil || slices.Contains(b.Reasons, reason)
}

// budgetEval is one budget evaluated at one instant against one node count.
type budgetEval struct {
	active  bool
	allowed int
	err     error
}

// evaluateBudgets evaluates every budget once. pkg/apis/v1/nodepool.go (*Budget).GetAllowedDisruptions.
func evaluateBudgets(budgets []karpv1.Budget, total int, now time.Time) []budgetEval {
	evals := make([]budgetEval, len(budgets))
	for i, b := range budgets {
		active, err := BudgetActive(b, now)
		evals[i] = budgetEval{active: active && err == nil, allowed: 0, err: err}
		if err != nil {
			continue
		}
		if !active {
			evals[i].allowed = Unbounded
			continue
		}
		evals[i].allowed, evals[i].err = BudgetNodes(b.Nodes, total)
		if evals[i].err != nil {
			evals[i].allowed = 0
		}
	}
	return evals
}

// minOverReason folds evaluated budgets for one reason: the minimum over the budgets that apply to it
// (Unbounded if none), with every budget's error collected whether or not it applies to the reason.
// pkg/apis/v1/nodepool.go (*NodePool).GetAllowedDisruptionsByReason.
func minOverReason(budgets []karpv1.Budget, evals []budgetEval, reason karpv1.DisruptionReason) (int, []int, error) {
	allowed := Unbounded
	var active []int
	var errs []error
	for i, b := range budgets {
		if evals[i].err != nil {
			errs = append(errs, fmt.Errorf("budget %d: %w", i, evals[i].err))
		}
		if !BudgetAppliesTo(b, reason) {
			continue
		}
		allowed = min(allowed, evals[i].allowed)
		if evals[i].active {
			active = append(active, i)
		}
	}
	return allowed, active, errors.Join(errs...)
}

// AllowedByReason is the minimum allowance over the budgets that apply to the reason (Unbounded if
// none is active), plus the joined errors of every broken budget, whatever its reasons.
// pkg/apis/v1/nodepool.go (*NodePool).GetAllowedDisruptionsByReason.
func AllowedByReason(budgets []karpv1.Budget, total int, reason karpv1.DisruptionReason, now time.Time) (int, error) {
	allowed, _, err := minOverReason(budgets, evaluateBudgets(budgets, total, now), reason)
	return allowed, err
}

// MustAllowedByReason is AllowedByReason with Karpenter's fail-closed rule: one broken budget makes
// the NodePool allow 0 disruptions for every reason. pkg/apis/v1/nodepool.go (*NodePool).MustGetAllowedDisruptions.
func MustAllowedByReason(budgets []karpv1.Budget, total int, reason karpv1.DisruptionReason, now time.Time) int {
	allowed, err := AllowedByReason(budgets, total, reason, now)
	if err != nil {
		return 0
	}
	return allowed
}

// RemainingDisruptions is what the disruption controller may still start: the NodePool's allowance
// minus the nodes already disrupting, never below zero.
// pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping.
func RemainingDisruptions(allowed, disrupting int) int {
	return max(allowed-disrupting, 0)
}
