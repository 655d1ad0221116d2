package faultacc

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// waitConfig is a run of one member whose upgrade takes 10 s real (100
// simulated hours), applied with wait_for = "completed".
func waitConfig(name, group string) string {
	return fmt.Sprintf(`
resource "fleet_update_run" "r" {
  name     = %q
  wait_for = "completed"
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
}
`, name, group, group)
}

// awaitRunning waits until the run exists and is Running in the fleet, while
// the apply r is still under way; it returns the run's start time.
func awaitRunning(t *testing.T, r *tfRun, name string) string {
	t.Helper()
	api := acctest.FleetAPI(t)
	var started string
	if err := acctest.Eventually(90*time.Second, "update run "+name+" Running", func() (bool, string) {
		if r.cmd.ProcessState != nil {
			t.Fatalf("the apply ended before the run was seen Running:\n%s", r)
		}
		run, err := api.GetUpdateRun(context.Background(), fleet, name)
		if s := runState(run, err); s != "Running" {
			return false, s
		}
		started = startTime(*run)
		return true, ""
	}); err != nil {
		t.Fatalf("%v\n%s", err, r.out.String())
	}
	return started
}

// terraform is killed with SIGKILL (with its provider plugin) while the
// provider waits for a run it created: the run is in the fleet but not in
// the state. Applying again finds the run with the planned definition and
// adopts it instead of failing on If-None-Match or creating a second run:
// the fleet has exactly one run of that name, the one started before the
// kill, Completed, and in state.
func TestAccKillDuringWait_applyAgainConverges(t *testing.T) {
	const name = "kill-run"
	w := newWorkdir(t, waitConfig(name, "kl"))
	r := w.start("apply", "-input=false", "-auto-approve")
	started := awaitRunning(t, r, name)
	n := killTree(t, r)
	if n < 2 {
		t.Fatalf("killed %d processes, want terraform and its provider plugin at least", n)
	}
	t.Logf("killed terraform and %d processes under it after %s", n-1, r.took.Round(time.Millisecond))
	if res := w.resources(); len(res) != 0 {
		t.Fatalf("state after the kill has %v: the test wants the run in the fleet and not in state", res)
	}

	out := w.must("apply", "-input=false", "-auto-approve")
	if !strings.Contains(out, "Existing update run adopted") {
		t.Fatalf("the second apply does not say it adopted the run:\n%s", out)
	}
	run := onlyRun(t, name)
	if s := runState(&run, nil); s != "Completed" {
		t.Fatalf("run %s is %s, want Completed", name, s)
	}
	if got := startTime(run); got != started {
		t.Fatalf("run %s started at %s, before the kill at %s: not the same run", name, got, started)
	}
	res := w.resources()["fleet_update_run.r"]
	if res.Values["id"] != run.ID || acctest.Dig(res.Values, "status", "state") != "Completed" {
		t.Fatalf("state has id %v and status %v, want %s Completed", res.Values["id"], acctest.Dig(res.Values, "status", "state"), run.ID)
	}
	if !w.planIsEmpty() {
		t.Fatal("the plan after the second apply is not empty")
	}
}

// Access tokens of 3 s expire several times while apply waits 10 s for a
// run: the provider gets a new one each time (azcore renews a token once
// expired, MSAL's cache keeps none within 5 minutes of expiry), the emulator
// refuses no request for an expired token, and the apply succeeds.
func TestAccTokenExpiryDuringWait(t *testing.T) {
	const name, lifetime = "token-run", 3 * time.Second
	f := acctest.Current(t)
	f.SetTokenLifetime(t, lifetime)
	before := f.IdentityCounts(t)
	w := newWorkdir(t, waitConfig(name, "tk"))
	from := time.Now()
	w.must("apply", "-input=false", "-auto-approve")
	after := f.IdentityCounts(t)

	// The wait: from the first to the last read of the run.
	var reads []acctest.Request
	tokensDuring, refused := 0, 0
	reqs := f.Requests(t)
	for _, q := range reqs {
		if q.Start.After(from) && q.Method == http.MethodGet && strings.HasSuffix(q.Path, "/updateRuns/"+name) {
			reads = append(reads, q)
		}
	}
	if len(reads) < 2 {
		t.Fatalf("%d reads of the run while waiting, want several", len(reads))
	}
	first, last := reads[0].Start, reads[len(reads)-1].Start
	for _, q := range reqs {
		if q.Start.Before(from) {
			continue
		}
		if q.Status == "401" {
			refused++
		}
		if q.Method == http.MethodPost && strings.HasSuffix(q.Path, "/oauth2/v2.0/token") && !q.Start.Before(first) && !q.Start.After(last) {
			tokensDuring++
		}
	}
	span := last.Sub(first)
	t.Logf("waited %s with %s tokens: %d tokens issued during the wait (%d during the apply), %d reads of the run",
		span.Round(time.Millisecond), lifetime, tokensDuring, after["token_client_secret"]-before["token_client_secret"], len(reads))
	if span < 2*lifetime {
		t.Fatalf("the wait took %s: tokens of %s did not expire during it", span, lifetime)
	}
	if minimum := int(span / lifetime); tokensDuring < minimum {
		t.Fatalf("%d tokens issued during a %s wait with %s tokens, want at least %d", tokensDuring, span, lifetime, minimum)
	}
	if refused != 0 || after["rejected_expired_token"] != before["rejected_expired_token"] || after["rejected_invalid_token"] != before["rejected_invalid_token"] {
		t.Fatalf("requests refused for their token: %d 401s logged; expired %d, invalid %d",
			refused, after["rejected_expired_token"]-before["rejected_expired_token"], after["rejected_invalid_token"]-before["rejected_invalid_token"])
	}
	if run := onlyRun(t, name); runState(&run, nil) != "Completed" {
		s := runState(&run, nil)
		t.Fatalf("run %s is %s, want Completed", name, s)
	}
}

// While apply waits for a run, its next read meets a storm of 5 429s, each
// with Retry-After: 1. azcore's retry policy (5 retries) waits as long as
// each one asks: the emulator's times of the hits and of the read that
// succeeds are each at least a second after the previous 429, exactly N+1
// requests make that read, and the apply succeeds.
func TestAcc429StormDuringWait(t *testing.T) {
	const name, storm, retryAfter = "storm-run", 5, time.Second
	f := acctest.Current(t)
	w := newWorkdir(t, waitConfig(name, "st"))
	r := w.start("apply", "-input=false", "-auto-approve")
	awaitRunning(t, r, name)
	f.AddFaults(t, emulator.FaultRule{Method: http.MethodGet, Path: "/updateRuns/" + name + "$", Count: storm, Status: http.StatusTooManyRequests, RetryAfterSeconds: int(retryAfter / time.Second)})
	if err := r.wait(); err != nil {
		t.Fatal(r)
	}
	var hits []time.Time
	for _, st := range f.Faults(t) {
		if st.Rule.Path == "/updateRuns/"+name+"$" {
			if st.Hits != storm || st.Remaining != 0 || len(st.HitTimes) != storm {
				t.Fatalf("fault %+v: want %d hits and none left", st, storm)
			}
			hits = st.HitTimes
		}
	}
	if hits == nil {
		t.Fatal("the injected rule is not listed")
	}
	for i := 1; i < len(hits); i++ {
		if d := hits[i].Sub(hits[i-1]); d < retryAfter {
			t.Fatalf("429 %d came %s after 429 %d: earlier than Retry-After %s", i+1, d, i, retryAfter)
		}
	}
	// The request log's times are to the millisecond: they are compared with that much slack.
	var during []acctest.Request
	var success *acctest.Request
	for _, q := range f.Requests(t) {
		if q.Method != http.MethodGet || !strings.HasSuffix(q.Path, "/updateRuns/"+name) || q.End.Add(time.Millisecond).Before(hits[0]) {
			continue
		}
		during = append(during, q)
		if q.Status == "200" {
			success = &q
			break
		}
	}
	if success == nil {
		t.Fatal("no successful read of the run after the 429s in the request log")
	}
	if d := success.Start.Sub(hits[len(hits)-1]); d < retryAfter-2*time.Millisecond {
		t.Fatalf("the read after the last 429 came %s after it: earlier than Retry-After %s", d, retryAfter)
	}
	t.Logf("%d requests for one read through %d 429s, over %s; the apply took %s", len(during), storm, success.End.Sub(hits[0]).Round(time.Millisecond), r.took.Round(time.Millisecond))
	if len(during) < storm+1 || len(during) > storm+2 {
		t.Fatalf("%d requests from the first 429 to the successful read, want %d to %d", len(during), storm+1, storm+2)
	}
	res := w.resources()["fleet_update_run.r"]
	if acctest.Dig(res.Values, "status", "state") != "Completed" {
		t.Fatalf("state has status %v, want Completed", acctest.Dig(res.Values, "status", "state"))
	}
}
