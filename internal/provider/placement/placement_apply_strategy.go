package placement

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_placement's apply_strategy: how the member agents' work applier applies the placed
// resources (KubeFleet v1 ApplyStrategy, apis/placement/v1/clusterresourceplacement_types.go),
// with the CRD's defaults, KubeFleet's validation, and the mapping to spec.strategy.applyStrategy.

// The CRD's defaults (+kubebuilder:default on ApplyStrategy's fields).
var (
	applyDefaultType           = string(placementv1.ApplyStrategyTypeClientSideApply)
	applyDefaultComparison     = string(placementv1.ComparisonOptionTypePartialComparison)
	applyDefaultWhenToApply    = string(placementv1.WhenToApplyTypeAlways)
	applyDefaultWhenToTakeOver = string(placementv1.WhenToTakeOverTypeAlways)
)

// placementApplyStrategyBlock is `apply_strategy`: a block, so it cannot be computed; omitted, it
// stays null and the placement gets the CRD's defaults (placementSpecToModel keeps it null on read).
func placementApplyStrategyBlock() rschema.SingleNestedBlock {
	return rschema.SingleNestedBlock{
		Description: "How the member agents apply the placed resources on each cluster (KubeFleet v1 `applyStrategy`); what " +
			"they did is in `status.apply`. Omitted: ClientSideApply, PartialComparison, apply Always, take over Always (the " +
			"block stays absent from the state while the hub has these).",
		Attributes: map[string]rschema.Attribute{
			"type": enumAttribute(applyDefaultType,
				"`ClientSideApply` (three-way merge, as kubectl apply; the default), `ServerSideApply` (the member "+
					"agent becomes the field manager) or `ReportDiff` (apply nothing; report the differences between the hub's "+
					"manifests and what each member runs in `status.apply`).",
				placementv1.ApplyStrategyTypeClientSideApply, placementv1.ApplyStrategyTypeServerSideApply, placementv1.ApplyStrategyTypeReportDiff),
			"comparison_option": enumAttribute(applyDefaultComparison,
				"What drifts and diffs compare: `PartialComparison` (only the fields the hub's manifest sets; the "+
					"default) or `FullComparison` (every field).",
				placementv1.ComparisonOptionTypePartialComparison, placementv1.ComparisonOptionTypeFullComparison),
			"when_to_apply": enumAttribute(applyDefaultWhenToApply,
				"`Always` (re-apply, overwriting changes made on the member; the default) or `IfNotDrifted` "+
					"(leave a drifted object alone and report the drift).",
				placementv1.WhenToApplyTypeAlways, placementv1.WhenToApplyTypeIfNotDrifted),
			"when_to_take_over": enumAttribute(applyDefaultWhenToTakeOver,
				"What to do with an object that already exists on a member: `Always` take it over (the default), "+
					"`IfNoDiff` only if it matches the hub's manifest, `Never`.",
				placementv1.WhenToTakeOverTypeAlways, placementv1.WhenToTakeOverTypeIfNoDiff, placementv1.WhenToTakeOverTypeNever),
			"allow_co_ownership": rschema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Apply to objects that other (non-Fleet) owners also own. Default: false.",
			},
		},
		Blocks: map[string]rschema.Block{
			"server_side_apply_config": shared.RequiredInBlock(rschema.SingleNestedBlock{
				Description: "ServerSideApply only (KubeFleet rejects it with the other types).",
				Attributes: map[string]rschema.Attribute{
					"force_conflicts": rschema.BoolAttribute{
						Required:    true,
						Description: "Take over fields other field managers own instead of failing with ApplyConflictWithOtherApplier.",
					},
				},
			}, "force_conflicts"),
		},
	}
}

// enumAttribute is an optional string setting that is one of values, def when unset.
func enumAttribute[T ~string](def, description string, values ...T) rschema.StringAttribute {
	oneOf := make([]string, 0, len(values))
	for _, v := range values {
		oneOf = append(oneOf, string(v))
	}
	return rschema.StringAttribute{
		Optional: true, Computed: true, Default: stringdefault.StaticString(def),
		Description: description,
		Validators:  []validator.String{stringvalidator.OneOf(oneOf...)},
	}
}

type applyStrategyModel struct {
	Type                  types.String         `tfsdk:"type"`
	ComparisonOption      types.String         `tfsdk:"comparison_option"`
	WhenToApply           types.String         `tfsdk:"when_to_apply"`
	WhenToTakeOver        types.String         `tfsdk:"when_to_take_over"`
	AllowCoOwnership      types.Bool           `tfsdk:"allow_co_ownership"`
	ServerSideApplyConfig *applySSAConfigModel `tfsdk:"server_side_apply_config"`
}

type applySSAConfigModel struct {
	ForceConflicts types.Bool `tfsdk:"force_conflicts"`
}

// validateApplyStrategy is KubeFleet's rule (pkg/utils/validator/placement.go validateRolloutStrategy:
// "serverSideApplyConfig is only valid for ServerSideApply strategy type").
func validateApplyStrategy(diags *diag.Diagnostics, s *applyStrategyModel, unknown []path.Path) {
	p := path.Root("apply_strategy")
	if s == nil || s.ServerSideApplyConfig == nil || shared.RelatedToAny(p.AtName("type"), unknown) || s.Type.IsNull() {
		return
	}
	if t := s.Type.ValueString(); t != string(placementv1.ApplyStrategyTypeServerSideApply) {
		at := p.AtName("server_side_apply_config")
		diags.AddAttributeError(at, "Invalid apply strategy",
			fmt.Sprintf("Attribute %s: serverSideApplyConfig is only valid for ServerSideApply strategy type (apply_strategy.type is %s).", at, t))
	}
}

// toAPI is the ApplyStrategy the configuration describes; unset and unknown fields take the CRD's defaults.
func (s *applyStrategyModel) toAPI() *placementv1.ApplyStrategy {
	str := func(v types.String, def string) string {
		if v.IsNull() || v.IsUnknown() {
			return def
		}
		return v.ValueString()
	}
	if s == nil {
		s = &applyStrategyModel{}
	}
	out := &placementv1.ApplyStrategy{
		Type:             placementv1.ApplyStrategyType(str(s.Type, applyDefaultType)),
		ComparisonOption: placementv1.ComparisonOptionType(str(s.ComparisonOption, applyDefaultComparison)),
		WhenToApply:      placementv1.WhenToApplyType(str(s.WhenToApply, applyDefaultWhenToApply)),
		WhenToTakeOver:   placementv1.WhenToTakeOverType(str(s.WhenToTakeOver, applyDefaultWhenToTakeOver)),
		AllowCoOwnership: s.AllowCoOwnership.ValueBool(),
	}
	if c := s.ServerSideApplyConfig; c != nil {
		out.ServerSideApplyConfig = &placementv1.ServerSideApplyConfig{ForceConflicts: c.ForceConflicts.ValueBool()}
	}
	return out
}

// applyStrategyFromAPI reads the hub's applyStrategy; what it left empty (an older placement has
// none) is the CRD's default, which is what the work applier uses.
func applyStrategyFromAPI(s *placementv1.ApplyStrategy) *applyStrategyModel {
	orDefault := func(v, def string) types.String {
		if v == "" {
			return types.StringValue(def)
		}
		return types.StringValue(v)
	}
	if s == nil {
		s = &placementv1.ApplyStrategy{}
	}
	m := &applyStrategyModel{
		Type:             orDefault(string(s.Type), applyDefaultType),
		ComparisonOption: orDefault(string(s.ComparisonOption), applyDefaultComparison),
		WhenToApply:      orDefault(string(s.WhenToApply), applyDefaultWhenToApply),
		WhenToTakeOver:   orDefault(string(s.WhenToTakeOver), applyDefaultWhenToTakeOver),
		AllowCoOwnership: types.BoolValue(s.AllowCoOwnership),
	}
	if c := s.ServerSideApplyConfig; c != nil {
		m.ServerSideApplyConfig = &applySSAConfigModel{ForceConflicts: types.BoolValue(c.ForceConflicts)}
	}
	return m
}

// isDefault says whether s is what an omitted apply_strategy block writes: the CRD's defaults.
func (s *applyStrategyModel) isDefault() bool {
	return s != nil && s.Type.Equal(types.StringValue(applyDefaultType)) &&
		s.ComparisonOption.Equal(types.StringValue(applyDefaultComparison)) &&
		s.WhenToApply.Equal(types.StringValue(applyDefaultWhenToApply)) &&
		s.WhenToTakeOver.Equal(types.StringValue(applyDefaultWhenToTakeOver)) &&
		s.AllowCoOwnership.Equal(types.BoolValue(false)) && s.ServerSideApplyConfig == nil
}
