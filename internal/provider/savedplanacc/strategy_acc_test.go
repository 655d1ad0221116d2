package savedplanacc_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// putStrategy writes update strategy name of the tests' fleet through the Fleet API, as another
// workspace owning it would: one stage per group, in order.
func putStrategy(t *testing.T, name string, stages ...string) string {
	t.Helper()
	fleet, err := fleetapi.ParseFleetID(acctest.ExampleFleetID)
	if err != nil {
		t.Fatal(err)
	}
	s := fleetapi.UpdateRunStrategy{}
	for _, st := range stages {
		s.Stages = append(s.Stages, fleetapi.UpdateStage{Name: st, Groups: []fleetapi.UpdateGroup{{Name: st}}})
	}
	ctx := context.Background()
	fc := acctest.FleetAPI(t)
	poller, err := fc.BeginCreateOrUpdateUpdateStrategy(ctx, fleet, name, fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: s}}, nil)
	if _, err := shared.PollDone(ctx, poller, err); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		poller, err := fc.BeginDeleteUpdateStrategy(ctx, fleet, name, nil)
		if _, err := shared.PollDone(ctx, poller, err); err != nil {
			t.Errorf("deleting update strategy %s: %v", name, err)
		}
	})
	return fleet.ChildID("updateStrategies", name)
}

// strategyRunHCL is a NotStarted update run (%[1]s its name) of the update strategy %[2]s (an ID:
// owned elsewhere), planned from facts.
const strategyRunHCL = `
data "fleet_facts" "at_plan" {}

resource "fleet_update_run" "by_id" {
  name                   = "%[1]s"
  update_strategy_id     = "%[2]s"
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  state                  = "NotStarted"
  facts                  = data.fleet_facts.at_plan.content
}
`

// strategyProfileHCL is an auto-upgrade profile (%[1]s its name) of the update strategy %[2]s.
const strategyProfileHCL = `
data "fleet_facts" "at_plan" {}

resource "fleet_auto_upgrade_profile" "by_id" {
  name               = "%[1]s"
  channel            = "Stable"
  update_strategy_id = "%[2]s"
  facts              = data.fleet_facts.at_plan.content
}
`

// TestAccSavedPlanStrategyMoved (issue 34): a run and a profile reference an update strategy another
// workspace owns, by update_strategy_id, with facts. The strategy changes between plan -out and
// apply PLANFILE; the apply succeeds from the strategy as the plan read it (the facts hold the
// fleet's strategies), the state keeps the reviewed preview, and the warning names the strategy.
func TestAccSavedPlanStrategyMoved(t *testing.T) {
	t.Run("update run: stages reordered", func(t *testing.T) {
		id := putStrategy(t, "sp-owned-rings", "canary", "prod")
		w := acctest.NewWorkdir(t, fmt.Sprintf(strategyRunHCL, "sp-owned-run", id))
		acctest.Lines(t, w.Must("plan", "-out=tfplan"), `fleet_update_run.by_id will be created`)
		putStrategy(t, "sp-owned-rings", "prod", "canary")
		moved, out := applyMoved(t, w, "fleet_update_run.by_id")
		acctest.Lines(t, moved.Detail,
			`update strategy sp-owned-rings: stages canary\[canary\], prod\[prod\] → prod\[prod\], canary\[canary\]`,
			`Computed now, the preview would differ`,
			`preview\.stages\[0\]\.name: "canary" → "prod"`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		if got := acctest.Dig(w.StateValues("fleet_update_run.by_id"), "preview", "stages", 0, "name"); got != "canary" {
			t.Errorf("state's preview.stages[0].name = %v, want the reviewed canary", got)
		}
		w.Must("destroy", "-auto-approve")
	})

	t.Run("auto-upgrade profile: a stage removed", func(t *testing.T) {
		id := putStrategy(t, "sp-owned-profile-rings", "canary", "prod")
		w := acctest.NewWorkdir(t, fmt.Sprintf(strategyProfileHCL, "sp-owned-profile", id))
		acctest.Lines(t, w.Must("plan", "-out=tfplan"), `fleet_auto_upgrade_profile.by_id will be created`)
		putStrategy(t, "sp-owned-profile-rings", "prod") // canary-east is no longer selected
		moved, out := applyMoved(t, w, "fleet_auto_upgrade_profile.by_id")
		acctest.Lines(t, moved.Detail,
			`update strategy sp-owned-profile-rings: stages canary\[canary\], prod\[prod\] → prod\[prod\]`,
			`Computed now, the preview would differ`)
		acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
		if got := acctest.Dig(w.StateValues("fleet_auto_upgrade_profile.by_id"), "preview", "members", "canary-east"); got == nil {
			t.Errorf("state's preview lost canary-east, which the reviewed plan selected")
		}
		w.Must("destroy", "-auto-approve")
	})
}

// TestAccSavedPlanPreviewDetailChanged (issue 34): a plan saved with FLEET_PREVIEW_DETAIL=full and
// facts applies without it: the facts hold the detail the plan ran with, state keeps the full
// preview, and the warning names the setting while the preview, at the reviewed detail, still holds.
func TestAccSavedPlanPreviewDetailChanged(t *testing.T) {
	id := putStrategy(t, "sp-detail-rings", "canary", "prod")
	w := acctest.NewWorkdir(t, fmt.Sprintf(strategyRunHCL, "sp-detail-run", id))
	t.Setenv(preview.EnvPreviewDetail, preview.PreviewDetailFull)
	w.Must("plan", "-out=tfplan")
	if err := os.Unsetenv(preview.EnvPreviewDetail); err != nil {
		t.Fatal(err)
	}
	out := w.Must("apply", "-json", "tfplan")
	moved := movedWarning(t, warnings(t, out), "fleet_update_run.by_id")
	acctest.Lines(t, moved.Detail, `preview_detail was full at plan and is summary now; the reviewed plan's detail is kept`)
	if !strings.HasSuffix(moved.Summary, "the preview still holds") {
		t.Errorf("summary: %q\n%s", moved.Summary, moved.Detail)
	}
	acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	// prod's three members, all listed: summary lists one and omits two.
	prod := acctest.Dig(w.StateValues("fleet_update_run.by_id"), "preview", "stages", 1, "groups", 0)
	if members, _ := acctest.Dig(prod, "members").([]any); len(members) != 3 || acctest.Dig(prod, "members_omitted") != float64(0) {
		t.Errorf("state's prod group is not the full preview: %v", prod)
	}
	w.Must("destroy", "-auto-approve")
}
