package preview

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
)

// The plan/apply contract (DESIGN.md): a resource with a preview takes the
// fleet as data.fleet_facts read it at plan, in a write-only `facts`; its
// preview is computed from those facts at plan and again when apply re-plans
// it, so a saved plan applies after the fleet moved, and apply warns what moved.

// FactsPath is the attribute every resource with a preview takes the facts in.
var FactsPath = path.Root("facts")

// FactsAttribute is the write-only `facts` attribute.
func FactsAttribute(preview string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true, WriteOnly: true, Sensitive: true,
		MarkdownDescription: "The fleet as a `fleet_facts` data source read it at plan: `facts = data.fleet_facts.this.content`. " +
			"When set, " + preview + " is computed from these facts, at plan and again when `terraform apply` re-plans, so a saved " +
			"plan applies after the fleet moved (members relabelled, upgraded, unhealthy, a window opened, time passed); " +
			"apply then warns what moved since the plan and how the preview would differ now. Without it the preview is " +
			"computed from the live fleet, and a saved plan whose preview the fleet has since changed fails to apply with " +
			"Terraform's \"Provider produced inconsistent final plan\". Write-only: never stored in the plan or state.",
	}
}

// View reads `facts` from the configuration: the view previews read (pinned to the facts when
// they are set, else the live fleet), the facts (nil when not set), and whether they are unknown
// at plan (then the preview must stay unknown: apply would compute it from facts the plan did not
// see).
func View(ctx context.Context, s *session.Session, config tfsdk.Config, d *diag.Diagnostics) (view.Fleet, *facts.Snapshot, bool) {
	var v types.String
	d.Append(config.GetAttribute(ctx, FactsPath, &v)...)
	if v.IsUnknown() {
		return s.View(), nil, true
	}
	if v.IsNull() || v.ValueString() == "" {
		return s.View(), nil, false
	}
	f, err := facts.Decode(v.ValueString())
	if err != nil {
		d.AddAttributeError(FactsPath, "Invalid facts", err.Error())
		return s.View(), nil, false
	}
	return s.Pinned(f), f, false
}

// SavedPlanNote is the warning a plan without `facts` carries once: its title, then its text.
const (
	SavedPlanNoteSummary = "A saved plan of this preview breaks when the fleet moves"
	SavedPlanNote        = "This resource's preview was computed from the live fleet, as is every other preview in this plan without `facts`. " +
		"Planned and applied in one command, that is fine. A plan saved and applied later (`terraform plan -out` then `terraform apply PLANFILE`, " +
		"HCP Terraform, Atlantis, a reviewed pull request) fails to apply with Terraform's \"Provider produced inconsistent final plan\" once the " +
		"fleet moves in between: a member relabelled, upgraded or unhealthy, a maintenance window opened, time passed.\n\n" +
		"To pin the preview to what this plan read, add\n\n  data \"fleet_facts\" \"this\" {}\n\nand set `facts = data.fleet_facts.this.content` " +
		"on each previewed resource: apply then applies the reviewed preview and warns what moved since.\n\n" +
		"Teams that never save plans turn this note off with `saved_plan_warning = false` in the provider block (or FLEET_SAVED_PLAN_WARNING=false). " +
		"It is said once per plan, for the first such resource."
)

// PlanView is View as a preview's plan takes it: without `facts` the preview comes from the live
// fleet, so the plan says once (per provider process, not per resource) that a saved plan of it
// breaks when the fleet moves, unless the provider's saved_plan_warning is false.
func PlanView(ctx context.Context, s *session.Session, config tfsdk.Config, d *diag.Diagnostics) (view.Fleet, *facts.Snapshot, bool) {
	v, pinned, unknown := View(ctx, s, config, d)
	if pinned == nil && !unknown && !s.QuietSavedPlans() && !d.HasError() && s.FirstNote("saved-plan") {
		d.AddWarning(SavedPlanNoteSummary, SavedPlanNote)
	}
	return v, pinned, unknown
}

// FactsUnknown is why a preview stays unknown when `facts` is.
const FactsUnknown = "facts (data.fleet_facts is read during apply)"

// warnMoved is what apply says when it applies a plan computed from facts: it computes the
// reviewed preview again over the planned facts to learn what it read (view.Recorder), reads that
// again from the live fleet, and, when it moved, warns with what moved, input by input, and
// where the preview computed now differs from the reviewed one (kept in state: it is what was
// reviewed). Time moves on its own: it is said only where the preview would differ.
func warnMoved(ctx context.Context, s *session.Session, planned *facts.Snapshot, d *diag.Diagnostics, reviewed attr.Value,
	compute func(v view.Fleet) (attr.Value, error)) {
	if planned == nil {
		return
	}
	rec := view.Record(s.Pinned(planned))
	if _, err := compute(rec); err != nil {
		tflog.Debug(ctx, "computing the reviewed preview again over the plan's facts", map[string]any{"error": err.Error()})
	}
	reads := rec.Reads()
	scope := planned.Only(reads)
	read, err := s.ReadAgain(ctx, scope.Request())
	if err != nil {
		d.AddWarning("The fleet could not be read again after the plan", fmt.Sprintf(
			"This apply followed a plan computed from the fleet as it was at %s; reading it again to say what moved since failed: %v",
			planned.TakenAt.Format(time.RFC3339), err))
		return
	}
	now := read.Only(reads)
	moved := facts.Moved(scope, now)
	readsClock := func(in facts.Input) bool { return slices.Contains(reads, facts.Read{Input: in}) }
	clock, fleetClock := time.Duration(0), time.Duration(0)
	if readsClock(facts.InputClock) {
		clock = now.TakenAt.Sub(planned.TakenAt)
	}
	if readsClock(facts.InputFleetClock) {
		fleetClock = now.FleetNow.Sub(planned.FleetNow)
	}
	var diffs []string
	holds := false
	if reviewed != nil && (len(moved) > 0 || max(clock, fleetClock) >= time.Minute) {
		// Computed now from the live fleet with the reviewed settings: a changed preview_detail is
		// reported as such, not as a preview that differs in every list.
		if lp, err := compute(s.ViewWith(planned.Settings)); err == nil && lp != nil {
			diffs = AttrDiff("preview", reviewed, lp)
			holds = len(diffs) == 0
			// The preview's own figures (target, counts) before those of its members.
			sort.SliceStable(diffs, func(i, j int) bool { return depth(diffs[i]) < depth(diffs[j]) })
		}
	}
	if len(diffs) > 0 {
		if clock >= time.Minute {
			moved = append(moved, fmt.Sprintf("%s: %s (%s → %s)", facts.InputClock, clock.Round(time.Second), planned.TakenAt.Format(time.RFC3339), now.TakenAt.Format(time.RFC3339)))
		}
		if fleetClock >= time.Minute {
			moved = append(moved, fmt.Sprintf("%s: %s (%s → %s)", facts.InputFleetClock, fleetClock.Round(time.Second), planned.FleetNow.Format(time.RFC3339), now.FleetNow.Format(time.RFC3339)))
		}
	}
	tflog.Info(ctx, "compared the fleet with the facts the plan was computed from", map[string]any{
		"planned_at": planned.TakenAt, "inputs_read": len(reads), "moved": len(moved), "preview_differences": len(diffs)})
	if len(moved) == 0 {
		return
	}
	what := "facts have"
	if len(moved) == 1 {
		what = "fact has"
	}
	msg := fmt.Sprintf("The plan's preview was computed from the fleet as it was at %s (data.fleet_facts). Since then %d %s moved:\n%s",
		planned.TakenAt.Format(time.RFC3339), len(moved), what, bullets(moved, movedListLimit))
	summary := "The fleet moved since the plan"
	switch {
	case len(diffs) > 0:
		summary += "; the preview would differ now"
		msg += fmt.Sprintf("\n\nComputed now, the preview would differ in %s:\n%s", Plural(len(diffs), "place"), bullets(diffs, movedListLimit))
	case holds:
		summary += "; the preview still holds"
		msg += "\n\nComputed now, the preview is the same."
	}
	msg += "\n\nThis apply did what the configuration says; the state keeps the preview that was reviewed, and the next plan previews the fleet as it is."
	d.AddWarning(summary, msg)
}

// depth is how deep a difference's attribute path goes ("preview.a" 1, "preview.a[0].b" 3).
func depth(diff string) int {
	p, _, _ := strings.Cut(diff, ": ")
	return strings.Count(p, ".") + strings.Count(p, "[")
}

// movedListLimit bounds the lines of what moved (the count is always exact).
const movedListLimit = 10

func bullets(lines []string, limit int) string {
	shown, omitted := CapList(lines, limit)
	var b strings.Builder
	for _, l := range shown {
		b.WriteString("  - " + l + "\n")
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "  - … and %d more\n", omitted)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// AttrDiff lists where b differs from a, as attribute paths with both values
// for scalars ("preview.selected[1].cluster: prod-2 → prod-3").
func AttrDiff(at string, a, b attr.Value) []string {
	if a.Equal(b) {
		return nil
	}
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return []string{fmt.Sprintf("%s: %s → %s", at, short(a), short(b))}
	}
	switch av := a.(type) {
	case basetypes.ObjectValue:
		if bv, ok := b.(basetypes.ObjectValue); ok {
			return objectDiff(at, av.Attributes(), bv.Attributes())
		}
	case basetypes.ListValue:
		if bv, ok := b.(basetypes.ListValue); ok {
			return listDiff(at, av.Elements(), bv.Elements())
		}
	case basetypes.MapValue:
		if bv, ok := b.(basetypes.MapValue); ok {
			return mapDiff(at, av.Elements(), bv.Elements())
		}
	}
	return []string{fmt.Sprintf("%s: %s → %s", at, short(a), short(b))}
}

// objectDiff is AttrDiff of the attributes both objects have, by name.
func objectDiff(at string, a, b map[string]attr.Value) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(a)) {
		if bn, ok := b[n]; ok {
			out = append(out, AttrDiff(at+"."+n, a[n], bn)...)
		}
	}
	return out
}

// listDiff is AttrDiff of the elements both lists have, by index, and the change of length.
func listDiff(at string, a, b []attr.Value) []string {
	var out []string
	for i := range min(len(a), len(b)) {
		out = append(out, AttrDiff(fmt.Sprintf("%s[%d]", at, i), a[i], b[i])...)
	}
	if len(a) != len(b) {
		out = append(out, fmt.Sprintf("%s: %d → %d entries", at, len(a), len(b)))
	}
	return out
}

// mapDiff is AttrDiff of the elements by key: added, removed or changed.
func mapDiff(at string, a, b map[string]attr.Value) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		x, inA := a[k]
		y, inB := b[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s[%q]: added %s", at, k, short(y)))
		case !inB:
			out = append(out, fmt.Sprintf("%s[%q]: %s removed", at, k, short(x)))
		default:
			out = append(out, AttrDiff(fmt.Sprintf("%s[%q]", at, k), x, y)...)
		}
	}
	return out
}

func short(v attr.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case v.IsUnknown():
		return "(unknown)"
	}
	s := v.String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
