package rollout

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &autoUpgradeProfileDataSource{}

// autoUpgradeProfileDataSource reads an auto-upgrade profile Terraform did not create.
type autoUpgradeProfileDataSource struct{ shared.DataSourceBase }

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

type autoUpgradeProfileDataModel struct {
	aupSettings
	Preview types.Object `tfsdk:"preview"`
	Status  types.Object `tfsdk:"status"`
}

func (d *autoUpgradeProfileDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg autoUpgradeProfileDataModel
	got, fleet, ok := lookup(ctx, req.Config, &cfg, d.Clients, "auto-upgrade profile", &resp.Diagnostics, (*fleetapi.Client).GetAutoUpgradeProfile)
	if !ok {
		return
	}
	name := cfg.Name.ValueString()
	// The resource's model and rules: what it reads and what its preview says.
	m := aupNullModel()
	m.FleetID = types.StringValue(fleet.String())
	aupFromAPI(&m, got)
	m.Preview = aupLivePreview(ctx, d.Clients, m, &resp.Diagnostics)
	out := autoUpgradeProfileDataModel{aupSettings: m.aupSettings, Preview: m.Preview, Status: m.Status}
	out.Name = types.StringValue(name)
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
