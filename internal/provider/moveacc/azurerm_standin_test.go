package moveacc

import (
	"context"
	"fmt"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// A stand-in for hashicorp/azurerm, because azurerm itself cannot be built here: the Go module proxy
// answers 403 "not available" for its v4 tags (only an untagged pseudo-version of the module is
// listed, and compiling azurerm's go-azure-sdk dependency tree on two cores would take far longer than
// the whole test suite may). It serves the four resource types fleet_* resources move from, in the
// shapes azurerm's typed SDK resources have (internal/services/containers/kubernetes_fleet_*_resource.go:
// nested blocks for stages, groups and managed_cluster_update, a timeouts block, "" and 0 for unset
// optionals in state), and creates the objects through the Fleet API as azurerm does, so that
// `terraform apply` writes azurerm-shaped state over real objects. Reads keep the state; the moved
// resources are read by the fleet provider.

const (
	standinBinary  = "terraform-provider-azurerm"
	standinAddress = "registry.terraform.io/hashicorp/azurerm"
)

func serveStandin() {
	if err := providerserver.Serve(context.Background(), func() provider.Provider { return &standin{} },
		providerserver.ServeOpts{Address: standinAddress}); err != nil {
		fmt.Fprintln(os.Stderr, "serving the azurerm stand-in:", err)
		os.Exit(1)
	}
}

type standin struct{}

func (p *standin) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "azurerm"
}

func (p *standin) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{Blocks: map[string]pschema.Block{"features": pschema.SingleNestedBlock{}}}
}

// Configure signs in with the ARM_* environment, as azurerm does (the local fleet's).
func (p *standin) Configure(ctx context.Context, _ provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	s, err := azure.NewSession(ctx, azure.Config{
		SubscriptionID: os.Getenv("ARM_SUBSCRIPTION_ID"), TenantID: os.Getenv("ARM_TENANT_ID"),
		ClientID: os.Getenv("ARM_CLIENT_ID"), ClientSecret: os.Getenv("ARM_CLIENT_SECRET"),
		MetadataHost: os.Getenv("ARM_METADATA_HOSTNAME"),
	}, azure.Options{ProviderVersion: "azurerm-standin"})
	if err != nil {
		resp.Diagnostics.AddError("azurerm stand-in", err.Error())
		return
	}
	c, err := fleetapi.NewClient(s)
	if err != nil {
		resp.Diagnostics.AddError("azurerm stand-in", err.Error())
		return
	}
	resp.ResourceData = c
}

func (p *standin) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource {
			return &standinResource[strategyM, *strategyM]{name: "kubernetes_fleet_update_strategy", schema: strategySchema()}
		},
		func() resource.Resource {
			return &standinResource[runM, *runM]{name: "kubernetes_fleet_update_run", schema: runSchema()}
		},
		func() resource.Resource {
			return &standinResource[memberM, *memberM]{name: "kubernetes_fleet_member", schema: memberSchema()}
		},
		func() resource.Resource {
			return &standinResource[profileM, *profileM]{name: "kubernetes_fleet_auto_upgrade_profile", schema: profileSchema()}
		},
	}
}

func (p *standin) DataSources(context.Context) []func() datasource.DataSource { return nil }

// armObject is what each resource type creates and deletes in the Fleet API, in the fleet of its
// state's fleet ID.
type armObject interface {
	fleet() types.String
	create(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error
	delete(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error
}

// armM is what the state of each of azurerm's fleet resources has.
type armM struct {
	ID       types.String `tfsdk:"id"`
	Name     types.String `tfsdk:"name"`
	Timeouts types.Object `tfsdk:"timeouts"`
}

// fleetChildM is armM of a resource whose fleet is kubernetes_fleet_manager_id (all but the member).
type fleetChildM struct {
	armM
	FleetID types.String `tfsdk:"kubernetes_fleet_manager_id"`
}

// created waits for the create p (started with err) and sets m's ID: the object's of kind (the
// Fleet API's path segment) in fleet f.
func created[T any](ctx context.Context, m *armM, p *runtime.Poller[T], err error, f fleetapi.FleetID, kind string) error {
	if _, err := shared.PollDone(ctx, p, err); err != nil {
		return err
	}
	m.ID = types.StringValue(f.ChildID(kind, m.Name.ValueString()))
	return nil
}

// deleted deletes the object name of fleet f with begin and waits until it is gone.
func deleted(ctx context.Context, begin func(context.Context, fleetapi.FleetID, string, *fleetapi.Precondition) (*runtime.Poller[fleetapi.DeleteResult], error),
	f fleetapi.FleetID, name types.String) error {
	p, err := begin(ctx, f, name.ValueString(), nil)
	_, err = shared.PollDone(ctx, p, err)
	return err
}

func (m *fleetChildM) fleet() types.String { return m.FleetID }

// inFleet runs op on the fleet of o's state.
func inFleet(o armObject, op func(fleetapi.FleetID) error) error {
	f, err := fleetapi.ParseFleetID(o.fleet().ValueString())
	if err != nil {
		return err
	}
	return op(f)
}

// standinResource is one azurerm resource type over its model M, which *M makes and deletes.
type standinResource[M any, P interface {
	*M
	armObject
}] struct {
	name   string
	schema rschema.Schema
	client *fleetapi.Client
}

func (r *standinResource[M, P]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.name
}

func (r *standinResource[M, P]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

func (r *standinResource[M, P]) Configure(_ context.Context, req resource.ConfigureRequest, _ *resource.ConfigureResponse) {
	if c, ok := req.ProviderData.(*fleetapi.Client); ok {
		r.client = c
	}
}

func (r *standinResource[M, P]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m M
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if err := inFleet(P(&m), func(f fleetapi.FleetID) error { return P(&m).create(ctx, r.client, f) }); err != nil {
		resp.Diagnostics.AddError("azurerm stand-in: create "+r.name, err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *standinResource[M, P]) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *standinResource[M, P]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("azurerm stand-in", "the stand-in does not update "+r.name)
}

func (r *standinResource[M, P]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m M
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if err := inFleet(P(&m), func(f fleetapi.FleetID) error { return P(&m).delete(ctx, r.client, f) }); err != nil {
		resp.Diagnostics.AddError("azurerm stand-in: delete "+r.name, err.Error())
	}
}

// Schema parts azurerm's fleet resources share.

// armSchema is the schema of an azurerm fleet resource with attrs and blocks: with armM's id, name
// and timeouts block.
func armSchema(attrs map[string]rschema.Attribute, blocks map[string]rschema.Block) rschema.Schema {
	attrs["id"], attrs["name"] = idAttr(), required()
	if blocks == nil {
		blocks = map[string]rschema.Block{}
	}
	blocks["timeouts"] = timeoutsBlock()
	return rschema.Schema{Attributes: attrs, Blocks: blocks}
}

func idAttr() rschema.StringAttribute {
	return rschema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}}
}

func required() rschema.StringAttribute {
	return rschema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}
}

// optional is an optional string azurerm's typed resources keep as "" when unset.
func optional() rschema.StringAttribute {
	return rschema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("")}
}

func timeoutsBlock() rschema.SingleNestedBlock {
	s := rschema.StringAttribute{Optional: true}
	return rschema.SingleNestedBlock{Attributes: map[string]rschema.Attribute{"create": s, "read": s, "update": s, "delete": s}}
}

func stageBlock() rschema.ListNestedBlock {
	return rschema.ListNestedBlock{NestedObject: rschema.NestedBlockObject{
		Attributes: map[string]rschema.Attribute{
			"name":                        rschema.StringAttribute{Required: true},
			"after_stage_wait_in_seconds": rschema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0)},
		},
		Blocks: map[string]rschema.Block{"group": rschema.ListNestedBlock{NestedObject: rschema.NestedBlockObject{
			Attributes: map[string]rschema.Attribute{"name": rschema.StringAttribute{Required: true}},
		}}},
	}}
}

type groupM struct {
	Name types.String `tfsdk:"name"`
}

type stageM struct {
	Name                    types.String `tfsdk:"name"`
	AfterStageWaitInSeconds types.Int64  `tfsdk:"after_stage_wait_in_seconds"`
	Group                   []groupM     `tfsdk:"group"`
}

func apiStages(in []stageM) []fleetapi.UpdateStage {
	out := make([]fleetapi.UpdateStage, 0, len(in))
	for _, s := range in {
		st := fleetapi.UpdateStage{Name: s.Name.ValueString(), AfterStageWaitInSeconds: int32(s.AfterStageWaitInSeconds.ValueInt64())}
		for _, g := range s.Group {
			st.Groups = append(st.Groups, fleetapi.UpdateGroup{Name: g.Name.ValueString()})
		}
		out = append(out, st)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// azurerm_kubernetes_fleet_update_strategy.

func strategySchema() rschema.Schema {
	return armSchema(map[string]rschema.Attribute{"kubernetes_fleet_manager_id": required()}, map[string]rschema.Block{"stage": stageBlock()})
}

type strategyM struct {
	fleetChildM
	Stage []stageM `tfsdk:"stage"`
}

func (m *strategyM) create(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	p, err := c.BeginCreateOrUpdateUpdateStrategy(ctx, f, m.Name.ValueString(), fleetapi.FleetUpdateStrategy{
		Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{Stages: apiStages(m.Stage)}}}, nil)
	if err := created(ctx, &m.armM, p, err, f, "updateStrategies"); err != nil {
		return err
	}
	m.Stage = nonNil(m.Stage)
	return nil
}

func (m *strategyM) delete(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	return deleted(ctx, c.BeginDeleteUpdateStrategy, f, m.Name)
}

// azurerm_kubernetes_fleet_update_run.

func runSchema() rschema.Schema {
	one := func(attrs map[string]rschema.Attribute) rschema.ListNestedBlock {
		return rschema.ListNestedBlock{NestedObject: rschema.NestedBlockObject{Attributes: attrs}}
	}
	return armSchema(map[string]rschema.Attribute{"kubernetes_fleet_manager_id": required(), "fleet_update_strategy_id": optional()},
		map[string]rschema.Block{
			"managed_cluster_update": rschema.ListNestedBlock{NestedObject: rschema.NestedBlockObject{Blocks: map[string]rschema.Block{
				"upgrade":              one(map[string]rschema.Attribute{"type": rschema.StringAttribute{Required: true}, "kubernetes_version": optional()}),
				"node_image_selection": one(map[string]rschema.Attribute{"type": rschema.StringAttribute{Required: true}}),
			}}},
			"stage": stageBlock(),
		})
}

type upgradeM struct {
	Type              types.String `tfsdk:"type"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
}

type nisM struct {
	Type types.String `tfsdk:"type"`
}

type mcuM struct {
	Upgrade            []upgradeM `tfsdk:"upgrade"`
	NodeImageSelection []nisM     `tfsdk:"node_image_selection"`
}

type runM struct {
	fleetChildM
	StrategyID types.String `tfsdk:"fleet_update_strategy_id"`
	MCU        []mcuM       `tfsdk:"managed_cluster_update"`
	Stage      []stageM     `tfsdk:"stage"`
}

func (m *runM) create(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	if len(m.MCU) != 1 || len(m.MCU[0].Upgrade) != 1 {
		return fmt.Errorf("managed_cluster_update with one upgrade block is required")
	}
	u := m.MCU[0]
	props := &fleetapi.UpdateRunProperties{UpdateStrategyID: m.StrategyID.ValueString(), ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{
		Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.ManagedClusterUpgradeType(u.Upgrade[0].Type.ValueString()), KubernetesVersion: u.Upgrade[0].KubernetesVersion.ValueString()},
	}}
	if len(u.NodeImageSelection) == 1 {
		props.ManagedClusterUpdate.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionType(u.NodeImageSelection[0].Type.ValueString())}
	}
	if len(m.Stage) > 0 {
		props.Strategy = &fleetapi.UpdateRunStrategy{Stages: apiStages(m.Stage)}
	}
	p, err := c.BeginCreateOrUpdateUpdateRun(ctx, f, m.Name.ValueString(), fleetapi.UpdateRun{Properties: props}, nil)
	if err := created(ctx, &m.armM, p, err, f, "updateRuns"); err != nil {
		return err
	}
	m.Stage = nonNil(m.Stage)
	m.MCU[0].NodeImageSelection = nonNil(m.MCU[0].NodeImageSelection)
	return nil
}

func (m *runM) delete(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	return deleted(ctx, c.BeginDeleteUpdateRun, f, m.Name)
}

// azurerm_kubernetes_fleet_member.

func memberSchema() rschema.Schema {
	return armSchema(map[string]rschema.Attribute{"kubernetes_fleet_id": required(), "kubernetes_cluster_id": required(), "group": optional()}, nil)
}

type memberM struct {
	armM
	FleetID   types.String `tfsdk:"kubernetes_fleet_id"`
	ClusterID types.String `tfsdk:"kubernetes_cluster_id"`
	Group     types.String `tfsdk:"group"`
}

func (m *memberM) fleet() types.String { return m.FleetID }

func (m *memberM) create(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	p, err := c.BeginCreateOrUpdateMember(ctx, f, m.Name.ValueString(), fleetapi.FleetMember{Properties: &fleetapi.FleetMemberProperties{
		ClusterResourceID: m.ClusterID.ValueString(), Group: m.Group.ValueString()}}, nil)
	return created(ctx, &m.armM, p, err, f, "members")
}

func (m *memberM) delete(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	return deleted(ctx, c.BeginDeleteMember, f, m.Name)
}

// azurerm_kubernetes_fleet_auto_upgrade_profile.

func profileSchema() rschema.Schema {
	return armSchema(map[string]rschema.Attribute{
		"kubernetes_fleet_manager_id": required(), "channel": rschema.StringAttribute{Required: true},
		"node_image_selection_type": optional(), "update_strategy_id": optional(),
		"enabled": rschema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true)},
	}, nil)
}

type profileM struct {
	fleetChildM
	Channel                types.String `tfsdk:"channel"`
	NodeImageSelectionType types.String `tfsdk:"node_image_selection_type"`
	UpdateStrategyID       types.String `tfsdk:"update_strategy_id"`
	Enabled                types.Bool   `tfsdk:"enabled"`
}

func (m *profileM) create(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	disabled := !m.Enabled.ValueBool()
	props := &fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannel(m.Channel.ValueString()),
		UpdateStrategyID: m.UpdateStrategyID.ValueString(), Disabled: &disabled}
	if t := m.NodeImageSelectionType.ValueString(); t != "" {
		props.NodeImageSelection = &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageSelectionType(t)}
	}
	p, err := c.BeginCreateOrUpdateAutoUpgradeProfile(ctx, f, m.Name.ValueString(), fleetapi.AutoUpgradeProfile{Properties: props}, nil)
	return created(ctx, &m.armM, p, err, f, "autoUpgradeProfiles")
}

func (m *profileM) delete(ctx context.Context, c *fleetapi.Client, f fleetapi.FleetID) error {
	return deleted(ctx, c.BeginDeleteAutoUpgradeProfile, f, m.Name)
}
