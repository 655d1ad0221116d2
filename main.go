// Command terraform-provider-fleet is the Terraform provider for Azure
// Kubernetes Fleet Manager, KubeFleet and Karpenter.
package main

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// version is set by goreleaser (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := provider.Serve(version, opts); err != nil {
		log.Fatal(err.Error())
	}
}
