package savedplanacc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// The plan/apply contract (DESIGN.md): a plan saved with `terraform plan -out`, reviewed, and
// applied after the fleet moved. Terraform plans each created or updated resource again during
// apply and refuses a planned value that changed; with `facts = data.fleet_facts.x.content` the
// previews are computed from what the plan read, so the apply succeeds and warns what moved.

// patchMember changes a member of the local fleet (Fleet API and hub) with a JSON merge patch;
// undo restores it when the test ends.
func patchMember(t *testing.T, name string, patch, undo any) {
	t.Helper()
	url := acctest.Current(t).Env[localfleet.EnvAdminURL]
	if _, err := localfleet.AdminPatchMember(context.Background(), url, name, patch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := localfleet.AdminPatchMember(context.Background(), url, name, undo); err != nil {
			t.Errorf("restoring member %s: %v", name, err)
		}
	})
}

const placementHCL = `
data "fleet_facts" "at_plan" {}

resource "fleet_placement" "prod" {
  name = "%s"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "saved-plan"
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
    %s
  }
  %s
}
`

// factsAttr is the `facts` line of a previewed resource's configuration when with is set.
func factsAttr(with bool) string {
	if with {
		return "facts = data.fleet_facts.at_plan.content"
	}
	return ""
}

// withAdded is the configuration of a test that adds a previewed resource to what exists: base
// (its %[1]s the name), and, when with is set, added (its %[1]s the name, %[2]s the facts line
// when withFacts is set).
func withAdded(base, added string) func(name string, with, withFacts bool) string {
	return func(name string, with, withFacts bool) string {
		cfg := fmt.Sprintf(base, name)
		if with {
			cfg += fmt.Sprintf(added, name, factsAttr(withFacts))
		}
		return cfg
	}
}

func placementConfig(name string, withFacts bool, policy ...string) string {
	facts := factsAttr(withFacts)
	return fmt.Sprintf(placementHCL, name, strings.Join(policy, "\n"), facts)
}

// TestAccSavedPlanPlacementFleetMoved: plan -out a placement of the env=prod clusters (prod-east-2
// is tainted, so prod-east-1 and prod-west-1), relabel one
// of them to staging, apply the plan file. Without facts Terraform refuses the apply (the preview
// computed again differs); with facts the apply succeeds, keeps the reviewed preview and warns
// which member moved and how the preview would differ now. The same plan applied with nothing
// moved warns nothing.
func TestAccSavedPlanPlacementFleetMoved(t *testing.T) {
	acctest.NewHubClients(t).CreateNamespace(t, "saved-plan")

	t.Run("without facts the apply is refused", func(t *testing.T) {
		w := acctest.NewWorkdir(t, placementConfig("saved-plan-live", false))
		w.Must("plan", "-out=tfplan")
		patchMember(t, "prod-east-1", map[string]any{"labels": map[string]any{"env": "staging"}}, map[string]any{"labels": map[string]any{"env": "prod"}})
		applyRefused(t, w, `preview`)
		_, _ = w.Run("destroy", "-auto-approve") // best effort: the apply failed
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w := acctest.NewWorkdir(t, placementConfig("saved-plan-facts", true))
		plan := w.Must("plan", "-out=tfplan")
		acctest.Lines(t, plan, `fleet_placement.prod will be created`)
		patchMember(t, "prod-east-1", map[string]any{"labels": map[string]any{"env": "staging"}}, map[string]any{"labels": map[string]any{"env": "prod"}})
		moved, out := applyMoved(t, w, "fleet_placement.prod")
		acctest.Lines(t, moved.Detail,
			`Since then 1 fact has moved`,
			`member cluster prod-east-1: labels env: prod → staging`,
			`Computed now, the preview would differ`,
			`preview\.selected`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		show := w.Must("show")
		acctest.Lines(t, show, `cluster\s+= "prod-east-1"`) // the reviewed preview is what state keeps
		w.Must("destroy", "-auto-approve")
	})

	t.Run("an update planned with facts applies after the fleet moved", func(t *testing.T) {
		w := acctest.NewWorkdir(t, placementConfig("saved-plan-update", true))
		w.Must("apply", "-auto-approve")
		// Tolerate prod-east-2's taint: the update's preview adds it to prod-east-1 and prod-west-1.
		w.Write("main.tf", placementConfig("saved-plan-update", true, `toleration {
      key    = "dedicated"
      value  = "gpu"
      effect = "NoSchedule"
    }`))
		plan := w.Must("plan", "-out=tfplan")
		acctest.Lines(t, plan, `fleet_placement.prod will be updated in-place`)
		patchMember(t, "prod-west-1", map[string]any{"labels": map[string]any{"env": "staging"}}, map[string]any{"labels": map[string]any{"env": "prod"}})
		out := w.Must("apply", "-json", "tfplan")
		acctest.Lines(t, movedWarning(t, warnings(t, out), "fleet_placement.prod").Detail,
			`member cluster prod-west-1: labels env: prod → staging`)
		acctest.Lines(t, out, `Apply complete! Resources: 0 added, 1 changed`)
		w.Must("destroy", "-auto-approve")
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		applyUnmoved(t, placementConfig("saved-plan-still", true))
	})
}

// warnings are the -json output's warnings by address.
func warnings(_ *testing.T, out string) map[string][]acctest.Warning {
	return acctest.JSONWarnings(out)
}

// movedWarning is the one "The fleet moved since the plan" warning of address.
func movedWarning(t *testing.T, ws map[string][]acctest.Warning, address string) acctest.Warning {
	t.Helper()
	return acctest.WarningOf(t, ws, address, "The fleet moved since the plan")
}

// planAdded applies config(name, false, withFacts), waits until ready(t, name), then saves the
// plan (tfplan) of config(name, true, withFacts), which adds the previewed resource; it returns the
// working folder and the plan's output.
func planAdded(t *testing.T, config func(name string, with, withFacts bool) string, ready func(*testing.T, string), name string, withFacts bool) (*acctest.Workdir, string) {
	t.Helper()
	w := workdir(t, config(name, false, withFacts))
	w.Must("apply", "-auto-approve")
	ready(t, name)
	w.Write("main.tf", config(name, true, withFacts))
	return w, w.Must("plan", "-out=tfplan")
}

// applyRefused checks Terraform refuses to apply the saved plan: the preview computed again
// differs, which the error names (what).
func applyRefused(t *testing.T, w *acctest.Workdir, what string) {
	t.Helper()
	out, err := w.Run("apply", "tfplan")
	if err == nil {
		t.Fatalf("apply of a plan whose preview moved succeeded without facts:\n%s", out)
	}
	acctest.Lines(t, out, `Provider produced inconsistent final plan`, what)
}

// applyMoved applies the saved plan with -json and returns its output and address's warning, whose
// summary says the preview would differ now.
func applyMoved(t *testing.T, w *acctest.Workdir, address string) (acctest.Warning, string) {
	t.Helper()
	out := w.Must("apply", "-json", "tfplan")
	moved := movedWarning(t, warnings(t, out), address)
	if moved.Summary != "The fleet moved since the plan; the preview would differ now" {
		t.Errorf("summary: %q\n%s", moved.Summary, moved.Detail)
	}
	return moved, out
}

// applyUnwarned applies the saved plan of a fleet that did not move with -json and returns its
// output, in which nothing warns that the fleet moved.
func applyUnwarned(t *testing.T, w *acctest.Workdir) string {
	t.Helper()
	out := w.Must("apply", "-json", "tfplan")
	if strings.Contains(out, "The fleet moved") {
		t.Fatalf("apply of an unmoved fleet warned:\n%s", out)
	}
	return out
}

// applyUnmoved saves a plan of hcl in a working folder of its own and applies it with nothing
// moved in between: nothing warns that the fleet moved. Then destroy.
func applyUnmoved(t *testing.T, hcl string) {
	t.Helper()
	w := acctest.NewWorkdir(t, hcl)
	w.Must("plan", "-out=tfplan")
	applyUnwarned(t, w)
	w.Must("destroy", "-auto-approve")
}
