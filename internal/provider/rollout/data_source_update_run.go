package rollout

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &updateRunDataSource{}

// updateRunDataSource reads an update run Terraform did not create (e.g. one
// an auto-upgrade profile generated): its definition, status tree and what
// remains.
type updateRunDataSource struct{ shared.DataSourceBase }

func (d *updateRunDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := computedAttributes(resourceSchema(ctx, &updateRunResource{}), "update_strategy_id", "stage", "managed_cluster_update", "status")
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

type updateRunDataModel struct {
	ID                   types.String `tfsdk:"id"`
	Name                 types.String `tfsdk:"name"`
	FleetID              types.String `tfsdk:"fleet_id"`
	UpdateStrategyID     types.String `tfsdk:"update_strategy_id"`
	Stages               []stageModel `tfsdk:"stage"`
	ManagedClusterUpdate *mcuModel    `tfsdk:"managed_cluster_update"`
	Status               types.Object `tfsdk:"status"`
	AutoUpgradeProfileID types.String `tfsdk:"auto_upgrade_profile_id"`
	RemainingMembers     []string     `tfsdk:"remaining_members"`
	RemainingMemberCount types.Int64  `tfsdk:"remaining_member_count"`
	RemainingOmitted     types.Int64  `tfsdk:"remaining_members_omitted"`
}

func (d *updateRunDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m updateRunDataModel
	run, fleet, ok := lookup(ctx, req.Config, &m, d.Clients, "update run", &resp.Diagnostics, (*fleetapi.Client).GetUpdateRun)
	if !ok {
		return
	}
	name := m.Name.ValueString()
	m.ID = types.StringValue(fleet.ChildID("updateRuns", name))
	m.FleetID = types.StringValue(fleet.String())
	m.UpdateStrategyID, m.AutoUpgradeProfileID = types.StringNull(), types.StringNull()
	if p := run.Properties; p != nil {
		m.UpdateStrategyID = shared.StringOrNull(p.UpdateStrategyID)
		m.AutoUpgradeProfileID = shared.StringOrNull(p.AutoUpgradeProfileID)
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
	listed, omitted := preview.CapList(remaining, d.Clients.ListLimit())
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

// lookup reads the data source's configuration into m and then its object: name in its fleet
// (fleet_id, else the provider's), with get; a missing one is an error on name. False once the
// reason is reported.
func lookup[T any](ctx context.Context, cfg tfsdk.Config, m any, clients *session.Session, kind string, diags *diag.Diagnostics,
	get func(*fleetapi.Client, context.Context, fleetapi.FleetID, string) (*T, error)) (*T, fleetapi.FleetID, bool) {
	var fleetID, name types.String
	diags.Append(cfg.Get(ctx, m)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("fleet_id"), &fleetID)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("name"), &name)...)
	if diags.HasError() {
		return nil, fleetapi.FleetID{}, false
	}
	fc, fleet, ok := backend.FleetClient(clients, fleetID, diags)
	if !ok {
		return nil, fleet, false
	}
	got, err := get(fc, ctx, fleet, name.ValueString())
	if err != nil {
		if fleetapi.IsNotFound(err) {
			diags.AddAttributeError(path.Root("name"), "No such "+kind, fmt.Sprintf("Fleet %s has no %s named %q.", fleet, kind, name.ValueString()))
		} else {
			diags.AddError("Reading the "+kind, err.Error())
		}
		return nil, fleet, false
	}
	return got, fleet, true
}
