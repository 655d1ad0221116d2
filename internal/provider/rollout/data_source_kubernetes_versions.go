package rollout

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/channel"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &kubernetesVersionsDataSource{}

type kubernetesVersionsDataSource struct{ shared.DataSourceBase }

func (d *kubernetesVersionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "The Kubernetes versions AKS offers per Azure location (managedClusters listKubernetesVersions), and what the " +
			"Fleet Manager auto-upgrade channels resolve to there: Stable (the latest GA patch of minor N-1, N being the newest GA minor), " +
			"Rapid (the latest GA patch of N) and TargetKubernetesVersion (the latest GA patch of a given minor). Preview versions are listed " +
			"but are never a channel's target. The NodeImage channel resolves per node pool and shows in a profile's preview.",
		Attributes: map[string]schema.Attribute{
			"id": str("The locations, comma-separated."),
			"fleet_id": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "The fleet whose members' locations are listed when `locations` is not set. Defaults to the provider's fleet " +
					"(azure.resource_group_name and azure.fleet_name); null when `locations` is set and this is not.",
			},
			"locations": schema.ListAttribute{
				Optional: true, Computed: true, ElementType: types.StringType,
				Description: "Azure locations to list (e.g. `eastus`). Defaults to the locations of the fleet's member clusters.",
				Validators: []validator.List{
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1)),
				},
			},
			"location_versions": schema.ListNestedAttribute{
				Computed:    true,
				Description: "One entry per location, in the order of `locations`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"location": str("The Azure location."),
					"versions": schema.ListNestedAttribute{
						Computed:    true,
						Description: "Every version AKS offers there, oldest first (a preview entry after the GA entry of the same minor).",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"version":    str("The patch version, e.g. `1.33.1`."),
							"minor":      str("Its minor version, e.g. `1.33`."),
							"is_preview": schema.BoolAttribute{Computed: true, Description: "AKS offers it as a preview: never an auto-upgrade target."},
							"is_default": schema.BoolAttribute{Computed: true, Description: "The version AKS gives a cluster created without one (the latest patch of the minor AKS marks default)."},
							"support_plans": schema.ListAttribute{Computed: true, ElementType: types.StringType,
								Description: "The support plans AKS lists for its minor: `KubernetesOfficial` and/or `AKSLongTermSupport`."},
							"long_term_support": schema.BoolAttribute{Computed: true, Description: "AKS offers its minor under long-term support (LTS)."},
						}},
					},
					"support_window": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						Description: "The minors in AKS's support window, oldest first: the newest GA minor N, N-1 and N-2. Auto-upgrade leaves clusters " +
							"below it alone, and targets below it need long_term_support."},
					"channels": schema.SingleNestedAttribute{
						Computed:    true,
						Description: "What the Kubernetes channels resolve to here; null where AKS offers too little (a warning says why).",
						Attributes: map[string]schema.Attribute{
							"stable": str("The Stable channel's target: the latest GA patch of minor N-1."),
							"rapid":  str("The Rapid channel's target: the latest GA patch of minor N."),
						},
					},
					"latest_patch_by_minor": schema.MapAttribute{Computed: true, ElementType: types.StringType,
						Description: "What the TargetKubernetesVersion channel resolves to, by target minor (`\"1.32\" = \"1.32.5\"`), for every minor it accepts; " +
							"minors outside `support_window` need long_term_support."},
				}},
			},
		},
	}
}

func (d *kubernetesVersionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg kubernetesVersionsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ac, err := d.Clients.AKS()
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "AKS client", err)
		return
	}
	state := kubernetesVersionsModel{FleetID: cfg.FleetID, Locations: cfg.Locations, LocationVersions: []locationVersionsModel{}}
	var locations []string
	fromConfig := !cfg.Locations.IsNull()
	if fromConfig {
		resp.Diagnostics.Append(cfg.Locations.ElementsAs(ctx, &locations, false)...)
	}
	if !fromConfig || !cfg.FleetID.IsNull() {
		fleet, err := d.Clients.ResolveFleet(cfg.FleetID.ValueString())
		if err != nil {
			if session.IsNotConfigured(err) {
				backend.AddBackendError(&resp.Diagnostics, "No fleet", err)
			} else {
				resp.Diagnostics.AddAttributeError(path.Root("fleet_id"), "Invalid fleet ID", err.Error())
			}
			return
		}
		state.FleetID = types.StringValue(fleet.String())
		if !fromConfig {
			locations = d.memberLocations(ctx, fleet, &resp.Diagnostics)
			state.Locations, _ = types.ListValueFrom(ctx, types.StringType, locations)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	for i, loc := range locations {
		values, err := ac.ListKubernetesVersions(ctx, loc)
		if err == nil {
			var tab channel.VersionTable
			if tab, err = channel.TableFromAKS(values); err == nil {
				state.LocationVersions = append(state.LocationVersions, locationVersionsFrom(loc, tab, &resp.Diagnostics))
				continue
			}
		}
		if fromConfig {
			resp.Diagnostics.AddAttributeError(path.Root("locations").AtListIndex(i), "Listing Kubernetes versions", fmt.Sprintf("Location %s: %v", loc, err))
		} else {
			resp.Diagnostics.AddError("Listing Kubernetes versions", fmt.Sprintf("Location %s (of the fleet's members): %v", loc, err))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	state.ID = types.StringValue(strings.Join(locations, ","))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// memberLocations are the distinct locations of the fleet's member clusters, sorted.
func (d *kubernetesVersionsDataSource) memberLocations(ctx context.Context, fleet fleetapi.FleetID, diags *diag.Diagnostics) []string {
	members, err := d.Clients.View().MemberClusters(ctx, fleet)
	if err != nil {
		backend.AddBackendError(diags, "Reading the fleet's members", err)
		return nil
	}
	seen := map[string]bool{}
	locations := []string{}
	var unreadable preview.UnreadableMembers
	defer unreadable.Warn(diags, ": their locations are not listed")
	for _, m := range members {
		if m.ClusterErr != nil || m.Cluster == nil {
			unreadable.Add(m.Name, m.ClusterErr)
			continue
		}
		if loc := shared.Deref(m.Cluster.Location); loc != "" && !seen[loc] {
			seen[loc] = true
			locations = append(locations, loc)
		}
	}
	if len(locations) == 0 {
		diags.AddWarning("No locations", fmt.Sprintf("Fleet %s has no member cluster whose location could be read: set locations to list versions.", fleet))
	}
	sort.Strings(locations)
	return locations
}

type kubernetesVersionsModel struct {
	ID               types.String            `tfsdk:"id"`
	FleetID          types.String            `tfsdk:"fleet_id"`
	Locations        types.List              `tfsdk:"locations"`
	LocationVersions []locationVersionsModel `tfsdk:"location_versions"`
}

type locationVersionsModel struct {
	Location           types.String           `tfsdk:"location"`
	Versions           []kubernetesVersionRow `tfsdk:"versions"`
	SupportWindow      []string               `tfsdk:"support_window"`
	Channels           *channelsModel         `tfsdk:"channels"`
	LatestPatchByMinor map[string]string      `tfsdk:"latest_patch_by_minor"`
}

type kubernetesVersionRow struct {
	Version         types.String `tfsdk:"version"`
	Minor           types.String `tfsdk:"minor"`
	IsPreview       types.Bool   `tfsdk:"is_preview"`
	IsDefault       types.Bool   `tfsdk:"is_default"`
	SupportPlans    []string     `tfsdk:"support_plans"`
	LongTermSupport types.Bool   `tfsdk:"long_term_support"`
}

type channelsModel struct {
	Stable types.String `tfsdk:"stable"`
	Rapid  types.String `tfsdk:"rapid"`
}

func locationVersionsFrom(loc string, tab channel.VersionTable, diags *diag.Diagnostics) locationVersionsModel {
	out := locationVersionsModel{
		Location: types.StringValue(loc), Versions: []kubernetesVersionRow{}, SupportWindow: []string{},
		Channels: &channelsModel{}, LatestPatchByMinor: map[string]string{},
	}
	def, hasDefault := tab.DefaultVersion()
	for _, m := range tab.Minors {
		plans := []string{}
		for _, p := range m.SupportPlans {
			plans = append(plans, string(p))
		}
		for _, p := range m.Patches {
			out.Versions = append(out.Versions, kubernetesVersionRow{
				Version: types.StringValue(p.String()), Minor: types.StringValue(m.Minor.MinorString()),
				IsPreview: types.BoolValue(m.Preview), IsDefault: types.BoolValue(hasDefault && !m.Preview && p == def),
				SupportPlans: plans, LongTermSupport: types.BoolValue(m.LongTermSupport()),
			})
		}
		if m.Preview {
			continue
		}
		// What a TargetKubernetesVersion profile on this minor resolves to,
		// with long-term support where the minor needs it.
		opts := channel.Options{TargetKubernetesVersion: m.Minor.MinorString()}
		tg, err := channel.Resolve(channel.TargetKubernetesVersion, opts, tab)
		if err != nil {
			opts.LongTermSupport = true
			tg, err = channel.Resolve(channel.TargetKubernetesVersion, opts, tab)
		}
		if err == nil {
			out.LatestPatchByMinor[m.Minor.MinorString()] = tg.KubernetesVersion
		}
	}
	for _, m := range tab.SupportedMinors() {
		out.SupportWindow = append(out.SupportWindow, m.MinorString())
	}
	for _, ch := range []struct {
		c   channel.Channel
		dst *types.String
	}{{channel.Stable, &out.Channels.Stable}, {channel.Rapid, &out.Channels.Rapid}} {
		c, dst := ch.c, ch.dst
		tg, err := channel.Resolve(c, channel.Options{}, tab)
		if err != nil {
			*dst = types.StringNull()
			diags.AddWarning("Channel not resolvable", fmt.Sprintf("Location %s: %s: %v", loc, c, err))
			continue
		}
		*dst = types.StringValue(tg.KubernetesVersion)
	}
	return out
}
