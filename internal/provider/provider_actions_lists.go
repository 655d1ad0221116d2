package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ provider.ProviderWithActions = (*FleetProvider)(nil)

// Actions implements provider.ProviderWithActions (Terraform >= 1.14): each domain registers its
// own (registration.go in its package); Configure hands them the clients as ActionData.
func (p *FleetProvider) Actions(_ context.Context) []func() action.Action {
	return shared.Gather(domains, func(r shared.Registration) []func() action.Action { return r.Actions })
}

var _ provider.ProviderWithListResources = (*FleetProvider)(nil)

// ListResources implements provider.ProviderWithListResources (terraform query, Terraform >= 1.14):
// each needs its resource's identity, which every resource has (shared.WithIdentity).
func (p *FleetProvider) ListResources(_ context.Context) []func() list.ListResource {
	return shared.Gather(domains, func(r shared.Registration) []func() list.ListResource { return r.ListResources })
}
