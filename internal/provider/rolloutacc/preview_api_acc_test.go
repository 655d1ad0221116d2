package rolloutacc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The Fleet API 2026-11-01-preview's arguments with the real CLI: refused at plan under the stable
// version; under the preview, a strategy whose stage selects members by label and whose group
// tolerates a failure, and runs of it that end Completed with a failed member, which
// `wait_for = "completed"` accepts only up to `accepted_failures`. Under the preview, each plan is
// saved (plan -out) and applied from its file, the fleet's facts pinned at plan (data.fleet_facts).

// previewVersion is the provider setting under test, in an override file: Workdir's main.tf
// starts with an empty provider block, which Terraform merges the override into.
const previewVersion = `provider "fleet" {
  fleet_api_version = "2026-11-01-preview"
}
`

// previewRunConfig: stage web takes the members labelled tier=web (risky-1 and prod-1; prod-2,
// of update group prod too, is left out), its group risky tolerates "50%" of its one member
// (rounded up: 1); a run of the strategy (by ID) to 1.33.1 with accepted_failures = accepted.
func previewRunConfig(accepted int) string {
	return fmt.Sprintf(`
data "fleet_facts" "at_plan" {}

resource "fleet_update_strategy" "s" {
  name  = "preview-web"
  facts = data.fleet_facts.at_plan.content
  stage {
    name = "web"
    member_selector {
      by_label = "tier=web"
    }
    group {
      name                 = "risky"
      max_allowed_failures = "50%%"
    }
    group {
      name = "prod"
    }
  }
}

resource "fleet_update_run" "r" {
  name               = "preview-web-run"
  update_strategy_id = fleet_update_strategy.s.id
  wait_for           = "completed"
  accepted_failures  = %d
  facts              = data.fleet_facts.at_plan.content
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`, accepted)
}

func TestAccPreviewAPI_failureThresholdsAndSelectors(t *testing.T) {
	acctest.Current(t) // before the fleet is touched: skips without TF_ACC
	labelMember(t, "risky-1", map[string]string{"tier": "web"})
	labelMember(t, "prod-1", map[string]string{"tier": "web"})
	// As the fleet file has them, whatever tests ran before: both at 1.32.5, risky-1's upgrade
	// planned to fail (a drain timeout the preview cannot foresee).
	patchMember(t, "prod-1", `{"kubernetesVersion":"1.32.5"}`)
	t.Cleanup(func() { patchMember(t, "prod-1", `{"kubernetesVersion":"1.32.5"}`) })
	patchMember(t, "risky-1", riskyFails)
	t.Cleanup(func() { patchMember(t, "risky-1", riskyFails) })

	// Stable version (no fleet_api_version): the plan fails at each preview argument, naming the
	// setting. (Terraform does not plan the run, which depends on the strategy that failed.)
	w := acctest.NewWorkdir(t, previewRunConfig(0))
	out, err := w.Run("plan")
	for _, want := range []string{
		`Error: Fleet API preview argument with fleet_update_strategy.s, on main.tf line \d+, in resource "fleet_update_strategy" "s": \d+: max_allowed_failures = "50%" ` +
			`stage\[0\].group\[0\].max_allowed_failures is an argument of the Fleet API's 2026-11-01-preview, and the provider speaks 2026-06-01: ` +
			`set fleet_api_version = "2026-11-01-preview" in the provider block`,
		`with fleet_update_strategy.s, on main.tf line \d+, in resource "fleet_update_strategy" "s": \d+: member_selector \{ ` +
			`stage\[0\].member_selector is an argument of the Fleet API's 2026-11-01-preview`,
	} {
		if err == nil || !acctest.WrappedRegexp(want).MatchString(out) {
			t.Fatalf("plan under the stable version: %v, want an error matching %q:\n%s", err, want, out)
		}
	}

	// Preview version, accepted_failures = 0: risky-1 fails within the group's threshold, the run
	// ends Completed with 1 failed member, and the apply of the saved plan fails saying so.
	w.Write("provider_override.tf", previewVersion)
	w.Must("plan", "-out=tfplan")
	out, err = w.Run("apply", "tfplan")
	for _, want := range []string{
		`Error: Update run Completed with 1 failed member`,
		`risky-1 \(stage web, group risky\): planned failure: node drain timed out`,
		`accepted_failures is 0; set it to 1 or more to accept this`,
		`the next plan replaces this run`,
	} {
		if err == nil || !acctest.WrappedRegexp(want).MatchString(out) {
			t.Fatalf("apply with accepted_failures = 0: %v, want an error matching %q:\n%s", err, want, out)
		}
	}

	// accepted_failures = 1, risky-1 now failing in a way the preview foresees (AKS does not skip
	// minor versions): the plan replaces the tainted run and shows the resolved thresholds, the
	// selection and the predicted failure; the saved plan applies, the run Completed with 1 failure.
	patchMember(t, "risky-1", `{"upgrade":{"fail":false},"kubernetesVersion":"1.31.9"}`)
	w.Write("main.tf", previewRunConfig(1))
	out = w.Must("plan", "-out=tfplan")
	acctest.Lines(t, out, `fleet_update_run.r is tainted, so must be replaced`, `Plan: 1 to add, 0 to change, 1 to destroy.`)
	if re := acctest.WrappedRegexp(`the run is predicted to end Completed with 1 failed member\(s\) \(risky-1\) within max_allowed_failures: ` +
		`Completed will hide 1 failed member\(s\), which stay at their versions; first: risky-1: AKS does not skip Kubernetes minor versions`); !re.MatchString(out) {
		t.Errorf("plan: want the tolerated-failure warning %q:\n%s", re, out)
	}
	if strings.Contains(out, "apply then fails") {
		t.Errorf("plan with accepted_failures = 1 says the apply fails:\n%s", out)
	}
	planned := plannedValues(t, w, "tfplan")
	strategy, run := planned["fleet_update_strategy.s"], planned["fleet_update_run.r"]
	for _, c := range []struct {
		got  any
		want any
		what string
	}{
		{acctest.Dig(strategy, "preview", "stages", 0, "groups", 0, "selected_by"), "update_group", "strategy group risky selected_by"},
		{acctest.Dig(strategy, "preview", "stages", 0, "groups", 0, "members"), []any{"risky-1"}, "strategy group risky members"},
		{acctest.Dig(strategy, "preview", "stages", 0, "groups", 1, "members"), []any{"prod-1"}, "strategy group prod members"},
		{acctest.Dig(strategy, "preview", "unselected_members"), []any{"canary-1", "prod-2"}, "strategy unselected members"},
		{acctest.Dig(run, "preview", "stages", 0, "max_allowed_failures"), 2.0, "run stage web threshold (unset: its 2 members, its group sets one)"},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 0, "max_allowed_failures"), 1.0, `run group risky threshold ("50%" of 1, rounded up)`},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 1, "max_allowed_failures"), 0.0, "run group prod threshold (unset: fail-fast)"},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 0, "members", 0, "name"), "risky-1", "run group risky member"},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 0, "members", 0, "action"), "fail", "run risky-1 action"},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 0, "failure_count"), 1.0, "run group risky predicted failures"},
		{acctest.Dig(run, "preview", "stages", 0, "groups", 1, "members", 0, "name"), "prod-1", "run group prod member"},
		{acctest.Dig(run, "preview", "unselected_members"), []any{"canary-1", "prod-2"}, "run unselected members"},
		{acctest.Dig(run, "preview", "failure_count"), 1.0, "run predicted failures"},
		{acctest.Dig(run, "preview", "outcome"), "Completed", "run predicted outcome"},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("plan: %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	out = w.Must("apply", "-json", "tfplan")
	if strings.Contains(out, "The fleet moved") {
		t.Errorf("apply of the saved plan warned that the fleet moved, and nothing did:\n%s", out)
	}
	acctest.Lines(t, out, `Apply complete! Resources: 1 added, 0 changed, 1 destroyed.`)
	status := w.StateValues("fleet_update_run.r")["status"]
	for _, c := range []struct {
		got  any
		want any
		what string
	}{
		{acctest.Dig(status, "state"), "Completed", "run state"},
		{acctest.Dig(status, "failure_count"), 1.0, "run failure_count"},
		{acctest.Dig(status, "stages", 0, "failure_count"), 1.0, "stage web failure_count"},
		{acctest.Dig(status, "stages", 0, "max_allowed_failures"), 2.0, "stage web max_allowed_failures"},
		{acctest.Dig(status, "stages", 0, "groups", 0, "max_allowed_failures"), 1.0, "group risky max_allowed_failures"},
		{acctest.Dig(status, "stages", 0, "groups", 0, "members", 0, "name"), "risky-1", "group risky member"},
		{acctest.Dig(status, "stages", 0, "groups", 0, "members", 0, "state"), "Failed", "risky-1 state"},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("state: %s = %v, want %v", c.what, c.got, c.want)
		}
	}
	w.Must("destroy", "-auto-approve")
}

// labelMember sets a fleet member's labels through the Fleet API (as `az fleet member update
// --labels` does), keeping its cluster and group, and puts the old ones back when the test ends.
func labelMember(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	ctx, c := context.Background(), acctest.FleetAPI(t)
	fleet := fleetapi.FleetID{SubscriptionID: os.Getenv("ARM_SUBSCRIPTION_ID"), ResourceGroupName: os.Getenv("FLEET_RESOURCE_GROUP_NAME"), Name: os.Getenv("FLEET_NAME")}
	m, err := c.GetMember(ctx, fleet, name)
	if err != nil {
		t.Fatal(err)
	}
	put := func(labels map[string]string) error {
		props := *m.Properties
		props.Labels = labels
		p, err := c.BeginCreateOrUpdateMember(ctx, fleet, name, fleetapi.FleetMember{Properties: &props}, nil)
		_, err = shared.PollDone(ctx, p, err)
		return err
	}
	if err := put(labels); err != nil {
		t.Fatalf("labelling %s: %v", name, err)
	}
	old := m.Properties.Labels
	t.Cleanup(func() {
		if err := put(old); err != nil {
			t.Errorf("restoring %s's labels: %v", name, err)
		}
	})
}

// plannedValues are the planned attribute values of a saved plan's resources, by address.
func plannedValues(t *testing.T, w *acctest.Workdir, file string) map[string]map[string]any {
	t.Helper()
	var show struct {
		PlannedValues struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"planned_values"`
	}
	if err := json.Unmarshal([]byte(w.Must("show", "-json", file)), &show); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, r := range show.PlannedValues.RootModule.Resources {
		out[r.Address] = r.Values
	}
	return out
}
