// Command terraform-provider-fleet is the Terraform provider for Azure
// Kubernetes Fleet Manager, KubeFleet and Karpenter.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// version is set by goreleaser (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/fleetops/fleet",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
