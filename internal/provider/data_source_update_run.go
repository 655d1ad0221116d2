package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

var _ datasource.DataSourceWithConfigure = &updateRunDataSource{}

func NewUpdateRunDataSource() datasource.DataSource { return &updateRunDataSource{} }

// updateRunDataSource reads an update run Terraform did not create (e.g. one
// an auto-upgrade profile generated): its definition, status tree and what
// remains.
type updateRunDataSource struct {
	clients *engine.Clients
}

func (d *updateRunDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_update_run"
}

func (d *updateRunDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := computedAttributes(resourceSchema(ctx, &updateRunResource{}), "update_strategy_id", "stages", "managed_cluster_update", "status")
	resp.Schema = dschema.Schema{
		Description: "An update run of the fleet as the Fleet API shows it now, whoever created it — e.g. a run an auto-upgrade " +
			"profile generated (`auto_upgrade_profile_id`): its definition, its status tree (`status`, the same shape as " +
			"fleet_update_run's) and the members it has still to update (`remaining_members`). Nothing is changed.",
		Attributes: mergeAttributes(mergeAttributes(lookupAttributes("update run"), attrs), map[string]dschema.Attribute{
			"auto_upgrade_profile_id": dschema.StringAttribute{Computed: true,
				Description: "The ARM ID of the auto-upgrade profile that generated the run; null for a run created directly."},
			"remaining_members": dschema.ListAttribute{Computed: true, ElementType: types.StringType,
				Description: "Members the run has not (yet) updated, in update order: those neither Completed nor Skipped " +
					"(NotStarted, Pending, Running, Stopped or Failed); the first 20 unless the provider's `preview_detail` is " +
					"`full`. Empty once the run is done with every member."},
			"remaining_member_count":    dschema.Int64Attribute{Computed: true, Description: "How many members the run has not (yet) updated."},
			"remaining_members_omitted": dschema.Int64Attribute{Computed: true, Description: "How many of them `remaining_members` leaves out."},
		}),
	}
}

func (d *updateRunDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

type updateRunDataModel struct {
	ID                   types.String `tfsdk:"id"`
	Name                 types.String `tfsdk:"name"`
	FleetID              types.String `tfsdk:"fleet_id"`
	UpdateStrategyID     types.String `tfsdk:"update_strategy_id"`
	Stages               []stageModel `tfsdk:"stages"`
	ManagedClusterUpdate *mcuModel    `tfsdk:"managed_cluster_update"`
	Status               types.Object `tfsdk:"status"`
	AutoUpgradeProfileID types.String `tfsdk:"auto_upgrade_profile_id"`
	RemainingMembers     []string     `tfsdk:"remaining_members"`
	RemainingMemberCount types.Int64  `tfsdk:"remaining_member_count"`
	RemainingOmitted     types.Int64  `tfsdk:"remaining_members_omitted"`
}

func (d *updateRunDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m updateRunDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fc, fleet, ok := dataSourceFleet(d.clients, m.FleetID, &resp.Diagnostics)
	if !ok {
		return
	}
	name := m.Name.ValueString()
	run, err := fc.GetUpdateRun(ctx, fleet, name)
	if err != nil {
		addNotFoundOrError(&resp.Diagnostics, err, "update run", name, fleet)
		return
	}
	m.ID = types.StringValue(fleet.ChildID("updateRuns", name))
	m.FleetID = types.StringValue(fleet.String())
	m.UpdateStrategyID, m.AutoUpgradeProfileID = types.StringNull(), types.StringNull()
	if p := run.Properties; p != nil {
		m.UpdateStrategyID = optString(p.UpdateStrategyID)
		m.AutoUpgradeProfileID = optString(p.AutoUpgradeProfileID)
		if p.Strategy != nil {
			m.Stages = stagesFromAPI(*p.Strategy, nil)
		}
		if p.ManagedClusterUpdate != nil {
			m.ManagedClusterUpdate = mcuFromAPI(*p.ManagedClusterUpdate, nil)
		}
	}
	st := runStatusFrom(run)
	obj, diags := types.ObjectValueFrom(ctx, runStatusType.AttrTypes, st)
	resp.Diagnostics.Append(diags...)
	m.Status = obj
	remaining := remainingMembers(st)
	listed, omitted := capList(remaining, d.clients.ListLimit())
	m.RemainingMembers = append([]string{}, listed...)
	m.RemainingMemberCount = types.Int64Value(int64(len(remaining)))
	m.RemainingOmitted = types.Int64Value(omitted)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// remainingMembers are the members of a run's status tree neither Completed
// nor Skipped, in update order (stages, groups, members).
func remainingMembers(st runStatusModel) []string {
	out := []string{}
	for _, s := range st.Stages {
		for _, g := range s.Groups {
			for _, mem := range g.Members {
				switch fleetapi.UpdateState(mem.State.ValueString()) {
				case fleetapi.UpdateStateCompleted, fleetapi.UpdateStateSkipped:
				default:
					out = append(out, mem.Name)
				}
			}
		}
	}
	return out
}

// dataSourceFleet resolves a data source's fleet and the Fleet API client.
func dataSourceFleet(clients *engine.Clients, fleetID types.String, diags *diag.Diagnostics) (*fleetapi.Client, fleetapi.FleetID, bool) {
	fleet, err := clients.ResolveFleet(fleetID.ValueString())
	if err != nil {
		if engine.IsNotConfigured(err) {
			addBackendError(diags, "No fleet", err)
		} else {
			diags.AddAttributeError(path.Root("fleet_id"), "Invalid fleet ID", err.Error())
		}
		return nil, fleetapi.FleetID{}, false
	}
	fc, err := clients.Fleet()
	if err != nil {
		addBackendError(diags, "Reaching the Fleet API", err)
		return nil, fleetapi.FleetID{}, false
	}
	return fc, fleet, true
}

// addNotFoundOrError reports a failed read: a missing resource with its name's path.
func addNotFoundOrError(diags *diag.Diagnostics, err error, kind, name string, fleet fleetapi.FleetID) {
	if fleetapi.IsNotFound(err) {
		diags.AddAttributeError(path.Root("name"), "No such "+kind, fmt.Sprintf("Fleet %s has no %s named %q.", fleet, kind, name))
		return
	}
	diags.AddError("Reading the "+kind, err.Error())
}
