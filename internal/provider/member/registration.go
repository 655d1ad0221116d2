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

var newMember = shared.NewResource[memberResource]("_member")

// Registration is what this domain offers the provider.
var Registration = shared.Registration{
	Resources: []func() resource.Resource{
		newMember,
		shared.NewResource[taintsResource]("_member_cluster_taints"),
	},
	DataSources: []func() datasource.DataSource{
		shared.NewDataSource[membersDataSource]("_members"),
		shared.NewDataSource[factsDataSource]("_facts"),
	},
	EphemeralResources: []func() ephemeral.EphemeralResource{
		shared.NewEphemeral[hubCredentialsEphemeral]("_hub_credentials"),
		shared.NewEphemeral[memberCredentialsEphemeral]("_member_credentials"),
		shared.NewEphemeral[managedNamespaceCredentialsEphemeral]("_managed_namespace_credentials"),
	},
	ListResources: []func() list.ListResource{
		shared.NewListResource("_member", newMember, memberListSchema, listMembers),
	},
}
