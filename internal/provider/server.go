package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Address is the registry address users install the provider from.
const Address = "registry.terraform.io/fleetops/fleet"

// NewServer is the one constructor of the provider's protocol 6 server: main.go serves it, and
// every test that drives the provider (resource-test factories, CLI workdirs, the module test)
// drives it, so what the tests run is what ships. TestServersAreBuiltOnce keeps it the only one.
func NewServer(version string, opts ...Option) func() (tfprotov6.ProviderServer, error) {
	framework := providerserver.NewProtocol6WithError(New(version, opts...)())
	return func() (tfprotov6.ProviderServer, error) {
		srv, err := framework()
		if err != nil {
			return nil, err
		}
		return fleetServer{ProviderServer: srv, version: version}, nil
	}
}

// Serve serves NewServer(version, opts...) as a plugin process of Terraform: what main.go runs,
// and what the tests run when their own binary is the plugin.
func Serve(version string, serveOpts []tf6server.ServeOpt, opts ...Option) error {
	srv, err := NewServer(version, opts...)()
	if err != nil {
		return err
	}
	return tf6server.Serve(Address, func() tfprotov6.ProviderServer { return srv }, serveOpts...)
}

// fleetServer is the framework's server with two additions: diagnostics on nested attributes name
// their path (server_paths.go), and every optional server interface of the protocol is passed
// through (server_optional.go). It embeds only tfprotov6.ProviderServer, so an interface it does
// not declare itself would be hidden from tf6server, which asks by type assertion.
type fleetServer struct {
	tfprotov6.ProviderServer
	version string
}
