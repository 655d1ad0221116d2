package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
)

var _ datasource.DataSourceWithConfigure = &updateStrategyDataSource{}

func NewUpdateStrategyDataSource() datasource.DataSource { return &updateStrategyDataSource{} }

// updateStrategyDataSource reads an update strategy Terraform did not create.
type updateStrategyDataSource struct {
	clients *engine.Clients
}

func (d *updateStrategyDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_update_strategy"
}

func (d *updateStrategyDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		Description: "An update strategy of the fleet as the Fleet API shows it now, whoever created it: its stages, and a " +
			"`preview` (the same shape as fleet_update_strategy's) of which members each group selects now and which members " +
			"no group selects. Nothing is changed.",
		Attributes: mergeAttributes(lookupAttributes("update strategy"), computedAttributes(resourceSchema(ctx, &updateStrategyResource{}), "stages", "preview")),
	}
}

func (d *updateStrategyDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

type updateStrategyDataModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	FleetID types.String `tfsdk:"fleet_id"`
	Stages  []stageModel `tfsdk:"stages"`
	Preview types.Object `tfsdk:"preview"`
}

func (d *updateStrategyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m updateStrategyDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fc, fleet, ok := dataSourceFleet(d.clients, m.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	name := m.Name.ValueString()
	got, err := fc.GetUpdateStrategy(ctx, fleet, name)
	if err != nil {
		addNotFoundOrError(&resp.Diagnostics, err, "update strategy", name, fleet)
		return
	}
	m.ID = types.StringValue(fleet.ChildID("updateStrategies", name))
	m.FleetID = types.StringValue(fleet.String())
	if got.Properties != nil {
		m.Stages = stagesFromAPI(got.Properties.Strategy, nil)
	}
	m.Preview = (&updateStrategyResource{clients: d.clients}).previewNow(ctx, fleet, m.Stages, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
