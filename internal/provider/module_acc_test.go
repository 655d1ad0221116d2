package provider_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// TestAccRingUpgradesModule runs `terraform test` on examples/modules/ring-upgrades against
// this binary's local fleet, with the provider served in-process and handed to terraform
// through TF_REATTACH_PROVIDERS (as terraform-plugin-testing does): the module's
// .tftest.hcl assertions are then part of `make test`.
func TestAccRingUpgradesModule(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC not set")
	}
	acctest.Current(t)
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(root, "examples", "modules", "ring-upgrades")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{".terraform", ".terraform.lock.hcl", "terraform.tfstate"} {
		_ = os.RemoveAll(filepath.Join(dir, junk))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	const address = "registry.terraform.io/fleetops/fleet"
	go func() {
		if err := provider.Serve("test", []tf6server.ServeOpt{tf6server.WithDebug(ctx, reattach, closed)}); err != nil {
			t.Errorf("serving the provider: %v", err)
		}
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-time.After(30 * time.Second):
		t.Fatal("the provider server did not start")
	}
	defer func() { cancel(); <-closed }()
	env, err := json.Marshal(map[string]any{address: map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tf := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, "terraform", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+string(env), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tf("init", "-input=false", "-no-color")
	out := tf("test", "-no-color")
	t.Log(out)
	// Every run block passed, and none was skipped.
	for _, want := range []string{
		`run "plan_shows_rings_and_run"... pass`,
		`run "apply_creates_without_starting"... pass`,
		`run "rejects_an_empty_ring"... pass`,
		"Success! 3 passed, 0 failed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform test output lacks %q", want)
		}
	}
}
