package actionacc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The fleet of testdata/fleet.yaml.
var actionsFleet = fleetapi.FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000006", ResourceGroupName: "rg-actions", Name: "actions"}

// A release driven by actions through the real CLI (Terraform >= 1.14: make test runs the v1.15.0
// it builds): a run created NotStarted and started by an action_trigger after create; stopped,
// skipped into, restarted, its gate approved by invoked actions — each action's progress lines
// asserted and its effect read back from the Fleet API; each repeated to show it idempotent; and
// actions against states that do not allow them refused before any request.
var actionsConfig = `
resource "fleet_update_strategy" "gated" {
  name = "gated"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
    after_gate {
      type         = "Approval"
      display_name = "canary looks good"
    }
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}

resource "fleet_update_run" "r" {
  name                   = "gated-run"
  state                  = "NotStarted"
  wait_for               = "none"
` + acctest.StagesOf("fleet_update_strategy.gated") + `
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  lifecycle {
    ignore_changes = [state]
    action_trigger {
      events  = [after_create]
      actions = [action.fleet_update_run_start.go]
    }
  }
}

action "fleet_update_run_start" "go" {
  config {
    update_run = "gated-run"
  }
}

action "fleet_update_run_stop" "halt" {
  config {
    update_run = "gated-run"
  }
}

action "fleet_update_run_skip" "prod2" {
  config {
    update_run = "gated-run"
    target {
      type = "Member"
      name = "prod-2"
    }
  }
}

action "fleet_update_run_skip" "finished" {
  config {
    update_run = "gated-run"
    target {
      type = "Member"
      name = "canary-1"
    }
  }
}

action "fleet_gate_approve" "canary" {
  config {
    update_run = "gated-run"
    stage      = "canary"
    timing     = "After"
  }
}

resource "fleet_update_run" "quick" {
  name                   = "quick-run"
  state                  = "NotStarted"
  wait_for               = "none"
  stage {
    name = "all"
    group {
      name = "prod"
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}

action "fleet_update_run_start" "finish" {
  config {
    update_run = fleet_update_run.quick.name
    wait_for   = "completed"
  }
}
`

func TestAccActions_releaseDrivenByActions(t *testing.T) {
	w := acctest.NewWorkdir(t, actionsConfig)
	ctx := context.Background()
	fc := acctest.FleetAPI(t)
	runState := func() fleetapi.UpdateState {
		t.Helper()
		r, err := fc.GetUpdateRun(ctx, actionsFleet, "gated-run")
		if err != nil {
			t.Fatal(err)
		}
		return r.Properties.Status.Status.State
	}
	memberState := func(name string) fleetapi.UpdateState {
		t.Helper()
		r, err := fc.GetUpdateRun(ctx, actionsFleet, "gated-run")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Properties.Status.Stages {
			for _, g := range s.Groups {
				for _, m := range g.Members {
					if m.Name == name {
						return m.Status.State
					}
				}
			}
		}
		t.Fatalf("member %s not in the run", name)
		return ""
	}

	// Created NotStarted, started by the trigger; the run then waits at the canary stage's after gate.
	out := w.Must("apply", "-auto-approve", "-input=false")
	// Terraform 1.16 prints the resource's "Creation complete" after its after_create actions ran,
	// 1.14 and 1.15 before them: the two are checked apart.
	acctest.Lines(t, out, `fleet_update_run.r: Creation complete`)
	acctest.Lines(t, out,
		`Action started: action.fleet_update_run_start.go \(triggered by fleet_update_run.r\)`,
		`action.fleet_update_run_start.go \(triggered by fleet_update_run.r\): starting update run gated-run \(NotStarted\)`,
		`action.fleet_update_run_start.go \(triggered by fleet_update_run.r\): update run gated-run started`,
	)
	if err := acctest.Eventually(30*time.Second, "the run waits at the canary gate", func() (bool, string) {
		r, err := fc.GetUpdateRun(ctx, actionsFleet, "gated-run")
		if err != nil {
			return false, err.Error()
		}
		gates := r.Properties.Status.Stages[0].AfterGates
		return len(gates) == 1 && gates[0].GateID != "" && gates[0].Status.State == fleetapi.UpdateStatePending, fmt_(r)
	}); err != nil {
		t.Fatal(err)
	}

	// Stop: the run is Pending at the gate.
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_stop.halt")
	acctest.Lines(t, out,
		`action.fleet_update_run_stop.halt \(triggered by CLI\): stopping update run gated-run \(Pending\)`,
		`update run gated-run Stopped, stage canary Stopped: waiting for approval of the After gate "canary looks good" of stage canary — members 1/3 done`,
		`action.fleet_update_run_stop.halt \(triggered by CLI\): update run gated-run is Stopped`)
	if s := runState(); s != fleetapi.UpdateStateStopped {
		t.Fatalf("after stop: run %s", s)
	}
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_stop.halt")
	acctest.Lines(t, out, `action.fleet_update_run_stop.halt \(triggered by CLI\): update run gated-run is already Stopped; nothing to stop`)

	// Skip prod-2 while stopped; again: nothing sent.
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_skip.prod2")
	acctest.Lines(t, out, `action.fleet_update_run_skip.prod2 \(triggered by CLI\): skipping 1 of 1 targets in update run gated-run`,
		`action.fleet_update_run_skip.prod2 \(triggered by CLI\): update run gated-run Stopped.* members 2/3 done`)
	if s := memberState("prod-2"); s != fleetapi.UpdateStateSkipped {
		t.Fatalf("prod-2 %s after skip", s)
	}
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_skip.prod2")
	acctest.Lines(t, out, `already skipped: member prod-2`, `update run gated-run: nothing to skip`)
	// A finished member: refused with its state, before any request.
	sent := countActions(t)
	out, err := w.Run("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_skip.finished")
	if err == nil || !acctest.WrappedRegexp(`member "canary-1" is Completed and can't be skipped; a member can be skipped while NotStarted, Pending, Stopped or Failed`).MatchString(out) {
		t.Fatalf("skip of a Completed member: %v\n%s", err, out)
	}
	if countActions(t) != sent {
		t.Fatal("the refused skip was sent")
	}

	// Restart, then approve the gate; the run completes.
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_start.go")
	acctest.Lines(t, out, `action.fleet_update_run_start.go \(triggered by CLI\): starting update run gated-run \(Stopped\)`)
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_gate_approve.canary")
	acctest.Lines(t, out, `action.fleet_gate_approve.canary \(triggered by CLI\): approving gate \S+ \(After gate of stage canary\) of update run gated-run`,
		`action.fleet_gate_approve.canary \(triggered by CLI\): 1 of 1 gates approved now`)
	if err := acctest.Eventually(30*time.Second, "the run completes", func() (bool, string) {
		s := runState()
		return s == fleetapi.UpdateStateCompleted, string(s)
	}); err != nil {
		t.Fatal(err)
	}
	if s := memberState("prod-1"); s != fleetapi.UpdateStateCompleted {
		t.Fatalf("prod-1 %s", s)
	}
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_gate_approve.canary")
	acctest.Lines(t, out, `is already approved`, `0 of 1 gates approved now`)

	// Started and followed to the end: prod-2, skipped in the first run, is upgraded now.
	out = w.Must("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_update_run_start.finish")
	acctest.Lines(t, out, `action.fleet_update_run_start.finish \(triggered by CLI\): starting update run quick-run \(NotStarted\)`,
		`update run quick-run Completed — members 2/2 done`,
		`action.fleet_update_run_start.finish \(triggered by CLI\): update run quick-run completed`)

	// Refused before any request: start and stop of a Completed run, a skip in it.
	sent = countActions(t)
	for _, c := range []struct{ action, want string }{
		{"fleet_update_run_start.go", `the update run is Completed; start works from NotStarted, Stopped or Failed`},
		{"fleet_update_run_stop.halt", `the update run is Completed; stop works from Running or Pending`},
		{"fleet_update_run_skip.prod2", `the update run is Completed; skip works in NotStarted, Running, Pending, Stopped or Failed runs`},
	} {
		out, err = w.Run("apply", "-auto-approve", "-input=false", "-invoke=action."+c.action)
		if err == nil || !acctest.WrappedRegexp(c.want).MatchString(out) {
			t.Fatalf("%s on a Completed run: %v\n%s", c.action, err, out)
		}
	}
	if now := countActions(t); now != sent {
		t.Fatalf("refused actions sent %d start/stop/skip requests", now-sent)
	}

	// A gate of another run, named by the gate's own name: refused, nothing approved.
	r, err := fc.GetUpdateRun(ctx, actionsFleet, "gated-run")
	if err != nil {
		t.Fatal(err)
	}
	gateID := r.Properties.Status.Stages[0].AfterGates[0].GateID
	gate := gateID[strings.LastIndex(gateID, "/")+1:]
	w.Write("main.tf", actionsConfig+`
action "fleet_gate_approve" "other" {
  config {
    update_run = "quick-run"
    gate       = "`+gate+`"
  }
}
`)
	out, err = w.Run("apply", "-auto-approve", "-input=false", "-invoke=action.fleet_gate_approve.other")
	if err == nil || !acctest.WrappedRegexp(`Gate "`+gate+`" belongs to update run "gated-run", not "quick-run"; nothing was approved.`).MatchString(out) {
		t.Fatalf("a gate of another run: %v\n%s", err, out)
	}
}

// countActions counts the start, stop and skip requests the emulator has answered.
func countActions(t *testing.T) int {
	n := 0
	for _, r := range acctest.Current(t).Requests(t) {
		if r.Method == "POST" && (strings.HasSuffix(r.Path, "/start") || strings.HasSuffix(r.Path, "/stop") || strings.HasSuffix(r.Path, "/skip")) {
			n++
		}
	}
	return n
}

func fmt_(r *fleetapi.UpdateRun) string { return string(r.Properties.Status.Status.State) }
