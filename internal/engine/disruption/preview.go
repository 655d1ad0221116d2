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
	// NodePool carries the name, the budgets and the consolidateAfter to preview (the planned
	// configuration). Budgets are taken as they are: for a configuration that leaves budgets unset
	// pass DefaultBudgets(), the API server's default; an empty list means no limit.
	NodePool *karpv1.NodePool
	// Current is the NodePool as it is on the cluster: drift is measured against its template hash.
	// Nil means NodePool.
	Current *karpv1.NodePool
	// NodeClaims, Nodes and Pods are the cluster's (list Items); other pools' objects are ignored.
	NodeClaims []karpv1.NodeClaim
	Nodes      []corev1.Node
	Pods       []corev1.Pod
	// PDBs are the cluster's PodDisruptionBudgets (or why they could not be read).
	PDBs PDBs
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
	Disruption
	// DisruptableNow is, per candidate reason, how many nodes Karpenter may take now: the candidates,
	// at most the reason's allowance (Expired is not budgeted).
	DisruptableNow map[karpv1.DisruptionReason]int
	// Summary says in one line how many nodes Karpenter will disrupt now, for which reason, and what
	// holds the rest.
	Summary  string
	Warnings []string
	// Schedule is the whole week ahead (schedule.go); CapSchedule bounds what a plan shows.
	Schedule []ScheduleRange
	// BudgetConflicts are the warnings about budgets that cancel each other (also in Warnings);
	// PDBWarnings those about PDBs read in an unexpected shape or not at all (also in Warnings).
	BudgetConflicts []string
	PDBWarnings     []string
	pdbsUnverified  bool
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
	counts := CountNodes(name, in.NodeClaims, in.Nodes, now)
	p.Nodes, p.Disrupting = counts.Nodes, counts.Disrupting

	reasons := ReasonsWith(in.ExtraReasons...)
	var unbounded []string
	var broken error
	for _, reason := range reasons {
		// Karpenter's own functions, at a clock fixed at now.
		budgeted, err := AllowedByReason(budgets, counts.Nodes, reason, now)
		rp := ReasonPreview{Reason: reason, Budgeted: MustAllowedByReason(budgets, counts.Nodes, reason, now), ActiveBudgets: ActiveBudgets(budgets, reason, now)}
		if err != nil {
			broken = err
		}
		rp.Unbounded = err == nil && budgeted == Unbounded && len(rp.ActiveBudgets) == 0
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

	if in.NodePool != nil {
		current := in.Current
		if current == nil {
			current = in.NodePool
		}
		p.Disruption = Candidates(in.NodePool, current, in.NodeClaims, in.Nodes, in.Pods, in.PDBs, now)
	}
	if len(p.MalformedPDBs) > 0 {
		names := make([]string, 0, len(p.MalformedPDBs))
		for _, r := range p.MalformedPDBs {
			names = append(names, r.String())
		}
		p.PDBWarnings = append(p.PDBWarnings, fmt.Sprintf("%d PodDisruptionBudget %s (%s) came back in an unexpected shape: each is counted as blocking every pod of its namespace",
			len(names), plural(len(names), "object", "objects"), nameSample(names)))
	}
	if in.PDBs.Unverified != nil {
		p.PDBWarnings = append(p.PDBWarnings, fmt.Sprintf("PodDisruptionBudgets could not be listed (%v): the candidates are unverified — a PDB may hold any of them", in.PDBs.Unverified))
	}
	p.Warnings = append(p.Warnings, p.PDBWarnings...)
	p.DisruptableNow = map[karpv1.DisruptionReason]int{}
	for _, r := range CandidateReasons() {
		n := len(p.Candidates[r])
		if rp, ok := p.reason(r); ok {
			n = min(n, rp.Allowed)
		}
		p.DisruptableNow[r] = n
	}
	if len(p.ExpiredHeld) > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d expired %s (%s) %s do-not-disrupt pods: Karpenter deletes them anyway (expiry ignores budgets and do-not-disrupt), and their drain waits for those pods until the NodeClaim's terminationGracePeriod, if any",
			len(p.ExpiredHeld), plural(len(p.ExpiredHeld), "node", "nodes"), nameSample(p.ExpiredHeld), plural(len(p.ExpiredHeld), "has", "have")))
	}
	p.pdbsUnverified = in.PDBs.Unverified != nil
	// The week starts at the current hour, not the current second: Terraform plans again at apply and
	// refuses a planned value that changed, so a plan and its apply moments later must compute the same
	// ranges (a saved plan applied in a later hour still differs: the plan/apply contract, issue #22).
	week := WeekSchedule(budgets, reasons, counts.Nodes, counts.Disrupting, now.UTC().Truncate(time.Hour))
	p.Schedule = week
	if in.NodePool != nil {
		p.BudgetConflicts = ScheduleWarnings(in.NodePool, budgets, reasons, counts.Nodes, week)
		p.Warnings = append(p.Warnings, p.BudgetConflicts...)
	}
	p.Summary = p.summary()
	return p
}

// reason is the preview of one budget reason.
func (p Preview) reason(r karpv1.DisruptionReason) (ReasonPreview, bool) {
	for _, rp := range p.Reasons {
		if rp.Reason == r {
			return rp, true
		}
	}
	return ReasonPreview{}, false
}

// summary is the preview in one line: per candidate reason how many nodes go now out of how many are
// eligible and what holds the rest (the budget; do-not-disrupt; consolidateAfter), then the nodes
// already disrupting.
func (p Preview) summary() string {
	var parts []string
	total := 0
	for _, r := range CandidateReasons() {
		c, now := len(p.Candidates[r]), p.DisruptableNow[r]
		total += now
		part := fmt.Sprintf("%s %d of %d eligible", r, now, c)
		if r == karpv1.DisruptionReasonDrifted && len(p.Drifted) > c {
			part += fmt.Sprintf(" of %d drifted", len(p.Drifted))
		}
		switch rp, ok := p.reason(r); {
		case r == ReasonExpired:
			part += " (expiry is not budgeted)"
		case ok && now < c:
			part += fmt.Sprintf(" (the %s budget allows %d)", r, rp.Allowed)
		}
		if r == karpv1.DisruptionReasonEmpty && p.EmptyWaiting > 0 {
			part += fmt.Sprintf(", %d more empty waiting for consolidateAfter", p.EmptyWaiting)
		}
		parts = append(parts, part)
	}
	s := fmt.Sprintf("Karpenter may start disrupting %d of %d %s now: %s", total, p.Nodes, plural(p.Nodes, "node", "nodes"), strings.Join(parts, "; "))
	byPDB := 0
	for _, b := range p.Blocked {
		if b.Kind == BlockedByPDB {
			byPDB++
		}
	}
	if n := len(p.Blocked) - byPDB; n > 0 {
		s += fmt.Sprintf("; %d %s held by %s", n, plural(n, "node", "nodes"), karpv1.DoNotDisruptAnnotationKey)
	}
	if byPDB > 0 {
		s += fmt.Sprintf("; %d %s held by PodDisruptionBudgets", byPDB, plural(byPDB, "node", "nodes"))
	}
	if p.pdbsUnverified {
		s += "; candidates unverified (PodDisruptionBudgets could not be listed)"
	}
	if p.Disrupting > 0 {
		s += fmt.Sprintf("; %d already disrupting", p.Disrupting)
	}
	return s + "."
}

// nameSample spells out the first few names and how many more there are.
func nameSample(names []string) string {
	const n = 5
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
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

// TemplateHash is Karpenter's own hash of a NodePool template, the value it stamps on NodeClaims as
// karpenter.sh/nodepool-hash. pkg/apis/v1/nodepool.go (*NodePool).Hash.
func TemplateHash(t karpv1.NodeClaimTemplate) string {
	return (&karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: t}}).Hash()
}

// TemplateDriftWarnings warns when the planned template's hash (Karpenter's own NodePool.Hash)
// differs from the current one's: every existing NodeClaim then becomes Drifted and is replaced within
// the Drifted budgets. It names what changed among the fields this provider sets (expireAfter,
// terminationGracePeriod, the karpenter.sh/do-not-disrupt annotation), durations compared by value.
// pkg/apis/v1/nodepool.go (*NodePool).Hash + pkg/controllers/nodeclaim/disruption/drift.go.
func TemplateDriftWarnings(current, planned karpv1.NodeClaimTemplate, nodes int) []string {
	from, to := TemplateHash(current), TemplateHash(planned)
	if from == to {
		return nil
	}
	tail := fmt.Sprintf(" changes the NodePool's template hash (%s to %s): all %d node(s) become Drifted and are replaced as the Drifted budgets allow", from, to, nodes)
	var out []string
	if !sameNillable(current.Spec.ExpireAfter, planned.Spec.ExpireAfter) {
		out = append(out, fmt.Sprintf("changing expireAfter from %s to %s", nillableText(current.Spec.ExpireAfter), nillableText(planned.Spec.ExpireAfter))+tail)
	}
	if !sameDuration(current.Spec.TerminationGracePeriod, planned.Spec.TerminationGracePeriod) {
		out = append(out, fmt.Sprintf("changing terminationGracePeriod from %s to %s", durationText(current.Spec.TerminationGracePeriod), durationText(planned.Spec.TerminationGracePeriod))+tail)
	}
	a, aok := current.Annotations[karpv1.DoNotDisruptAnnotationKey]
	b, bok := planned.Annotations[karpv1.DoNotDisruptAnnotationKey]
	if a != b || aok != bok {
		out = append(out, fmt.Sprintf("changing the template annotation %s from %s to %s", karpv1.DoNotDisruptAnnotationKey, annotationText(a, aok), annotationText(b, bok))+tail+
			" (only NodeClaims launched after the change carry the new annotation)")
	}
	if len(out) == 0 {
		out = append(out, "this configuration"+tail)
	}
	return out
}

func annotationText(v string, ok bool) string {
	if !ok {
		return "unset"
	}
	return fmt.Sprintf("%q", v)
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
