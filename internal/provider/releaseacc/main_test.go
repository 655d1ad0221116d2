// Package releaseacc is the release smoke test: the provider built as .goreleaser.yml builds it,
// installed from a filesystem mirror under its version (as `terraform init` installs a release), and
// driven by the real terraform CLI against a local fleet of its own, through every feature of the
// README a user reaches through the CLI.
package releaseacc

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func TestMain(m *testing.M) {
	acctest.MainPollingFast(m, "internal/provider/releaseacc/testdata/fleet.yaml")
}
