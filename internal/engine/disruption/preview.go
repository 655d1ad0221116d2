package disruption

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Input is what a preview of one NodePool's disruption settings needs.
type Input struct {
	// NodePool carries the name and the budgets to preview (the planned configuration). Budgets are
	// taken as they are: for a configuration that leaves budgets unset pass DefaultBudgets(), the
	// API server's default; an empty list means no limit.
	NodePool *karpv1.NodePool
	// NodeClaims and Nodes are the cluster's (list Items); other pools' objects are ignored.
	NodeClaims []karpv1.NodeClaim
	Nodes      []corev1.Node
	// ExtraReasons are reasons the cluster's CRD enum adds to Empty, Underutilized and Drifted.
	ExtraReasons []karpv1.DisruptionReason
	// Now is the provider's clock.
	Now time.Time
	// ExpiryLookahead is how far ahead to list expiring nodes; zero means DefaultExpiryLookahead.
	ExpiryLookahead time.Duration
}

// Preview is fleet_nodepool_disruption's preview (SPEC §6b). Times are UTC; the provider renders
// them as RFC 3339.
type Preview struct {
	Nodes         int
	Disrupting    int
	Reasons       []ReasonPreview
	Windows       []Window
	ExpiringNodes []ExpiringNode
	Warnings      []string
}

// ReasonPreview is one disruption reason now.
type ReasonPreview struct {
	Reason karpv1.DisruptionReason
	// Allowed is how many more nodes Karpenter may start disrupting for this reason now: the budgets'
	// allowance minus the nodes already disrupting, never below zero (0 for every reason when a budget
	// is broken).
	Allowed int
	// Budgeted is the allowance before subtracting disrupting nodes, as Karpenter's
	// karpenter_nodepools_allowed_disruptions metric reports it (Unbounded when nothing limits it).
	Budgeted int
	// Unbounded says no active budget applies to the reason (and none is broken): Karpenter may
	// disrupt any number of nodes for it.
	Unbounded bool
	// ActiveBudgets are the indexes of the budgets active now that apply to the reason.
	ActiveBudgets []int
}

// Window is one scheduled budget's current or next window.
type Window struct {
	Budget int
	Span
}

// BuildPreview computes the preview at in.Now: the counts Karpenter's disruption controller would
// make, each reason's allowance, each scheduled budget's window, the nodes expiring within the
// lookahead, and warnings. pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping.
func BuildPreview(in Input) Preview {
	var p Preview
	name := ""
	var budgets []karpv1.Budget
	if in.NodePool != nil {
		name = in.NodePool.Name
		budgets = in.NodePool.Spec.Disruption.Budgets
	}
	now := in.Now.UTC()
	counts := CountNodes(name, in.NodeClaims, in.Nodes)
	p.Nodes, p.Disrupting = counts.Nodes, counts.Disrupting

	reasons := ReasonsWith(in.ExtraReasons...)
	evals := evaluateBudgets(budgets, counts.Nodes, now)
	var unbounded []string
	var broken error
	for _, reason := range reasons {
		allowed, active, err := minOverReason(budgets, evals, reason)
		rp := ReasonPreview{Reason: reason, Budgeted: allowed, ActiveBudgets: active}
		if err != nil {
			broken = err
			rp.Budgeted = 0
		}
		rp.Unbounded = err == nil && len(active) == 0
		rp.Allowed = RemainingDisruptions(rp.Budgeted, counts.Disrupting)
		if rp.Unbounded {
			unbounded = append(unbounded, string(reason))
		}
		p.Reasons = append(p.Reasons, rp)
	}
	if broken != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Karpenter allows 0 disruptions for every reason while a budget is broken: %v", broken))
	}
	if len(unbounded) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("no budget is active now for %s: disruption for %s is UNBOUNDED (any number of nodes at once)",
			strings.Join(unbounded, ", "), plural(len(unbounded), "this reason", "these reasons")))
	}
	if in.NodePool != nil && budgets != nil && len(budgets) == 0 {
		p.Warnings = append(p.Warnings, "budgets is an empty list: nothing limits disruption (unset budgets would default to one 10% budget)")
	}

	for i, b := range budgets {
		span, kind, err := NextSpan(b, now)
		if err == nil && kind == Windowed {
			p.Windows = append(p.Windows, Window{Budget: i, Span: span})
		}
		p.Warnings = append(p.Warnings, budgetWarnings(i, b, reasons, span, kind, err)...)
	}

	lookahead := in.ExpiryLookahead
	if lookahead == 0 {
		lookahead = DefaultExpiryLookahead
	}
	p.ExpiringNodes = ExpiringNodes(name, in.NodeClaims, now, lookahead)
	return p
}

// budgetWarnings lists what is odd about one budget at now: CRD-valid schedules Karpenter cannot
// parse, schedule without duration or the reverse, schedules that never fire, zero durations, windows
// that never close, reasons: [], unknown reasons and nodes values Karpenter cannot hold.
func budgetWarnings(i int, b karpv1.Budget, reasons []karpv1.DisruptionReason, span Span, kind SpanKind, spanErr error) []string {
	var out []string
	add := func(format string, args ...any) {
		out = append(out, fmt.Sprintf("budget %d: ", i)+fmt.Sprintf(format, args...))
	}
	if (b.Schedule == nil) != (b.Duration == nil) {
		add("'schedule' must be set with 'duration'")
	}
	switch {
	case spanErr != nil && b.Schedule != nil:
		add("Karpenter cannot parse schedule %q (%v)%s", *b.Schedule, spanErr, scheduleHint(*b.Schedule, spanErr))
	case spanErr != nil:
		add("a duration without a schedule is an invalid cron to Karpenter")
	case kind == AlwaysActive && b.Schedule != nil:
		add("schedule %q never fires: Karpenter treats the budget as always active", *b.Schedule)
	case kind == NeverActive:
		add("duration %s makes the budget never active: it never limits disruption", budgetDuration(b))
	case kind == Windowed && span.Continuous:
		add("its windows (schedule %q, duration %s) touch or overlap without a break for at least a year: the budget is always active", *b.Schedule, budgetDuration(b))
	}
	if b.Reasons != nil && len(b.Reasons) == 0 {
		add("reasons is an empty list: the budget applies to no reason")
	}
	for _, r := range b.Reasons {
		if !containsReason(reasons, r) {
			add("reason %q is not one the NodePool CRD accepts", r)
		}
	}
	nodeWarnings := ValidateNodes(b.Nodes).Warnings
	for _, w := range nodeWarnings {
		add("nodes: %s", w)
	}
	if _, err := BudgetNodes(b.Nodes, 0); err != nil && len(nodeWarnings) == 0 {
		add("nodes %q is not a count or a percentage: while the budget is active, Karpenter allows 0 disruptions for every reason", b.Nodes)
	}
	return out
}

func containsReason(reasons []karpv1.DisruptionReason, r karpv1.DisruptionReason) bool {
	for _, x := range reasons {
		if x == r {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TemplateDriftWarnings warns when a planned expireAfter or terminationGracePeriod differs by value
// from the NodePool's current one: both are hashed into the NodePool's template hash, so every
// existing NodeClaim becomes Drifted (and is replaced within the Drifted budgets). Durations are
// compared by value (720h equals 720h0m0s). pkg/apis/v1/nodepool.go (*NodePool).Hash.
func TemplateDriftWarnings(current, planned karpv1.NodeClaimTemplateSpec, nodes int) []string {
	var out []string
	if !sameNillable(current.ExpireAfter, planned.ExpireAfter) {
		out = append(out, fmt.Sprintf("changing expireAfter from %s to %s changes the NodePool's template hash: all %d node(s) become Drifted and are replaced as the Drifted budgets allow",
			nillableText(current.ExpireAfter), nillableText(planned.ExpireAfter), nodes))
	}
	if !sameDuration(current.TerminationGracePeriod, planned.TerminationGracePeriod) {
		out = append(out, fmt.Sprintf("changing terminationGracePeriod from %s to %s changes the NodePool's template hash: all %d node(s) become Drifted and are replaced as the Drifted budgets allow",
			durationText(current.TerminationGracePeriod), durationText(planned.TerminationGracePeriod), nodes))
	}
	return out
}

func sameNillable(a, b karpv1.NillableDuration) bool {
	if a.Duration == nil || b.Duration == nil {
		return a.Duration == nil && b.Duration == nil
	}
	return *a.Duration == *b.Duration
}

func sameDuration(a, b *metav1.Duration) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Duration == b.Duration
}

func nillableText(d karpv1.NillableDuration) string {
	if d.Duration == nil {
		return karpv1.Never
	}
	return d.String()
}

func durationText(d *metav1.Duration) string {
	if d == nil {
		return "unset"
	}
	return d.Duration.String()
}
