package rollout

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The arguments of the Fleet API's 2026-11-01-preview on strategies and runs (failure thresholds,
// member selectors, ScheduledStart gates) and on auto-upgrade profiles (the SecurityPatch channel):
// their schema, their checks at validate, and the plan's refusal of them under the stable version.

// failuresPattern is the preview fleets.json UpdateStage/UpdateGroup maxAllowedFailures pattern:
// "A fixed count n, where n >= 0" or "A percentage p%, where 0 <= p <= 100".
var failuresPattern = regexp.MustCompile(`^(?:0|[1-9]\d*|(?:0|[1-9]\d?|100)%)$`)

// maxSelectorLength is the preview fleets.json MemberSelector.byLabel maxLength.
const maxSelectorLength = 512

// ScheduledStartConfiguration's patterns (preview fleets.json).
var (
	startTimePattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
	utcOffsetPattern = regexp.MustCompile(`^[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00)$`)
)

// previewVersionNote is what every preview-only argument's description ends with.
const previewVersionNote = " Fleet API `" + fleetapi.PreviewAPIVersion + "` only: with the provider's `fleet_api_version` unset or stable, " +
	"the plan fails at this argument (`terraform validate` runs without the provider's configuration, so it cannot tell)."

func maxAllowedFailuresAttribute(scope string) rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true,
		Description: "How many member upgrade failures the " + scope + " tolerates: a count (`\"3\"`, 0 or more) or a percentage of its " +
			"members (`\"25%\"`, from `0%` to `100%`, rounded up when the run is created). One more failure fails the " + scope +
			" and the run. Unset: 0 (fail-fast), unless the other level sets one (the stage's is the ceiling over its groups). " +
			"A run whose failures stay within its thresholds ends Completed with failed members (see fleet_update_run's `accepted_failures`)." +
			previewVersionNote,
		Validators: []validator.String{failuresValidator{}},
	}
}

// failuresValidator checks maxAllowedFailures' pattern and that it fits the int32 the status
// reports it as (UpdateStageStatus.maxAllowedFailures).
type failuresValidator struct{}

func (failuresValidator) Description(context.Context) string {
	return `a count from "0" or a percentage from "0%" to "100%"`
}
func (v failuresValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (failuresValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if !failuresPattern.MatchString(s) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid max_allowed_failures",
			fmt.Sprintf(`%q must be a count ("3", 0 or more) or a percentage from "0%%" to "100%%" ("25%%").`, s))
		return
	}
	if n, err := strconv.ParseInt(strings.TrimSuffix(s, "%"), 10, 32); err != nil || n > math.MaxInt32 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid max_allowed_failures", fmt.Sprintf("%q is larger than %d.", s, math.MaxInt32))
	}
}

// memberSelectorBlock is a stage's or group's `member_selector`, create-only (x-ms-mutability
// read, create): changing it replaces the strategy or the run (planCreateOnly).
func memberSelectorBlock(what string) rschema.SingleNestedBlock {
	return shared.RequiredInBlock(rschema.SingleNestedBlock{
		Description: "Selects the " + what + " by the fleet members' labels. Changing, adding or removing it replaces the strategy " +
			"(or the run): the Fleet API sets it only when the resource is created." + previewVersionNote,
		Attributes: map[string]rschema.Attribute{
			"by_label": rschema.StringAttribute{
				Required: true,
				Description: "A Kubernetes label selector over the members' labels, e.g. `env=production,region in (east,west)` " +
					"(at most 512 characters).",
				Validators: []validator.String{stringvalidator.LengthAtMost(maxSelectorLength), labelSelectorValidator{}},
			},
		},
	}, "by_label")
}

// labelSelectorValidator: MemberSelector.byLabel is a "Kubernetes-style label selector", parsed
// as the rollout rules parse it (engine/rollout selectors.go: labels.Parse).
type labelSelectorValidator struct{}

func (labelSelectorValidator) Description(context.Context) string {
	return "a Kubernetes label selector"
}
func (v labelSelectorValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (labelSelectorValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := labels.Parse(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid label selector",
			fmt.Sprintf("%q is not a Kubernetes label selector: %v.", req.ConfigValue.ValueString(), err))
	}
}

// daysOfWeek is the preview fleets.json DayOfWeek.
var daysOfWeek = []string{string(fleetapi.Monday), string(fleetapi.Tuesday), string(fleetapi.Wednesday), string(fleetapi.Thursday),
	string(fleetapi.Friday), string(fleetapi.Saturday), string(fleetapi.Sunday)}

// scheduledStartBlock is a ScheduledStart gate's configuration (create-only, as member_selector).
func scheduledStartBlock() rschema.SingleNestedBlock {
	return shared.RequiredInBlock(rschema.SingleNestedBlock{
		Description: "With `type = \"ScheduledStart\"` (and only then): when the gate completes itself — the first `start_day` at " +
			"`start_time` in `utc_offset` at or after the run reaches it. Changing it replaces the strategy (or the run)." + previewVersionNote,
		Attributes: map[string]rschema.Attribute{
			"start_day": rschema.StringAttribute{Required: true, Description: "`Monday` … `Sunday`.",
				Validators: []validator.String{stringvalidator.OneOf(daysOfWeek...)}},
			"start_time": rschema.StringAttribute{Required: true, Description: "The local time of day, 24-hour `HH:mm` (e.g. `18:00`).",
				Validators: []validator.String{stringvalidator.RegexMatches(startTimePattern, `must be a 24-hour time "HH:mm", e.g. "18:00"`)}},
			"utc_offset": rschema.StringAttribute{Required: true, Description: "The UTC offset of `start_time`, `±HH:mm` from `-14:00` to `+14:00` (e.g. `-05:00`).",
				Validators: []validator.String{stringvalidator.RegexMatches(utcOffsetPattern, `must be a UTC offset "+HH:mm" or "-HH:mm" from -14:00 to +14:00, e.g. "-05:00"`)}},
		},
	}, "start_day", "start_time", "utc_offset")
}

type memberSelectorModel struct {
	ByLabel types.String `tfsdk:"by_label"`
}

type scheduledStartModel struct {
	StartDay  types.String `tfsdk:"start_day"`
	StartTime types.String `tfsdk:"start_time"`
	UTCOffset types.String `tfsdk:"utc_offset"`
}

func selectorToAPI(m *memberSelectorModel) *fleetapi.MemberSelector {
	if m == nil {
		return nil
	}
	return &fleetapi.MemberSelector{ByLabel: m.ByLabel.ValueString()}
}

func selectorFromAPI(s *fleetapi.MemberSelector) *memberSelectorModel {
	if s == nil {
		return nil
	}
	return &memberSelectorModel{ByLabel: types.StringValue(s.ByLabel)}
}

func scheduledStartToAPI(m *scheduledStartModel) *fleetapi.ScheduledStartConfiguration {
	if m == nil {
		return nil
	}
	return &fleetapi.ScheduledStartConfiguration{StartDay: fleetapi.DayOfWeek(m.StartDay.ValueString()), StartTime: m.StartTime.ValueString(), UTCOffset: m.UTCOffset.ValueString()}
}

func scheduledStartFromAPI(c *fleetapi.ScheduledStartConfiguration) *scheduledStartModel {
	if c == nil {
		return nil
	}
	return &scheduledStartModel{StartDay: types.StringValue(string(c.StartDay)), StartTime: types.StringValue(c.StartTime), UTCOffset: types.StringValue(c.UTCOffset)}
}

// validateGates checks what the gate schema cannot say: a ScheduledStart gate is a before-gate
// with its scheduled_start block, and only it has one.
func validateGates(gates []gateModel, before bool, at path.Path, unknown []path.Path, diags *diag.Diagnostics) {
	for i, g := range gates {
		gp := at.AtListIndex(i)
		if shared.PathsContain(unknown, gp.AtName("type")) || g.Type.IsNull() {
			continue
		}
		switch scheduled := g.Type.ValueString() == string(fleetapi.GateTypeScheduledStart); {
		case scheduled && !before:
			// Project notes on the preview API: "ScheduledStart works only as a before-gate." (engine/rollout validate.go)
			diags.AddAttributeError(gp.AtName("type"), "ScheduledStart gate after a stage or group",
				"A ScheduledStart gate works only as a before-gate: move it to a before_gate block, or use an Approval gate here.")
		case scheduled && g.ScheduledStart == nil && !shared.PathsContain(unknown, gp.AtName("scheduled_start")):
			diags.AddAttributeError(gp.AtName("scheduled_start"), "Missing scheduled_start",
				"A ScheduledStart gate needs its scheduled_start block (start_day, start_time, utc_offset).")
		case !scheduled && g.ScheduledStart != nil:
			// GateConfiguration.scheduledStartConfiguration: "Scheduled start configuration for gates of type ScheduledStart."
			diags.AddAttributeError(gp.AtName("scheduled_start"), "scheduled_start on an Approval gate",
				"scheduled_start is only for gates of type ScheduledStart.")
		}
	}
}

// previewOnlyArguments are the attributes and blocks, by name, that only the preview API has; a
// non-null value of any (known or not) is refused under the stable version.
var previewOnlyArguments = map[string]bool{"max_allowed_failures": true, "member_selector": true, "scheduled_start": true, "accepted_failures": true}

// previewOnlyValues are argument values only the preview API has (a gate's type, a profile's channel).
var previewOnlyValues = map[string]string{"type": string(fleetapi.GateTypeScheduledStart), "channel": string(fleetapi.UpgradeChannelSecurityPatch)}

// refusePreviewArguments fails the plan at each preview-only argument of config when the provider
// speaks the stable Fleet API (version): nothing has been sent yet. It runs in ModifyPlan because
// `terraform validate` calls the provider unconfigured, so fleet_api_version is unknown there.
func refusePreviewArguments(config tftypes.Value, version string, diags *diag.Diagnostics) {
	if version == fleetapi.PreviewAPIVersion || config.IsNull() {
		return
	}
	var found []path.Path
	_ = tftypes.Walk(config, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		steps := p.Steps()
		if len(steps) == 0 || v.IsNull() {
			return true, nil
		}
		name, ok := steps[len(steps)-1].(tftypes.AttributeName)
		if !ok {
			return true, nil
		}
		if previewOnlyArguments[string(name)] {
			found = append(found, frameworkPath(p))
			return false, nil
		}
		if want, ok := previewOnlyValues[string(name)]; ok && v.IsKnown() && v.Type().Is(tftypes.String) {
			var s string
			if err := v.As(&s); err == nil && s == want {
				found = append(found, frameworkPath(p))
			}
		}
		return true, nil
	})
	sort.Slice(found, func(a, b int) bool { return found[a].String() < found[b].String() })
	for _, p := range found {
		diags.AddAttributeError(p, "Fleet API preview argument",
			fmt.Sprintf("%s is an argument of the Fleet API's %s, and the provider speaks %s: set fleet_api_version = %q in the provider "+
				"block to use it (nothing was sent to the Fleet API).", p, fleetapi.PreviewAPIVersion, version, fleetapi.PreviewAPIVersion))
	}
}

// frameworkPath is a tftypes attribute path as the framework spells it (list blocks and
// attributes only: the schemas here have no sets or maps of objects).
func frameworkPath(p *tftypes.AttributePath) path.Path {
	var out path.Path
	for i, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if i == 0 {
				out = path.Root(string(s))
			} else {
				out = out.AtName(string(s))
			}
		case tftypes.ElementKeyInt:
			out = out.AtListIndex(int(s))
		case tftypes.ElementKeyString:
			out = out.AtMapKey(string(s))
		}
	}
	return out
}

// createOnlySignature is what of the stages the Fleet API sets only at creation (member selectors
// and ScheduledStart configurations, x-ms-mutability read, create), one line each.
func createOnlySignature(stages []stageModel) string {
	var b strings.Builder
	sel := func(where string, m *memberSelectorModel) {
		if m != nil {
			fmt.Fprintf(&b, "%s selector %q\n", where, m.ByLabel.ValueString())
		}
	}
	gates := func(where string, gs []gateModel) {
		for i, g := range gs {
			if s := g.ScheduledStart; s != nil {
				fmt.Fprintf(&b, "%s gate %d %s %s %s\n", where, i, s.StartDay.ValueString(), s.StartTime.ValueString(), s.UTCOffset.ValueString())
			}
		}
	}
	for _, st := range stages {
		where := "stage " + st.Name.ValueString()
		sel(where, st.MemberSelector)
		gates(where+" before", st.BeforeGates)
		for _, g := range st.Groups {
			gw := where + " group " + g.Name.ValueString()
			sel(gw, g.MemberSelector)
			gates(gw+" before", g.BeforeGates)
		}
	}
	return b.String()
}

// planCreateOnly replaces the strategy or run when a create-only part of its stages changed.
func planCreateOnly(state, plan []stageModel, what string, resp *path.Paths, diags *diag.Diagnostics) {
	if createOnlySignature(state) == createOnlySignature(plan) {
		return
	}
	*resp = append(*resp, path.Root("stage"))
	diags.AddAttributeWarning(path.Root("stage"), "Create-only stage settings changed",
		fmt.Sprintf("A member_selector or a scheduled_start changed: the Fleet API sets them only when the %s is created, so apply replaces it "+
			"(deletes it and creates it anew under the same name).", what))
}
