package faultacc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

func strategyConfig(groups ...string) string {
	var gs []string
	for _, g := range groups {
		gs = append(gs, fmt.Sprintf("    group {\n      name = %q\n    }\n", g))
	}
	return fmt.Sprintf(`
resource "fleet_update_strategy" "s" {
  name = "race-strategy"
  stage {
    name = "first"
%s  }
}
`, strings.Join(gs, ""))
}

// Two working folders race on one update strategy. Both plan before either
// applies, so both writes carry the same precondition: If-None-Match: * to
// create it, then If-Match with the same ETag to change it. Each time
// exactly one apply wins; the loser fails with a diagnostic that says what
// happened, its state keeps no half-applied object, and once it follows
// the diagnostic's advice its apply converges.
func TestAccRace_updateStrategy(t *testing.T) {
	const addr = "fleet_update_strategy.s"
	dirs := []*workdir{newWorkdir(t, strategyConfig("ra")), newWorkdir(t, strategyConfig("rb"))}
	groups := []string{"ra", "rb"}
	race := func() (winner, loser int, loserOut string) {
		t.Helper()
		for _, d := range dirs {
			d.must("plan", "-input=false", "-out=tfplan")
		}
		runs := together(t, func() *tfRun { return dirs[0].start("apply", "-input=false", "tfplan") },
			func() *tfRun { return dirs[1].start("apply", "-input=false", "tfplan") })
		winner, loser = oneWinner(t, runs)
		t.Logf("race: %s won in %s, %s lost in %s", groups[winner], runs[winner].took.Round(time.Millisecond), groups[loser], runs[loser].took.Round(time.Millisecond))
		return winner, loser, runs[loser].String()
	}

	// Create: the loser finds a strategy it did not make, with other stages.
	w, l, out := race()
	says(t, "the losing create", out, "Error: Update strategy already exists",
		`stage[0].group[0].name is "`+groups[l]+`" in the plan, "`+groups[w]+`" in the fleet`, "Import it (terraform import")
	if got := apiGroups(t); got != groups[w] {
		t.Fatalf("the fleet's strategy has groups %q, want the winner's %q", got, groups[w])
	}
	if got := stateGroups(dirs[w].resources()[addr]); got != groups[w] {
		t.Fatalf("the winner's state has groups %q, want %q as in the fleet", got, groups[w])
	}
	if res := dirs[l].resources(); len(res) != 0 {
		t.Fatalf("the loser's state has %v, want nothing", res)
	}
	// As the diagnostic says: import it; then the loser's apply makes it its own.
	dirs[l].must("import", "-input=false", addr, "/subscriptions/"+fleet.SubscriptionID+"/resourceGroups/"+fleet.ResourceGroupName+
		"/providers/Microsoft.ContainerService/fleets/"+fleet.Name+"/updateStrategies/race-strategy")
	dirs[l].must("apply", "-input=false", "-auto-approve")
	if got := apiGroups(t); got != groups[l] {
		t.Fatalf("after import and apply the fleet's strategy has groups %q, want %q", got, groups[l])
	}

	// Update: both manage it now and change it from the same ETag.
	before := groups[l]
	dirs[0].write(strategyConfig("ra", "rb"))
	dirs[1].write(strategyConfig("rb", "ra"))
	groups = []string{"ra,rb", "rb,ra"}
	w, l, out = race()
	says(t, "the losing update", out, "Error: Update strategy changed by someone else",
		`"race-strategy" was changed by someone else since Terraform read it`, "Refresh and retry", "412 PreconditionFailed")
	if got := apiGroups(t); got != groups[w] {
		t.Fatalf("the fleet's strategy has groups %q, want the winner's %q", got, groups[w])
	}
	if got := stateGroups(dirs[w].resources()[addr]); got != groups[w] {
		t.Fatalf("the winner's state has groups %q, want %q as in the fleet", got, groups[w])
	}
	if got := stateGroups(dirs[l].resources()[addr]); got != before {
		t.Fatalf("the loser's state has groups %q, want %q as it read them (nothing half-applied)", got, before)
	}
	// Refresh and retry: the loser's next apply reads the winner's change and converges.
	dirs[l].must("apply", "-input=false", "-auto-approve")
	if got := apiGroups(t); got != groups[l] {
		t.Fatalf("after the loser's apply the fleet's strategy has groups %q, want %q", got, groups[l])
	}
	if got := stateGroups(dirs[l].resources()[addr]); got != groups[l] {
		t.Fatalf("the loser's state has groups %q, want %q", got, groups[l])
	}
	if !dirs[l].planIsEmpty() {
		t.Fatal("the loser's plan is not empty after it converged")
	}
}

func runConfig(name, upgrade string) string {
	return fmt.Sprintf(`
resource "fleet_update_run" "r" {
  name     = %q
  wait_for = "completed"
  stage {
    name = "rr"
    group {
      name = "rr"
    }
  }
  managed_cluster_update {
    upgrade {
      %s
    }
  }
}
`, name, upgrade)
}

const (
	fullUpgrade = `type               = "Full"
      kubernetes_version = "1.33.1"`
	nodeImageUpgrade = `type = "NodeImageOnly"`
)

// sameConfig is a strategy and a run of it, which both racing folders apply.
const sameConfig = `
resource "fleet_update_strategy" "s" {
  name   = "race-same"
  stage {
    name = "rr"
    group {
      name = "rr"
    }
  }
}

resource "fleet_update_run" "r" {
  name               = "race-run-same"
  wait_for           = "completed"
  update_strategy_id = fleet_update_strategy.s.id
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`

// Two working folders race to create one update strategy and a run of it,
// then one update run. With the same configuration both applies succeed:
// one creates each object, the other finds it with the planned definition
// and adopts it — one strategy and one run, in both states, the run
// Completed. With different configurations exactly one wins; the loser
// names the run and the differing attribute, and keeps nothing in state.
func TestAccRace_updateRun(t *testing.T) {
	const addr = "fleet_update_run.r"
	apply := func(d *workdir) func() *tfRun {
		return func() *tfRun { return d.start("apply", "-input=false", "tfplan") }
	}

	same := []*workdir{newWorkdir(t, sameConfig), newWorkdir(t, sameConfig)}
	for _, d := range same {
		d.must("plan", "-input=false", "-out=tfplan")
	}
	runs := together(t, apply(same[0]), apply(same[1]))
	for _, r := range runs {
		if r.err != nil {
			t.Fatalf("same configuration: both applies should succeed:\n%s", r)
		}
	}
	for _, warning := range []string{"Existing update strategy adopted", "Existing update run adopted"} {
		if n := strings.Count(runs[0].out.String()+runs[1].out.String(), warning); n != 1 {
			t.Fatalf("want exactly one of the two applies to say %q, %d did:\n%s\n%s", warning, n, runs[0], runs[1])
		}
	}
	run := onlyRun(t, "race-run-same")
	if s := runState(&run, nil); s != "Completed" {
		t.Fatalf("run race-run-same is %s, want Completed", s)
	}
	for i, d := range same {
		res := d.resources()
		r := res[addr]
		if r.Values["id"] != run.ID || acctest.Dig(r.Values, "status", "state") != "Completed" {
			t.Fatalf("folder %d's state has id %v and status %v, want %s Completed", i, r.Values["id"], acctest.Dig(r.Values, "status", "state"), run.ID)
		}
		if id := res["fleet_update_strategy.s"].Values["id"]; !strings.EqualFold(fmt.Sprint(id), run.Properties.UpdateStrategyID) {
			t.Fatalf("folder %d's state has strategy %v, want the run's %s", i, id, run.Properties.UpdateStrategyID)
		}
	}

	diff := []*workdir{newWorkdir(t, runConfig("race-run-diff", fullUpgrade)), newWorkdir(t, runConfig("race-run-diff", nodeImageUpgrade))}
	types := []string{"Full", "NodeImageOnly"}
	for _, d := range diff {
		d.must("plan", "-input=false", "-out=tfplan")
	}
	runs = together(t, apply(diff[0]), apply(diff[1]))
	w, l := oneWinner(t, runs)
	says(t, "the losing create", runs[l].String(), "Error: Update run already exists",
		`update run named "race-run-diff" with a different definition: managed_cluster_update.upgrade.`, "Import it (terraform import")
	run = onlyRun(t, "race-run-diff")
	if got := string(run.Properties.ManagedClusterUpdate.Upgrade.Type); got != types[w] {
		t.Fatalf("the fleet's run upgrades %s, want the winner's %s", got, types[w])
	}
	if r := diff[w].resources()[addr]; r.Values["id"] != run.ID {
		t.Fatalf("the winner's state has id %v, want %s", r.Values["id"], run.ID)
	}
	if res := diff[l].resources(); len(res) != 0 {
		t.Fatalf("the loser's state has %v, want nothing", res)
	}
}
