package rolloutacc

import (
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// riskyFails is risky-1 as the fleet file has it: at 1.32.5, its upgrade planned to fail (another
// test clears the failure and upgrades it).
const riskyFails = `{"upgrade":{"fail":true,"message":"planned failure: node drain timed out"},"kubernetesVersion":"1.32.5"}`

// A run created with wait_for = "completed" whose member fails, with the real CLI: the apply fails
// naming the member and saying what Terraform does next — the run is tainted, so the next plan
// replaces it (re-running the failed upgrade) — and how to keep it. The plan then does replace it;
// after `terraform untaint` the plan is empty (the Failed run stays failed), and changing `retry`
// once the cause is fixed re-starts the same run in place, which completes.
func TestAccUpdateRun_failsOnCreate(t *testing.T) {
	acctest.Current(t) // before the fleet is touched: skips without TF_ACC
	patchMember(t, "risky-1", riskyFails)
	t.Cleanup(func() { patchMember(t, "risky-1", riskyFails) })
	cfg := func(retry string) string {
		return `
resource "fleet_update_run" "r" {
  name     = "fails-on-create"
  retry    = ` + retry + `
  wait_for = "completed"
  stage {
    name = "risky"
    group {
      name = "risky"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`
	}
	w := acctest.NewWorkdir(t, cfg("null"))
	out, err := w.Run("apply", "-auto-approve")
	for _, want := range []string{
		`Error: Update run Failed`,
		`Member risky-1 \(stage risky, group risky\) failed: planned failure: node drain timed out`,
		`the next plan replaces this run. Its apply deletes the run and creates and starts a new one under the same name`,
		"To keep this run instead, run `terraform untaint` with this resource's address",
		"change `retry` to re-start it from the last unprocessed cluster",
	} {
		if err == nil || !acctest.WrappedRegexp(want).MatchString(out) {
			t.Fatalf("apply: %v, want an error matching %q:\n%s", err, want, out)
		}
	}
	id := w.StateValues("fleet_update_run.r")["id"]

	// What the error said: the next plan replaces the tainted run.
	out = w.Must("plan")
	if !strings.Contains(out, "fleet_update_run.r is tainted, so must be replaced") {
		t.Errorf("plan after the failed create, want the run replaced:\n%s", out)
	}

	// Untainted, the Failed run stays failed: nothing planned.
	w.Must("untaint", "fleet_update_run.r")
	if out, err := w.Run("plan", "-detailed-exitcode"); err != nil || !strings.Contains(out, "No changes.") {
		t.Errorf("plan after untaint: %v, want no changes:\n%s", err, out)
	}
	if s := w.StateValues("fleet_update_run.r"); s["id"] != id || s["status"].(map[string]any)["state"] != "Failed" {
		t.Errorf("after untaint: id %v status %v, want %v Failed", s["id"], s["status"].(map[string]any)["state"], id)
	}

	// Fixed, a new retry value re-starts the same run, which completes.
	clearFailure(t, "risky-1")
	w.Write("main.tf", cfg(`"drain-fixed"`))
	out = w.Must("apply", "-auto-approve")
	if !strings.Contains(out, "0 added, 1 changed, 0 destroyed") {
		t.Errorf("retry apply, want an in-place update:\n%s", out)
	}
	if s := w.StateValues("fleet_update_run.r"); s["id"] != id || s["status"].(map[string]any)["state"] != "Completed" {
		t.Errorf("after retry: id %v status %v, want %v Completed", s["id"], s["status"].(map[string]any)["state"], id)
	}
	w.Must("destroy", "-auto-approve")
}
