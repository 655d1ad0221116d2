package member

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &factsDataSource{}

// factsDataSource reads the fleet once at plan, for previews to be computed from at plan and
// again at apply (preview/contract.go): Terraform reads a data source at plan and not again when it
// applies the plan, so its value is the one thing of the plan an apply's re-plan still has.
type factsDataSource struct{ shared.DataSourceBase }

func (d *factsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The fleet as previews read it — the hub's member clusters (labels, properties, taints, health) " +
			"and placements of both scopes with their bindings (cluster, state, availability), and the fleet's members " +
			"(groups, labels, Kubernetes and node image versions, maintenance windows) with the " +
			"clocks — read once, at plan. Give its `content` to the `facts` of `fleet_placement`, " +
			"`fleet_resource_placement`, `fleet_update_strategy`, `fleet_update_run`, `fleet_auto_upgrade_profile`, " +
			"`fleet_staged_update_strategy`, `fleet_member_cluster_taints`, `fleet_placement_disruption_budget`, " +
			"`fleet_staged_update_run` (with `staged_run`), `fleet_cluster_resource_override` and `fleet_resource_override` " +
			"(with `override_placements`) and `fleet_nodepool_disruption` (with `clusters`): their " +
			"previews are then computed from it at plan and again when `terraform apply` re-plans, so a saved plan " +
			"(`terraform plan -out`) still applies after the fleet moved, and apply warns what moved since the review. " +
			"Terraform does not read a data source again when it applies a saved plan.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, Description: "A digest of what was read: equal facts, equal id."},
			"fleet_ids": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "The ARM IDs of the fleets whose members to read. Default: the provider's fleet, when it has one.",
			},
			"hub": schema.BoolAttribute{
				Optional: true,
				Description: "Read the hub's member clusters, and its placements (both scopes) with their bindings cut to cluster, state and " +
					"availability (what placement, taint and disruption budget previews read). Default: true when the provider reaches a hub.",
			},
			"clusters": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Member clusters whose Karpenter picture to read (NodePools, NodeClaims, Nodes, Pods, PodDisruptionBudgets): " +
					"what `fleet_nodepool_disruption` previews of them read. Pods make it large (about 1 KB a pod before compression).",
			},
			"override_placements": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.RegexMatches(placementRefRe,
					"must be <name> of a ClusterResourcePlacement or <namespace>/<name> of a ResourcePlacement (lower-case DNS names)"))},
				Description: "Placements whose overrides' previews to pin, `<name>` (a ClusterResourcePlacement) or `<namespace>/<name>` " +
					"(a ResourcePlacement): the resources of each one's latest resource snapshot and the latest override snapshots " +
					"of the cluster scope, of its namespace and of its resources' namespaces — what `fleet_cluster_resource_override` " +
					"and `fleet_resource_override` previews of overrides of these placements read, and the `override_snapshots` " +
					"of their `fleet_placement` / `fleet_resource_placement` preview. Whole resources: only the placements named here.",
			},
			"maintenance_windows": schema.BoolAttribute{
				Optional: true,
				Description: "Read the members' maintenance windows (what update-run and auto-upgrade previews order members by; " +
					"one ARM read per member). Default: true.",
			},
			"taken_at":     schema.StringAttribute{Computed: true, Description: "When the fleet was read (RFC 3339, UTC): previews computed from these facts are computed at this time."},
			"member_count": schema.Int64Attribute{Computed: true, Description: "How many fleet members were read (all fleets)."},
			"hub_member_cluster_count": schema.Int64Attribute{
				Computed: true, Description: "How many member clusters of the hub were read; null when the hub was not read.",
			},
			"content": schema.StringAttribute{
				Computed: true, Sensitive: true,
				Description: "The facts, encoded (compressed JSON: about 75 bytes a member for the hub, the members and their windows, measured on a generated 1,000-member fleet, " +
					"and about 4 bytes a binding for the placements — 78 KB for 20 placements on 1,000 members; pods make a cluster's picture larger); give it to a resource's `facts`.",
			},
		},
		Blocks: map[string]schema.Block{
			"staged_run": schema.ListNestedBlock{
				Description: "A staged update run whose inputs to read, one block per run: what KubeFleet's controller initializes a run from and " +
					"`fleet_staged_update_run`'s preview reads (the placement, its latest policy snapshots, bindings and resource " +
					"snapshots' metadata, the strategy). Whole objects (about 1 KB a binding before compression): only the runs named in these blocks.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"namespace":                   schema.StringAttribute{Optional: true, Description: "The run's namespace (a StagedUpdateRun of a ResourcePlacement); null for a ClusterStagedUpdateRun."},
					"placement_name":              schema.StringAttribute{Required: true, Description: "The run's `placement_name`."},
					"staged_update_strategy_name": schema.StringAttribute{Required: true, Description: "The run's `staged_update_strategy_name`."},
				}},
			},
		},
	}
}

// placementRefRe is a placement named as override_placements names it: <name> (a DNS subdomain)
// or <namespace>/<name> (a DNS label, then a subdomain).
var placementRefRe = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

type stagedRunRef struct {
	Namespace types.String `tfsdk:"namespace"`
	Placement types.String `tfsdk:"placement_name"`
	Strategy  types.String `tfsdk:"staged_update_strategy_name"`
}

type factsModel struct {
	ID                    types.String   `tfsdk:"id"`
	FleetIDs              types.List     `tfsdk:"fleet_ids"`
	Hub                   types.Bool     `tfsdk:"hub"`
	Clusters              types.List     `tfsdk:"clusters"`
	StagedRuns            []stagedRunRef `tfsdk:"staged_run"`
	OverridePlacements    types.List     `tfsdk:"override_placements"`
	MaintenanceWindows    types.Bool     `tfsdk:"maintenance_windows"`
	TakenAt               types.String   `tfsdk:"taken_at"`
	MemberCount           types.Int64    `tfsdk:"member_count"`
	HubMemberClusterCount types.Int64    `tfsdk:"hub_member_cluster_count"`
	Content               types.String   `tfsdk:"content"`
}

func (d *factsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m factsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.Clients == nil {
		backend.AddBackendError(&resp.Diagnostics, "Reading the fleet", &session.NotConfiguredError{Block: "azure"})
		return
	}
	var fleets []fleetapi.FleetID
	if m.FleetIDs.IsNull() {
		if f, err := d.Clients.DefaultFleet(); err == nil {
			fleets = append(fleets, f)
		}
	} else {
		var ids []string
		resp.Diagnostics.Append(m.FleetIDs.ElementsAs(ctx, &ids, false)...)
		for i, id := range ids {
			f, err := fleetapi.ParseFleetID(id)
			if err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("fleet_ids").AtListIndex(i), "Invalid fleet ID", err.Error())
				continue
			}
			fleets = append(fleets, f)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	readHub := m.Hub.ValueBool()
	if m.Hub.IsNull() {
		_, err := d.Clients.Hub(ctx)
		readHub = err == nil
	}
	windows := m.MaintenanceWindows.IsNull() || m.MaintenanceWindows.ValueBool()
	var clusters []string
	resp.Diagnostics.Append(m.Clusters.ElementsAs(ctx, &clusters, true)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var runs []facts.StagedRun
	for _, r := range m.StagedRuns {
		runs = append(runs, facts.StagedRun{Namespace: r.Namespace.ValueString(), Placement: r.Placement.ValueString(), Strategy: r.Strategy.ValueString()})
	}
	var names []string
	resp.Diagnostics.Append(m.OverridePlacements.ElementsAs(ctx, &names, true)...)
	var keys []hub.PlacementKey
	for i, n := range names {
		ns, name, namespaced := strings.Cut(n, "/")
		if !namespaced {
			ns, name = "", n
		}
		if name == "" || strings.Contains(name, "/") || (namespaced && ns == "") {
			resp.Diagnostics.AddAttributeError(path.Root("override_placements").AtListIndex(i), "Invalid placement",
				fmt.Sprintf("override_placements[%d]: expected <name> of a ClusterResourcePlacement or <namespace>/<name> of a ResourcePlacement, got %q.", i, n))
			continue
		}
		keys = append(keys, hub.PlacementKey{Namespace: ns, Name: name})
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if len(keys) > 0 && !readHub {
		resp.Diagnostics.AddAttributeError(path.Root("override_placements"), "The hub is not read",
			"override_placements needs the hub: set hub = true (or leave it unset) and configure the provider's hub.")
		return
	}
	r := facts.Request{Windows: windows, Hub: readHub, Staged: runs, Overrides: keys, Clusters: clusters}
	for _, f := range fleets {
		r.Fleets = append(r.Fleets, f.String())
	}
	snap, err := d.Clients.Read(ctx, r)
	if err != nil {
		backend.AddBackendError(&resp.Diagnostics, "Reading the fleet", err)
		return
	}
	content, err := snap.Encode()
	if err != nil {
		resp.Diagnostics.AddError("Encoding the fleet's facts", err.Error())
		return
	}
	members := 0
	for _, f := range snap.Fleets {
		members += len(f.Members)
	}
	m.ID = types.StringValue(snap.Digest())
	m.TakenAt = types.StringValue(snap.TakenAt.Format(time.RFC3339))
	m.MemberCount = types.Int64Value(int64(members))
	m.HubMemberClusterCount = types.Int64Null()
	if snap.HubRead {
		m.HubMemberClusterCount = types.Int64Value(int64(len(snap.Hub)))
	}
	m.Content = types.StringValue(content)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
