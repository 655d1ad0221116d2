package hours_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

var config = acctest.FactsRolloutConfig("hours", "Rapid", "facts = data.fleet_facts.at_plan.content")

// TestAccSavedPlanHoursPass: a plan saved at the Fleet API's time T is applied after hours have
// passed (this fleet's clock runs an hour every 5 s: canary-east's Monday window closes at 08:00)
// and AKS released Kubernetes 1.33.2 in eastus. The plan applies as reviewed; the run's warning
// says how much time passed and how its preview would differ now, the Rapid profile's that the
// region gained 1.33.2 (the channel's target now).
func TestAccSavedPlanHoursPass(t *testing.T) {
	f := acctest.Current(t)
	w := acctest.NewWorkdir(t, config)
	plan := w.Must("plan", "-out=tfplan")
	acctest.Lines(t, plan, `fleet_auto_upgrade_profile.rapid will be created`, `target_kubernetes_version\s+= "1.33.1"`)
	planned := f.FleetAPINow(t)

	f.Admin(t, http.MethodPost, "/_emulator/releases", emulator.ReleaseRequest{Region: "eastus", KubernetesVersion: "1.33.2"}, nil)
	target := planned.Add(9 * time.Hour) // past 08:00, when canary-east's window closes
	if err := acctest.Eventually(2*time.Minute, "the Fleet API's clock passes "+target.Format(time.RFC3339), func() (bool, string) {
		now := f.FleetAPINow(t)
		return !now.Before(target), now.Format(time.RFC3339)
	}); err != nil {
		t.Fatal(err)
	}

	out := w.Must("apply", "-json", "tfplan")
	ws := acctest.JSONWarnings(out)
	run := acctest.WarningOf(t, ws, "fleet_update_run.to_1_33", "The fleet moved since the plan; the preview would differ now")
	acctest.Lines(t, run.Detail, `- Fleet API clock: [0-9]+h[0-9]+m[0-9]+s \(`, `Computed now, the preview would differ`, `preview\.actions\["pending"\]: 1 → 2`)
	profile := acctest.WarningOf(t, ws, "fleet_auto_upgrade_profile.rapid", "The fleet moved since the plan; the preview would differ now")
	acctest.Lines(t, profile.Detail, `region eastus: Kubernetes versions added 1.33.2`, `preview\.target_kubernetes_version: "1.33.1" → "1.33.2"`)
	acctest.Lines(t, out, `Apply complete! Resources: 3 added`)
	show := w.Must("show", "-no-color")
	acctest.Lines(t, show, fmt.Sprintf(`target_kubernetes_version\s+= %q`, "1.33.1")) // as reviewed
	w.Must("destroy", "-auto-approve")
}
