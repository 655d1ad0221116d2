package shared

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// List resources (Terraform >= 1.14, `terraform query`): each lists the IDs of what exists, with
// its filters; every result carries the identity { id }, and — when Terraform asks for the
// resource (`-generate-config-out`) — the state the resource's own ImportState and Read make of
// that ID, exactly what `terraform import` would store.

// ListEntry is one object a list resource found: its import ID and the name Terraform shows.
type ListEntry struct{ ID, DisplayName string }

// listFunc lists what exists, filtered by the list block's config m.
type listFunc[M any] func(ctx context.Context, clients *session.Session, m M, diags *diag.Diagnostics) []ListEntry

// NewListResource is the list resource fleet<suffix>, for the resource newResource makes.
func NewListResource[M any](suffix string, newResource func() resource.Resource, schema lschema.Schema, fn listFunc[M]) func() list.ListResource {
	listFn := func(ctx context.Context, clients *session.Session, config tfsdk.Config, diags *diag.Diagnostics) []ListEntry {
		var m M
		if diags.Append(config.Get(ctx, &m)...); diags.HasError() {
			return nil
		}
		return fn(ctx, clients, m, diags)
	}
	return func() list.ListResource {
		return &listResource{suffix: suffix, newResource: newResource, schema: schema, list: listFn}
	}
}

type listResource struct {
	suffix      string
	newResource func() resource.Resource
	schema      lschema.Schema
	list        func(ctx context.Context, clients *session.Session, config tfsdk.Config, diags *diag.Diagnostics) []ListEntry
	clients     *session.Session
}

var _ list.ListResourceWithConfigure = (*listResource)(nil)

func (l *listResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + l.suffix
}

func (l *listResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
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
		// Terraform stops reading at the limit, so the warning comes first: never cut silently.
		if req.Limit > 0 && int64(len(entries)) > req.Limit {
			var w diag.Diagnostics
			w.AddWarning(limitWarningSummary, limitWarning(l.suffix, len(entries), req.Limit))
			if !push(list.ListResult{Diagnostics: w}) {
				return
			}
		}
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

// limitWarningSummary is the title of the one warning a list block whose results pass its limit gets.
const limitWarningSummary = "More results than the list block's limit"

// limitWarning says how many of total results a list block of fleet<suffix> returns under limit,
// and how to get them all.
func limitWarning(suffix string, total int, limit int64) string {
	return fmt.Sprintf("fleet%s found %d results; Terraform returns only the first %d (the list block's `limit`, default 100). "+
		"Set `limit` to at least %d (or narrow the filters) to list and import them all.", suffix, total, limit, total)
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

// FleetListConfig is the configuration every list resource of a fleet's children has; its model
// embeds it.
type FleetListConfig struct {
	FleetID    types.String `tfsdk:"fleet_id"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

// FleetListSchema is the schema of a list resource of a fleet's children (what: "members"): fleet_id,
// name_prefix and its own filters.
func FleetListSchema(description, what string, filters map[string]lschema.Attribute) lschema.Schema {
	attrs := map[string]lschema.Attribute{
		"fleet_id":    lschema.StringAttribute{Optional: true, Description: "The fleet's ARM resource ID. Default: the provider's fleet."},
		"name_prefix": ListNamePrefixAttribute(what),
	}
	maps.Copy(attrs, filters)
	return lschema.Schema{Description: description, Attributes: attrs}
}

// HubListConfig is the configuration every list resource of hub objects of either scope has; its
// model embeds it.
type HubListConfig struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

// HubListSchema is the schema of a list resource of hub objects of either scope: namespace
// (described by namespace), name_prefix (what: "runs") and its own filters.
func HubListSchema(description, namespace, what string, filters map[string]lschema.Attribute) lschema.Schema {
	attrs := map[string]lschema.Attribute{
		"namespace":   lschema.StringAttribute{Optional: true, Description: namespace},
		"name_prefix": ListNamePrefixAttribute(what),
	}
	maps.Copy(attrs, filters)
	return lschema.Schema{Description: description, Attributes: attrs}
}

// ListNamePrefixAttribute is the name_prefix filter every list resource has.
func ListNamePrefixAttribute(what string) lschema.StringAttribute {
	return lschema.StringAttribute{Optional: true, Description: "Only " + what + " whose name starts with this."}
}

// HasPrefix is the name_prefix filter.
func HasPrefix(name string, prefix types.String) bool {
	return prefix.IsNull() || strings.HasPrefix(name, prefix.ValueString())
}

// ListEntries are the entries entry makes of what was listed, in order, without those it leaves out.
func ListEntries[T any](got []T, entry func(*T) (ListEntry, bool)) []ListEntry {
	var out []ListEntry
	for i := range got {
		if e, ok := entry(&got[i]); ok {
			out = append(out, e)
		}
	}
	return out
}
