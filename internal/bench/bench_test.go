// Package bench measures the plans of a fleet of users' size side by side with the real thing, in
// one run: `make bench` (BenchmarkFleetScale, once) starts a generated 1,000-member local fleet with
// KubeFleet's real hub agent and then a 10,000-member hub without it, and writes every figure to
// bench/results.md, to the figures table of the README and of the guide "How previews are verified"
// (docs/guides and its template).
//
// What it compares, and with what:
//   - the hub agent's time from creating a ClusterResourcePlacement to its Scheduled condition
//     (polled every 5 ms) with the preview's time for the same policy over the same member
//     clusters as the provider lists them (scheduling.Schedule, median of repeated runs), and the
//     picks of both;
//   - `terraform plan` (the real CLI, the provider as its own process attached with -debug so its
//     peak memory can be read from /proc) of 20 placements, one strategy, one run over every member,
//     one auto-upgrade profile and fleet_members: wall time, the provider's peak resident memory,
//     requests to the hub (counted at a proxy given as the provider's hub) and to the Fleet API
//     (the emulator's request log), and the plan's lines per resource;
//   - the same for one PickN placement and one update run over 10,000 members;
//   - under Azure Resource Manager's read limits, which the 1,000-member fleet's emulator meters
//     (armlimits_test.go): the plan's ARM reads by operation, 429s answered and surfaced, and its
//     wall time against the floor its reads impose; the same configuration through 10 provider
//     aliases of one subscription; and what the apply of a saved plan costs.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// The bars of the issue (benchmarks, not timed tests).
const (
	barPlanLines      = 200
	barPlanSeconds    = 30
	barPreviewRatio   = 100
	barProviderMemory = 500 << 20
)

// report collects the figures in the order they are written.
type report struct {
	rows   [][3]string // what, measured, bar
	sample string      // previews as the 1,000-member plan shows them
}

func (r *report) row(what, measured, bar string) {
	r.rows = append(r.rows, [3]string{what, measured, bar})
}

func BenchmarkFleetScale(b *testing.B) {
	root, err := acctest.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []string{"FLEET_HUB_CONFIG_PATH", "KUBE_CONFIG_PATH", "KUBE_CTX", "KUBE_HOST", "TF_CLI_CONFIG_FILE"} {
		b.Setenv(k, "")
	}
	b.Setenv("CHECKPOINT_DISABLE", "1")
	provider := buildProvider(b, root)
	rep := &report{}
	for i := 0; i < b.N; i++ {
		fleet1k(b, root, provider, rep)
		fleet10k(b, root, provider, rep)
	}
	writeReport(b, root, rep)
}

// BenchmarkFleet1k runs the 1,000-member part alone (the hub agent against the preview, and
// the plan) and logs its figures without writing the report, e.g. to check a new hub agent
// quickly: go test -run '^$' -bench BenchmarkFleet1k -benchtime 1x ./internal/bench/
func BenchmarkFleet1k(b *testing.B) {
	root, err := acctest.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []string{"FLEET_HUB_CONFIG_PATH", "KUBE_CONFIG_PATH", "KUBE_CTX", "KUBE_HOST", "TF_CLI_CONFIG_FILE"} {
		b.Setenv(k, "")
	}
	b.Setenv("CHECKPOINT_DISABLE", "1")
	provider := buildProvider(b, root)
	rep := &report{}
	for i := 0; i < b.N; i++ {
		fleet1k(b, root, provider, rep)
	}
	var t strings.Builder
	for _, r := range rep.rows {
		fmt.Fprintf(&t, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	b.Log("\n" + t.String())
}

// ---- 1,000 members with the real hub agent ----

func fleet1k(b *testing.B, root, provider string, rep *report) {
	const members = 1000
	t0 := time.Now()
	f, err := acctest.StartWith(root, filepath.Join(root, "bench", "fleet-1000.yaml"), acctest.Options{Ready: 10 * time.Minute, Heartbeat: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Stop()
	hub := hubClient(b, f.Env["KUBE_CONFIG_PATH"])
	waitEligible(b, hub, members)
	rep.row("Local fleet of 1,000 generated members (bench/fleet-1000.yaml) with the real hub agent: start until every healthy member is eligible",
		time.Since(t0).Round(time.Second).String(), "2 min")

	for _, pc := range hubPolicies() {
		hubTime, picksAgree := hubAgentTime(b, hub, pc)
		previewTime := previewTime(b, hub, pc.policy)
		ratio := float64(hubTime) / float64(previewTime)
		rep.row(fmt.Sprintf("%s over 1,000 members: the hub agent (create → Scheduled) vs the preview (median of 20)", pc.name),
			fmt.Sprintf("%s vs %s: **%.0f×** faster; picks %s", hubTime.Round(time.Millisecond), previewTime.Round(10*time.Microsecond), ratio, picksAgree),
			fmt.Sprintf("≥ %d×", barPreviewRatio))
	}

	dir := b.TempDir()
	proxy := newHubCounter(b, hub.cfg)
	writeConfig(b, dir, config1k(proxy.url))
	res := terraformPlan(b, dir, provider, f, proxy)
	savePlan(b, root, "plan-1000.txt", res.text)
	rep.sample = previewSample(res.text, "fleet_placement.p0", "fleet_update_run.all")
	rep.row("`terraform plan` of 20 placements, a strategy, a run over every member, a profile and fleet_members (1,000 members): wall time",
		res.wall.Round(100*time.Millisecond).String(), fmt.Sprintf("%d s without read limits; under them, the floor below", barPlanSeconds))
	rep.row("… the provider process's peak resident memory", mib(res.peakRSS), "500 MiB")
	rep.row("… requests to the hub API server", res.hubRequests, "one member-cluster list (and a read of each placement's name, to find an existing one)")
	rep.row("… requests to the Fleet API and AKS", res.fleetRequests,
		"one members list; the members' managed clusters in one list of their resource group; per member one maintenance-configuration list (AKS serves them apart and the rollout order needs them), once per process")
	armRows(rep, res, "")
	rep.row("… plan lines per resource (default `preview_detail`)", res.linesPerResource(), fmt.Sprintf("< %d each", barPlanLines))
	graphVersusList(b, f, rep, res)
	canaryRun(b, provider, f, hub, rep)
	aliases10(b, provider, f, hub, rep)
	applyCost(b, provider, f, hub, rep)
}

// ---- 10,000 members, hub without the hub agent ----

func fleet10k(b *testing.B, root, provider string, rep *report) {
	t0 := time.Now()
	f, err := acctest.StartWith(root, filepath.Join(root, "bench", "fleet-10000.yaml"), acctest.Options{Ready: 20 * time.Minute, Heartbeat: 2 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Stop()
	hub := hubClient(b, f.Env["KUBE_CONFIG_PATH"])
	waitEligible(b, hub, 10000)
	rep.row("Hub of 10,000 generated members (bench/fleet-10000.yaml; no hub agent, member status written directly): start", time.Since(t0).Round(time.Second).String(), "")

	previewT := previewTime(b, hub, benchPolicy10k())
	rep.row("Placement preview over the 10,000 members as the provider lists them (PickN 100, three preferred terms, two topology spread constraints), median of 20",
		previewT.Round(100*time.Microsecond).String(), "200 ms")

	dir := b.TempDir()
	proxy := newHubCounter(b, hub.cfg)
	writeConfig(b, dir, config10k(proxy.url))
	res := terraformPlan(b, dir, provider, f, proxy)
	savePlan(b, root, "plan-10000.txt", res.text)
	rep.row("`terraform plan` of one PickN placement and one update run over 10,000 members: wall time", res.wall.Round(100*time.Millisecond).String(), "")
	rep.row("… the provider process's peak resident memory", mib(res.peakRSS), "")
	rep.row("… requests to the hub API server / the Fleet API", res.hubRequests+" / "+res.fleetRequests, "")
	rep.row("… plan lines per resource", res.linesPerResource(), fmt.Sprintf("< %d each", barPlanLines))
}

// ---- the hub agent and the preview, side by side ----

type policyCase struct {
	name   string
	policy *placementv1.PlacementPolicy
}

func int32p(v int32) *int32 { return &v }

func sorter(weight int32, name string, order placementv1.PropertySortOrder) placementv1.PreferredClusterSelector {
	return placementv1.PreferredClusterSelector{Weight: weight, Preference: placementv1.ClusterSelectorTerm{
		PropertySorter: &placementv1.PropertySorter{Name: name, SortOrder: order},
	}}
}

func labelPreference(weight int32, k, v string) placementv1.PreferredClusterSelector {
	return placementv1.PreferredClusterSelector{Weight: weight, Preference: placementv1.ClusterSelectorTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}},
	}}
}

// hubPolicies are the three: PickN 100 with three preferred terms, PickN 100 with two
// topology spread constraints, PickAll with a property selector.
func hubPolicies() []policyCase {
	return []policyCase{
		{"PickN 100, three preferred terms", &placementv1.PlacementPolicy{
			PlacementType: placementv1.PickNPlacementType, NumberOfClusters: int32p(100),
			Affinity: threePreferredTerms(),
		}},
		{"PickN 100, two topology spread constraints", &placementv1.PlacementPolicy{
			PlacementType: placementv1.PickNPlacementType, NumberOfClusters: int32p(100),
			TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{
				{MaxSkew: int32p(1), TopologyKey: "fleet.azure.com/location", WhenUnsatisfiable: placementv1.DoNotSchedule},
				{MaxSkew: int32p(1), TopologyKey: "env", WhenUnsatisfiable: placementv1.ScheduleAnyway},
			},
		}},
		{"PickAll, property selector", &placementv1.PlacementPolicy{
			PlacementType: placementv1.PickAllPlacementType,
			Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{{
					PropertySelector: &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{
						{Name: "resources.kubernetes-fleet.io/available-cpu", Operator: placementv1.PropertySelectorGreaterThanOrEqualTo, Values: []string{"8"}},
					}},
				}}},
			}},
		}},
	}
}

// threePreferredTerms prefer prod clusters, then the most available CPU, then the most nodes.
func threePreferredTerms() *placementv1.Affinity {
	return &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{
			labelPreference(40, "env", "prod"),
			sorter(30, "resources.kubernetes-fleet.io/available-cpu", placementv1.Descending),
			sorter(20, "kubernetes-fleet.io/node-count", placementv1.Descending),
		},
	}}
}

// benchPolicy10k is SPEC §8's preview: PickN 100, three preferred terms (two property sorters),
// two topology spread constraints.
func benchPolicy10k() *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{
		PlacementType: placementv1.PickNPlacementType, NumberOfClusters: int32p(100),
		Affinity: threePreferredTerms(),
		TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{
			{MaxSkew: int32p(1), TopologyKey: "fleet.azure.com/location", WhenUnsatisfiable: placementv1.DoNotSchedule},
			{MaxSkew: int32p(1), TopologyKey: "env", WhenUnsatisfiable: placementv1.ScheduleAnyway},
		},
	}
}

type hubConn struct {
	cfg *rest.Config
	c   client.Client
}

func hubClient(b *testing.B, kubeconfig string) hubConn {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	scheme := runtimeScheme(b)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	return hubConn{cfg: cfg, c: c}
}

func listMembers(b *testing.B, hub hubConn) []clusterv1.MemberCluster {
	var l clusterv1.MemberClusterList
	if err := hub.c.List(context.Background(), &l); err != nil {
		b.Fatal(err)
	}
	return l.Items
}

// waitEligible waits until n member clusters exist and every one the fleet file keeps healthy is
// eligible (the scheduler's own rule: a preview with PickAll excludes none for eligibility).
func waitEligible(b *testing.B, hub hubConn, n int) {
	err := acctest.Eventually(10*time.Minute, fmt.Sprintf("%d member clusters, the healthy ones eligible", n), func() (bool, string) {
		items := listMembers(b, hub)
		if len(items) < n {
			return false, fmt.Sprintf("%d member clusters", len(items))
		}
		res, err := scheduling.Schedule(scheduling.Input{Clusters: items, Now: time.Now()})
		if err != nil {
			return false, err.Error()
		}
		notJoined := 0
		for _, e := range res.Excluded {
			if e.Class == scheduling.ClassNotJoined {
				notJoined++
			}
		}
		return notJoined == 0, fmt.Sprintf("%d picked, %d not joined yet", len(res.Selected), notJoined)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// hubAgentTime creates a placement with the policy and waits on a watch for its Scheduled
// condition of the current generation; it then compares the hub's picks with the preview's.
func hubAgentTime(b *testing.B, hub hubConn, pc policyCase) (time.Duration, string) {
	ctx := context.Background()
	name := "bench-" + strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(pc.name, "-"))
	name = strings.Trim(name, "-")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := hub.c.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	members := listMembers(b, hub)
	want, err := scheduling.Schedule(scheduling.Input{Policy: pc.policy.DeepCopy(), Clusters: members, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}},
			Policy:            pc.policy.DeepCopy(),
		},
	}
	start := time.Now()
	if err := hub.c.Create(ctx, crp); err != nil {
		b.Fatal(err)
	}
	// The same decision: the Scheduled condition of this generation with the preview's status and
	// message (under topology spread constraints the scheduler picks one cluster per cycle and
	// reports every cycle). Polled every 5 ms (a watch through the API server adds its own delay):
	// the figure is at most 5 ms late, against hub agent times of seconds.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Minute)
	last := "no Scheduled condition"
	for {
		select {
		case <-tick.C:
		case <-deadline:
			return time.Since(start), fmt.Sprintf("**not the same decision within 5 minutes** (last: %s)", last)
		}
		got := &placementv1.ClusterResourcePlacement{}
		if err := hub.c.Get(ctx, client.ObjectKey{Name: name}, got); err != nil {
			b.Fatal(err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, string(placementv1.ClusterResourcePlacementScheduledConditionType))
		if c == nil || c.ObservedGeneration != got.Generation {
			continue
		}
		last = fmt.Sprintf("%s %q", c.Status, c.Message)
		if (c.Status == metav1.ConditionTrue) != want.Fulfilled || c.Message != want.Message {
			continue
		}
		return time.Since(start), comparePicks(hub, name, want)
	}
}

// comparePicks compares the clusters the hub agent selected (its latest policy snapshot's
// decisions) with the preview's.
func comparePicks(hub hubConn, name string, want scheduling.Result) string {
	var snaps placementv1.ClusterSchedulingPolicySnapshotList
	if err := hub.c.List(context.Background(), &snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil || len(snaps.Items) == 0 {
		return fmt.Sprintf("not compared (policy snapshot: %v)", err)
	}
	// The Scheduled condition comes with the bindings; the hub's selected set is its bindings.
	var bindings placementv1.ClusterResourceBindingList
	if err := hub.c.List(context.Background(), &bindings, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name}); err != nil {
		return fmt.Sprintf("not compared (bindings: %v)", err)
	}
	got := map[string]bool{}
	for _, bd := range bindings.Items {
		if bd.Spec.State != placementv1.BindingStateUnscheduled {
			got[bd.Spec.TargetCluster] = true
		}
	}
	same := len(got) == len(want.Selected)
	for _, p := range want.Selected {
		if !got[p.Cluster] {
			same = false
		}
	}
	if same {
		return fmt.Sprintf("equal (%d clusters)", len(got))
	}
	return fmt.Sprintf("**differ**: hub %d, preview %d", len(got), len(want.Selected))
}

// previewTime is the median time of the preview over the member clusters as the provider lists them.
func previewTime(b *testing.B, hub hubConn, policy *placementv1.PlacementPolicy) time.Duration {
	members := listMembers(b, hub)
	now := time.Now()
	var times []time.Duration
	for i := 0; i < 20; i++ {
		t := time.Now()
		if _, err := scheduling.Schedule(scheduling.Input{Policy: policy.DeepCopy(), Clusters: members, Now: now}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2]
}

// ---- terraform plan ----

type planResult struct {
	wall          time.Duration
	peakRSS       int64
	hubRequests   string
	fleetRequests string
	lines         map[string]int
	text          []byte
	// arm is what the emulator's read meter counted during the plan.
	arm emulator.MeterStats
}

// savePlan keeps the plan text the figures were taken from, for the docs' samples.
func savePlan(b *testing.B, root, name string, text []byte) {
	if err := os.WriteFile(filepath.Join(root, "bench", name), text, 0o644); err != nil {
		b.Fatal(err)
	}
}

// linesPerResource gives each resource type's plan lines (the range over its resources).
func (p planResult) linesPerResource() string {
	byType := map[string][]int{}
	for addr, n := range p.lines {
		typ, _, _ := strings.Cut(addr, ".")
		byType[typ] = append(byType[typ], n)
	}
	var parts []string
	for _, typ := range slices.Sorted(maps.Keys(byType)) {
		ns := byType[typ]
		slices.Sort(ns)
		if len(ns) == 1 {
			parts = append(parts, fmt.Sprintf("%s %d", typ, ns[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%s %d–%d (%d resources)", typ, ns[0], ns[len(ns)-1], len(ns)))
		}
	}
	return strings.Join(parts, ", ")
}

func buildProvider(b *testing.B, root string) string {
	out := filepath.Join(b.TempDir(), "terraform-provider-fleet")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = root
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the provider: %v\n%s", err, o)
	}
	return out
}

func writeConfig(b *testing.B, dir, cfg string) {
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
}

// terraformPlan runs `terraform init` and `terraform plan` in dir against the fleet, with the
// provider started by us in debug mode (terraform attaches to it), so that its peak memory is
// readable from /proc when the plan is done.
func terraformPlan(b *testing.B, dir, provider string, f *acctest.Fleet, hub *hubCounter) planResult {
	cmd := exec.Command(provider, "-debug")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Env = os.Environ()
	for k, v := range f.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	reattach := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "TF_REATTACH_PROVIDERS='"); ok {
			reattach = strings.TrimSuffix(v, "'")
			break
		}
	}
	if reattach == "" {
		b.Fatal("the provider printed no TF_REATTACH_PROVIDERS")
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(discard{}) }()

	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach, "TF_IN_AUTOMATION=1")
	for k, v := range f.Env {
		env = append(env, k+"="+v)
	}
	run := func(args ...string) []byte {
		c := exec.Command("terraform", args...)
		c.Dir, c.Env = dir, env
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Run(); err != nil {
			b.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.Bytes()
	}
	run("init", "-input=false", "-no-color")

	logPath := filepath.Join(f.Dir, "localfleet.log")
	before := fileSize(logPath)
	hub.reset()
	metered := resetMeter(b, f)
	start := time.Now()
	out := run("plan", "-input=false", "-no-color", "-lock=false")
	wall := time.Since(start)

	res := planResult{wall: wall, peakRSS: peakRSS(b, cmd.Process.Pid), lines: planLines(out), text: out}
	if metered {
		res.arm = meterStats(b, f)
	}
	res.hubRequests = hub.summary()
	res.fleetRequests = fleetRequests(b, logPath, before)
	return res
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// peakRSS is the process's VmHWM (peak resident set size).
func peakRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM")
	return 0
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

// planLines counts the lines of each resource's block in the plan text
// ("  # fleet_x.y will be created" up to the block's closing brace).
func planLines(out []byte) map[string]int {
	lines := strings.Split(string(out), "\n")
	header := regexp.MustCompile(`^  # (\S+) (will be|must be)`)
	res := map[string]int{}
	for i := 0; i < len(lines); i++ {
		m := header.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		n := 1
		for j := i + 1; j < len(lines); j++ {
			n++
			if lines[j] == "    }" {
				i = j
				break
			}
		}
		res[m[1]] = n
	}
	return res
}

// emulatorRequest is a request line of the emulator's log: "GET /path -> 200 (1ms)".
var emulatorRequest = regexp.MustCompile(`(GET|PUT|POST|PATCH|DELETE|HEAD) (/\S*) -> `)

// fleetRequests classifies the Fleet API and AKS requests the emulator logged after offset.
func fleetRequests(b *testing.B, logPath string, offset int64) string {
	fh, err := os.Open(logPath)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.Seek(offset, 0); err != nil {
		b.Fatal(err)
	}
	counts := map[string]int{}
	total := 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := emulatorRequest.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(m[2], "/_emulator/") { // the bench's own admin requests
			continue
		}
		total++
		counts[requestClass(m[1], m[2])]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

var segment = regexp.MustCompile(`/(managedClusters|members|updateStrategies|updateRuns|autoUpgradeProfiles|fleets|locations|maintenanceConfigurations)/[^/]+`)

// requestClass names a request by its path with the names taken out.
func requestClass(method, path string) string {
	p := strings.ToLower(path)
	switch {
	case strings.Contains(p, "/oauth2/") || strings.Contains(p, "openid-configuration"):
		return "token"
	case strings.Contains(p, "/metadata/endpoints"):
		return "metadata"
	}
	if i := strings.Index(path, "/providers/"); i >= 0 {
		path = path[i+len("/providers/"):]
	}
	path = segment.ReplaceAllString(path, "/$1/*")
	return method + " " + path
}

// hubCounter is a plain-HTTP proxy in front of the hub, given to the provider as hub.host, that
// counts what the provider asks of the hub.
type hubCounter struct {
	url    string
	mu     sync.Mutex
	counts map[string]int
}

func newHubCounter(b *testing.B, cfg *rest.Config) *hubCounter {
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		b.Fatal(err)
	}
	hc := &hubCounter{counts: map[string]int{}}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: transport}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hc.mu.Lock()
		hc.counts[r.Method+" "+hubPath(r.URL.Path)]++
		hc.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	hc.url = srv.URL
	return hc
}

// hubPath keeps a path's resource type and drops object names.
func hubPath(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) >= 4 && parts[0] == "apis" {
		if len(parts) > 4 {
			return "/" + strings.Join(parts[:4], "/") + "/{name}"
		}
		return "/" + strings.Join(parts[:4], "/")
	}
	return p
}

func (hc *hubCounter) reset() {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	hc.counts = map[string]int{}
}

func (hc *hubCounter) summary() string {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	total := 0
	keys := make([]string, 0, len(hc.counts))
	for k, n := range hc.counts {
		keys = append(keys, k)
		total += n
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", hc.counts[k], k))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

// ---- report ----

const (
	tableStart  = "<!-- bench:start (written by `make bench`) -->"
	tableEnd    = "<!-- bench:end -->"
	sampleStart = "<!-- bench-sample:start (written by `make bench`) -->"
	sampleEnd   = "<!-- bench-sample:end -->"
)

// previewSample is the `preview` attribute of each resource as `terraform plan` shows it.
func previewSample(plan []byte, addrs ...string) string {
	lines := strings.Split(string(plan), "\n")
	var out strings.Builder
	for _, addr := range addrs {
		in, copying := false, false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "  # "+addr+" "):
				in = true
				out.WriteString(l + "\n")
			case in && strings.HasPrefix(l, "      + preview "):
				copying = true
				out.WriteString(l + "\n")
			case copying:
				out.WriteString(l + "\n")
				if l == "        }" {
					in, copying = false, false
				}
			}
		}
		out.WriteString("\n")
	}
	return out.String()
}

func writeReport(b *testing.B, root string, rep *report) {
	var t strings.Builder
	t.WriteString(tableStart + "\n")
	fmt.Fprintf(&t, "Measured by `make bench` on %s (%s, %d CPUs):\n\n", time.Now().UTC().Format("2006-01-02"), hostDescription(), cpus())
	t.WriteString("| what | measured | bar |\n|---|---|---|\n")
	for _, r := range rep.rows {
		fmt.Fprintf(&t, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	t.WriteString(tableEnd)
	table := t.String()

	results := "# Benchmark results\n\nWritten by `make bench` (internal/bench). What each figure compares with is said in the row.\n\n" + table + "\n"
	if err := os.WriteFile(filepath.Join(root, "bench", "results.md"), []byte(results), 0o644); err != nil {
		b.Fatal(err)
	}
	sample := sampleStart + "\n```\n" + rep.sample + "```\n" + sampleEnd
	// The registry guide (its template and the page make docs generated from it) has the table and the
	// sample plan; the README the table.
	for _, p := range []string{"templates/guides/how-previews-are-verified.md.tmpl", "docs/guides/how-previews-are-verified.md"} {
		replaceBetween(b, filepath.Join(root, p), tableStart, tableEnd, table)
		replaceBetween(b, filepath.Join(root, p), sampleStart, sampleEnd, sample)
	}
	replaceBetween(b, filepath.Join(root, "README.md"), tableStart, tableEnd, table)
	b.Log("\n" + table)
}

// replaceBetween replaces the section from start to end (markers included) with text.
func replaceBetween(b *testing.B, path, start, end, text string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		b.Fatalf("%s has no %q … %q section", path, start, end)
	}
	s = s[:i] + text + s[j+len(end):]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
}

func hostDescription() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown CPU"
}

func cpus() int {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "processor\t:")
}

// jsonString quotes s for HCL.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ---- configurations ----

func runtimeScheme(b *testing.B) *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, placementv1.AddToScheme} {
		if err := add(s); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// benchStages are the rings of bench/fleet-*.yaml's groups: 3 stages, 6 groups.
const benchStages = `
  stage {
    name                        = "canary"
    after_stage_wait_in_seconds = 3600
    group {
      name = "canary"
    }
  }
  stage {
    name                        = "early"
    after_stage_wait_in_seconds = 3600
    group {
      name = "early-1"
    }
    group {
      name = "early-2"
    }
  }
  stage {
    name = "broad"
    group {
      name = "broad-1"
    }
    group {
      name = "broad-2"
    }
    group {
      name = "broad-3"
    }
  }`

// canaryStage is one stage of the canary group.
const canaryStage = `
  stage {
    name = "canary"
    group {
      name = "canary"
    }
  }`

// placementPolicies are the mixed policies of the configuration's placements.
var placementPolicies = []string{`{
    placement_type     = "PickN"
    number_of_clusters = 100
    preferred_cluster_selector {
      weight = 40
      labels = { env = "prod" }
    }
    preferred_cluster_selector {
      weight = 30
      property_sorter {
        name       = "resources.kubernetes-fleet.io/available-cpu"
        sort_order = "Descending"
      }
    }
    preferred_cluster_selector {
      weight = 20
      property_sorter {
        name       = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
  }`, `{
    placement_type     = "PickN"
    number_of_clusters = 25
    topology_spread_constraint {
      topology_key = "fleet.azure.com/location"
    }
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }`, `{
    required_cluster_selector {
      property_expression {
        name     = "resources.kubernetes-fleet.io/available-cpu"
        operator = "Ge"
        values   = ["8"]
      }
    }
  }`, `{
    placement_type = "PickFixed"
    cluster_names  = ["member-0001", "member-0500", "member-0999"]
  }`, `{
    placement_type     = "PickN"
    number_of_clusters = 5
    toleration {
      key   = "dedicated"
      value = "gpu"
    }
    preferred_cluster_selector {
      weight = 40
      property_sorter {
        name       = "resources.kubernetes-fleet.io/available-memory"
        sort_order = "Ascending"
      }
    }
  }`,
}

func providerBlock(hubURL string) string {
	return fmt.Sprintf("terraform {\n  required_providers {\n    fleet = { source = \"fleetops/fleet\" }\n  }\n}\n\nprovider \"fleet\" {\n  hub {\n    host = %s\n  }\n}\n", jsonString(hubURL))
}

const runBlock = `
resource "fleet_update_run" "all" {
  name = "bench-all"
%s
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.32.5"
    }
    node_image_selection {
      type = "Latest"
    }
  }
}
`

// config1k: 20 placements, one strategy, one run over every member, one profile and fleet_members.
func config1k(hubURL string) string {
	return providerBlock(hubURL) + config1kBody("")
}

// config1kBody is config1k's resources; with an alias, each is named and
// placed on provider fleet.<alias> (the 10-alias configuration, armlimits_test.go).
func config1kBody(alias string) string {
	var b strings.Builder
	pfx, prov := "", ""
	if alias != "" {
		pfx, prov = alias+"_", "\n  provider = fleet."+alias
	}
	fmt.Fprintf(&b, "\ndata \"fleet_members\" \"%sall\" {%s\n}\n", pfx, prov)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "\nresource \"fleet_placement\" \"%sp%d\" {%s\n  name = \"%sbench-%d\"\n  resource_selector {\n    version = \"v1\"\n    kind    = \"Namespace\"\n    name    = \"app-%d\"\n  }\n  policy %s\n}\n",
			pfx, i, prov, strings.ReplaceAll(pfx, "_", "-"), i, i, placementPolicies[i%len(placementPolicies)])
	}
	fmt.Fprintf(&b, "\nresource \"fleet_update_strategy\" \"%srings\" {%s\n  name = \"%srings\"%s\n}\n", pfx, prov, strings.ReplaceAll(pfx, "_", "-"), benchStages)
	fmt.Fprintf(&b, strings.Replace(strings.Replace(runBlock, `"all" {`, `"`+pfx+`all" {`+prov, 1), `"bench-all"`, `"`+strings.ReplaceAll(pfx, "_", "-")+`bench-all"`, 1), acctest.StagesOf("fleet_update_strategy."+pfx+"rings"))
	fmt.Fprintf(&b, "\nresource \"fleet_auto_upgrade_profile\" \"%sstable\" {%s\n  name    = \"%sstable\"\n  channel = \"Stable\"\n}\n", pfx, prov, strings.ReplaceAll(pfx, "_", "-"))
	return b.String()
}

// config10k: one PickN placement and one update run over 10,000 members.
func config10k(hubURL string) string {
	var b strings.Builder
	b.WriteString(providerBlock(hubURL))
	fmt.Fprintf(&b, "\nresource \"fleet_placement\" \"p\" {\n  name = \"bench\"\n  resource_selector {\n    version = \"v1\"\n    kind    = \"Namespace\"\n    name    = \"app\"\n  }\n  policy %s\n}\n", placementPolicies[0])
	fmt.Fprintf(&b, runBlock, benchStages)
	return b.String()
}
