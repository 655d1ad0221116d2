package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
)

var _ datasource.DataSourceWithConfigure = &autoUpgradeProfileDataSource{}

func NewAutoUpgradeProfileDataSource() datasource.DataSource { return &autoUpgradeProfileDataSource{} }

// autoUpgradeProfileDataSource reads an auto-upgrade profile Terraform did not create.
type autoUpgradeProfileDataSource struct {
	clients *engine.Clients
}

func (d *autoUpgradeProfileDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auto_upgrade_profile"
}

// autoUpgradeProfileDataAttributes are the profile's attributes the data source shows.
var autoUpgradeProfileDataAttributes = []string{"channel", "target_kubernetes_version", "long_term_support", "update_strategy_id",
	"node_image_selection_type", "disabled", "preview", "status"}

func (d *autoUpgradeProfileDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		Description: "An auto-upgrade profile of the fleet as the Fleet API shows it now, whoever created it: its channel " +
			"settings, its last trigger (`status`), and a `preview` (the same shape as fleet_auto_upgrade_profile's) of what the " +
			"channel resolves to now and what a run of that target would do with each member. Nothing is changed.",
		Attributes: mergeAttributes(lookupAttributes("auto-upgrade profile"),
			computedAttributes(resourceSchema(ctx, &autoUpgradeProfileResource{}), autoUpgradeProfileDataAttributes...)),
	}
}

func (d *autoUpgradeProfileDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

type autoUpgradeProfileDataModel struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	FleetID                 types.String `tfsdk:"fleet_id"`
	Channel                 types.String `tfsdk:"channel"`
	TargetKubernetesVersion types.String `tfsdk:"target_kubernetes_version"`
	LongTermSupport         types.Bool   `tfsdk:"long_term_support"`
	UpdateStrategyID        types.String `tfsdk:"update_strategy_id"`
	NodeImageSelectionType  types.String `tfsdk:"node_image_selection_type"`
	Disabled                types.Bool   `tfsdk:"disabled"`
	Preview                 types.Object `tfsdk:"preview"`
	Status                  types.Object `tfsdk:"status"`
}

func (d *autoUpgradeProfileDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg autoUpgradeProfileDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fc, fleet, ok := dataSourceFleet(d.clients, cfg.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	name := cfg.Name.ValueString()
	got, err := fc.GetAutoUpgradeProfile(ctx, fleet, name)
	if err != nil {
		addNotFoundOrError(&resp.Diagnostics, err, "auto-upgrade profile", name, fleet)
		return
	}
	// The resource's model and rules: what it reads and what its preview says.
	m := aupNullModel()
	m.FleetID = types.StringValue(fleet.String())
	aupFromAPI(&m, got)
	m.Preview = (&autoUpgradeProfileResource{clients: d.clients}).preview(ctx, m, &resp.Diagnostics)
	out := autoUpgradeProfileDataModel{
		ID: m.ID, Name: types.StringValue(name), FleetID: m.FleetID, Channel: m.Channel, TargetKubernetesVersion: m.TargetKubernetesVersion,
		LongTermSupport: m.LongTermSupport, UpdateStrategyID: m.UpdateStrategyID, NodeImageSelectionType: m.NodeImageSelectionType,
		Disabled: m.Disabled, Preview: m.Preview, Status: m.Status,
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
