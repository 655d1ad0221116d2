// Package member is the provider's fleet-member domain: fleet_member, the fleet_members data
// source, the hub and member credentials (ephemeral), fleet_member's move from azurerm, and the
// taints of a hub MemberCluster (fleet_member_cluster_taints).
package member

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// Resources are the resources the provider registers for this domain.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		shared.NewResource[memberResource]("_member"),
		shared.NewResource[taintsResource]("_member_cluster_taints"),
	}
}

// DataSources are the data sources the provider registers for this domain.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		shared.NewDataSource[membersDataSource]("_members"),
		shared.NewDataSource[factsDataSource]("_facts"),
	}
}

// EphemeralResources are the ephemeral resources the provider registers for this domain.
func EphemeralResources() []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		shared.NewEphemeral[hubCredentialsEphemeral]("_hub_credentials"),
		shared.NewEphemeral[memberCredentialsEphemeral]("_member_credentials"),
	}
}

// ListResources are the list resources the provider registers for this domain (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{
		shared.NewListResource("_member", shared.NewResource[memberResource]("_member"), memberListSchema, listMembers),
	}
}
