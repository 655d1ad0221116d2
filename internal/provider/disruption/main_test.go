package disruption_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The acceptance tests drive the real terraform CLI against a local fleet
// started once for this test binary.
func TestMain(m *testing.M) { acctest.Main(m, "internal/provider/testdata/fleet.yaml") }
