package savedplanacc_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The saved-plan tests change the fleet between `terraform plan -out` and `terraform apply
// PLANFILE`, so they run on a local fleet of their own.
func TestMain(m *testing.M) { acctest.Main(m, "internal/provider/testdata/fleet.yaml") }
