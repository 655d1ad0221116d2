package member

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/maintenance"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &membersDataSource{}

type membersDataSource struct{ shared.DataSourceBase }

func (d *membersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, Description: desc}
	}
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Computed: true, ElementType: types.StringType, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "The fleet's members: each member's update group, labels, location, Kubernetes and node image versions " +
			"(from the Fleet API and its managed cluster), its planned-maintenance window state at the Fleet API's current time, " +
			"and what the fleet hub knows of it (labels, properties, taints, health).",
		Attributes: map[string]schema.Attribute{
			"id": str("The fleet's resource ID."),
			"fleet_id": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "The fleet's ARM resource ID. Defaults to the provider's fleet (azure.resource_group_name and azure.fleet_name).",
			},
			"members": schema.ListNestedAttribute{
				Computed:    true,
				Description: "The members, by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":                str("The member's name."),
					"group":               str("The member's update group."),
					"labels":              strMap("The member's Fleet API labels."),
					"location":            str("The managed cluster's Azure region."),
					"cluster_resource_id": str("The ARM ID of the member's managed cluster."),
					"kubernetes_version":  str("The managed cluster's current Kubernetes version."),
					"node_pools": schema.ListNestedAttribute{
						Computed:    true,
						Description: "The managed cluster's node pools.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name":               str("The node pool's name."),
							"count":              schema.Int64Attribute{Computed: true, Description: "Its node count."},
							"node_image_version": str("Its node image version."),
						}},
					},
					"maintenance_window": str("The auto-upgrade maintenance window (aksManagedAutoUpgradeSchedule) at the Fleet API's current time: " +
						"`open`, `opens_soon` (within 4 hours), `none` or `closed` — the order in which update runs take members."),
					"window_opens_at": str("When the current or next window opens (RFC 3339, UTC); null without a window."),
					"hub_labels":      strMap("The labels of the member's MemberCluster on the fleet hub (what placements select on)."),
					"properties":      strMap("The member's properties on the fleet hub (e.g. kubernetes-fleet.io/node-count), and its resource usage as resources.kubernetes-fleet.io/<capacity|allocatable|available>-<resource>."),
					"taints": schema.ListNestedAttribute{
						Computed:    true,
						Description: "The MemberCluster's taints.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key": str("Taint key."), "value": str("Taint value."), "effect": str("Taint effect."),
						}},
					},
					"healthy":        schema.BoolAttribute{Computed: true, Description: "Whether the hub's scheduler considers the member eligible (joined, healthy, recent heartbeat)."},
					"health_message": str("Why the member is not eligible; null when healthy."),
				}},
			},
		},
	}
}

func (d *membersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg membersModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fleet, err := d.Clients.ResolveFleet(cfg.FleetID.ValueString())
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "Invalid fleet", err)
		return
	}
	v := d.Clients.View()
	members, err := view.Members(ctx, v, fleet)
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "Reading the fleet's members", err)
		return
	}
	hub, err := v.HubMemberClusters(ctx)
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "Reading the fleet hub's member clusters", err)
		return
	}
	byName := map[string]*clusterv1.MemberCluster{}
	for i := range hub {
		byName[hub[i].Name] = &hub[i]
	}
	fleetNow, hubNow := d.Clients.FleetNow(), d.Clients.Now()
	state := membersModel{ID: types.StringValue(fleet.String()), FleetID: types.StringValue(fleet.String()), Members: []memberModel{}}
	var unreadable preview.UnreadableMembers
	for _, m := range members {
		if m.ClusterErr != nil {
			unreadable.Add(m.Name, m.ClusterErr)
		}
		state.Members = append(state.Members, memberFromEngine(m, byName[m.Name], fleetNow, hubNow))
	}
	unreadable.Warn(&resp.Diagnostics, "")
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

type membersModel struct {
	ID      types.String  `tfsdk:"id"`
	FleetID types.String  `tfsdk:"fleet_id"`
	Members []memberModel `tfsdk:"members"`
}

type memberModel struct {
	Name              types.String      `tfsdk:"name"`
	Group             types.String      `tfsdk:"group"`
	Labels            map[string]string `tfsdk:"labels"`
	Location          types.String      `tfsdk:"location"`
	ClusterResourceID types.String      `tfsdk:"cluster_resource_id"`
	KubernetesVersion types.String      `tfsdk:"kubernetes_version"`
	NodePools         []nodePoolModel   `tfsdk:"node_pools"`
	MaintenanceWindow types.String      `tfsdk:"maintenance_window"`
	WindowOpensAt     types.String      `tfsdk:"window_opens_at"`
	HubLabels         map[string]string `tfsdk:"hub_labels"`
	Properties        map[string]string `tfsdk:"properties"`
	Taints            []taintModel      `tfsdk:"taints"`
	Healthy           types.Bool        `tfsdk:"healthy"`
	HealthMessage     types.String      `tfsdk:"health_message"`
}

type nodePoolModel struct {
	Name             types.String `tfsdk:"name"`
	Count            types.Int64  `tfsdk:"count"`
	NodeImageVersion types.String `tfsdk:"node_image_version"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

func memberFromEngine(m facts.Member, mc *clusterv1.MemberCluster, fleetNow, hubNow time.Time) memberModel {
	out := memberModel{
		Name:              types.StringValue(m.Name),
		Group:             types.StringValue(m.Group),
		Labels:            nonNilMap(m.Labels),
		ClusterResourceID: types.StringValue(m.ClusterResourceID),
		NodePools:         []nodePoolModel{},
		Taints:            []taintModel{},
		HubLabels:         map[string]string{},
		Properties:        map[string]string{},
		Location:          types.StringNull(),
		KubernetesVersion: types.StringNull(),
	}
	if c := m.Cluster; c != nil {
		out.Location = types.StringValue(shared.Deref(c.Location))
		if p := c.Properties; p != nil {
			v := shared.Deref(p.CurrentKubernetesVersion)
			if v == "" {
				v = shared.Deref(p.KubernetesVersion)
			}
			out.KubernetesVersion = types.StringValue(v)
			for _, ap := range p.AgentPoolProfiles {
				if ap == nil {
					continue
				}
				out.NodePools = append(out.NodePools, nodePoolModel{
					Name:             types.StringValue(shared.Deref(ap.Name)),
					Count:            types.Int64Value(int64(shared.Deref(ap.Count))),
					NodeImageVersion: types.StringValue(shared.Deref(ap.NodeImageVersion)),
				})
			}
		}
	}
	state, opensAt := maintenance.State(m.Windows[facts.AutoUpgradeSchedule], fleetNow)
	out.MaintenanceWindow = types.StringValue(string(state))
	out.WindowOpensAt = types.StringNull()
	if state != maintenance.None {
		out.WindowOpensAt = shared.TimeString(opensAt)
	}
	out.Healthy, out.HealthMessage = types.BoolValue(false), types.StringValue("not a member cluster of the fleet hub")
	if mc != nil {
		out.HubLabels = nonNilMap(mc.Labels)
		for name, v := range mc.Status.Properties {
			out.Properties[string(name)] = v.Value
		}
		for kind, list := range map[string]map[string]string{
			"capacity": quantities(mc.Status.ResourceUsage.Capacity), "allocatable": quantities(mc.Status.ResourceUsage.Allocatable), "available": quantities(mc.Status.ResourceUsage.Available),
		} {
			for res, q := range list {
				out.Properties[scheduling.ResourcePropertyNamePrefix+kind+"-"+res] = q
			}
		}
		for _, t := range mc.Spec.Taints {
			out.Taints = append(out.Taints, taintModel{Key: types.StringValue(t.Key), Value: types.StringValue(t.Value), Effect: types.StringValue(string(t.Effect))})
		}
		ok, why := scheduling.Eligible(mc, hubNow)
		out.Healthy, out.HealthMessage = types.BoolValue(ok), types.StringNull()
		if !ok {
			out.HealthMessage = types.StringValue(why)
		}
	}
	return out
}

func quantities(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for k, q := range l {
		out[string(k)] = q.String()
	}
	return out
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
