package autoupgradeacc

import (
	"context"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

const generateActionConfig = `
resource "fleet_auto_upgrade_profile" "act" {
  name    = "act"
  channel = "Rapid"
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.fleet_auto_upgrade_profile_generate_run.act]
    }
  }
}

action "fleet_auto_upgrade_profile_generate_run" "act" {
  config {
    auto_upgrade_profile = "act"
  }
}

action "fleet_auto_upgrade_profile_generate_run" "missing" {
  config {
    auto_upgrade_profile = "nope"
  }
}
`

// fleet_auto_upgrade_profile_generate_run through the real CLI: triggered after the profile is
// created, it reports the run the Fleet API made (NotStarted, of that profile, read back); invoked
// again it reports the same run; a profile that does not exist is refused before generateUpdateRun.
func TestAccGenerateRunAction(t *testing.T) {
	w := acctest.NewWorkdir(t, generateActionConfig)
	out := w.Must("apply", "-auto-approve", "-input=false")
	runID := fleet.ChildID("updateRuns", "act-1-33-1")
	acctest.Lines(t, out,
		`\(triggered by fleet_auto_upgrade_profile.act\): generating the update run of auto-upgrade profile act \(channel Rapid\)`,
		`\(triggered by fleet_auto_upgrade_profile.act\): generated update run act-1-33-1 \(Full 1.33.1, NotStarted\): `+runID)
	run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "act-1-33-1")
	if err != nil {
		t.Fatal(err)
	}
	if st := run.Properties.Status.Status.State; st != fleetapi.UpdateStateNotStarted || run.Properties.AutoUpgradeProfileID != fleet.ChildID("autoUpgradeProfiles", "act") {
		t.Fatalf("generated run %s of profile %q", st, run.Properties.AutoUpgradeProfileID)
	}
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_auto_upgrade_profile_generate_run.act")
	acctest.Lines(t, out, `generated update run act-1-33-1 \(Full 1.33.1, NotStarted\)`)
	before := generateRequests(t)
	out, err = w.Run("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_auto_upgrade_profile_generate_run.missing")
	if err == nil || !acctest.WrappedRegexp(`The fleet has no auto-upgrade profile "nope".`).MatchString(out) {
		t.Fatalf("missing profile: %v\n%s", err, out)
	}
	if generateRequests(t) != before {
		t.Fatal("generateUpdateRun was sent for a profile that does not exist")
	}
}

func generateRequests(t *testing.T) int {
	n := 0
	for _, r := range acctest.Current(t).Requests(t) {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/generateUpdateRun") {
			n++
		}
	}
	return n
}
