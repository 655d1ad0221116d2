// Package moveacc holds the acceptance test of the moved-from-azurerm path: `moved` blocks from
// azurerm_kubernetes_fleet_* to fleet_* through the real CLI (Terraform >= 1.8 moves across resource
// types; make test runs the v1.15.0 it builds) against azurerm-shaped state that an azurerm stand-in
// (azurerm_standin_test.go) wrote, on a local fleet of its own.
package moveacc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func TestMain(m *testing.M) {
	// Terraform starts this binary as the azurerm stand-in under that name (Workdir.OverrideProvider).
	if filepath.Base(os.Args[0]) == standinBinary {
		serveStandin()
		return
	}
	acctest.Main(m, "internal/provider/moveacc/testdata/fleet.yaml")
}
