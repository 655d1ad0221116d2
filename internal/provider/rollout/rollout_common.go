package rollout

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What fleet_update_strategy and fleet_update_run share: the stages schema
// and its mapping to the Fleet API and the rollout rules, fleet resolution,
// and long-running operations.

// ---- stages ----

func gatesBlock(where string) rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: "A gate " + where + " (repeat the block for more). A run stops at an Approval gate until it is approved (see " +
			"fleet_update_run's `approval`); a ScheduledStart gate (before-gates only, Fleet API `" + fleetapi.PreviewAPIVersion + "`) completes itself at its time.",
		Validators: []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: rschema.NestedBlockObject{
			Attributes: map[string]rschema.Attribute{
				"type": rschema.StringAttribute{
					Required: true, Description: "The gate's type: `Approval`, or `ScheduledStart` (a before-gate that completes itself at the time its " +
						"`scheduled_start` block says; Fleet API `" + fleetapi.PreviewAPIVersion + "` only, refused at plan under the stable version).",
					Validators: []validator.String{stringvalidator.OneOf(string(fleetapi.GateTypeApproval), string(fleetapi.GateTypeScheduledStart))},
				},
				"display_name": rschema.StringAttribute{
					Optional: true, Description: "The gate's display name (at most 100 characters).",
					Validators: []validator.String{stringvalidator.LengthBetween(1, 100)},
				},
			},
			Blocks: map[string]rschema.Block{"scheduled_start": scheduledStartBlock()},
		},
	}
}

// maxConcurrencyPattern is fleets.json 2026-06-01's UpdateStage/UpdateGroup maxConcurrency pattern.
var maxConcurrencyPattern = regexp.MustCompile(`^(?:([1-9]\d*)|([1-9]\d?|100)%)$`)

func maxConcurrencyAttribute(what string) rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true, Description: "How many " + what,
		Validators: []validator.String{stringvalidator.RegexMatches(maxConcurrencyPattern, `must be a count from "1" or a percentage from "1%" to "100%"`)},
	}
}

// stagesBlock is the strategy's `stage` blocks: stages in sequence, groups of a
// stage in parallel, the members of a group one after another.
func stagesBlock(required bool, extra string) rschema.ListNestedBlock {
	validators, prefix := []validator.List{listvalidator.SizeAtLeast(1)}, ""
	if required {
		validators, prefix = append([]validator.List{listvalidator.IsRequired()}, validators...), "Required. "
	}
	return rschema.ListNestedBlock{
		Description: prefix + "A stage (repeat the block for each, in order): stages are updated one after another; the groups of a stage " +
			"are updated in parallel, the members of a group one by one in maintenance-window order." + extra,
		Validators: validators,
		NestedObject: rschema.NestedBlockObject{
			Attributes: map[string]rschema.Attribute{
				"name": rschema.StringAttribute{
					Required: true, Description: "The stage's name, unique in the strategy: 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.",
					Validators: childNameValidators(),
				},
				"max_concurrency": maxConcurrencyAttribute("of the stage's members upgrade at once across its groups: a count (`\"10\"`) or " +
					"a percentage of the stage's members (`\"25%\"`, rounded down, at least 1). Default: 50, the most the Fleet API allows."),
				"after_stage_wait_in_seconds": rschema.Int64Attribute{
					Optional: true, Description: "Seconds to wait after the stage completes before the next one starts (0 or more; " +
						"the Fleet API sets no maximum, so an overnight soak of 43200 is fine).",
					// fleets.json 2026-06-01 UpdateStage.afterStageWaitInSeconds: int32, no minimum or maximum given;
					// negative waits are meaningless, int32 is the wire type.
					Validators: []validator.Int64{int64validator.Between(0, math.MaxInt32)},
				},
				"max_allowed_failures": maxAllowedFailuresAttribute("stage"),
			},
			Blocks: map[string]rschema.Block{
				"member_selector": memberSelectorBlock("stage's members (with groups, they choose among these; without, one group of them named after the stage is updated)"),
				"group": rschema.ListNestedBlock{
					Description: "A group of the stage (at least one, unless the stage has a `member_selector`; repeat the block for more): an update " +
						"group of the fleet's members, or the members its `member_selector` selects; a member is updated in one group only.",
					Validators: []validator.List{listvalidator.SizeAtLeast(1)},
					NestedObject: rschema.NestedBlockObject{
						Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{
								Required: true, Description: "An update group of the fleet's members: 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.",
								Validators: childNameValidators(),
							},
							"max_concurrency": maxConcurrencyAttribute("of the group's members upgrade at once: a count (`\"3\"`) or a percentage " +
								"of the group's members (`\"25%\"`, rounded down, at least 1). Default: 1 (one member after another). At most the " +
								"stage's `max_concurrency` and the group's member count."),
							"max_allowed_failures": maxAllowedFailuresAttribute("group"),
						},
						Blocks: map[string]rschema.Block{
							"member_selector": memberSelectorBlock("group's members instead of its update group name (the name then only names the group)"),
							"before_gate":     gatesBlock("before the group starts"),
							"after_gate":      gatesBlock("after the group completes"),
						},
					},
				},
				"before_gate": gatesBlock("before the stage starts"),
				"after_gate":  gatesBlock("after the stage completes (after its wait)"),
			},
		},
	}
}

type stageModel struct {
	Name                    types.String         `tfsdk:"name"`
	Groups                  []groupModel         `tfsdk:"group"`
	MaxConcurrency          types.String         `tfsdk:"max_concurrency"`
	AfterStageWaitInSeconds types.Int64          `tfsdk:"after_stage_wait_in_seconds"`
	MaxAllowedFailures      types.String         `tfsdk:"max_allowed_failures"`
	MemberSelector          *memberSelectorModel `tfsdk:"member_selector"`
	BeforeGates             []gateModel          `tfsdk:"before_gate"`
	AfterGates              []gateModel          `tfsdk:"after_gate"`
}

type groupModel struct {
	Name               types.String         `tfsdk:"name"`
	MaxConcurrency     types.String         `tfsdk:"max_concurrency"`
	MaxAllowedFailures types.String         `tfsdk:"max_allowed_failures"`
	MemberSelector     *memberSelectorModel `tfsdk:"member_selector"`
	BeforeGates        []gateModel          `tfsdk:"before_gate"`
	AfterGates         []gateModel          `tfsdk:"after_gate"`
}

type gateModel struct {
	Type           types.String         `tfsdk:"type"`
	DisplayName    types.String         `tfsdk:"display_name"`
	ScheduledStart *scheduledStartModel `tfsdk:"scheduled_start"`
}

// validateStages checks what the Fleet API rejects and the schema cannot
// say: unique stage names, a group in one stage only, a stage with groups or a member selector,
// ScheduledStart gates before a stage or group only. unknown are the configuration's unknown paths.
func validateStages(stages []stageModel, at path.Path, unknown []path.Path, diags *diag.Diagnostics) {
	stageSeen := map[string]bool{}
	groupSeen := map[string]string{}
	for i, st := range stages {
		sp := at.AtListIndex(i)
		// UpdateStage.groups "Min size: 1"; the preview's UpdateStage.memberSelector: "If specified without
		// UpdateGroup, one implicit group containing the selected members will be created."
		if len(st.Groups) == 0 && st.MemberSelector == nil && !shared.PathsContain(unknown, sp.AtName("group")) && !shared.PathsContain(unknown, sp.AtName("member_selector")) {
			diags.AddAttributeError(sp.AtName("group"), "Missing group", "A stage needs at least one group block, or a member_selector (Fleet API "+
				fleetapi.PreviewAPIVersion+") whose members make its one group.")
		}
		validateGates(st.BeforeGates, true, sp.AtName("before_gate"), unknown, diags)
		validateGates(st.AfterGates, false, sp.AtName("after_gate"), unknown, diags)
		for j, g := range st.Groups {
			gp := sp.AtName("group").AtListIndex(j)
			validateGates(g.BeforeGates, true, gp.AtName("before_gate"), unknown, diags)
			validateGates(g.AfterGates, false, gp.AtName("after_gate"), unknown, diags)
		}
		if !st.Name.IsUnknown() && !st.Name.IsNull() {
			n := st.Name.ValueString()
			if stageSeen[n] {
				diags.AddAttributeError(at.AtListIndex(i).AtName("name"), "Duplicate stage", fmt.Sprintf("Stage %q is named twice; stage names must be unique.", n))
			}
			stageSeen[n] = true
		}
		for j, g := range st.Groups {
			if g.Name.IsUnknown() || g.Name.IsNull() {
				continue
			}
			n := g.Name.ValueString()
			if other, ok := groupSeen[n]; ok {
				diags.AddAttributeError(at.AtListIndex(i).AtName("group").AtListIndex(j).AtName("name"), "Duplicate group",
					fmt.Sprintf("Group %q is already in stage %q; a group may appear in one stage only.", n, other))
			}
			groupSeen[n] = st.Name.ValueString()
		}
	}
}

func gatesToAPI(gs []gateModel) []fleetapi.GateConfiguration {
	var out []fleetapi.GateConfiguration
	for _, g := range gs {
		out = append(out, fleetapi.GateConfiguration{Type: fleetapi.GateType(g.Type.ValueString()), DisplayName: g.DisplayName.ValueString(),
			ScheduledStartConfiguration: scheduledStartToAPI(g.ScheduledStart)})
	}
	return out
}

func gatesFromAPI(gs []fleetapi.GateConfiguration) []gateModel {
	var out []gateModel
	for _, g := range gs {
		m := gateModel{Type: types.StringValue(string(g.Type)), DisplayName: types.StringNull(), ScheduledStart: scheduledStartFromAPI(g.ScheduledStartConfiguration)}
		if g.DisplayName != "" {
			m.DisplayName = types.StringValue(g.DisplayName)
		}
		out = append(out, m)
	}
	return out
}

func stagesToAPI(stages []stageModel) fleetapi.UpdateRunStrategy {
	s := fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{}}
	for _, st := range stages {
		as := fleetapi.UpdateStage{
			Name: st.Name.ValueString(), AfterStageWaitInSeconds: int32(st.AfterStageWaitInSeconds.ValueInt64()),
			MaxConcurrency: st.MaxConcurrency.ValueString(), MaxAllowedFailures: st.MaxAllowedFailures.ValueString(), MemberSelector: selectorToAPI(st.MemberSelector),
			BeforeGates: gatesToAPI(st.BeforeGates), AfterGates: gatesToAPI(st.AfterGates),
		}
		for _, g := range st.Groups {
			as.Groups = append(as.Groups, fleetapi.UpdateGroup{Name: g.Name.ValueString(), MaxConcurrency: g.MaxConcurrency.ValueString(),
				MaxAllowedFailures: g.MaxAllowedFailures.ValueString(), MemberSelector: selectorToAPI(g.MemberSelector),
				BeforeGates: gatesToAPI(g.BeforeGates), AfterGates: gatesToAPI(g.AfterGates)})
		}
		s.Stages = append(s.Stages, as)
	}
	return s
}

// stagesFromAPI maps the API's stages back; prior (the state or plan) keeps
// an unset after_stage_wait_in_seconds null rather than 0.
func stagesFromAPI(s fleetapi.UpdateRunStrategy, prior []stageModel) []stageModel {
	var out []stageModel
	for i, st := range s.Stages {
		m := stageModel{Name: types.StringValue(st.Name), MaxConcurrency: shared.StringOrNull(st.MaxConcurrency),
			MaxAllowedFailures: shared.StringOrNull(st.MaxAllowedFailures), MemberSelector: selectorFromAPI(st.MemberSelector),
			BeforeGates: gatesFromAPI(st.BeforeGates), AfterGates: gatesFromAPI(st.AfterGates)}
		m.AfterStageWaitInSeconds = types.Int64Value(int64(st.AfterStageWaitInSeconds))
		if st.AfterStageWaitInSeconds == 0 && (i >= len(prior) || prior[i].AfterStageWaitInSeconds.IsNull()) {
			m.AfterStageWaitInSeconds = types.Int64Null()
		}
		for _, g := range st.Groups {
			m.Groups = append(m.Groups, groupModel{Name: types.StringValue(g.Name), MaxConcurrency: shared.StringOrNull(g.MaxConcurrency),
				MaxAllowedFailures: shared.StringOrNull(g.MaxAllowedFailures), MemberSelector: selectorFromAPI(g.MemberSelector),
				BeforeGates: gatesFromAPI(g.BeforeGates), AfterGates: gatesFromAPI(g.AfterGates)})
		}
		out = append(out, m)
	}
	return out
}

// strategyToRollout converts an API strategy for the rollout rules. Its API is the preview when it
// uses a preview field: ModifyPlan refuses those under the stable version before any preview is
// computed (refusePreviewArguments), and a strategy read by ID has them only when read with the
// preview api-version; the rules differ between the versions only in what they accept.
func strategyToRollout(s *fleetapi.UpdateRunStrategy) *rollout.Strategy {
	if s == nil {
		return nil
	}
	out := &rollout.Strategy{}
	usesPreview := false
	gates := func(gs []fleetapi.GateConfiguration) []rollout.Gate {
		var out []rollout.Gate
		for _, g := range gs {
			rg := rollout.Gate{DisplayName: g.DisplayName, Type: rollout.GateType(g.Type)}
			if c := g.ScheduledStartConfiguration; c != nil {
				rg.ScheduledStart = &rollout.ScheduledStartConfig{StartDay: string(c.StartDay), StartTime: c.StartTime, UTCOffset: c.UTCOffset}
			}
			usesPreview = usesPreview || g.Type == fleetapi.GateTypeScheduledStart || g.ScheduledStartConfiguration != nil
			out = append(out, rg)
		}
		return out
	}
	selector := func(ms *fleetapi.MemberSelector) *rollout.MemberSelector {
		if ms == nil {
			return nil
		}
		usesPreview = true
		return &rollout.MemberSelector{ByLabel: ms.ByLabel}
	}
	for _, st := range s.Stages {
		rs := rollout.Stage{Name: st.Name, AfterStageWaitInSeconds: st.AfterStageWaitInSeconds, MaxConcurrency: st.MaxConcurrency,
			MaxAllowedFailures: st.MaxAllowedFailures, MemberSelector: selector(st.MemberSelector),
			BeforeGates: gates(st.BeforeGates), AfterGates: gates(st.AfterGates)}
		usesPreview = usesPreview || st.MaxAllowedFailures != ""
		for _, g := range st.Groups {
			rs.Groups = append(rs.Groups, rollout.Group{Name: g.Name, MaxConcurrency: g.MaxConcurrency, MaxAllowedFailures: g.MaxAllowedFailures,
				MemberSelector: selector(g.MemberSelector), BeforeGates: gates(g.BeforeGates), AfterGates: gates(g.AfterGates)})
			usesPreview = usesPreview || g.MaxAllowedFailures != ""
		}
		out.Stages = append(out.Stages, rs)
	}
	if usesPreview {
		out.API = rollout.PreviewAPI
	}
	return out
}

// ---- fleet ----

// idDescription words an id attribute: what ("update run") and its ARM collection ("updateRuns").
func idDescription(what, collection string) string {
	return "The " + what + "'s ARM resource ID (`<fleet ID>/" + collection + "/<name>`); `terraform import` takes it."
}

// joinNonEmpty joins the non-empty strings with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// previewFleet is the fleet a preview reads: fleet_id, which ModifyPlan has resolved to the
// provider's fleet when it was not set.
func previewFleet(fleetID types.String, d *diag.Diagnostics) (fleetapi.FleetID, bool) {
	f, err := fleetapi.ParseFleetID(fleetID.ValueString())
	if err != nil {
		d.AddAttributeError(path.Root("fleet_id"), "Invalid fleet ID", err.Error())
		return fleetapi.FleetID{}, false
	}
	return f, true
}
