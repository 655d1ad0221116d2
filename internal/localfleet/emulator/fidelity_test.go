package emulator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// TestPreviewMatchesExecution checks the engine's consistency, not fidelity:
// rollout.Plan, given the emulator's own inputs (upgrade durations, planned
// failures, every region's images and scheduled releases — more than the
// provider ever reads), equals what the emulator, running the same engine,
// then executes. The fidelity figures are TestRolloutFidelityRealPath
// (internal/provider: the provider's own preview over HTTP) and
// TestOracleTraces (hand-written traces from the documentation). Compared: for every member, its final state, its message and when
// its upgrade started, and the run's outcome and completion time. Runs
// follow one another on each fleet, so later runs start from what earlier
// ones did. Time is driven by hand from one due instant to the next (or,
// for some runs, in jumps over several), and gates are approved as soon as
// they are reached, as the preview assumes.
func TestPreviewMatchesExecution(t *testing.T) {
	const fleets, runsPerFleet = 10, 12
	st := &fidelityStats{outcomes: map[string]int{}, finals: map[string]int{}}
	for seed := uint64(1); seed <= fleets; seed++ {
		ff := newFidelityFleet(t, seed)
		for k := range runsPerFleet {
			ff.compareRun(t, k, st)
		}
	}
	t.Logf("fidelity: %d runs on %d fleets, %d member outcomes compared, %d mismatches; run outcomes %v; member states %v; %d clock jumps over several steps",
		st.runs, fleets, st.members, st.mismatches, st.outcomes, st.finals, st.jumps)
	if st.runs < 100 || st.mismatches > 0 {
		t.Fatalf("%d runs, %d mismatches", st.runs, st.mismatches)
	}
	// The generated mix must exercise every outcome the preview can show.
	for _, o := range []string{"Completed", "Failed", "Pending"} {
		if st.outcomes[o] == 0 {
			t.Errorf("no generated run ended %s: %v", o, st.outcomes)
		}
	}
	for _, s := range []string{"Completed", "Failed", "Skipped", "Pending", "NotStarted"} {
		if st.finals[s] == 0 {
			t.Errorf("no member ended %s: %v", s, st.finals)
		}
	}
}

type fidelityStats struct {
	runs, members, mismatches, jumps int
	outcomes, finals                 map[string]int
}

const (
	fidUbuntu = "AKSUbuntu-2204gen2containerd"
	fidAzl    = "AKSAzureLinux-V2gen2"
)

// fidelityFleet is a generated fleet served by an emulator whose clock the
// test moves, with the provider's Fleet API and AKS clients.
type fidelityFleet struct {
	seed  uint64
	rng   *rand.Rand
	file  *fleetfile.File
	srv   *Server
	man   *simclock.Manual
	fleet fleetapi.FleetID
	fc    *fleetapi.Client
	ac    *aks.Client
}

func newFidelityFleet(t *testing.T, seed uint64) *fidelityFleet {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15))
	b, err := yaml.Marshal(generateUpdateFleet(rng))
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleetfile.Parse(b)
	if err != nil {
		t.Fatalf("generated fleet %d: %v\n%s", seed, err, b)
	}
	man := simclock.NewManual(time.Unix(0, 0))
	srv, err := New(Config{File: f, Clock: simclock.New(f.Clock.Start, 1, man.Now), TenantID: "t", ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CACertPEM())
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	opts := azcore.ClientOptions{
		Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: srv.URL() + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: srv.URL(), Audience: srv.URL() + "/"},
		}},
		Transport:       &http.Client{Transport: tr},
		PerCallPolicies: []policy.Policy{instantOps{}},
	}
	cred, err := azidentity.NewClientSecretCredential("t", "c", "s", &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	ff := &fidelityFleet{seed: seed, rng: rng, file: f, srv: srv, man: man,
		fleet: fleetapi.FleetID{SubscriptionID: f.Fleet.SubscriptionID, ResourceGroupName: f.Fleet.ResourceGroup, Name: f.Fleet.Name}}
	if ff.fc, err = fleetapi.NewClientWithOptions(cred, &arm.ClientOptions{ClientOptions: opts}, nil); err != nil {
		t.Fatal(err)
	}
	ff.ac = aks.NewClientWithOptions(f.Fleet.SubscriptionID, cred, &arm.ClientOptions{ClientOptions: opts})
	return ff
}

// instantOps drops Retry-After from successful answers: the emulator's
// operations finish at once.
type instantOps struct{}

func (instantOps) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode < 300 {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

// generateUpdateFleet draws a fleet: 6–10 members in three update groups
// (a few in none), three regions with different versions, node images and
// later releases, maintenance windows (none, daily, weekly; some node OS
// windows), upgrade durations from 10 minutes to 3 hours and about one
// planned failure in twelve.
func generateUpdateFleet(rng *rand.Rand) *fleetfile.File {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	later := func(maxHours int) time.Time { return t0.Add(time.Duration(1+rng.IntN(maxHours)) * time.Hour) }
	f := &fleetfile.File{
		Fleet: fleetfile.Fleet{Name: "fidelity", SubscriptionID: "00000000-0000-0000-0000-000000000001", ResourceGroup: "rg-fleet", Location: "eastus"},
		Clock: fleetfile.Clock{Start: t0, Speed: 1},
		Regions: map[string]fleetfile.Region{
			"eastus": {
				KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
				NodeImages:         map[string][]string{fidUbuntu: {"202509.01.0", "202510.01.0", "202511.04.0"}, fidAzl: {"202510.01.0", "202511.04.0"}},
				Releases: []fleetfile.Release{
					{At: later(72), KubernetesVersion: "1.33.2"},
					{At: later(96), NodeImage: fidUbuntu + "-202512.01.0"},
				},
			},
			"westeurope": {
				KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
				NodeImages:         map[string][]string{fidUbuntu: {"202509.01.0", "202510.01.0"}, fidAzl: {"202510.01.0"}},
				Releases:           []fleetfile.Release{{At: later(120), KubernetesVersion: "1.33.2"}},
			},
			"japaneast": {
				KubernetesVersions: []string{"1.31.9", "1.32.5"},
				PreviewVersions:    []string{"1.33.1"},
				NodeImages:         map[string][]string{fidUbuntu: {"202509.01.0", "202511.04.0"}},
			},
		},
	}
	locations := []string{"eastus", "eastus", "westeurope", "westeurope", "japaneast"}
	groups := []string{"canary", "prod", "prod", "batch", "batch", "canary", "prod", "batch", "prod", "canary", ""}
	window := func() *fleetfile.MaintenanceWindow {
		w := &fleetfile.MaintenanceWindow{StartTime: fmt.Sprintf("%02d:00", rng.IntN(24)), DurationHours: 4 + rng.IntN(5), StartDate: "2026-11-01"}
		switch rng.IntN(10) {
		case 0, 1, 2, 3:
			return nil
		case 4, 5, 6:
			w.Daily = true
		default:
			w.Weekly = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}[rng.IntN(7)]
		}
		return w
	}
	durations := []time.Duration{10 * time.Minute, 20 * time.Minute, 45 * time.Minute, 90 * time.Minute, 3 * time.Hour}
	n := 6 + rng.IntN(5)
	for i := range n {
		loc := locations[rng.IntN(len(locations))]
		m := fleetfile.Member{
			Name: fmt.Sprintf("m%02d", i), Group: groups[rng.IntN(len(groups))], Location: loc,
			KubernetesVersion: []string{"1.31.9", "1.32.5", "1.32.5", "1.32.5", "1.33.1", "1.33.1"}[rng.IntN(6)],
			MaintenanceWindow: window(),
			Upgrade:           fleetfile.Upgrade{Duration: fleetfile.Duration{Duration: durations[rng.IntN(len(durations))]}},
		}
		if rng.IntN(3) == 0 {
			m.NodeOSMaintenanceWindow = window()
		}
		if rng.IntN(12) == 0 {
			m.Upgrade.Fail, m.Upgrade.Message = true, fmt.Sprintf("planned failure: %s could not drain its nodes", m.Name)
		}
		for p := range 1 + rng.IntN(2) {
			family := fidUbuntu
			if p == 1 || rng.IntN(5) == 0 {
				family = fidAzl
			}
			vs := f.Regions[loc].NodeImages[family]
			if len(vs) == 0 {
				family, vs = fidUbuntu, f.Regions[loc].NodeImages[fidUbuntu]
			}
			m.NodePools = append(m.NodePools, fleetfile.NodePool{Name: fmt.Sprintf("pool%d", p), Count: 1 + rng.IntN(5), NodeImage: family + "-" + vs[rng.IntN(len(vs))]})
		}
		f.Members = append(f.Members, m)
	}
	return f
}

// drawRun draws a run over the fleet's members: no strategy, an inline one
// or a strategy resource's copy, over the groups in use (sometimes leaving
// one out), with waits, concurrency limits and gates; Full,
// ControlPlaneOnly or NodeImageOnly to the newest version a member runs,
// the next one (available, released later or never), or an older one
// (which AKS refuses for the members past it); Latest, Consistent or Custom
// images.
func (ff *fidelityFleet) drawRun(members []rollout.Member) (props fleetapi.UpdateRunProperties, strategyName string) {
	rng := ff.rng
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	u := &fleetapi.ManagedClusterUpdate{}
	switch rng.IntN(20) {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8:
		u.Upgrade.Type = fleetapi.UpgradeTypeFull
	case 9, 10, 11, 12, 13:
		u.Upgrade.Type = fleetapi.UpgradeTypeControlPlaneOnly
	default:
		u.Upgrade.Type = fleetapi.UpgradeTypeNodeImageOnly
	}
	if u.Upgrade.Type != fleetapi.UpgradeTypeNodeImageOnly {
		versions := []string{"1.31.9", "1.32.5", "1.33.1", "1.33.2", "1.34.0"}
		newest := 0
		for _, m := range members {
			for i, v := range versions {
				if v == m.KubernetesVersion && i > newest {
					newest = i
				}
			}
		}
		switch i := rng.IntN(8); {
		case i < 3:
			u.Upgrade.KubernetesVersion = versions[newest]
		case i < 7 && (newest+1 < len(versions)-1 || rng.IntN(3) == 0): // 1.34.0 never comes: now and then
			u.Upgrade.KubernetesVersion = versions[min(newest+1, len(versions)-1)]
		case i < 7:
			u.Upgrade.KubernetesVersion = versions[newest]
		default:
			u.Upgrade.KubernetesVersion = versions[rng.IntN(newest+1)]
		}
	}
	switch rng.IntN(10) {
	case 0, 1, 2:
	case 3, 4:
		u.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionLatest}
	case 5, 6, 7:
		u.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionConsistent}
	default:
		u.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionCustom, CustomNodeImageVersions: []fleetapi.NodeImageVersion{{Version: fidUbuntu + pick("-202511.04.0", "-202512.01.0", "-202510.01.0")}}}
		if rng.IntN(2) == 0 {
			u.NodeImageSelection.CustomNodeImageVersions = append(u.NodeImageSelection.CustomNodeImageVersions, fleetapi.NodeImageVersion{Version: fidAzl + "-202511.04.0"})
		}
	}
	props.ManagedClusterUpdate = u
	if rng.IntN(4) == 0 {
		return props, "" // members one by one
	}
	var groups []string
	seen := map[string]bool{}
	for _, m := range ff.file.Members {
		if m.Group != "" && !seen[m.Group] {
			seen[m.Group] = true
			groups = append(groups, m.Group)
		}
	}
	rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	if len(groups) > 1 && rng.IntN(6) == 0 {
		groups = groups[1:]
	}
	gate := func(name string) []fleetapi.GateConfiguration {
		if rng.IntN(6) != 0 {
			return nil
		}
		return []fleetapi.GateConfiguration{{DisplayName: name, Type: fleetapi.GateTypeApproval}}
	}
	s := &fleetapi.UpdateRunStrategy{}
	nStages := 1 + rng.IntN(min(3, len(groups)))
	for i := range nStages {
		st := fleetapi.UpdateStage{
			Name: fmt.Sprintf("s%d", i+1), AfterStageWaitInSeconds: []int32{0, 0, 600, 3600, 7200}[rng.IntN(5)],
			MaxConcurrency: pick("", "", "", "1", "2", "50%"), BeforeGates: gate("before"), AfterGates: gate("after"),
		}
		for j := i; j < len(groups); j += nStages {
			st.Groups = append(st.Groups, fleetapi.UpdateGroup{Name: groups[j], MaxConcurrency: pick("", "", "2", "100%"), BeforeGates: gate("before " + groups[j]), AfterGates: gate("after " + groups[j])})
		}
		s.Stages = append(s.Stages, st)
	}
	props.Strategy = s
	if rng.IntN(3) == 0 {
		return props, "strategy"
	}
	return props, ""
}

// compareRun creates, previews and executes run k and compares.
func (ff *fidelityFleet) compareRun(t *testing.T, k int, st *fidelityStats) {
	t.Helper()
	ctx := context.Background()
	ff.man.Advance(time.Duration(ff.rng.IntN(31)) * time.Hour)
	props, strategyName := ff.drawRun(ff.readMembers(t))
	if strategyName != "" {
		// The run takes the strategy resource's copy.
		s := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: *props.Strategy}}
		res, err := lroDone(ff.fc.BeginCreateOrUpdateUpdateStrategy(ctx, ff.fleet, strategyName, s, nil))
		if err != nil {
			t.Fatal(err)
		}
		props.Strategy, props.UpdateStrategyID = nil, res.ID
	}
	name := fmt.Sprintf("run-%02d", k)
	runID := ff.fleet.ChildID("updateRuns", name)
	run, err := lroDone(ff.fc.BeginCreateOrUpdateUpdateRun(ctx, ff.fleet, name, fleetapi.UpdateRun{Properties: &props}, nil))
	if err != nil {
		t.Fatalf("fleet %d %s: %v", ff.seed, name, err)
	}

	// The preview, from the fleet as the provider reads it, at the Fleet API's time.
	now := ff.srv.world.clock.Now()
	preview, err := rollout.Plan(rollout.PlanInput{
		Strategy: strategyFromAPI(run.Properties.Strategy, false), Update: updateFromAPI(*run.Properties.ManagedClusterUpdate),
		Members: ff.readMembers(t), Regions: ff.regions(),
	}, now)
	if err != nil {
		t.Fatalf("fleet %d %s: Plan: %v", ff.seed, name, err)
	}

	// The execution: start, then move the clock from one due instant to the
	// next, approving gates as soon as they are reached.
	// A Pending member's message names the next window opening, so it
	// changes as time goes; the one to compare with the preview's reason is
	// the message it had when the run reached it, seen after every step.
	firstPending := map[string]string{}
	observe := func() *fleetapi.UpdateRun {
		r, err := ff.fc.GetUpdateRun(ctx, ff.fleet, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, stg := range r.Properties.Status.Stages {
			for _, g := range stg.Groups {
				for _, m := range g.Members {
					if _, ok := firstPending[m.Name]; !ok && m.Status.State == fleetapi.UpdateStatePending {
						firstPending[m.Name] = m.Message
					}
				}
			}
		}
		return r
	}
	if _, err := lroDone(ff.fc.BeginStartUpdateRun(ctx, ff.fleet, name, nil)); err != nil {
		t.Fatalf("fleet %d %s: start: %v", ff.seed, name, err)
	}
	observe()
	// Without gates to approve, half the runs move in jumps of up to ten
	// days past the next due instant, so that one request catches up with
	// many steps (as after a long wait on a real clock).
	horizon := now.Add(rollout.PlanHorizon)
	jumps := !hasGates(run.Properties.Strategy) && ff.rng.IntN(2) == 0
	for step := 0; ; step++ {
		if step > 100_000 {
			t.Fatalf("fleet %d %s: the run does not settle", ff.seed, name)
		}
		if ff.approveNext(t, runID, run.Properties.Strategy) {
			observe()
			continue
		}
		ff.srv.world.mu.Lock()
		next, ok := ff.srv.nextWake()
		clock := ff.srv.world.clock.Now()
		ff.srv.world.mu.Unlock()
		if !ok || next.After(horizon) {
			break
		}
		if jumps {
			next = next.Add(time.Duration(ff.rng.IntN(240)) * time.Hour)
			if next.After(horizon) {
				next = horizon
			}
			st.jumps++
		}
		ff.man.Advance(next.Sub(clock))
		observe()
	}
	done := observe()
	if jumps {
		firstPending = nil // seen late: the preview's reasons are compared on the stepped runs
	}
	ff.compare(t, name, preview, done, firstPending, st)

	// A run that waits for ever is stopped so the next one has the fleet; a
	// planned failure is cleared now and then, as an operator would fix it.
	switch done.Properties.Status.Status.State {
	case fleetapi.UpdateStateRunning, fleetapi.UpdateStatePending:
		if _, err := lroDone(ff.fc.BeginStopUpdateRun(ctx, ff.fleet, name, nil)); err != nil {
			t.Fatalf("fleet %d %s: stop: %v", ff.seed, name, err)
		}
	case fleetapi.UpdateStateFailed:
		for _, m := range ff.file.Members {
			if u, _ := ff.srv.MemberUpgrade(m.Name); u.Fail && ff.rng.IntN(2) == 0 {
				u.Fail = false
				ff.srv.SetMemberUpgrade(m.Name, u)
			}
		}
	}
}

// approveNext approves the first Pending gate of the run in the order the
// preview approves them (per stage: its before gates, each group's before
// and after gates, its after gates), and reports whether there was one.
func (ff *fidelityFleet) approveNext(t *testing.T, runID string, s *fleetapi.UpdateRunStrategy) bool {
	t.Helper()
	ctx := context.Background()
	gates, err := ff.fc.ListGates(ctx, ff.fleet, fleetapi.GateFilter(runID, fleetapi.GateStatePending))
	if err != nil {
		t.Fatal(err)
	}
	if len(gates) == 0 {
		return false
	}
	rank := func(g fleetapi.Gate) int {
		p := g.Properties.Target.UpdateRunProperties
		for i, st := range s.Stages {
			if st.Name != p.Stage {
				continue
			}
			if p.Group == "" {
				if p.Timing == fleetapi.TimingBefore {
					return i * 1000
				}
				return i*1000 + 999
			}
			for j, gr := range st.Groups {
				if gr.Name == p.Group {
					r := i*1000 + 1 + 2*j
					if p.Timing == fleetapi.TimingAfter {
						r++
					}
					return r
				}
			}
		}
		t.Fatalf("gate %+v is not in the strategy", p)
		return 0
	}
	sort.SliceStable(gates, func(a, b int) bool { return rank(gates[a]) < rank(gates[b]) })
	if _, err := lroDone(ff.fc.BeginApproveGate(ctx, ff.fleet, gates[0].Name, &fleetapi.Precondition{IfMatch: gates[0].ETag})); err != nil {
		t.Fatal(err)
	}
	return true
}

// readMembers reads the fleet as the provider does: Fleet API members, their
// AKS clusters and maintenance configurations; how upgrades will behave
// comes from the emulator's plan for them (the fleet file's, as changed
// since), the preview's assumption about the future.
func (ff *fidelityFleet) readMembers(t *testing.T) []rollout.Member {
	t.Helper()
	ctx := context.Background()
	list, err := ff.fc.ListMembers(ctx, ff.fleet)
	if err != nil {
		t.Fatal(err)
	}
	var out []rollout.Member
	for _, fm := range list {
		id, err := aks.ParseClusterID(fm.Properties.ClusterResourceID)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := ff.ac.GetCluster(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		configs, err := ff.ac.ListMaintenanceConfigurations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		up, _ := ff.srv.MemberUpgrade(fm.Name)
		m := rollout.Member{
			Name: fm.Name, Group: fm.Properties.Group, Location: *mc.Location, KubernetesVersion: *mc.Properties.CurrentKubernetesVersion,
			Upgrade: rollout.UpgradeBehavior{Duration: up.Duration.Duration, Fail: up.Fail, Message: up.Message},
		}
		for _, p := range mc.Properties.AgentPoolProfiles {
			m.NodePools = append(m.NodePools, rollout.NodePool{Name: *p.Name, NodeImageVersion: *p.NodeImageVersion, KubernetesVersion: *p.CurrentOrchestratorVersion})
		}
		for _, c := range configs {
			switch *c.Name {
			case autoUpgradeSchedule:
				m.AutoUpgradeWindow = c.Properties.MaintenanceWindow
			case nodeOSUpgradeSchedule:
				m.NodeOSUpgradeWindow = c.Properties.MaintenanceWindow
			}
		}
		out = append(out, m)
	}
	return out
}

// regions are the fleet file's offerings, releases included.
func (ff *fidelityFleet) regions() map[string]rollout.Region {
	out := map[string]rollout.Region{}
	for name, r := range ff.file.Regions {
		reg := rollout.Region{KubernetesVersions: append(append([]string{}, r.KubernetesVersions...), r.PreviewVersions...), NodeImages: r.NodeImages}
		for _, rel := range r.Releases {
			reg.Releases = append(reg.Releases, rollout.Release{At: rel.At, KubernetesVersion: rel.KubernetesVersion, NodeImageVersion: rel.NodeImage})
		}
		out[name] = reg
	}
	return out
}

// memberOutcome is what happened (or, from the preview, will happen) to a member.
type memberOutcome struct {
	State   string
	Message string
	Start   time.Time // zero: never started (or, from the preview, not said)
}

// expectedOutcomes reads the preview: the action when the run reaches each
// member, refined by what the reason says happens later ("expected to start
// at", "then fails") and by the failures the warnings announce.
func expectedOutcomes(p rollout.Preview) map[string]memberOutcome {
	failed := map[string]string{}
	for _, w := range p.MemberWarnings {
		if w.Kind == rollout.MemberFails {
			failed[w.Member] = w.Detail
		}
	}
	outcomeOf := func(name string) memberOutcome {
		if msg, ok := failed[name]; ok {
			return memberOutcome{State: "Failed", Message: msg}
		}
		return memberOutcome{State: "Completed"}
	}
	out := map[string]memberOutcome{}
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				var o memberOutcome
				switch {
				case m.Action == rollout.ActionUpgrade:
					o = outcomeOf(m.Name)
					o.Start = m.ReachedAt
				case m.Action == rollout.ActionSkip:
					o = memberOutcome{State: "Skipped", Message: m.Reason}
				case m.Action == rollout.ActionFail:
					o = memberOutcome{State: "Failed", Message: m.Reason, Start: m.ReachedAt}
				case strings.HasPrefix(m.Reason, "not reached: "):
					o = memberOutcome{State: "NotStarted"}
				case strings.Contains(m.Reason, "; expected to start at "):
					_, at, _ := strings.Cut(m.Reason, "; expected to start at ")
					o = outcomeOf(m.Name)
					o.Start, _ = time.Parse(time.RFC3339, at)
				case strings.Contains(m.Reason, "; then fails: "):
					_, msg, _ := strings.Cut(m.Reason, "; then fails: ")
					o = memberOutcome{State: "Failed", Message: msg}
				default:
					// Pending to the end; a run that failed stops its Pending members.
					o = memberOutcome{State: "Pending", Message: m.Reason}
					if p.Outcome == rollout.Failed {
						o.State = "Stopped"
					}
				}
				out[m.Name] = o
			}
		}
	}
	return out
}

func (ff *fidelityFleet) compare(t *testing.T, name string, p rollout.Preview, run *fleetapi.UpdateRun, firstPending map[string]string, st *fidelityStats) {
	t.Helper()
	st.runs++
	status := run.Properties.Status
	got := string(status.Status.State)
	if got == "Running" {
		got = "Pending" // waits beyond the horizon, or for ever
	}
	st.outcomes[got]++
	mismatch := func(format string, args ...any) {
		st.mismatches++
		if st.mismatches <= 20 {
			t.Errorf("fleet %d %s: "+format, append([]any{ff.seed, name}, args...)...)
		}
	}
	if got != string(p.Outcome) {
		mismatch("run outcome: preview %s, emulator %s", p.Outcome, got)
	}
	if p.Outcome == rollout.Completed && (status.Status.CompletedTime == nil || !status.Status.CompletedTime.Equal(p.EstimatedCompletion)) {
		mismatch("completion: preview %s, emulator %v", p.EstimatedCompletion, status.Status.CompletedTime)
	}
	want := expectedOutcomes(p)
	seen := 0
	for _, stg := range status.Stages {
		for _, g := range stg.Groups {
			for _, m := range g.Members {
				seen++
				st.members++
				actual := memberOutcome{State: string(m.Status.State), Message: m.Message}
				if m.Status.StartTime != nil {
					actual.Start = *m.Status.StartTime
				}
				st.finals[actual.State]++
				exp, ok := want[m.Name]
				if !ok {
					mismatch("member %s: not in the preview; emulator %+v", m.Name, actual)
					continue
				}
				if exp.Start.IsZero() && exp.State == "Failed" {
					actual.Start = time.Time{} // the preview does not say when a Pending member fails
				}
				if actual.State == "Pending" || actual.State == "Stopped" {
					if msg, ok := firstPending[m.Name]; ok {
						actual.Message = msg
					} else if firstPending == nil {
						actual.Message = exp.Message
					}
				}
				if exp.State != actual.State || exp.Message != actual.Message || !exp.Start.Equal(actual.Start) {
					mismatch("member %s:\n  preview  %+v\n  emulator %+v", m.Name, exp, actual)
				}
			}
		}
	}
	if seen != len(want) {
		mismatch("%d members in the preview, %d in the run", len(want), seen)
	}
}

func hasGates(s *fleetapi.UpdateRunStrategy) bool {
	if s == nil {
		return false
	}
	for _, st := range s.Stages {
		if len(st.BeforeGates)+len(st.AfterGates) > 0 {
			return true
		}
		for _, g := range st.Groups {
			if len(g.BeforeGates)+len(g.AfterGates) > 0 {
				return true
			}
		}
	}
	return false
}

func lroDone[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	return &v, err
}
