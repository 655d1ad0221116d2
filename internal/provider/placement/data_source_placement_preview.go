package placement

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithValidateConfig = &placementPreviewDataSource{}

// placementPreviewDataSource is data.fleet_placement_preview: what KubeFleet's scheduler would
// do with a policy, nothing created.
type placementPreviewDataSource struct{ shared.DataSourceBase }

func (d *placementPreviewDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	// The policy and the preview have fleet_placement's shape exactly.
	attrs := dataSourceAttributesOf(map[string]rschema.Attribute{
		"preview": placementPreviewAttribute(),
	})
	blocks := dataSourceBlocksOf(map[string]rschema.Block{
		"policy": placementPolicyBlock(),
	})
	attrs["id"] = dschema.StringAttribute{Computed: true, Description: "`placement` when set, else `preview`."}
	attrs["placement"] = dschema.StringAttribute{
		Optional: true,
		Description: "An existing ClusterResourcePlacement on the hub: the preview then starts from its current picks, as an " +
			"update of its policy to `policy` would (kept and trimmed clusters, a new policy snapshot or not).",
		Validators: []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(shared.DNSSubdomainRe, "must be a placement name")},
	}
	attrs["detail"] = dschema.StringAttribute{
		Optional: true,
		Description: "`summary` lists the top " + fmt.Sprint(PickLimit(preview.SummaryListLimit)) + " picks and " + fmt.Sprint(preview.SummaryListLimit) +
			" clusters of every other list, `full` every cluster (for outputs, checks and reports over the whole fleet). Default: the " +
			"provider's `preview_detail`. Counts are exact either way.",
		Validators: []validator.String{stringvalidator.OneOf(preview.PreviewDetailSummary, preview.PreviewDetailFull)},
	}
	resp.Schema = dschema.Schema{
		Description: "A what-if for a placement policy: which member clusters KubeFleet's scheduler would pick, in which order " +
			"and with which scores, and why every other cluster would be left out, computed from the hub's member clusters by " +
			"the hub agent's own rules (v0.18.9). Nothing is created. Same `policy` block and `preview` as `fleet_placement`; " +
			"without a `policy` block, PickAll.",
		Attributes: attrs,
		Blocks:     blocks,
	}
}

type placementPreviewDataModel struct {
	ID        types.String `tfsdk:"id"`
	Placement types.String `tfsdk:"placement"`
	Detail    types.String `tfsdk:"detail"`
	Policy    *policyModel `tfsdk:"policy"`
	Preview   types.Object `tfsdk:"preview"`
}

func (d *placementPreviewDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if m, unknown, ok := decodeConfig[placementPreviewDataModel](ctx, req.Config, &resp.Diagnostics, path.Root("id"), path.Root("preview")); ok {
		validatePlacementPolicy(&resp.Diagnostics, path.Root("policy"), m.Policy, unknown)
	}
}

func (d *placementPreviewDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m placementPreviewDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	existing := m.Placement.ValueString()
	var hc *hub.Client // reads an existing placement's scheduling state
	if existing != "" {
		var ok bool
		if hc, ok = backend.HubAPI(ctx, d.Clients, &resp.Diagnostics); !ok {
			return
		}
		there, err := hc.PlacementExists(ctx, existing)
		if err != nil {
			resp.Diagnostics.AddError("Reading the placement", fmt.Sprintf("Reading ClusterResourcePlacement %q: %v", existing, err))
			return
		}
		if !there {
			resp.Diagnostics.AddAttributeError(path.Root("placement"), "Placement not found",
				fmt.Sprintf("Attribute placement: the fleet hub has no ClusterResourcePlacement named %q.", existing))
			return
		}
	}
	p, warnings, err := placementPreview(ctx, hc, d.Clients.View(), hub.ClusterPlacement(existing), m.Policy.toAPI())
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "Computing the placement preview", err)
		return
	}
	for _, w := range warnings {
		resp.Diagnostics.AddAttributeWarning(path.Root("policy"), "Placement will not schedule", w)
	}
	limit := d.Clients.ListLimit()
	if !m.Detail.IsNull() {
		limit = preview.ListLimitFor(m.Detail.ValueString())
	}
	obj, diags := p.object(limit)
	resp.Diagnostics.Append(diags...)
	m.Preview = obj
	m.ID = types.StringValue("preview")
	if existing != "" {
		m.ID = types.StringValue(existing)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
