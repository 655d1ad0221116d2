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
		Description: "An approval gate " + where + " (repeat the block for more). A run stops at each until it is approved (see fleet_update_run's `approval`).",
		Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
			"type": rschema.StringAttribute{
				Required: true, Description: "The gate's type: `Approval` (the only type of api-version 2026-06-01).",
				Validators: []validator.String{stringvalidator.OneOf(string(fleetapi.GateTypeApproval))},
			},
			"display_name": rschema.StringAttribute{
				Optional: true, Description: "The gate's display name (at most 100 characters).",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 100)},
			},
		}},
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
			},
			Blocks: map[string]rschema.Block{
				"group": rschema.ListNestedBlock{
					Description: "Required. A group of the stage (at least one; repeat the block for more): an update group of the fleet's members, each in one stage only.",
					Validators:  []validator.List{listvalidator.IsRequired(), listvalidator.SizeAtLeast(1)},
					NestedObject: rschema.NestedBlockObject{
						Attributes: map[string]rschema.Attribute{
							"name": rschema.StringAttribute{
								Required: true, Description: "An update group of the fleet's members: 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.",
								Validators: childNameValidators(),
							},
							"max_concurrency": maxConcurrencyAttribute("of the group's members upgrade at once: a count (`\"3\"`) or a percentage " +
								"of the group's members (`\"25%\"`, rounded down, at least 1). Default: 1 (one member after another). At most the " +
								"stage's `max_concurrency` and the group's member count."),
						},
						Blocks: map[string]rschema.Block{
							"before_gate": gatesBlock("before the group starts"),
							"after_gate":  gatesBlock("after the group completes"),
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
	Name                    types.String `tfsdk:"name"`
	Groups                  []groupModel `tfsdk:"group"`
	MaxConcurrency          types.String `tfsdk:"max_concurrency"`
	AfterStageWaitInSeconds types.Int64  `tfsdk:"after_stage_wait_in_seconds"`
	BeforeGates             []gateModel  `tfsdk:"before_gate"`
	AfterGates              []gateModel  `tfsdk:"after_gate"`
}

type groupModel struct {
	Name           types.String `tfsdk:"name"`
	MaxConcurrency types.String `tfsdk:"max_concurrency"`
	BeforeGates    []gateModel  `tfsdk:"before_gate"`
	AfterGates     []gateModel  `tfsdk:"after_gate"`
}

type gateModel struct {
	Type        types.String `tfsdk:"type"`
	DisplayName types.String `tfsdk:"display_name"`
}

// validateStages checks what the Fleet API rejects and the schema cannot
// say: unique stage names, a group in one stage only.
func validateStages(stages []stageModel, at path.Path, diags *diag.Diagnostics) {
	stageSeen := map[string]bool{}
	groupSeen := map[string]string{}
	for i, st := range stages {
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
		out = append(out, fleetapi.GateConfiguration{Type: fleetapi.GateType(g.Type.ValueString()), DisplayName: g.DisplayName.ValueString()})
	}
	return out
}

func gatesFromAPI(gs []fleetapi.GateConfiguration) []gateModel {
	var out []gateModel
	for _, g := range gs {
		m := gateModel{Type: types.StringValue(string(g.Type)), DisplayName: types.StringNull()}
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
			MaxConcurrency: st.MaxConcurrency.ValueString(),
			BeforeGates:    gatesToAPI(st.BeforeGates), AfterGates: gatesToAPI(st.AfterGates),
		}
		for _, g := range st.Groups {
			as.Groups = append(as.Groups, fleetapi.UpdateGroup{Name: g.Name.ValueString(), MaxConcurrency: g.MaxConcurrency.ValueString(),
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
			BeforeGates: gatesFromAPI(st.BeforeGates), AfterGates: gatesFromAPI(st.AfterGates)}
		m.AfterStageWaitInSeconds = types.Int64Value(int64(st.AfterStageWaitInSeconds))
		if st.AfterStageWaitInSeconds == 0 && (i >= len(prior) || prior[i].AfterStageWaitInSeconds.IsNull()) {
			m.AfterStageWaitInSeconds = types.Int64Null()
		}
		for _, g := range st.Groups {
			m.Groups = append(m.Groups, groupModel{Name: types.StringValue(g.Name), MaxConcurrency: shared.StringOrNull(g.MaxConcurrency),
				BeforeGates: gatesFromAPI(g.BeforeGates), AfterGates: gatesFromAPI(g.AfterGates)})
		}
		out = append(out, m)
	}
	return out
}

// strategyToRollout converts an API strategy for the rollout rules.
func strategyToRollout(s *fleetapi.UpdateRunStrategy) *rollout.Strategy {
	if s == nil {
		return nil
	}
	gates := func(gs []fleetapi.GateConfiguration) []rollout.Gate {
		var out []rollout.Gate
		for _, g := range gs {
			out = append(out, rollout.Gate{DisplayName: g.DisplayName, Type: rollout.GateType(g.Type)})
		}
		return out
	}
	out := &rollout.Strategy{}
	for _, st := range s.Stages {
		rs := rollout.Stage{Name: st.Name, AfterStageWaitInSeconds: st.AfterStageWaitInSeconds, MaxConcurrency: st.MaxConcurrency,
			BeforeGates: gates(st.BeforeGates), AfterGates: gates(st.AfterGates)}
		for _, g := range st.Groups {
			rs.Groups = append(rs.Groups, rollout.Group{Name: g.Name, MaxConcurrency: g.MaxConcurrency, BeforeGates: gates(g.BeforeGates), AfterGates: gates(g.AfterGates)})
		}
		out.Stages = append(out.Stages, rs)
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
