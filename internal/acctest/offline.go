package acctest

import (
	"os"
	"testing"
)

// Tests that run the real CLI on commands that configure no provider (`terraform validate`) need the
// provider's plugin but no fleet.

// MainOffline is Main without a fleet: this test binary serves the provider when the CLI starts it
// as a plugin, and runs the tests otherwise.
func MainOffline(m *testing.M) {
	if serveIfPlugin() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// NewOfflineWorkdir is NewWorkdir without a fleet (the package's TestMain calls MainOffline): a
// working folder whose main.tf holds only the provider blocks until Write adds more.
func NewOfflineWorkdir(t *testing.T) *Workdir {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	w := &Workdir{t: t, Dir: t.TempDir(), overrides: map[string]string{}, required: map[string]string{}}
	w.config = w.t.TempDir() + "/terraformrc"
	w.OverrideProvider(providerAddress, "terraform-provider-fleet")
	w.Write("main.tf", "")
	return w
}
