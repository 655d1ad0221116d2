// Package shared holds the framework plumbing every domain of the provider shares: the bases and
// constructors of resources, data sources, ephemeral resources, actions and list resources, their
// registration and identity, schema fragments and validators, the partial decoding of a plan,
// import helpers, timeouts and the azurerm mover's frame. The backend operations are in package
// backend, which imports this one; what one domain alone uses lives in that domain. It imports
// neither backend nor preview nor a domain.
package shared

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// clientsFromProviderData is the Configure step every resource and data
// source shares: the provider hands over *session.Session, or nil before the
// provider is configured (validate).
func clientsFromProviderData(data any, diags *diag.Diagnostics) *session.Session {
	if data == nil {
		return nil
	}
	c, ok := data.(*session.Session)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *session.Session, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return c
}

// named is the type name a constructor gives a resource, data source or
// ephemeral resource (NewResource and its kin): fleet<suffix>.
type named struct{ typeName string }

func (n *named) setTypeName(suffix string) { n.typeName = suffix }

func withTypeName[P interface{ setTypeName(string) }](p P, suffix string) P {
	p.setTypeName(suffix)
	return p
}

// ResourceBase is embedded by every resource: Configure keeps the clients
// the provider hands over (nil before the provider is configured), Metadata
// names the resource.
type ResourceBase struct {
	named
	Clients *session.Session
}

// Configure implements resource.ResourceWithConfigure.
func (r *ResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Metadata implements resource.Resource.
func (r *ResourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeName
}

// NewResource is the constructor the provider registers for the resource
// fleet<suffix> of type T. What every resource here is — configured,
// plan-modifying (previews, checks that need the backend), importable — is
// checked at compile time.
func NewResource[T any, P interface {
	*T
	resource.ResourceWithConfigure
	resource.ResourceWithModifyPlan
	resource.ResourceWithImportState
	setTypeName(string)
}](suffix string) func() resource.Resource {
	return func() resource.Resource { return withTypeName(P(new(T)), suffix) }
}

// DataSourceBase is ResourceBase for data sources.
type DataSourceBase struct {
	named
	Clients *session.Session
}

// Configure implements datasource.DataSourceWithConfigure.
func (d *DataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.Clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Metadata implements datasource.DataSource.
func (d *DataSourceBase) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + d.typeName
}

// NewDataSource is NewResource for data sources.
func NewDataSource[T any, P interface {
	*T
	datasource.DataSourceWithConfigure
	setTypeName(string)
}](suffix string) func() datasource.DataSource {
	return func() datasource.DataSource { return withTypeName(P(new(T)), suffix) }
}

// EphemeralBase is ResourceBase for ephemeral resources.
type EphemeralBase struct {
	named
	Clients *session.Session
}

// Configure implements ephemeral.EphemeralResourceWithConfigure.
func (e *EphemeralBase) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	e.Clients = clientsFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Metadata implements ephemeral.EphemeralResource.
func (e *EphemeralBase) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + e.typeName
}

// NewEphemeral is NewResource for ephemeral resources.
func NewEphemeral[T any, P interface {
	*T
	ephemeral.EphemeralResourceWithConfigure
	setTypeName(string)
}](suffix string) func() ephemeral.EphemeralResource {
	return func() ephemeral.EphemeralResource { return withTypeName(P(new(T)), suffix) }
}
