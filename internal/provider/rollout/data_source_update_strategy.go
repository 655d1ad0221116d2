package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &updateStrategyDataSource{}

// updateStrategyDataSource reads an update strategy Terraform did not create.
type updateStrategyDataSource struct{ shared.DataSourceBase }

func (d *updateStrategyDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		Description: "An update strategy of the fleet as the Fleet API shows it now, whoever created it: its stages, and a " +
			"`preview` (the same shape as fleet_update_strategy's) of which members each group selects now and which members " +
			"no group selects. Nothing is changed.",
		Attributes: mergeAttributes(lookupAttributes("update strategy"), computedAttributes(resourceSchema(ctx, &updateStrategyResource{}), "stage", "preview")),
	}
}

type updateStrategyDataModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	FleetID types.String `tfsdk:"fleet_id"`
	Stages  []stageModel `tfsdk:"stage"`
	Preview types.Object `tfsdk:"preview"`
}

func (d *updateStrategyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m updateStrategyDataModel
	got, fleet, ok := lookup(ctx, req.Config, &m, d.Clients, "update strategy", &resp.Diagnostics, (*fleetapi.Client).GetUpdateStrategy)
	if !ok {
		return
	}
	m.ID = types.StringValue(fleet.ChildID("updateStrategies", m.Name.ValueString()))
	m.FleetID = types.StringValue(fleet.String())
	if got.Properties != nil {
		m.Stages = stagesFromAPI(got.Properties.Strategy, nil)
	}
	m.Preview = (&updateStrategyResource{ResourceBase: shared.ResourceBase{Clients: d.Clients}}).previewNow(ctx, fleet, m.Stages, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
