package shared

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Registration is what a domain offers the provider; each domain's registration.go declares one
// (azurerm's internal/services/<service>/registration.go) and the provider concatenates them.
type Registration struct {
	Resources          []func() resource.Resource
	DataSources        []func() datasource.DataSource
	EphemeralResources []func() ephemeral.EphemeralResource
	Actions            []func() action.Action     // Terraform >= 1.14
	ListResources      []func() list.ListResource // terraform query, Terraform >= 1.14
}

// Gather concatenates, in the domains' order, what pick takes from each.
func Gather[T any](domains []Registration, pick func(Registration) []T) []T {
	var all []T
	for _, d := range domains {
		all = append(all, pick(d)...)
	}
	return all
}
