package savedplanacc_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// emulatorMember changes what the Fleet API reports of a member's managed cluster, as a change made
// outside Terraform would (az aks upgrade, a maintenance configuration), with a JSON body for the
// emulator's /_emulator/members/{name}; undo restores it when the test ends.
func emulatorMember(t *testing.T, name, patch, undo string) {
	t.Helper()
	do := func(body string) error {
		req, err := http.NewRequest(http.MethodPatch, strings.TrimSuffix(os.Getenv("LOCALFLEET_URL"), "/")+"/_emulator/members/"+name, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("PATCH member %s: %s", name, resp.Status)
		}
		return nil
	}
	if err := do(patch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := do(undo); err != nil {
			t.Errorf("restoring member %s: %v", name, err)
		}
	})
}

func rolloutConfig(name string, withFacts bool) string {
	return acctest.FactsRolloutConfig(name, "Stable", factsAttr(withFacts))
}

// moveRolloutFacts upgrades prod-east-1 to 1.33.1 outside Terraform and opens a window on
// prod-west-1 (daily, all day), as happens between a plan's review and its apply.
func moveRolloutFacts(t *testing.T) {
	emulatorMember(t, "prod-east-1", `{"kubernetesVersion":"1.33.1"}`, `{"kubernetesVersion":"1.32.5"}`)
	emulatorMember(t, "prod-west-1", `{"maintenanceWindow":{"daily":true,"startTime":"00:00","durationHours":23}}`,
		`{"maintenanceWindow":{"weekly":"Saturday","startTime":"02:00","durationHours":4}}`)
}

// TestAccSavedPlanRolloutFleetMoved: plan -out an update strategy, an update run of it and an
// auto-upgrade profile; upgrade one member out of band and open another's maintenance window; apply
// the plan file. Without facts the run's preview computed again differs and Terraform refuses the
// apply; with facts all three are created, each warning what moved, and the run's warning says
// how its preview would differ now.
func TestAccSavedPlanRolloutFleetMoved(t *testing.T) {
	t.Run("without facts the apply is refused", func(t *testing.T) {
		w := acctest.NewWorkdir(t, rolloutConfig("sp-live", false))
		w.Must("plan", "-out=tfplan")
		moveRolloutFacts(t)
		applyRefused(t, w, `fleet_update_run.to_1_33`)
		_, _ = w.Run("destroy", "-auto-approve") // best effort: the apply failed
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w := acctest.NewWorkdir(t, rolloutConfig("sp-facts", true))
		plan := w.Must("plan", "-out=tfplan")
		acctest.Lines(t, plan, `fleet_update_run.to_1_33 will be created`, `name\s+= "prod-east-1"`)
		moveRolloutFacts(t)
		out := w.Must("apply", "-json", "tfplan")
		ws := warnings(t, out)
		// The run and the profile read the members' windows; the strategy reads only their groups
		// and clusters, so only what it read is said to have moved.
		for _, r := range []string{"fleet_update_run.to_1_33", "fleet_auto_upgrade_profile.stable"} {
			acctest.Lines(t, movedWarning(t, ws, r).Detail,
				`Since then 2 facts have moved`,
				`- fleet members: member prod-east-1: versions kubernetes: 1.32.5 → 1.33.1`,
				`- maintenance windows: member prod-west-1: maintenance windows aksManagedAutoUpgradeSchedule: every 1 week\(s\) on Saturday at 02:00\+00:00 for 4h → every 1 day\(s\) at 00:00\+00:00 for 23h`)
		}
		strategy := movedWarning(t, ws, "fleet_update_strategy.rings").Detail
		acctest.Lines(t, strategy, `Since then 1 fact has moved`, `- fleet members: member prod-east-1: versions kubernetes: 1.32.5 → 1.33.1`)
		if strings.Contains(strategy, "maintenance windows") {
			t.Errorf("the strategy's preview reads no window, and its warning names one:\n%s", strategy)
		}
		// The strategy's groups did not move; the run's members did: prod-east-1 is now at the target.
		if s := movedWarning(t, ws, "fleet_update_strategy.rings").Summary; !strings.HasSuffix(s, "the preview still holds") {
			t.Errorf("strategy: %q", s)
		}
		acctest.Lines(t, movedWarning(t, ws, "fleet_update_run.to_1_33").Detail, `Computed now, the preview would differ`, `preview\.`)
		acctest.Lines(t, out, `Apply complete! Resources: 3 added`)
		w.Must("destroy", "-auto-approve")
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		applyUnmoved(t, rolloutConfig("sp-still", true))
	})
}
