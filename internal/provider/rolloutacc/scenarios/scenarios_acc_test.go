package scenarios

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

func str(s string) knownvalue.Check { return knownvalue.StringExact(s) }

// runAddress is the update run every scenario names r.
const runAddress = "fleet_update_run.r"

// oneGroupRun is run name's configuration: one stage and one group, both named group, upgraded to
// 1.33.1; extra lines go into the resource block.
func oneGroupRun(name, group, waitFor string, extra ...string) string {
	return fmt.Sprintf(`
resource "fleet_update_run" "r" {
  name     = %q
  wait_for = %q
  stage {
    name = %q
    group {
      name = %q
    }
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  %s
}
`, name, waitFor, group, group, strings.Join(extra, "\n  "))
}

// stateIs checks one attribute of the scenario's run; path starts at a root attribute.
func stateIs(want string, root string, path ...any) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(runAddress, acctest.Path(root, path...), str(want))
}

const skipRunConfig = `
resource "fleet_update_run" "r" {
  name     = "skip-run"
  wait_for = "completed"
  stage {
    name = "one"
    group {
      name = "sk-a"
    }
    group {
      name = "sk-b"
    }
  }
  stage {
    name = "two"
    group {
      name = "sk-c"
    }
  }
  skip {
    type = "Member"
    name = "sk-a2"
  }
  skip {
    type = "Group"
    name = "sk-b"
  }
  skip {
    type = "Stage"
    name = "two"
  }
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`

// Skip of a member, a group and a stage, set before the run starts: sk-a2,
// group sk-b and stage two are Skipped; sk-a1 is upgraded; the run Completes.
func TestAccUpdateRun_skipMemberGroupStage(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "skip-run"),
		Steps: []resource.TestStep{{
			Config: skipRunConfig,
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 0, "state"), // sk-a1
				stateIs("sk-a2", "status", "stages", 0, "groups", 0, "members", 1, "name"),
				stateIs("Skipped", "status", "stages", 0, "groups", 0, "members", 1, "state"),
				stateIs("Skipped", "status", "stages", 0, "groups", 1, "state"), // sk-b
				stateIs("Skipped", "status", "stages", 0, "groups", 1, "members", 0, "state"),
				stateIs("Skipped", "status", "stages", 1, "state"), // two
				stateIs("Skipped", "status", "stages", 1, "groups", 0, "members", 0, "state"),
			},
		}, {
			// Unchanged configuration: nothing to do (skips are not re-sent).
			Config:   skipRunConfig,
			PlanOnly: true,
		}},
	})
}

// Stop while ss-1's upgrade (15 s real) is under way, then start again: the
// stopped run (Stopping until ss-1 finishes, then Stopped) is re-started and
// completes, ss-2 included.
func TestAccUpdateRun_stopThenStart(t *testing.T) {
	const r = "fleet_update_run.r"
	cfg := func(state, waitFor string) string {
		return oneGroupRun("stop-start-run", "ss", waitFor, fmt.Sprintf("state = %q", state))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "stop-start-run"),
		Steps: []resource.TestStep{{
			Config: cfg("Running", "started"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(r, acctest.Path("status", "state"), knownvalue.StringRegexp(regexp.MustCompile(`^(Running)$`))),
				stateIs("Running", "status", "stages", 0, "groups", 0, "members", 0, "state"), // ss-1 in flight
			},
		}, {
			Config: cfg("Stopped", "none"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(r, acctest.Path("status", "state"), knownvalue.StringRegexp(regexp.MustCompile(`^(Stopping|Stopped)$`))),
				statecheck.ExpectKnownValue(r, acctest.Path("status", "stages", 0, "groups", 0, "members", 1, "state"), knownvalue.StringExact("NotStarted")), // ss-2 not reached
				stateIs("Stopped", "state"),
			},
		}, {
			Config: cfg("Running", "completed"),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 0, "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 1, "state"),
				stateIs("Running", "state"),
			},
		}},
	})
}

// A stage's Before gate and a group's After gate stop the run until they are
// approved through `approval` blocks.
func TestAccUpdateRun_approvalGates(t *testing.T) {
	const r = "fleet_update_run.r"
	cfg := func(approvals, waitFor string) string {
		return fmt.Sprintf(`
resource "fleet_update_run" "r" {
  name     = "gated-run"
  wait_for = %q
  stage {
    name = "gated"
    before_gate {
      type         = "Approval"
      display_name = "change board"
    }
    group {
      name = "ap"
      after_gate {
        type         = "Approval"
        display_name = "smoke tests"
      }
    }
  }
  %s
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`, waitFor, approvals)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "gated-run"),
		Steps: []resource.TestStep{{
			Config: cfg("", "started"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "stages", 0, "gates", 0, "timing"), str("Before")),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "stages", 0, "groups", 0, "gates", 0, "timing"), str("After")),
			}},
		}, {
			// Not approved: the run waits at the stage's Before gate, ap-1 untouched.
			PreConfig: func() {
				if err := acctest.Eventually(10*time.Second, "run waits at the gate", func() (bool, string) {
					run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "gated-run")
					if err != nil || run.Properties.Status == nil || len(run.Properties.Status.Stages) == 0 || len(run.Properties.Status.Stages[0].BeforeGates) == 0 {
						return false, fmt.Sprint(err)
					}
					g := run.Properties.Status.Stages[0].BeforeGates[0]
					return g.Status != nil && g.Status.State == "Pending" && g.GateID != "", fmt.Sprintf("%+v", g.Status)
				}); err != nil {
					t.Fatal(err)
				}
			},
			Config:             cfg("", "started"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: false,
		}, {
			Config: cfg("", "started"),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Pending", "status", "stages", 0, "gates", 0, "state"),
				stateIs("NotStarted", "status", "stages", 0, "groups", 0, "members", 0, "state"),
			},
		}, {
			Config: cfg(`approval {
    stage  = "gated"
    timing = "Before"
  }
  approval {
    stage  = "gated"
    group  = "ap"
    timing = "After"
  }`, "completed"),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				stateIs("Completed", "status", "stages", 0, "gates", 0, "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "gates", 0, "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 0, "state"),
			},
		}},
	})
}

// Destroying a Running run stops it (dr-1's upgrade, 5 s real, finishes) and
// deletes it: CheckDestroy finds no run.
func TestAccUpdateRun_destroyWhileRunning(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "destroy-run"),
		Steps: []resource.TestStep{{
			Config: oneGroupRun("destroy-run", "dr", "started"),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Running", "status", "state"),
				stateIs("Running", "status", "stages", 0, "groups", 0, "members", 0, "state"),
			},
		}},
	})
}

// Waiting costs at most one Fleet API request per poll interval (1 s here,
// 30 s for users): while apply waits for rq-1's 8 s upgrade, the emulator's
// request log shows the run read about once a second and nothing else.
func TestAccUpdateRun_requestsPerInterval(t *testing.T) {
	runPath := "/updateRuns/rq-run"
	var from time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "rq-run"),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				from = time.Now()
			},
			Config: oneGroupRun("rq-run", "rq", "completed"),
			Check: func(*terraform.State) error {
				// The wait: from the start operation's end to the last read of the run before
				// apply returned (the post-apply refresh reads it once more).
				var startDone time.Time
				var gets []time.Time
				var fleetReqs []acctest.Request
				for _, r := range acctest.Current(t).Requests(t) {
					if !strings.Contains(r.Path, "/fleets/scenarios") || r.End.Before(from.Truncate(time.Second)) {
						continue
					}
					fleetReqs = append(fleetReqs, r)
					if r.Method == "POST" && strings.HasSuffix(r.Path, runPath+"/start") {
						startDone = r.End
					}
					if r.Method == "GET" && strings.HasSuffix(r.Path, runPath) && !startDone.IsZero() {
						gets = append(gets, r.End)
					}
				}
				if startDone.IsZero() || len(gets) < 5 {
					return fmt.Errorf("expected a start and at least 5 reads of the run while waiting 8 s, got start %v and %d reads", startDone, len(gets))
				}
				// Every request to the fleet in the waiting window counts, not just reads of the run.
				window := 0
				first, last := gets[0], gets[len(gets)-1]
				for _, r := range fleetReqs {
					if !r.End.Before(first) && !r.End.After(last) {
						window++
					}
				}
				span := last.Sub(first)
				allowed := int(span/pollInterval) + 1 + 2 // one per interval, the first, and the post-apply refresh reads
				t.Logf("waiting: %d Fleet API requests (%d reads of the run) over %s with a %s interval", window, len(gets), span.Round(time.Millisecond), pollInterval)
				if window > allowed {
					return fmt.Errorf("%d Fleet API requests over %s of waiting: more than one per %s (allowed %d)", window, span, pollInterval, allowed)
				}
				// Consecutive reads while waiting are an interval apart (the last two may be the refresh).
				for i := 1; i < len(gets)-2; i++ {
					if d := gets[i].Sub(gets[i-1]); d < pollInterval-150*time.Millisecond {
						return fmt.Errorf("reads %d and %d of the run %s apart: less than the %s interval", i-1, i, d, pollInterval)
					}
				}
				return nil
			},
			ConfigStateChecks: []statecheck.StateCheck{stateIs("Completed", "status", "state")},
		}},
	})
}

// An apply whose wait is cancelled (a 5 s create timeout on a 15 s upgrade)
// saves state without tainting the run (a warning says the wait stopped; an
// error would taint it, and the next apply would destroy the run mid-upgrade
// and create another): the next plan is an in-place update, and applying it
// without the short timeout resumes waiting for the same run, which
// completes. The fleet has exactly one run of that name, Completed, started
// once.
func TestAccUpdateRun_cancelledWaitThenApply(t *testing.T) {
	const r = "fleet_update_run.r"
	cfg := func(timeouts string) string { return oneGroupRun("cancel-run", "cx", "completed", timeouts) }
	var started string // the run's start time after the first apply: the same run must complete
	startTime := func() (string, error) {
		run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "cancel-run")
		if err != nil {
			return "", err
		}
		if run.Properties == nil || run.Properties.Status == nil || run.Properties.Status.Status == nil || run.Properties.Status.Status.StartTime == nil {
			return "", fmt.Errorf("run cancel-run has no start time")
		}
		return run.Properties.Status.Status.StartTime.String(), nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "cancel-run"),
		Steps: []resource.TestStep{{
			Config: cfg(`timeouts { create = "5s" }`),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Running", "status", "state"),
				stateIs("Running", "status", "stages", 0, "groups", 0, "members", 0, "state"),
			},
			Check: func(*terraform.State) (err error) {
				started, err = startTime()
				return err
			},
			// The wait is still pending: the refreshed plan resumes it (an update).
			ExpectNonEmptyPlan: true,
		}, {
			Config: cfg(""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(r, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "outcome"), str("Completed")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 0, "state"),
			},
			Check: func(*terraform.State) error {
				if err := oneRunNamed(t, "cancel-run"); err != nil {
					return err
				}
				if s := runStateOf(t, "cancel-run"); s != "Completed" {
					return fmt.Errorf("run cancel-run is %s in the Fleet API, want Completed", s)
				}
				if now, err := startTime(); err != nil || now != started {
					return fmt.Errorf("run cancel-run started at %s after the first apply, now %s (%v): not the same run", started, now, err)
				}
				return nil
			},
		}},
	})
}

// With about a fifth of the Fleet API calls on the run's paths failing
// transiently (429 with Retry-After, 500, connection reset), apply converges:
// the run completes and exactly one exists, every fault was hit.
func TestAccUpdateRun_transientFaults(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "faulty-run"),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				base := `/updateRuns/faulty-run`
				acctest.Current(t).AddFaults(t, []emulator.FaultRule{
					{Method: "PUT", Path: base + `$`, Count: 1, Status: 429, RetryAfterSeconds: 1},
					{Method: "PUT", Path: base + `$`, Count: 1, Status: 500},
					{Method: "POST", Path: base + `/start$`, Count: 1, Reset: true},
					{Method: "POST", Path: base + `/start$`, Count: 1, Status: 503, RetryAfterSeconds: 1},
					{Method: "GET", Path: base + `$`, Count: 1, Status: 429, RetryAfterSeconds: 1},
					{Method: "GET", Path: base + `$`, Count: 1, Reset: true},
					{Method: "GET", Path: base + `$`, Count: 1, Status: 500},
					{Method: "GET", Path: `/operations?/`, Count: 1, Status: 500},
				}...)
			},
			Config: oneGroupRun("faulty-run", "fz", "completed"),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 0, "state"),
				stateIs("Completed", "status", "stages", 0, "groups", 0, "members", 1, "state"),
			},
			Check: func(*terraform.State) error {
				if err := oneRunNamed(t, "faulty-run"); err != nil {
					return err
				}
				failed, total := 0, 0
				for _, f := range acctest.Current(t).Faults(t) {
					failed += f.Hits
					if f.Remaining != 0 {
						return fmt.Errorf("fault %+v was not hit", f.Rule)
					}
				}
				for _, r := range acctest.Current(t).Requests(t) {
					if strings.Contains(r.Path, "faulty-run") || strings.Contains(r.Path, "/operations") {
						total++
					}
				}
				t.Logf("transient faults: %d of about %d requests on the run's paths failed", failed, total)
				return nil
			},
		}},
	})
}

// Members of group mw are listed closed, none, open in the fleet file; the
// preview (and the run) order them open, none, closed. mw-closed's window
// first opens in 2036: the preview counts it pending, and the run leaves it
// Pending after upgrading the other two.
func TestAccUpdateRun_maintenanceWindowOrderAndPending(t *testing.T) {
	const r = "fleet_update_run.r"
	member := func(i int, attr string) tfjsonpath.Path {
		return acctest.Path("preview", "stages", 0, "groups", 0, "members", i, attr)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "window-run"),
		Steps: []resource.TestStep{{
			Config: oneGroupRun("window-run", "mw", "started"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// Summary detail lists two members, those that change first in update order: mw-open (open
				// window) and mw-none (no window); mw-closed (pending, third) is counted, not listed.
				plancheck.ExpectKnownValue(r, member(0, "name"), str("mw-open")),
				plancheck.ExpectKnownValue(r, member(0, "maintenance_window"), str("open")),
				plancheck.ExpectKnownValue(r, member(0, "action"), str("upgrade")),
				plancheck.ExpectKnownValue(r, member(0, "position"), knownvalue.Int64Exact(1)),
				plancheck.ExpectKnownValue(r, member(1, "name"), str("mw-none")),
				plancheck.ExpectKnownValue(r, member(1, "maintenance_window"), str("none")),
				plancheck.ExpectKnownValue(r, member(1, "action"), str("upgrade")),
				plancheck.ExpectKnownValue(r, member(1, "position"), knownvalue.Int64Exact(2)),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "outcome"), str("Pending")),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "member_count"), knownvalue.Int64Exact(3)),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "stages", 0, "groups", 0, "actions"), knownvalue.MapExact(map[string]knownvalue.Check{
					"upgrade": knownvalue.Int64Exact(2), "pending": knownvalue.Int64Exact(1)})),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "stages", 0, "groups", 0, "members_omitted"), knownvalue.Int64Exact(1)),
			}},
		}, {
			PreConfig: func() {
				if err := acctest.Eventually(20*time.Second, "mw-closed Pending", func() (bool, string) {
					run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "window-run")
					if err != nil || run.Properties.Status == nil || len(run.Properties.Status.Stages) == 0 {
						return false, fmt.Sprint(err)
					}
					// By name: the Fleet API documents no order of a group's member statuses.
					ms := run.Properties.Status.Stages[0].Groups[0].Members
					for _, m := range ms {
						if m.Name == "mw-closed" {
							return m.Status != nil && m.Status.State == "Pending", fmt.Sprintf("%+v", m.Status)
						}
					}
					return false, fmt.Sprintf("no mw-closed in %+v", ms)
				}); err != nil {
					t.Fatal(err)
				}
			},
			Config: oneGroupRun("window-run", "mw", "started"),
			ConfigStateChecks: []statecheck.StateCheck{
				// Status members by name: the update order is the preview's (step 1).
				memberStatusIs(0, 0, "mw-open", "state", exactly("Completed")),
				memberStatusIs(0, 0, "mw-none", "state", exactly("Completed")),
				memberStatusIs(0, 0, "mw-closed", "state", exactly("Pending")),
				memberStatusIs(0, 0, "mw-closed", "message", regexp.MustCompile(`2036-`)),
				stateIs("Pending", "status", "state"),
			},
		}},
	})
}

// Consistent node images: eastus and westus3 share 202510.01.0 of the gen2
// type only, so the run selects it; ci-west goes from 202509.01.0 to it,
// ci-east is already there (with a newer image available in eastus,
// untouched). Of the gen1 type AKS's list shows eastus's 202510.01.0 and
// westus3's 202509.01.0 only; the preview takes eastus to still offer
// 202509.01.0 (it does), so the run selects it, and neither gen1 member
// changes. The provider lists every member (preview_detail = "full"): the
// summary would leave out ci-west, the fourth.
func TestAccUpdateRun_consistentImages(t *testing.T) {
	const r = "fleet_update_run.r"
	m := func(i int, parts ...any) tfjsonpath.Path {
		return acctest.Path("preview", append([]any{"stages", 0, "groups", 0, "members", i}, parts...)...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             runGone(t, "consistent-run"),
		Steps: []resource.TestStep{{
			Config: `
provider "fleet" {
  preview_detail = "full"
}

resource "fleet_update_run" "r" {
  name     = "consistent-run"
  wait_for = "completed"
  stage {
    name = "ci"
    group {
      name = "ci"
    }
  }
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
    node_image_selection {
      type = "Consistent"
    }
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "consistent_node_image_versions"),
					knownvalue.ListExact([]knownvalue.Check{str("AKSUbuntu-2204containerd-202509.01.0"), str("AKSUbuntu-2204gen2containerd-202510.01.0")})),
				plancheck.ExpectKnownValue(r, m(0, "name"), str("ci-east")),
				plancheck.ExpectKnownValue(r, m(0, "action"), str("skip")),
				plancheck.ExpectKnownValue(r, m(1, "name"), str("ci-gen1")),
				plancheck.ExpectKnownValue(r, m(1, "action"), str("skip")),
				plancheck.ExpectKnownValue(r, m(1, "reason"), knownvalue.StringRegexp(regexp.MustCompile(`already at target node image versions`))),
				plancheck.ExpectKnownValue(r, m(2, "name"), str("ci-gen1-west")),
				plancheck.ExpectKnownValue(r, m(2, "action"), str("skip")),
				plancheck.ExpectKnownValue(r, m(2, "reason"), knownvalue.StringRegexp(regexp.MustCompile(`already at target node image versions`))),
				plancheck.ExpectKnownValue(r, m(3, "name"), str("ci-west")),
				plancheck.ExpectKnownValue(r, m(3, "action"), str("upgrade")),
				plancheck.ExpectKnownValue(r, m(3, "target_node_image_versions", "system"), str("AKSUbuntu-2204gen2containerd-202510.01.0")),
				plancheck.ExpectKnownValue(r, m(3, "position"), knownvalue.Int64Exact(4)),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "stages", 0, "groups", 0, "members_omitted"), knownvalue.Int64Exact(0)),
				plancheck.ExpectKnownValue(r, acctest.Path("preview", "actions"), knownvalue.MapExact(map[string]knownvalue.Check{
					"skip": knownvalue.Int64Exact(3), "upgrade": knownvalue.Int64Exact(1)})),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs("Completed", "status", "state"),
				statecheck.ExpectKnownValue(r, acctest.Path("status", "selected_node_image_versions"),
					knownvalue.ListExact([]knownvalue.Check{str("AKSUbuntu-2204containerd-202509.01.0"), str("AKSUbuntu-2204gen2containerd-202510.01.0")})),
				memberStatusIs(0, 0, "ci-east", "state", exactly("Skipped")),
				memberStatusIs(0, 0, "ci-gen1", "state", exactly("Skipped")),
				memberStatusIs(0, 0, "ci-gen1-west", "state", exactly("Skipped")),
				memberStatusIs(0, 0, "ci-west", "state", exactly("Completed")),
			},
		}},
	})
}

// max_concurrency on a strategy's stage and group: the preview says the batch
// size, the strategy reads back without a diff (the harness re-plans), and the
// run upgrades the group's three members two at a time (fleets.json
// UpdateGroup.maxConcurrency) as the emulator executes it: two start
// together, the third when one ends.
func TestAccUpdateRun_maxConcurrency(t *testing.T) {
	cfg := `
resource "fleet_update_strategy" "s" {
  name   = "mc"
  stage {
    name            = "mc"
    max_concurrency = "100%"
    group {
      name            = "mc"
      max_concurrency = "2"
    }
  }
}

resource "fleet_update_run" "r" {
  name               = "mc-run"
  wait_for           = "completed"
` + acctest.StagesOf("fleet_update_strategy.s") + `
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// The stage's 100% of 3 members is 3; the group's "2" is its batch size.
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "max_concurrency"), knownvalue.Int64Exact(3)),
				plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "max_concurrency"), knownvalue.Int64Exact(2)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("stage", 0, "group", 0, "max_concurrency"), knownvalue.StringExact("2")),
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
			},
			Check: startsInBatches(t, "mc-run", []int{2, 1}),
		}},
	})
}

// startsInBatches checks the members' start times group as sizes says (in order).
func startsInBatches(t *testing.T, run string, sizes []int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		r, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, run)
		if err != nil {
			return err
		}
		var starts []time.Time
		for _, m := range r.Properties.Status.Stages[0].Groups[0].Members {
			if m.Status == nil || m.Status.StartTime == nil {
				return fmt.Errorf("member %s has no start time", m.Name)
			}
			starts = append(starts, *m.Status.StartTime)
		}
		sort.Slice(starts, func(a, b int) bool { return starts[a].Before(starts[b]) })
		var got []int
		for i, s := range starts {
			if i == 0 || !s.Equal(starts[i-1]) {
				got = append(got, 0)
			}
			got[len(got)-1]++
		}
		if fmt.Sprint(got) != fmt.Sprint(sizes) {
			return fmt.Errorf("members started in batches %v, want %v (%v)", got, sizes, starts)
		}
		return nil
	}
}

// outOfBand starts or stops a run through the Fleet API, as az CLI or the portal would.
func outOfBand(t *testing.T, run string, start bool) {
	t.Helper()
	c := acctest.FleetAPI(t)
	var err error
	if start {
		var p *runtime.Poller[fleetapi.UpdateRun]
		if p, err = c.BeginStartUpdateRun(context.Background(), fleet, run, nil); err == nil {
			_, err = p.PollUntilDone(context.Background(), nil)
		}
	} else {
		var p *runtime.Poller[fleetapi.UpdateRun]
		if p, err = c.BeginStopUpdateRun(context.Background(), fleet, run, nil); err == nil {
			_, err = p.PollUntilDone(context.Background(), nil)
		}
	}
	if err != nil {
		t.Fatalf("start=%v %s: %v", start, run, err)
	}
}

// A run started outside Terraform while the configuration says NotStarted is
// reported and planned (a warning, never a plan error); one stopped outside
// Terraform is started again by a plan that says so; wait_for = "started"
// returns once the run is past NotStarted.
func TestAccUpdateRun_startedAndStoppedOutsideTerraform(t *testing.T) {
	cfg := func(state, waitFor string) string {
		return `
resource "fleet_update_run" "r" {
  name     = "oob-run"
  state    = "` + state + `"
  wait_for = "` + waitFor + `"
  # The after-stage gate is never approved: the run stays Running however fast the clock runs.
  stage {
    name = "ob"
    group {
      name = "ob"
    }
    after_stage_wait_in_seconds = 43200
    after_gate {
      type = "Approval"
    }
  }
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg("NotStarted", "none"),
		}, {
			PreConfig:          func() { outOfBand(t, "oob-run", true) },
			Config:             cfg("NotStarted", "none"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true, // planned (the warning says apply leaves the started run alone), not an error
		}, {
			Config: cfg("Stopped", "none"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("state"), knownvalue.StringExact("Stopped")),
			},
		}, {
			Config: cfg("Running", "started"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionUpdate),
			}},
			Check: func(*terraform.State) error {
				run, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, "oob-run")
				if err != nil {
					return err
				}
				if s := run.Properties.Status.Status.State; s == fleetapi.UpdateStateNotStarted || s == fleetapi.UpdateStateStopped {
					return fmt.Errorf("wait_for = started returned while the run is %s", s)
				}
				return nil
			},
		}, {
			PreConfig:          func() { outOfBand(t, "oob-run", false) },
			Config:             cfg("Running", "started"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true, // stopped outside: the plan starts it again, and says so
		}},
	})
}
