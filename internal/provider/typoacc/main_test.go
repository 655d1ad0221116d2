package typoacc

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func TestMain(m *testing.M) { acctest.MainOffline(m) }
