package hours_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// A local fleet of its own whose Fleet API clock runs 720 times real time.
func TestMain(m *testing.M) {
	acctest.Main(m, "internal/provider/savedplanacc/hours/testdata/fleet.yaml")
}
