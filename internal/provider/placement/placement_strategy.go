package placement

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_placement's strategy: the rollout strategy's schema, its defaults
// (the hub agent's), and its mapping to KubeFleet's RolloutStrategy.

// placementStrategyBlock is `strategy`: a block, so it cannot be computed; omitted, it stays null
// and the placement gets the hub's defaults (placementSpecToModel keeps it null on read).
func placementStrategyBlock() rschema.SingleNestedBlock {
	return rschema.SingleNestedBlock{
		Description: "How changes roll out to the picked clusters. Omitted: RollingUpdate with 25% unavailable, 25% surge, 60 s " +
			"(the block stays absent from the state while the hub has these).",
		Attributes: map[string]rschema.Attribute{
			"type": enumAttribute(string(placementv1.RollingUpdateRolloutStrategyType),
				"`RollingUpdate` (the hub rolls out by itself; the default) or `External` (staged update runs roll it out).",
				placementv1.RollingUpdateRolloutStrategyType, placementv1.ExternalRolloutStrategyType),
			"max_unavailable": rollingUpdateCountAttribute(placementDefaultMaxUnavailable,
				"RollingUpdate: how many picked clusters may be unavailable during a rollout, a number or a "+
					"percentage of the target (rounded up). Default: `25%`; null with External."),
			"max_surge": rollingUpdateCountAttribute(placementDefaultMaxSurge,
				"RollingUpdate: how many clusters above the target may have the placement during a rollout, a "+
					"number or a percentage (rounded up). Default: `25%`; null with External."),
			"unavailable_period_seconds": rschema.Int64Attribute{
				Optional: true, Computed: true,
				Description: "RollingUpdate: how long the hub waits before it counts a cluster whose resources it cannot " +
					"track as available. Default: 60; null with External.",
				Validators:    []validator.Int64{int64validator.Between(0, math.MaxInt32)},
				PlanModifiers: []planmodifier.Int64{rollingUpdateInt64(placementDefaultUnavailablePeriod)},
			},
		},
	}
}

// rollingUpdateCountAttribute is max_unavailable or max_surge: a number or a percentage, def
// when unset with RollingUpdate.
func rollingUpdateCountAttribute(def, description string) rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true, Computed: true,
		Description:   description,
		Validators:    []validator.String{stringvalidator.RegexMatches(placementIntOrPercentRe, "must be a number or a percentage from 0% to 100%")},
		PlanModifiers: []planmodifier.String{rollingUpdateString(def)},
	}
}

type placementStrategyModel struct {
	Type                     types.String `tfsdk:"type"`
	MaxUnavailable           types.String `tfsdk:"max_unavailable"`
	MaxSurge                 types.String `tfsdk:"max_surge"`
	UnavailablePeriodSeconds types.Int64  `tfsdk:"unavailable_period_seconds"`
}

// rollingUpdateString and rollingUpdateInt64 plan a RollingUpdate field left unset: its default
// with RollingUpdate, null with External (KubeFleet rejects rollingUpdate settings with External).
type rollingUpdateDefault struct {
	str string
	num int64
}

func rollingUpdateString(def string) planmodifier.String { return rollingUpdateDefault{str: def} }

func rollingUpdateInt64(def int64) planmodifier.Int64 { return rollingUpdateDefault{num: def} }

func (d rollingUpdateDefault) Description(context.Context) string {
	return "Defaults the RollingUpdate settings; null with the External strategy."
}

func (d rollingUpdateDefault) MarkdownDescription(ctx context.Context) string {
	return d.Description(ctx)
}

func (d rollingUpdateDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.ConfigValue.IsNull() {
		resp.PlanValue = rollingUpdatePlanned(ctx, req.Plan, req.Path, &resp.Diagnostics, types.StringUnknown(), types.StringNull(), types.StringValue(d.str))
	}
}

func (d rollingUpdateDefault) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if req.ConfigValue.IsNull() {
		resp.PlanValue = rollingUpdatePlanned(ctx, req.Plan, req.Path, &resp.Diagnostics, types.Int64Unknown(), types.Int64Null(), types.Int64Value(d.num))
	}
}

// rollingUpdatePlanned is the planned value of the unset attribute at p, of either type: unknown
// while the strategy's type is, null under External, the default otherwise.
func rollingUpdatePlanned[T any](ctx context.Context, plan tfsdk.Plan, p path.Path, diags *diag.Diagnostics, unknown, null, def T) T {
	var t types.String
	diags.Append(plan.GetAttribute(ctx, p.ParentPath().AtName("type"), &t)...)
	switch {
	case t.IsUnknown():
		return unknown
	case t.ValueString() == string(placementv1.ExternalRolloutStrategyType):
		return null
	default:
		return def
	}
}

// checkStrategyImmutable fails a plan that changes the strategy type from External: KubeFleet
// v0.18.9's CRD refuses it ("cannot change rollout strategy type from 'External' to other types",
// config/crd/bases/placement.kubernetes-fleet.io_clusterresourceplacements.yaml).
func checkStrategyImmutable(diags *diag.Diagnostics, old, updated *placementStrategyModel, unknown []path.Path) {
	p := path.Root("strategy").AtName("type")
	if shared.RelatedToAny(p, unknown) {
		return
	}
	from, to := old.toAPI().Type, updated.toAPI().Type
	if from == placementv1.ExternalRolloutStrategyType && to != placementv1.ExternalRolloutStrategyType {
		diags.AddAttributeError(p, "Strategy type cannot change from External",
			fmt.Sprintf("Attribute %s: cannot change rollout strategy type from 'External' to other types (External → %s): KubeFleet rejects the "+
				"update. Create a placement with another name and the new strategy, then remove this one.", p, to))
	}
}

func (s *placementStrategyModel) toAPI() placementv1.RolloutStrategy {
	if s == nil {
		return placementv1.RolloutStrategy{Type: placementv1.RollingUpdateRolloutStrategyType}
	}
	out := placementv1.RolloutStrategy{Type: placementv1.RolloutStrategyType(s.Type.ValueString())}
	if out.Type == placementv1.ExternalRolloutStrategyType {
		return out
	}
	ru := &placementv1.RollingUpdateConfig{}
	if v := s.MaxUnavailable; !v.IsNull() && !v.IsUnknown() {
		ru.MaxUnavailable = placementIntOrPercent(v.ValueString())
	}
	if v := s.MaxSurge; !v.IsNull() && !v.IsUnknown() {
		ru.MaxSurge = placementIntOrPercent(v.ValueString())
	}
	if v := s.UnavailablePeriodSeconds; !v.IsNull() && !v.IsUnknown() {
		n := int(v.ValueInt64())
		ru.UnavailablePeriodSeconds = &n
	}
	out.RollingUpdate = ru
	return out
}

// placementIntOrPercent: "25%" stays a string, "1" is the number 1 (the rollout controller reads a
// string without % as an error).
func placementIntOrPercent(s string) *intstr.IntOrString {
	if n, err := strconv.Atoi(s); err == nil {
		v := intstr.FromInt32(int32(max(math.MinInt32, min(math.MaxInt32, n))))
		return &v
	}
	v := intstr.FromString(s)
	return &v
}

func placementStrategyFromAPI(s placementv1.RolloutStrategy) *placementStrategyModel {
	if s.Type == placementv1.ExternalRolloutStrategyType {
		return &placementStrategyModel{Type: types.StringValue(string(s.Type)), MaxUnavailable: types.StringNull(), MaxSurge: types.StringNull(), UnavailablePeriodSeconds: types.Int64Null()}
	}
	m := &placementStrategyModel{
		Type:                     types.StringValue(string(placementv1.RollingUpdateRolloutStrategyType)),
		MaxUnavailable:           types.StringValue(placementDefaultMaxUnavailable),
		MaxSurge:                 types.StringValue(placementDefaultMaxSurge),
		UnavailablePeriodSeconds: types.Int64Value(placementDefaultUnavailablePeriod),
	}
	if ru := s.RollingUpdate; ru != nil {
		if ru.MaxUnavailable != nil {
			m.MaxUnavailable = types.StringValue(ru.MaxUnavailable.String())
		}
		if ru.MaxSurge != nil {
			m.MaxSurge = types.StringValue(ru.MaxSurge.String())
		}
		if ru.UnavailablePeriodSeconds != nil {
			m.UnavailablePeriodSeconds = types.Int64Value(int64(*ru.UnavailablePeriodSeconds))
		}
	}
	return m
}

// isDefault says whether s is what an omitted strategy block writes: RollingUpdate with the hub
// agent's defaults.
func (s *placementStrategyModel) isDefault() bool {
	return s != nil && s.Type.Equal(types.StringValue(string(placementv1.RollingUpdateRolloutStrategyType))) &&
		s.MaxUnavailable.Equal(types.StringValue(placementDefaultMaxUnavailable)) &&
		s.MaxSurge.Equal(types.StringValue(placementDefaultMaxSurge)) &&
		s.UnavailablePeriodSeconds.Equal(types.Int64Value(placementDefaultUnavailablePeriod))
}
