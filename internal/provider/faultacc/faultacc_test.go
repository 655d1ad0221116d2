// Package faultacc holds the acceptance tests of faults and races on the
// Fleet API side, each driving the real terraform CLI against a local fleet
// of its own (testdata/fleet.yaml): two applies racing on one update
// strategy and on one update run, an apply killed with SIGKILL while it
// waits and then applied again, access tokens expiring during a wait, and a
// storm of 429s with Retry-After during a wait; and on the Kubernetes side
// (kube_acc_test.go), the hub's kube-apiserver restarted while an apply
// waits for a rollout, and a member's kube-apiserver down during a plan.
package faultacc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func TestMain(m *testing.M) {
	if serveProvider() {
		return
	}
	acctest.MainPollingFast(m, "internal/provider/faultacc/testdata/fleet.yaml")
}

// The fleet of testdata/fleet.yaml.
var fleet = fleetapi.FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000005", ResourceGroupName: "rg-faults", Name: "faults"}

// runsNamed lists the fleet's update runs of that name.
func runsNamed(t *testing.T, name string) []fleetapi.UpdateRun {
	t.Helper()
	runs, err := acctest.FleetAPI(t).ListUpdateRuns(context.Background(), fleet)
	if err != nil {
		t.Fatal(err)
	}
	var out []fleetapi.UpdateRun
	for _, r := range runs {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// onlyRun is the one run of that name in the fleet; the test fails unless there is exactly one.
func onlyRun(t *testing.T, name string) fleetapi.UpdateRun {
	t.Helper()
	runs := runsNamed(t, name)
	if len(runs) != 1 {
		t.Fatalf("want exactly one update run %s in the fleet, got %d", name, len(runs))
	}
	return runs[0]
}

// runState is a run's state as the Fleet API shows it, or what kept it from showing one.
func runState(r *fleetapi.UpdateRun, err error) string {
	if err != nil {
		return err.Error()
	}
	if r.Properties == nil || r.Properties.Status == nil || r.Properties.Status.Status == nil {
		return "no status"
	}
	return string(r.Properties.Status.Status.State)
}

// startTime is when the run started, as the Fleet API shows it.
func startTime(r fleetapi.UpdateRun) string {
	if r.Properties == nil || r.Properties.Status == nil || r.Properties.Status.Status == nil || r.Properties.Status.Status.StartTime == nil {
		return ""
	}
	return r.Properties.Status.Status.StartTime.String()
}

// stateGroups are the group names of a strategy's first stage in state.
func stateGroups(r tfResource) string {
	var names []string
	groups, _ := acctest.Dig(r.Values, "stage", 0, "group").([]any)
	for i := range groups {
		names = append(names, fmt.Sprint(acctest.Dig(groups, i, "name")))
	}
	return strings.Join(names, ",")
}

// apiGroups are the group names of the race's strategy's first stage in the fleet.
func apiGroups(t *testing.T) string {
	t.Helper()
	s, err := acctest.FleetAPI(t).GetUpdateStrategy(context.Background(), fleet, "race-strategy")
	if err != nil {
		t.Fatal(err)
	}
	if s.Properties == nil || len(s.Properties.Strategy.Stages) == 0 {
		return ""
	}
	var names []string
	for _, g := range s.Properties.Strategy.Stages[0].Groups {
		names = append(names, g.Name)
	}
	return strings.Join(names, ",")
}

// says reports whether out holds every part, in order, however terraform
// wrapped its lines; the test fails otherwise, showing out.
func says(t *testing.T, what, out string, parts ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(out), " ")
	rest := flat
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Fatalf("%s: the output does not say %q (after %q):\n%s", what, p, parts[0], out)
		}
		rest = rest[i+len(p):]
	}
}

// oneWinner splits two finished runs into the one that succeeded and the one
// that failed; the test fails unless exactly one succeeded.
func oneWinner(t *testing.T, runs []*tfRun) (winner, loser int) {
	t.Helper()
	switch {
	case runs[0].err == nil && runs[1].err != nil:
		return 0, 1
	case runs[0].err != nil && runs[1].err == nil:
		return 1, 0
	}
	t.Fatalf("want exactly one of two racing applies to succeed:\n%s\n%s", runs[0], runs[1])
	return 0, 0
}
