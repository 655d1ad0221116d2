package disruption

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// The NodePool CRD's own patterns, as the API server applies them (Go regexp).
// pkg/apis/crds/karpenter.sh_nodepools.yaml.
const (
	// NodesPattern is budgets[].nodes.
	NodesPattern = `^((100|[0-9]{1,2})%|[0-9]+)$`
	// SchedulePattern is budgets[].schedule. It is only half-anchored: the first alternative has no
	// `$`, the second no `^`.
	SchedulePattern = `^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`
	// BudgetDurationPattern is budgets[].duration: hours and/or minutes, with an optional trailing 0s.
	BudgetDurationPattern = `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`
	// NillableDurationPattern is disruption.consolidateAfter and template.spec.expireAfter.
	NillableDurationPattern = `^(([0-9]+(s|m|h))+|Never)$`
	// TerminationGracePeriodPattern is template.spec.terminationGracePeriod.
	TerminationGracePeriodPattern = `^([0-9]+(s|m|h))+$`
	// MaxBudgets and MaxReasons are the CRD's maxItems for budgets and budgets[].reasons.
	MaxBudgets = 50
	MaxReasons = 50
)

// Diagnostics is what a validation helper found about one attribute. Errors are what the API server
// (or Karpenter's decoding) rejects; Warnings are values that are accepted but do something the user
// is unlikely to want. The provider adds the attribute path.
type Diagnostics struct {
	Errors   []string
	Warnings []string
}

// HasErrors reports whether any error was found.
func (d Diagnostics) HasErrors() bool { return len(d.Errors) > 0 }

func (d *Diagnostics) errorf(format string, args ...any) {
	d.Errors = append(d.Errors, fmt.Sprintf(format, args...))
}

func (d *Diagnostics) warnf(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}

// matches applies one CRD pattern. Compiled per call: validation is rare and this keeps the package
// free of state.
func matches(pattern, s string) bool {
	return regexp.MustCompile(pattern).MatchString(s)
}

// ValidateNodes checks budgets[].nodes against the CRD pattern, and warns about integers the API
// server accepts but Karpenter cannot hold: above 2147483647 the value wraps through int32
// (intstr.FromInt), beyond int64 it does not parse and the active budget blocks all disruption.
// pkg/apis/crds/karpenter.sh_nodepools.yaml + pkg/apis/v1/nodepool.go GetIntStrFromValue.
func ValidateNodes(nodes string) Diagnostics {
	var d Diagnostics
	if !matches(NodesPattern, nodes) {
		d.errorf("must be a whole number of nodes (%q) or a percentage from 0%% to 100%% (%q), matching %s", "5", "10%", NodesPattern)
		return d
	}
	if strings.HasSuffix(nodes, "%") {
		return d
	}
	n, err := strconv.Atoi(nodes)
	switch {
	case err != nil:
		d.warnf("%s is too large for Karpenter to parse: while this budget is active, Karpenter allows 0 disruptions for every reason in the NodePool", nodes)
	case n > math.MaxInt32:
		d.warnf("%s exceeds 2147483647: Karpenter truncates it to 32 bits, so the budget allows %d disruptions (a negative value allows none)", nodes, int32(n)) //nolint:gosec // showing Karpenter's wrap
	}
	return d
}

// ValidateSchedule checks budgets[].schedule against the CRD pattern, then parses it the way
// Karpenter does (robfig/cron v3.0.1 ParseStandard on "TZ=UTC " + schedule) and warns when the API
// server accepts a schedule Karpenter cannot parse — Karpenter then allows 0 disruptions for every
// reason of the NodePool — or one that never fires, which Karpenter treats as always active.
// pkg/apis/crds/karpenter.sh_nodepools.yaml + pkg/apis/v1/nodepool.go (*Budget).IsActive.
func ValidateSchedule(schedule string) Diagnostics {
	var d Diagnostics
	if !matches(SchedulePattern, schedule) {
		d.errorf("must be a five-field cron expression (minute hour day-of-month month day-of-week, UTC) or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly")
		return d
	}
	sched, err := ParseSchedule(schedule)
	if err != nil {
		d.warnf("the API server accepts %q but Karpenter cannot parse it (%v)%s: while it is set, Karpenter allows 0 disruptions for every reason in the NodePool", schedule, err, scheduleHint(schedule, err))
		return d
	}
	// Any satisfiable cron fires within five years of 2001-01-01 (2004 has a 29 February).
	if sched.Next(time.Date(2001, time.January, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		d.warnf("%q never fires (no date matches it): Karpenter treats a budget whose schedule never fires as always active", schedule)
	}
	return d
}

// scheduleHint explains the common ways a CRD-valid schedule fails robfig/cron's standard parser.
func scheduleHint(schedule string, err error) string {
	s := strings.TrimSpace(schedule)
	msg := err.Error()
	switch {
	case strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ="):
		return "; time zones are not supported: Karpenter evaluates schedules in UTC and reads the prefix as a sixth field"
	case strings.HasPrefix(s, "@"):
		return "; the descriptors are @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly"
	case len(strings.Fields(s)) != 5:
		return "; Karpenter takes exactly five fields: minute hour day-of-month month day-of-week (no seconds, no year)"
	case strings.Contains(msg, "above maximum (6)"):
		return "; day-of-week runs 0-6 (sun-sat): write 0 for Sunday, not 7"
	case strings.Contains(msg, "beyond end of range"):
		return "; ranges cannot wrap around: list both parts instead (e.g. sat,sun or 22-23,0-2)"
	case strings.Contains(msg, "failed to parse int"):
		return "; fields take numbers, month and weekday names, *, ?, ranges, lists and steps (no L, W or #)"
	}
	return ""
}

// ValidateBudgetDuration checks budgets[].duration against the CRD pattern (hours and minutes only,
// optional trailing 0s) and Go's duration parser, and warns about a zero duration, which makes the
// budget never active. pkg/apis/crds/karpenter.sh_nodepools.yaml + pkg/apis/v1/nodepool.go (*Budget).IsActive.
func ValidateBudgetDuration(duration string) Diagnostics {
	var d Diagnostics
	if !matches(BudgetDurationPattern, duration) {
		d.errorf("must be hours and/or minutes such as %q, %q or %q (no seconds, days or fractions), matching %s", "30m", "8h", "1h30m", BudgetDurationPattern)
		return d
	}
	v, err := time.ParseDuration(duration)
	if err != nil {
		d.errorf("%q is out of range for a duration: %v", duration, err)
		return d
	}
	if v == 0 {
		d.warnf("a zero duration makes the budget never active: its window [hit, hit+0) is empty, so it never limits disruption")
	}
	return d
}

// ValidateSchedulePair is the CRD's rule on budgets: schedule and duration are set together.
// pkg/apis/crds/karpenter.sh_nodepools.yaml (x-kubernetes-validations on budgets).
func ValidateSchedulePair(hasSchedule, hasDuration bool) Diagnostics {
	var d Diagnostics
	if hasSchedule != hasDuration {
		d.errorf("'schedule' must be set with 'duration'")
	}
	return d
}

// validateNillableDuration is the CRD pattern then Karpenter's NillableDuration decoding (Never or
// time.ParseDuration); a value the pattern accepts but Go cannot parse stops Karpenter reading the
// NodePool at all. pkg/apis/v1/duration.go (*NillableDuration).UnmarshalJSON.
func validateNillableDuration(value, pattern string, neverAllowed bool) Diagnostics {
	var d Diagnostics
	if !matches(pattern, value) {
		never := ""
		if neverAllowed {
			never = ` or "Never"`
		}
		d.errorf("must be a duration in hours, minutes and seconds such as %q or %q%s, matching %s", "30s", "720h", never, pattern)
		return d
	}
	if value == karpv1.Never {
		return d
	}
	if _, err := time.ParseDuration(value); err != nil {
		d.errorf("%q is out of range for a duration: %v", value, err)
	}
	return d
}

// ValidateConsolidateAfter checks disruption.consolidateAfter. pkg/apis/crds/karpenter.sh_nodepools.yaml.
func ValidateConsolidateAfter(value string) Diagnostics {
	return validateNillableDuration(value, NillableDurationPattern, true)
}

// ValidateExpireAfter checks template.spec.expireAfter. pkg/apis/crds/karpenter.sh_nodepools.yaml.
func ValidateExpireAfter(value string) Diagnostics {
	return validateNillableDuration(value, NillableDurationPattern, true)
}

// ValidateTerminationGracePeriod checks template.spec.terminationGracePeriod (no Never).
// pkg/apis/crds/karpenter.sh_nodepools.yaml.
func ValidateTerminationGracePeriod(value string) Diagnostics {
	return validateNillableDuration(value, TerminationGracePeriodPattern, false)
}

// ValidateConsolidationPolicy checks the CRD enum (Balanced since v1.14.0).
// pkg/apis/crds/karpenter.sh_nodepools.yaml.
func ValidateConsolidationPolicy(policy string) Diagnostics {
	var d Diagnostics
	allowed := []string{
		string(karpv1.ConsolidationPolicyWhenEmpty),
		string(karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized),
		string(karpv1.ConsolidationPolicyBalanced),
	}
	if !slices.Contains(allowed, policy) {
		d.errorf("unsupported value %q: supported values: %s", policy, quoteAll(allowed))
	}
	return d
}

// ValidateReasons checks a set budgets[].reasons list: the CRD enum (DefaultReasons plus the extra
// reasons the cluster's CRD lists), no duplicates (listType=set), at most MaxReasons; and warns that
// an empty list makes the budget apply to no reason. Call it only when reasons is set: unset means
// every reason. pkg/apis/crds/karpenter.sh_nodepools.yaml.
func ValidateReasons(reasons []string, extra ...karpv1.DisruptionReason) Diagnostics {
	var d Diagnostics
	allowed := ReasonsWith(extra...)
	names := make([]string, len(allowed))
	for i, r := range allowed {
		names[i] = string(r)
	}
	if len(reasons) == 0 {
		d.warnf("an empty reasons list makes the budget apply to no reason at all; leave reasons unset to apply it to every reason")
	}
	if len(reasons) > MaxReasons {
		d.errorf("must have at most %d items", MaxReasons)
	}
	for i, r := range reasons {
		if !slices.Contains(names, r) {
			d.errorf("unsupported value %q: supported values: %s", r, quoteAll(names))
		}
		if slices.Contains(reasons[:i], r) {
			d.errorf("duplicate value %q", r)
		}
	}
	return d
}

// ValidateBudgetCount checks a set budgets list: at most MaxBudgets, and a warning for an empty list,
// which (unlike leaving budgets unset, which the API server defaults to one 10% budget) puts no limit
// on disruption at all. pkg/apis/crds/karpenter.sh_nodepools.yaml + pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason.
func ValidateBudgetCount(n int) Diagnostics {
	var d Diagnostics
	if n == 0 {
		d.warnf("an empty budgets list puts no limit on disruption: Karpenter may disrupt every node of the NodePool at once, for every reason; leave budgets unset for the default of one 10%% budget")
	}
	if n > MaxBudgets {
		d.errorf("must have at most %d items", MaxBudgets)
	}
	return d
}

// quoteAll renders values as "a", "b", "c".
func quoteAll(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
