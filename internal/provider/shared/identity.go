package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform >= 1.12): every resource here is identified by its `id`, which is
// also what `terraform import` takes (an ARM ID for Fleet API objects, `<name>` or
// `<namespace>/<name>` for hub objects, `<cluster>/<node_pool>` for node pools). WithIdentity adds
// it to a resource without touching the resource: its Create, Read, Update and ImportState run as
// they are, then the identity is the state's `id`; an import by identity (`import { identity = {
// id = … } }`) is an import by that ID.

var identitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
	"id": identityschema.StringAttribute{RequiredForImport: true,
		Description: "The resource's ID, as `terraform import` takes it."},
}}

type identityModel struct {
	ID types.String `tfsdk:"id"`
}

// WithIdentity wraps each resource constructor so that its resource has the identity { id }.
func WithIdentity(constructors []func() resource.Resource) []func() resource.Resource {
	out := make([]func() resource.Resource, len(constructors))
	for i, c := range constructors {
		out[i] = func() resource.Resource { return &identified{Resource: c()} }
	}
	return out
}

// identified forwards every optional interface the resources here implement to the resource
// (a no-op where it does not), and sets the identity after each operation.
type identified struct{ resource.Resource }

var (
	_ resource.ResourceWithIdentity         = (*identified)(nil)
	_ resource.ResourceWithConfigure        = (*identified)(nil)
	_ resource.ResourceWithModifyPlan       = (*identified)(nil)
	_ resource.ResourceWithImportState      = (*identified)(nil)
	_ resource.ResourceWithValidateConfig   = (*identified)(nil)
	_ resource.ResourceWithConfigValidators = (*identified)(nil)
	_ resource.ResourceWithUpgradeState     = (*identified)(nil)
	_ resource.ResourceWithMoveState        = (*identified)(nil)
)

// Unwrap is the wrapped resource (for tests and list resources).
func (r *identified) Unwrap() resource.Resource { return r.Resource }

func (r *identified) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchema
}

func (r *identified) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if c, ok := r.Resource.(resource.ResourceWithConfigure); ok {
		c.Configure(ctx, req, resp)
	}
}

func (r *identified) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if m, ok := r.Resource.(resource.ResourceWithModifyPlan); ok {
		m.ModifyPlan(ctx, req, resp)
	}
}

func (r *identified) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if v, ok := r.Resource.(resource.ResourceWithValidateConfig); ok {
		v.ValidateConfig(ctx, req, resp)
	}
}

func (r *identified) ConfigValidators(ctx context.Context) []resource.ConfigValidator {
	if v, ok := r.Resource.(resource.ResourceWithConfigValidators); ok {
		return v.ConfigValidators(ctx)
	}
	return nil
}

func (r *identified) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	if u, ok := r.Resource.(resource.ResourceWithUpgradeState); ok {
		return u.UpgradeState(ctx)
	}
	return nil
}

func (r *identified) MoveState(ctx context.Context) []resource.StateMover {
	if m, ok := r.Resource.(resource.ResourceWithMoveState); ok {
		return m.MoveState(ctx)
	}
	return nil
}

func (r *identified) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.Resource.Create(ctx, req, resp)
	identityFromState(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *identified) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Resource.Read(ctx, req, resp)
	identityFromState(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r *identified) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.Resource.Update(ctx, req, resp)
	identityFromState(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

// ImportState imports by ID, or by identity: its id is the ID.
func (r *identified) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		var id identityModel
		if resp.Diagnostics.Append(req.Identity.Get(ctx, &id)...); resp.Diagnostics.HasError() {
			return
		}
		req.ID = id.ID.ValueString()
	}
	if i, ok := r.Resource.(resource.ResourceWithImportState); ok {
		i.ImportState(ctx, req, resp)
	}
	identityFromState(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

// identityFromState sets the identity to the state's id, also when the operation failed after saving
// state; nothing when the state is gone or has no id yet.
func identityFromState(ctx context.Context, st tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if id == nil || st.Raw.IsNull() {
		return
	}
	var v types.String
	if d := st.GetAttribute(ctx, path.Root("id"), &v); d.HasError() || v.IsNull() || v.IsUnknown() {
		return
	}
	diags.Append(id.Set(ctx, identityModel{ID: v})...)
}
