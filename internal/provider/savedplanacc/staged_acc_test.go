package savedplanacc_test

import (
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

const stagedBaseHCL = `
resource "fleet_placement" "staged" {
  name               = "%[1]s"
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
  }
  strategy {
    type = "External"
  }
}

resource "fleet_staged_update_strategy" "prod" {
  name   = "%[1]s"
  stage {
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
}
`

const stagedRunHCL = `
data "fleet_facts" "at_plan" {
  staged_run {
    placement_name              = "%[1]s"
    staged_update_strategy_name = "%[1]s"
  }
}

resource "fleet_staged_update_run" "release" {
  name                        = "%[1]s"
  placement_name              = fleet_placement.staged.id
  staged_update_strategy_name = fleet_staged_update_strategy.prod.id
  state                       = "Initialize"
  %[2]s
}
`

var stagedConfig = withAdded(stagedBaseHCL, stagedRunHCL)

// bothScheduled waits until the hub agent has bound placement to both env=prod clusters.
func bothScheduled(t *testing.T, placement string) {
	t.Helper()
	acctest.NewHubClients(t).WaitForBindings(t, placement, 2)
}

// TestAccSavedPlanStagedUpdateRun: an External placement of the env=prod clusters (prod-east-1 and
// prod-west-1; prod-east-2 is tainted) and a one-stage strategy; the saved plan creates a run whose
// preview stages both. prod-west-1 is then relabelled to staging, so a preview computed now leaves
// it out of the stage. Without facts Terraform refuses the apply; with facts (the data source
// reading the run's inputs) it applies, keeps the reviewed preview and warns what moved.
func TestAccSavedPlanStagedUpdateRun(t *testing.T) {
	acctest.NewHubClients(t).CreateNamespace(t, "saved-plan")
	const addr = "fleet_staged_update_run.release"
	relabel := func(t *testing.T) {
		patchMember(t, "prod-west-1", map[string]any{"labels": map[string]any{"env": "staging"}}, map[string]any{"labels": map[string]any{"env": "prod"}})
	}

	t.Run("without facts the apply is refused", func(t *testing.T) {
		w, plan := planAdded(t, stagedConfig, bothScheduled, "saved-run-live", false)
		acctest.Lines(t, plan, `fleet_staged_update_run.release will be created`, `"prod-east-1"`, `"prod-west-1"`)
		relabel(t)
		applyRefused(t, w, `preview`)
	})

	t.Run("with facts the reviewed plan applies and says what moved", func(t *testing.T) {
		w, plan := planAdded(t, stagedConfig, bothScheduled, "saved-run-facts", true)
		acctest.Lines(t, plan, `fleet_staged_update_run.release will be created`, `"prod-east-1"`, `"prod-west-1"`)
		relabel(t)
		moved, out := applyMoved(t, w, addr)
		acctest.Lines(t, moved.Detail,
			`member cluster prod-west-1: labels env: prod → staging`,
			`Computed now, the preview would differ`,
			`preview\.`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		acctest.Lines(t, w.Must("show"), `"prod-east-1"`, `"prod-west-1"`) // the reviewed preview
	})

	t.Run("with facts and nothing moved no warning", func(t *testing.T) {
		w, _ := planAdded(t, stagedConfig, bothScheduled, "saved-run-still", true)
		out := applyUnwarned(t, w)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	})
}
