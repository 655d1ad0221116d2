// Package actionacc holds the acceptance tests of the actions that operate update runs and of
// terraform query (list resources), through the real CLI (Terraform >= 1.14: make test runs the
// v1.15.0 it builds) against a local fleet of its own.
package actionacc

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func TestMain(m *testing.M) {
	acctest.MainPollingFast(m, "internal/provider/actionacc/testdata/fleet.yaml")
}
