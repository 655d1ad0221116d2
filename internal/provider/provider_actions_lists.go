package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/member"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/placement"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/staged"
)

var _ provider.ProviderWithActions = (*FleetProvider)(nil)

// Actions implements provider.ProviderWithActions (Terraform >= 1.14): each domain registers its
// own (registration.go in its package); Configure hands them the clients as ActionData.
func (p *FleetProvider) Actions(_ context.Context) []func() action.Action {
	return slices.Concat(placement.Actions(), rollout.Actions(), staged.Actions())
}

var _ provider.ProviderWithListResources = (*FleetProvider)(nil)

// ListResources implements provider.ProviderWithListResources (terraform query, Terraform >= 1.14):
// each needs its resource's identity, which every resource has (shared.WithIdentity).
func (p *FleetProvider) ListResources(_ context.Context) []func() list.ListResource {
	return slices.Concat(placement.ListResources(), staged.ListResources(), rollout.ListResources(), member.ListResources())
}
