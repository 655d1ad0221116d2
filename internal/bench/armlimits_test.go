package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// Plans under Azure Resource Manager's read limits (issue 24): the bench fleet's emulator meters
// reads as "Understand how Azure Resource Manager throttles requests" documents them (a bucket of
// 250 refilled at 25 a second per subscription × principal × region; 3,750 and 375 a second per
// subscription), and each plan is compared with the floor its reads impose.

// The bars of issue 24.
const (
	barARMReads    = 1050
	barFloorFactor = 1.5
	aliases        = 10
)

// resetMeter refills the emulator's read buckets and zeroes its counts, so a plan starts as a
// plan does after the subscription has been quiet; false when the fleet is not metered.
func resetMeter(b *testing.B, f *acctest.Fleet) bool {
	req, err := http.NewRequest(http.MethodDelete, strings.TrimSuffix(f.Env["LOCALFLEET_URL"], "/")+"/_emulator/metering", nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := f.HTTPClient(b).Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent
}

func meterStats(b *testing.B, f *acctest.Fleet) emulator.MeterStats {
	var st emulator.MeterStats
	f.Admin(b, "GET", "/_emulator/metering", nil, &st)
	return st
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// byOperation lists counts, largest first.
func byOperation(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], strings.TrimPrefix(k, "GET Microsoft.ContainerService/")))
	}
	return strings.Join(parts, ", ")
}

// floor is the least time reads take under one principal's bucket: what the bucket holds is
// free, the rest comes at the refill rate.
func floor(reads int, l fleetfile.ReadLimits) time.Duration {
	beyond := reads - l.Bucket
	if beyond <= 0 {
		return 0
	}
	return time.Duration(beyond) * time.Second / time.Duration(l.RefillPerSecond)
}

func limitsText(l fleetfile.ReadLimits) string {
	return fmt.Sprintf("a bucket of %d refilled at %d/s per principal; %s, %d/s per subscription", l.Bucket, l.RefillPerSecond, thousands(l.SubscriptionBucket), l.SubscriptionRefillPerSecond)
}

// surfaced counts the plan output's errors that are ARM throttling.
func surfaced(out []byte) int {
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Error:") || strings.Contains(line, "throttled the read") {
			if strings.Contains(line, "429") || strings.Contains(line, "throttled") {
				n++
			}
		}
	}
	return n
}

func armRows(rep *report, res planResult, what string) {
	st := res.arm
	if st.Reads == nil {
		return
	}
	reads := total(st.Reads)
	fl := floor(reads, st.Limits)
	rep.row("… ARM reads of the plan"+what+", metered as ARM meters them ("+limitsText(st.Limits)+"), by operation",
		fmt.Sprintf("**%s** (%s)", thousands(reads), byOperation(st.Reads)), "≤ "+thousands(barARMReads))
	rep.row("… 429s ARM answered (retried after Retry-After by the provider's pacer) / that reached the plan's output",
		fmt.Sprintf("%d / **%d**", total(st.Throttled), surfaced(res.text)), "0 surfaced")
	rep.row("… wall time against the floor the reads impose ((reads − bucket) / refill rate)",
		fmt.Sprintf("%s vs %s: **%.2f×**", res.wall.Round(100*time.Millisecond), fl.Round(100*time.Millisecond), ratio(res.wall, fl)), fmt.Sprintf("≤ %.1f×", barFloorFactor))
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// aliases10 plans the 1,000-member configuration through 10 provider aliases of the same
// subscription and principal, as a team with 10 fleets would: each alias is a provider process
// of its own, reading its fleet. The local fleet serves one fleet, so the 10 aliases read the
// same 1,000 members — the reads, and the one bucket they share, are those of 10 fleets of
// 1,000 in one subscription. Terraform starts the processes (dev_overrides), and their peak
// memory is sampled from /proc while they run.
func aliases10(b *testing.B, provider string, f *acctest.Fleet, hub hubConn, rep *report) {
	if os.Getenv("BENCH_SKIP_ALIASES") != "" {
		rep.row(fmt.Sprintf("`terraform plan` of the same configuration over %d fleets through %d provider aliases", aliases, aliases), "not run (BENCH_SKIP_ALIASES)", "")
		return
	}
	dir := b.TempDir()
	proxy := newHubCounter(b, hub.cfg)
	var cfg strings.Builder
	cfg.WriteString("terraform {\n  required_providers {\n    fleet = { source = \"fleetops/fleet\" }\n  }\n}\n")
	for i := 0; i < aliases; i++ {
		alias := fmt.Sprintf("f%d", i)
		fmt.Fprintf(&cfg, "\nprovider \"fleet\" {\n  alias = %q\n  hub {\n    host = %s\n  }\n}\n", alias, jsonString(proxy.url))
		cfg.WriteString(config1kBody(alias))
	}
	writeConfig(b, dir, cfg.String())
	env := devOverrides(b, dir, provider, f)
	resetMeter(b, f)
	sampler := newRSSSampler(provider)
	start := time.Now()
	c := exec.Command("terraform", "plan", "-input=false", "-no-color", "-lock=false")
	c.Dir, c.Env = dir, env
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	wall := time.Since(start)
	peaks := sampler.stop()
	res := planResult{wall: wall, text: out.Bytes(), arm: meterStats(b, f)}
	status := "planned"
	if err != nil {
		status = "**failed**: " + firstError(out.String())
	}
	rep.row(fmt.Sprintf("`terraform plan` of the same configuration over %d fleets of 1,000 members in one subscription, through %d provider aliases (one principal; the local fleet serves one fleet, so each alias reads the same 1,000 members: the same reads and the same shared bucket): wall time", aliases, aliases),
		fmt.Sprintf("%s (%s)", wall.Round(time.Second), status), "no 429 surfaced")
	maxPeak := int64(0)
	for _, p := range peaks {
		maxPeak = max(maxPeak, p)
	}
	rep.row("… peak resident memory of each provider process (sampled every 100 ms)", fmt.Sprintf("%d processes (the 10 that plan, and terraform's short-lived schema and validation ones), largest %s", len(peaks), mib(maxPeak)), "500 MiB each")
	reads := total(res.arm.Reads)
	fl := floor(reads, res.arm.Limits)
	rep.row("… ARM reads of the plan, all aliases, by operation", fmt.Sprintf("**%s** (%s)", thousands(reads), byOperation(res.arm.Reads)), fmt.Sprintf("%d × the one-fleet plan's", aliases))
	rep.row("… 429s ARM answered / that reached the plan's output", fmt.Sprintf("%d / **%d**", total(res.arm.Throttled), surfaced(res.text)), "0 surfaced")
	rep.row("… wall time against the floor (the aliases share one principal's bucket: (reads − bucket) / refill rate)", fmt.Sprintf("%s vs %s: **%.2f×**", wall.Round(time.Second), fl.Round(time.Second), ratio(wall, fl)), fmt.Sprintf("≤ %.1f×", barFloorFactor))
}

// devOverrides is the environment of a terraform that starts the built provider itself, one
// process per provider configuration, as users' terraform does.
func devOverrides(b *testing.B, dir, provider string, f *acctest.Fleet) []string {
	rc := filepath.Join(dir, "terraformrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"fleetops/fleet\" = %s\n  }\n  direct {}\n}\n", jsonString(filepath.Dir(provider)))), 0o600); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_CLI_CONFIG_FILE="+rc)
	for k, v := range f.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// applyCost plans the 1,000-member configuration to a file and applies it, each in provider
// processes of its own as the CLI runs them, and reports the ARM reads of the apply: Terraform
// plans every resource again at apply, and a created resource's preview is computed again there
// (it must equal the planned one), in a process whose inventory is empty.
func applyCost(b *testing.B, provider string, f *acctest.Fleet, hub hubConn, rep *report) {
	if os.Getenv("BENCH_SKIP_APPLY") != "" {
		return
	}
	dir := b.TempDir()
	proxy := newHubCounter(b, hub.cfg)
	writeConfig(b, dir, config1k(proxy.url))
	env := devOverrides(b, dir, provider, f)
	tf := func(args ...string) (time.Duration, []byte, error) {
		c := exec.Command("terraform", args...)
		c.Dir, c.Env = dir, env
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		start := time.Now()
		err := c.Run()
		return time.Since(start), out.Bytes(), err
	}
	resetMeter(b, f)
	if _, out, err := tf("plan", "-input=false", "-no-color", "-lock=false", "-out=bench.tfplan"); err != nil {
		rep.row("`terraform apply` of the saved 1,000-member plan", "not measured: the plan failed: "+firstError(string(out)), "")
		return
	}
	planReads := total(meterStats(b, f).Reads)
	resetMeter(b, f)
	wall, out, err := tf("apply", "-input=false", "-no-color", "-lock=false", "bench.tfplan")
	st := meterStats(b, f)
	status := ""
	if err != nil {
		status = "; **failed**: " + firstError(string(out))
	}
	rep.row("`terraform apply` of the saved 1,000-member plan (new provider processes, as the CLI runs them): ARM reads, by operation",
		fmt.Sprintf("%d (%s), against the plan's %d; %d 429s answered, %d surfaced; %s%s", total(st.Reads), byOperation(st.Reads), planReads, total(st.Throttled), surfaced(out), wall.Round(time.Second), status),
		"what the apply costs: Terraform re-plans each resource at apply, and a created resource's preview is computed again there in a process with an empty inventory")
}

func firstError(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "Error:"); i >= 0 {
			s := strings.TrimSpace(line[i:])
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			return s
		}
	}
	return "no error line"
}

// rssSampler keeps the peak resident memory (VmHWM) of every running process of one executable.
type rssSampler struct {
	exe   string
	mu    sync.Mutex
	peaks map[int]int64
	done  chan struct{}
	wg    sync.WaitGroup
}

func newRSSSampler(exe string) *rssSampler {
	s := &rssSampler{exe: exe, peaks: map[int]int64{}, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || exe != s.exe {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				if err == nil {
					s.mu.Lock()
					s.peaks[pid] = max(s.peaks[pid], kb<<10)
					s.mu.Unlock()
				}
			}
		}
	}
}

func (s *rssSampler) stop() map[int]int64 {
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peaks
}

// canaryRun plans one update run over the canary stage alone (issue 24 item 2): only the members
// the run reaches need their maintenance configurations, so the plan lists the canary members'
// and not the other rings'. Before that change every member's were read (the full
// configuration's count above, which still reads them all: fleet_members shows every member's
// window).
func canaryRun(b *testing.B, provider string, f *acctest.Fleet, hub hubConn, rep *report) {
	dir := b.TempDir()
	proxy := newHubCounter(b, hub.cfg)
	writeConfig(b, dir, providerBlock(proxy.url)+fmt.Sprintf(runBlock, canaryStage))
	res := terraformPlan(b, dir, provider, f, proxy)
	st := res.arm
	canary := groupSize(b, f, "canary")
	rep.row("`terraform plan` of one update run over the canary stage alone (1,000 members): ARM reads by operation, wall time",
		fmt.Sprintf("**%s** (%s); %s", thousands(total(st.Reads)), byOperation(st.Reads), res.wall.Round(100*time.Millisecond)),
		fmt.Sprintf("a maintenance configuration list per member the run reaches (%d in group canary, as the Fleet API lists them); before: one per member, 1,000", canary))
}

// groupSize counts the fleet's members of an update group, as the Fleet API lists them.
func groupSize(b *testing.B, f *acctest.Fleet, group string) int {
	a := newARMReader(b, f)
	path := "/subscriptions/" + a.sub + "/resourceGroups/" + a.rg + "/providers/Microsoft.ContainerService/fleets/" + f.Env["FLEET_NAME"] + "/members?api-version=2026-06-01"
	n := 0
	for path != "" {
		resp, body, err := a.send(http.MethodGet, path, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("list the fleet's members: %v %s", err, body)
		}
		var page struct {
			Value []struct {
				Properties struct{ Group string } `json:"properties"`
			} `json:"value"`
			NextLink string `json:"nextLink"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			b.Fatal(err)
		}
		for _, m := range page.Value {
			if m.Properties.Group == group {
				n++
			}
		}
		path = strings.TrimPrefix(page.NextLink, a.base)
	}
	return n
}
