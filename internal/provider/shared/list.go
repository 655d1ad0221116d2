package shared

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fleetops/terraform-provider-fleet/internal/engine"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// List resources (Terraform >= 1.14, `terraform query`): each lists the IDs of what exists, with
// its filters; every result carries the identity { id }, and — when Terraform asks for the
// resource (`-generate-config-out`) — the state the resource's own ImportState and Read make of
// that ID, exactly what `terraform import` would store.

// ListEntry is one object a list resource found: its import ID and the name Terraform shows.
type ListEntry struct{ ID, DisplayName string }

// ListFunc lists what exists, filtered by the list block's config.
type ListFunc func(ctx context.Context, clients *engine.Clients, config tfsdk.Config, diags *diag.Diagnostics) []ListEntry

// NewListResource is the list resource fleet<suffix>, for the resource newResource makes.
func NewListResource(suffix string, newResource func() resource.Resource, schema lschema.Schema, fn ListFunc) func() list.ListResource {
	return func() list.ListResource {
		return &listResource{suffix: suffix, newResource: newResource, schema: schema, list: fn}
	}
}

type listResource struct {
	suffix      string
	newResource func() resource.Resource
	schema      lschema.Schema
	list        ListFunc
	clients     *engine.Clients
}

var _ list.ListResourceWithConfigure = (*listResource)(nil)

func (l *listResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + l.suffix
}

func (l *listResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.clients = ClientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (l *listResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = l.schema
}

func (l *listResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	if l.clients == nil {
		diags.AddError("Provider not configured", "The fleet provider was not configured.")
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	entries := l.list(ctx, l.clients, req.Config, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, e := range entries {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			result := req.NewListResult(ctx)
			result.DisplayName = e.DisplayName
			result.Diagnostics.Append(result.Identity.Set(ctx, identityModel{ID: types.StringValue(e.ID)})...)
			if req.IncludeResource && !result.Diagnostics.HasError() {
				l.resourceOf(ctx, req, e.ID, &result)
			}
			if !push(result) {
				return
			}
		}
	}
}

// resourceOf fills result.Resource with what `terraform import <id>` stores: the resource's
// ImportState, then its Read.
func (l *listResource) resourceOf(ctx context.Context, req list.ListRequest, id string, result *list.ListResult) {
	r := l.newResource()
	if c, ok := r.(resource.ResourceWithConfigure); ok {
		var cr resource.ConfigureResponse
		c.Configure(ctx, resource.ConfigureRequest{ProviderData: l.clients}, &cr)
		if result.Diagnostics.Append(cr.Diagnostics...); result.Diagnostics.HasError() {
			return
		}
	}
	imp, ok := r.(resource.ResourceWithImportState)
	if !ok {
		return
	}
	empty := tfsdk.State{Schema: req.ResourceSchema, Raw: tftypes.NewValue(req.ResourceSchema.Type().TerraformType(ctx), nil)}
	ir := resource.ImportStateResponse{State: empty}
	imp.ImportState(ctx, resource.ImportStateRequest{ID: id}, &ir)
	if result.Diagnostics.Append(ir.Diagnostics...); result.Diagnostics.HasError() {
		return
	}
	rr := resource.ReadResponse{State: ir.State}
	r.Read(ctx, resource.ReadRequest{State: ir.State}, &rr)
	// Private state (ETags) has nowhere to go in a list result, and only the framework can make it
	// (privatestate is internal): Read's SetKey on the nil one says so, and that alone is dropped.
	for _, d := range rr.Diagnostics {
		if d.Summary() != "Uninitialized ProviderData" {
			result.Diagnostics.Append(d)
		}
	}
	if result.Diagnostics.HasError() || rr.State.Raw.IsNull() {
		return
	}
	result.Resource = &tfsdk.Resource{Schema: rr.State.Schema, Raw: rr.State.Raw}
}

// ListNamePrefixAttribute is the name_prefix filter every list resource has.
func ListNamePrefixAttribute(what string) lschema.StringAttribute {
	return lschema.StringAttribute{Optional: true, Description: "Only " + what + " whose name starts with this."}
}

// HasPrefix is the name_prefix filter.
func HasPrefix(name string, prefix types.String) bool {
	return prefix.IsNull() || strings.HasPrefix(name, prefix.ValueString())
}

// AddListError reports a listing that failed; a principal without the right to list gets one
// diagnostic naming the permission it needs.
func AddListError(diags *diag.Diagnostics, what, permission string, err error) {
	if fleetapi.StatusCode(err) == http.StatusForbidden || apierrors.IsForbidden(err) {
		diags.AddError("Not allowed to list "+what,
			fmt.Sprintf("The provider's principal may not list %s: it needs %s. %v", what, permission, err))
		return
	}
	AddBackendError(diags, "Listing "+what, err)
}
