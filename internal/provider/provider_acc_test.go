package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The acceptance tests drive the real terraform CLI against a local fleet
// started once for this test binary.
func TestMain(m *testing.M) { acctest.Main(m, "internal/provider/testdata/fleet.yaml") }

// protoV6ProviderFactories serve the provider in-process, configured like a
// user's: only the environment the local fleet exported.
var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"fleet": providerserver.NewProtocol6WithError(New("test")()),
}
