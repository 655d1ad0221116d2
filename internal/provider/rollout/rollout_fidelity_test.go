package rollout

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
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
	"github.com/hashicorp/terraform-plugin-framework/types"
	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// TestRolloutFidelityRealPath is the update-run fidelity figure on the
// provider's real path (SPEC §8, issue #11 item 1). For each run the preview
// is what fleet_update_run's ModifyPlan computes (runPreview over the live view
// of a session.Session on the emulator's HTTPS endpoint, ReadRolloutFleetFor, the
// provider's own model with preview_detail = "full"), taken before the run
// exists; nothing of the emulator's fleet file (durations, planned failures,
// node image lists, releases) reaches it. The run is then created, skipped
// and started through the Fleet API as the provider's apply does, the clock
// is moved, gates are approved as soon as they are reached (the preview's
// assumption), releases are posted during some runs (POST
// /_emulator/releases), and what happened is read back over HTTP: member
// states and messages, upgrade start order, the clusters' versions and
// node images afterwards, the run's state.
//
// Every difference is counted and classified exactly, by counterfactual:
// the provider's own plan input is given, one kind at a time, what the
// emulator knew and no API tells (the node images AKS's list hides, since it
// holds each region's latest only; the release during the run; upgrade
// durations; planned failures), and a difference belongs to the first kind
// whose addition makes it disappear. A difference none removes is an error
// (the preview was wrong with what it reads) and fails the test.
func TestRolloutFidelityRealPath(t *testing.T) {
	const fleets = 10
	st := realPathFigure(t, 1, fleets, false)
	if st.runs < 100 {
		t.Fatalf("only %d runs compared", st.runs)
	}
	// The generated mix must cover what the issue asks for.
	for _, w := range []string{"open", "opens_soon", "none", "closed"} {
		if st.windows[w] == 0 {
			t.Errorf("no member previewed with window %s: %v", w, st.windows)
		}
	}
	for _, a := range []string{"upgrade", "skip", "pending", "fail"} {
		if st.actions[a] == 0 {
			t.Errorf("no member previewed with action %s: %v", a, st.actions)
		}
	}
	if st.releaseRuns == 0 || st.failureRuns == 0 {
		t.Errorf("%d runs with releases, %d with failures: the generator must produce both", st.releaseRuns, st.failureRuns)
	}
	// What the provider could know and still got wrong fails the test.
	if n := st.classes[classError]; n > 0 {
		t.Errorf("%d mismatches the provider could have avoided with what it reads", n)
	}
}

// TestRolloutFidelityRealPathDroppedImages is the same figure on fleets with a region that has
// dropped its older node images (australiaeast lists one image per type, newer than westeurope's
// newest; its members run images it no longer offers). AKS's list shows each region's latest only,
// and the preview assumes a region still offers the older images another region lists or its members
// run (view.RolloutFleet): here that assumption is wrong. Every node-image mismatch must be under the
// preview's warning about assumed images, and none may be an error.
func TestRolloutFidelityRealPathDroppedImages(t *testing.T) {
	const fleets = 4
	st := realPathFigure(t, 11, fleets, true)
	if st.runs < 40 {
		t.Fatalf("only %d runs compared", st.runs)
	}
	if st.assumedImageRuns == 0 {
		t.Errorf("no preview warned about an assumed node image: the generator must produce runs that rely on one")
	}
	if n := st.classes[classRegionImages]; n == 0 {
		t.Errorf("no node-image mismatch: the fleets must include the case the assumption gets wrong")
	} else if w := st.warned[classRegionImages]; w != n {
		t.Errorf("%d of %d node-image mismatches were not under the preview's warning about assumed images", n-w, n)
	}
	if n := st.classes[classError]; n > 0 {
		t.Errorf("%d mismatches the provider could have avoided with what it reads", n)
	}
}

// realPathFigure runs runsPerFleet runs on each of fleets generated fleets from seed first on (with a
// region that dropped its older images when dropped) and logs the figure.
func realPathFigure(t *testing.T, first uint64, fleets int, dropped bool) *realPathStats {
	t.Helper()
	const runsPerFleet = 12
	st := &realPathStats{classes: map[string]int{}, outcomes: map[string]int{}, windows: map[string]int{}, actions: map[string]int{}, kinds: map[string]int{}, warned: map[string]int{}, examples: map[string][]string{}}
	for seed := first; seed < first+uint64(fleets); seed++ {
		rf := newRealPathFleet(t, seed, dropped)
		for k := range runsPerFleet {
			rf.run(t, k, st)
		}
	}
	classes := make([]string, 0, len(st.classes))
	for c := range st.classes {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var b strings.Builder
	for _, c := range classes {
		fmt.Fprintf(&b, "\n  %-62s %4d (%d under a warning of the preview)  e.g. %s", c, st.classes[c], st.warned[c], strings.Join(st.examples[c], " | "))
	}
	t.Logf("real-path fidelity (dropped older images: %v): %d runs on %d fleets, %d members compared; %d runs match in full; %d mismatches by class:%s\n"+
		"  runs with a release after the plan %d, with an unannounced failure %d, previewing an image AKS's list does not show %d; outcomes %v; windows at plan %v; actions %v; mismatch kinds %v",
		dropped, st.runs, fleets, st.members, st.cleanRuns, st.total(), b.String(), st.releaseRuns, st.failureRuns, st.assumedImageRuns, st.outcomes, st.windows, st.actions, st.kinds)
	return st
}

const (
	classError        = "error: the preview was wrong with what it reads"
	classRelease      = "unknowable at plan: a release during the run"
	classFailure      = "unknowable at plan: an upgrade failed (no API announces it)"
	classTiming       = "unknowable at plan: upgrade durations (no API announces them)"
	classRegionImages = "unknowable at plan: node images AKS's list does not show (it holds each region's latest)"
)

type realPathStats struct {
	runs, members, cleanRuns, releaseRuns, failureRuns int
	assumedImageRuns                                   int // runs whose preview relies on an image AKS's list does not show
	classes, outcomes, windows, actions, kinds         map[string]int
	examples                                           map[string][]string
	warned                                             map[string]int // mismatches the preview's warnings announce
}

func (s *realPathStats) total() int {
	n := 0
	for _, v := range s.classes {
		n += v
	}
	return n
}

const (
	rpUbuntu = "AKSUbuntu-2204gen2containerd"
	rpAzl    = "AKSAzureLinux-V2gen2"
)

// realPathFleet is an in-process emulator reached over HTTPS, whose clock
// the test moves, with a harness client for what apply and a user do.
type realPathFleet struct {
	seed  uint64
	rng   *rand.Rand
	file  *fleetfile.File
	srv   *emulator.Server
	man   *simclock.Manual
	fleet fleetapi.FleetID
	http  *http.Client
	fc    *fleetapi.Client // the harness's: create, skip, start, approve, read
	ac    *aks.Client
	// offered is what each region offers now, as the test posted or
	// generated it (for classifying, never for the preview): image type →
	// versions, and Kubernetes versions.
	offeredImages map[string]map[string][]string
}

func newRealPathFleet(t *testing.T, seed uint64, dropped bool) *realPathFleet {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed*0x51ed27))
	gen := generateRealPathFleet(rng, dropped)
	b, err := yaml.Marshal(gen)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleetfile.Parse(b)
	if err != nil {
		t.Fatalf("generated fleet %d: %v\n%s", seed, err, b)
	}
	man := simclock.NewManual(time.Unix(0, 0))
	srv, err := emulator.New(emulator.Config{File: f, Clock: simclock.New(f.Clock.Start, 1, man.Now), TenantID: "t", ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CACertPEM())
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	opts := azcore.ClientOptions{
		Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: srv.URL() + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: srv.URL(), Audience: srv.URL() + "/"},
		}},
		Transport:       hc,
		PerCallPolicies: []policy.Policy{noRetryAfter{}},
	}
	cred, err := azidentity.NewClientSecretCredential("t", "c", "s", &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	rf := &realPathFleet{seed: seed, rng: rng, file: f, srv: srv, man: man, http: hc,
		fleet:         fleetapi.FleetID{SubscriptionID: f.Fleet.SubscriptionID, ResourceGroupName: f.Fleet.ResourceGroup, Name: f.Fleet.Name},
		offeredImages: map[string]map[string][]string{}}
	if rf.fc, err = fleetapi.NewClientWithOptions(cred, &arm.ClientOptions{ClientOptions: opts}, nil); err != nil {
		t.Fatal(err)
	}
	rf.ac = aks.NewClientWithOptions(f.Fleet.SubscriptionID, cred, &arm.ClientOptions{ClientOptions: opts})
	for name, r := range f.Regions {
		rf.offeredImages[name] = map[string][]string{}
		for fam, vs := range r.NodeImages {
			rf.offeredImages[name][fam] = append([]string{}, vs...)
		}
	}
	return rf
}

// noRetryAfter drops Retry-After from the harness's successful answers: the
// emulator's operations finish at once and its clock is the test's.
type noRetryAfter struct{}

func (noRetryAfter) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode < 300 {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

// generateRealPathFleet draws a fleet whose regions offer Kubernetes versions
// and node images newer than any member runs (the newest of each list is
// never drawn for a member), with windows of every kind, upgrade durations
// from 5 minutes to 2 hours and about one planned failure in fifteen. With dropped, a fourth region,
// australiaeast, offers only one image per type (as a region that has dropped older images, the case
// AKS's latest-only list cannot tell from one that keeps them), its Ubuntu image newer than
// westeurope's newest; its members run older images it no longer offers.
func generateRealPathFleet(rng *rand.Rand, dropped bool) *fleetfile.File {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	f := &fleetfile.File{
		Fleet: fleetfile.Fleet{Name: "realpath", SubscriptionID: "00000000-0000-0000-0000-000000000001", ResourceGroup: "rg-fleet", Location: "eastus"},
		Clock: fleetfile.Clock{Start: t0, Speed: 1},
		Regions: map[string]fleetfile.Region{
			"eastus": {
				KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1", "1.33.3"},
				NodeImages:         map[string][]string{rpUbuntu: {"202509.01.0", "202510.01.0", "202511.04.0", "202512.02.0"}, rpAzl: {"202510.01.0", "202511.04.0"}},
			},
			"westeurope": {
				KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
				NodeImages:         map[string][]string{rpUbuntu: {"202509.01.0", "202510.01.0", "202511.04.0"}, rpAzl: {"202510.01.0", "202511.04.0"}},
			},
			"japaneast": {
				KubernetesVersions: []string{"1.31.9", "1.32.5"},
				PreviewVersions:    []string{"1.33.1"},
				NodeImages:         map[string][]string{rpUbuntu: {"202509.01.0", "202510.01.0", "202511.04.0"}},
			},
		},
	}
	locations := []string{"eastus", "eastus", "westeurope", "westeurope", "japaneast"}
	// The images australiaeast's members run: older ones it no longer offers.
	history := map[string][]string{rpUbuntu: {"202509.01.0", "202510.01.0", "202511.04.0"}, rpAzl: {"202510.01.0"}}
	if dropped {
		f.Regions["australiaeast"] = fleetfile.Region{
			KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
			NodeImages:         map[string][]string{rpUbuntu: {"202512.02.0"}, rpAzl: {"202511.04.0"}},
		}
		locations = append(locations, "australiaeast", "australiaeast")
	}
	groups := []string{"canary", "prod", "prod", "batch", "batch", "canary", "prod", "batch", "prod", "canary", ""}
	window := func() *fleetfile.MaintenanceWindow {
		w := &fleetfile.MaintenanceWindow{StartTime: fmt.Sprintf("%02d:00", rng.IntN(24)), DurationHours: 4 + rng.IntN(9), StartDate: "2026-11-01"}
		switch rng.IntN(10) {
		case 0, 1, 2:
			return nil
		case 3, 4, 5, 6, 7:
			w.Daily = true
		default:
			w.Weekly = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}[rng.IntN(7)]
		}
		return w
	}
	durations := []time.Duration{5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour}
	n := 6 + rng.IntN(5)
	for i := range n {
		loc := locations[rng.IntN(len(locations))]
		kube := []string{"1.31.9", "1.32.5", "1.32.5", "1.32.5", "1.33.1", "1.33.1"}[rng.IntN(6)]
		m := fleetfile.Member{
			Name: fmt.Sprintf("m%02d", i), Group: groups[rng.IntN(len(groups))], Location: loc, KubernetesVersion: kube,
			MaintenanceWindow: window(),
			Upgrade:           fleetfile.Upgrade{Duration: fleetfile.Duration{Duration: durations[rng.IntN(len(durations))]}},
		}
		if rng.IntN(3) == 0 {
			m.NodeOSMaintenanceWindow = window()
		}
		if rng.IntN(10) == 0 {
			m.Upgrade.Fail, m.Upgrade.Message = true, fmt.Sprintf("planned failure: %s could not drain its nodes", m.Name)
		}
		for p := range 1 + rng.IntN(2) {
			family := rpUbuntu
			if p == 1 && loc != "japaneast" {
				family = rpAzl
			}
			vs := f.Regions[loc].NodeImages[family]
			vs = vs[:len(vs)-1] // the region's newest image is on no member
			if loc == "australiaeast" {
				vs = history[family]
			}
			m.NodePools = append(m.NodePools, fleetfile.NodePool{Name: fmt.Sprintf("pool%d", p), Count: 1 + rng.IntN(3), NodeImage: family + "-" + vs[rng.IntN(len(vs))]})
		}
		f.Members = append(f.Members, m)
	}
	return f
}

// drawPlan draws a fleet_update_run configuration as a user writes it.
func (rf *realPathFleet) drawPlan(t *testing.T) (updateRunModel, string) {
	rng := rf.rng
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	plan := updateRunModel{FleetID: types.StringValue(rf.fleet.String()), UpdateStrategyID: types.StringNull()}
	mcu := &mcuModel{Upgrade: &upgradeModel{KubernetesVersion: types.StringNull()}}
	switch rng.IntN(3) {
	case 0:
		mcu.Upgrade.Type = types.StringValue("Full")
	case 1:
		mcu.Upgrade.Type = types.StringValue("ControlPlaneOnly")
	default:
		mcu.Upgrade.Type = types.StringValue("NodeImageOnly")
	}
	if mcu.Upgrade.Type.ValueString() != "NodeImageOnly" {
		// 1.33.3: in eastus only; 1.33.4: released during some runs; 1.34.0: never.
		mcu.Upgrade.KubernetesVersion = types.StringValue(pick("1.32.5", "1.33.1", "1.33.1", "1.33.1", "1.33.3", "1.33.3", "1.33.4", "1.34.0", "1.31.9"))
	}
	switch rng.IntN(4) {
	case 0:
	case 1:
		mcu.NodeImageSelection = &nisModel{Type: types.StringValue("Latest")}
	case 2:
		mcu.NodeImageSelection = &nisModel{Type: types.StringValue("Consistent")}
	default:
		mcu.NodeImageSelection = &nisModel{Type: types.StringValue("Custom"), CustomVersions: []types.String{types.StringValue(rpUbuntu + "-" + pick("202511.04.0", "202512.02.0", "202601.01.0", "202510.01.0"))}}
		if rng.IntN(2) == 0 {
			mcu.NodeImageSelection.CustomVersions = append(mcu.NodeImageSelection.CustomVersions, types.StringValue(rpAzl+"-"+pick("202511.04.0", "202512.02.0")))
		}
	}
	plan.ManagedClusterUpdate = mcu
	var groups []string
	seen := map[string]bool{}
	for _, m := range rf.file.Members {
		if m.Group != "" && !seen[m.Group] {
			seen[m.Group] = true
			groups = append(groups, m.Group)
		}
	}
	strategyName := ""
	if rng.IntN(4) != 0 && len(groups) > 0 {
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		if len(groups) > 1 && rng.IntN(6) == 0 {
			groups = groups[1:]
		}
		gate := func(name string) []gateModel {
			if rng.IntN(6) != 0 {
				return nil
			}
			return []gateModel{{Type: types.StringValue("Approval"), DisplayName: types.StringValue(name)}}
		}
		nStages := 1 + rng.IntN(min(3, len(groups)))
		for i := range nStages {
			st := stageModel{Name: types.StringValue(fmt.Sprintf("s%d", i+1)), AfterStageWaitInSeconds: types.Int64Null(), BeforeGates: gate("before"), AfterGates: gate("after")}
			if w := []int64{0, 0, 600, 3600, 7200}[rng.IntN(5)]; w > 0 {
				st.AfterStageWaitInSeconds = types.Int64Value(w)
			}
			for j := i; j < len(groups); j += nStages {
				st.Groups = append(st.Groups, groupModel{Name: types.StringValue(groups[j]), BeforeGates: gate("before " + groups[j]), AfterGates: gate("after " + groups[j])})
			}
			plan.Stages = append(plan.Stages, st)
		}
		if rng.IntN(3) == 0 {
			strategyName = "strategy"
		}
	}
	// User skips, applied before the run starts (as apply does on create).
	if rng.IntN(5) == 0 {
		if len(plan.Stages) > 0 && rng.IntN(2) == 0 {
			g := plan.Stages[0].Groups[rng.IntN(len(plan.Stages[0].Groups))].Name
			plan.Skip = []skipModel{{Type: types.StringValue("Group"), Name: g}}
		} else {
			// A member the run holds (one whose group a stage lists, or any without a strategy).
			inRun := map[string]bool{}
			for _, st := range plan.Stages {
				for _, g := range st.Groups {
					inRun[g.Name.ValueString()] = true
				}
			}
			var cands []string
			for _, m := range rf.file.Members {
				if len(plan.Stages) == 0 || inRun[m.Group] {
					cands = append(cands, m.Name)
				}
			}
			plan.Skip = []skipModel{{Type: types.StringValue("Member"), Name: types.StringValue(cands[rng.IntN(len(cands))])}}
		}
	}
	if strategyName != "" {
		s := stagesToAPI(plan.Stages)
		res, err := harnessDone(rf.fc.BeginCreateOrUpdateUpdateStrategy(context.Background(), rf.fleet, strategyName, fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: s}}, nil))
		if err != nil {
			t.Fatal(err)
		}
		plan.Stages = nil
		plan.UpdateStrategyID = types.StringValue(res.ID)
	}
	return plan, strategyName
}

// providerPreview is ModifyPlan's preview for plan: a fresh provider process
// (session.Session on an azure.Session over the emulator's HTTPS endpoint, as
// provider.Configure builds it) at the Fleet API's time.
func (rf *realPathFleet) providerPreview(t *testing.T, plan *updateRunModel) (runPreviewModel, rollout.PlanInput, time.Time) {
	t.Helper()
	ctx := context.Background()
	sess, err := azure.NewSession(ctx, azure.Config{
		SubscriptionID: rf.file.Fleet.SubscriptionID, TenantID: "t", ClientID: "c", ClientSecret: "s",
		MetadataHost: strings.TrimPrefix(rf.srv.URL(), "https://"),
	}, azure.Options{Transport: rf.http, ProviderVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c := session.New(session.Options{Azure: sess, ListLimit: 0})
	obj, _, err := runPreview(ctx, c.View(), plan)
	if err != nil {
		t.Fatalf("fleet %d: preview: %v", rf.seed, err)
	}
	var m runPreviewModel
	if d := obj.As(ctx, &m, shared.ObjectAsOptions); d.HasError() {
		t.Fatalf("preview: %v", d)
	}
	// The same input again, for the classification's counterfactuals (the
	// process's reads are cached: nothing is read twice).
	in, _, err := planInput(ctx, c.View(), plan)
	if err != nil {
		t.Fatal(err)
	}
	return m, in, c.FleetNow()
}

// release is a version the test makes available during a run.
type release struct {
	at                  time.Time
	region, kube, image string
	posted              bool
}

func (rf *realPathFleet) drawRelease(now time.Time) *release {
	rng := rf.rng
	if rng.IntN(3) != 0 {
		return nil
	}
	r := &release{at: now.Add(time.Duration(10+rng.IntN(24*60)) * time.Minute), region: []string{"eastus", "westeurope", "japaneast"}[rng.IntN(3)]}
	switch rng.IntN(4) {
	case 0:
		r.kube = "1.33.4"
	case 1:
		r.kube = "1.33.3"
	case 2:
		r.image = rpUbuntu + "-202601.01.0"
	default:
		r.image = rpUbuntu + "-202512.02.0"
	}
	return r
}

func (rf *realPathFleet) postRelease(t *testing.T, r *release) {
	t.Helper()
	body, _ := json.Marshal(emulator.ReleaseRequest{Region: r.region, KubernetesVersion: r.kube, NodeImage: r.image})
	resp, err := rf.http.Post(rf.srv.URL()+"/_emulator/releases", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("release %+v: %s", r, resp.Status)
	}
	r.posted = true
	if r.image != "" {
		fam, v := fleetfile.SplitNodeImage(r.image)
		if !containsString(rf.offeredImages[r.region][fam], v) {
			rf.offeredImages[r.region][fam] = append(rf.offeredImages[r.region][fam], v)
		}
	}
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// actual is what happened to a member, read over HTTP.
type actualMember struct {
	state, message, firstPending string
	clusterID                    string
	start                        *time.Time
	reached                      time.Time // the first observation that was not NotStarted
	kube                         string
	images                       map[string]string
}

func (rf *realPathFleet) run(t *testing.T, k int, st *realPathStats) {
	t.Helper()
	ctx := context.Background()
	rf.man.Advance(time.Duration(rf.rng.IntN(31)) * time.Hour)
	plan, _ := rf.drawPlan(t)
	name := fmt.Sprintf("run-%02d", k)
	plan.Name = types.StringValue(name)

	// plan: the provider's preview, before anything exists.
	pm, in, planAt := rf.providerPreview(t, &plan)
	// What the regions offered at plan (for classifying only).
	offeredAtPlan := map[string]map[string][]string{}
	for reg, fams := range rf.offeredImages {
		offeredAtPlan[reg] = map[string][]string{}
		for fam, vs := range fams {
			offeredAtPlan[reg][fam] = append([]string{}, vs...)
		}
	}

	// apply: create, skip, start — as the provider's Create and converge do.
	api := plan.toAPI()
	if _, err := harnessDone(rf.fc.BeginCreateOrUpdateUpdateRun(ctx, rf.fleet, name, api, nil)); err != nil {
		t.Fatalf("fleet %d %s: create: %v", rf.seed, name, err)
	}
	if targets := newSkipTargets(plan.Skip, nil); len(targets) > 0 {
		if _, err := harnessDone(rf.fc.BeginSkipUpdateRun(ctx, rf.fleet, name, fleetapi.SkipProperties{Targets: targets}, nil)); err != nil {
			t.Fatalf("fleet %d %s: skip: %v", rf.seed, name, err)
		}
	}
	if _, err := harnessDone(rf.fc.BeginStartUpdateRun(ctx, rf.fleet, name, nil)); err != nil {
		t.Fatalf("fleet %d %s: start: %v", rf.seed, name, err)
	}
	rel := rf.drawRelease(planAt)
	actual := map[string]*actualMember{}
	observe := func() *fleetapi.UpdateRun {
		r, err := rf.fc.GetUpdateRun(ctx, rf.fleet, name)
		if err != nil {
			t.Fatal(err)
		}
		now := rf.srv.Now()
		for _, stg := range r.Properties.Status.Stages {
			for _, g := range stg.Groups {
				for _, m := range g.Members {
					a := actual[m.Name]
					if a == nil {
						a = &actualMember{}
						actual[m.Name] = a
					}
					a.state, a.message = string(m.Status.State), m.Message
					a.start = m.Status.StartTime
					a.clusterID = m.ClusterResourceID
					if a.reached.IsZero() && m.Status.State != fleetapi.UpdateStateNotStarted {
						a.reached = now
					}
					if a.firstPending == "" && m.Status.State == fleetapi.UpdateStatePending {
						a.firstPending = m.Message
					}
				}
			}
		}
		return r
	}
	observe()
	runID := rf.fleet.ChildID("updateRuns", name)
	horizon := planAt.Add(rollout.PlanHorizon)
	for step := 0; ; step++ {
		if step > 100_000 {
			t.Fatalf("fleet %d %s: the run does not settle", rf.seed, name)
		}
		if rf.approvePending(t, runID) {
			observe()
			continue
		}
		now := rf.srv.Now()
		next, ok := rf.srv.NextWake()
		if rel != nil && !rel.posted && (!ok || !next.Before(rel.at)) && !rel.at.After(horizon) {
			if r := observe(); runEnded(r.Properties.Status.Status.State) {
				rel = nil // the run ended before the release: it did not land during the run
				break
			}
			rf.man.Advance(rel.at.Sub(now))
			rf.postRelease(t, rel)
			observe()
			continue
		}
		if !ok || next.After(horizon) {
			break
		}
		rf.man.Advance(next.Sub(now))
		observe()
	}
	done := observe()
	for _, m := range rf.file.Members {
		a := actual[m.Name]
		if a == nil {
			continue
		}
		id, err := aks.ParseClusterID(a.clusterID)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := rf.ac.GetCluster(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		a.kube = *mc.Properties.CurrentKubernetesVersion
		a.images = map[string]string{}
		for _, p := range mc.Properties.AgentPoolProfiles {
			a.images[*p.Name] = *p.NodeImageVersion
		}
	}
	rf.compare(t, name, &plan, pm, in, planAt, done, actual, rel, offeredAtPlan, st)

	// A run that waits for ever is stopped so the next one has the fleet; a
	// planned failure is cleared now and then, as an operator would fix it.
	switch done.Properties.Status.Status.State {
	case fleetapi.UpdateStateRunning, fleetapi.UpdateStatePending:
		if _, err := harnessDone(rf.fc.BeginStopUpdateRun(ctx, rf.fleet, name, nil)); err != nil {
			t.Fatalf("fleet %d %s: stop: %v", rf.seed, name, err)
		}
		for {
			next, ok := rf.srv.NextWake()
			if !ok {
				break
			}
			rf.man.Advance(next.Sub(rf.srv.Now()))
		}
	case fleetapi.UpdateStateFailed:
		for _, m := range rf.file.Members {
			if u, _ := rf.srv.MemberUpgrade(m.Name); u.Fail && rf.rng.IntN(2) == 0 {
				u.Fail = false
				rf.srv.SetMemberUpgrade(m.Name, u)
			}
		}
	}
}

// approvePending approves every Pending gate of the run (the preview approves
// a gate as soon as the run reaches it).
func (rf *realPathFleet) approvePending(t *testing.T, runID string) bool {
	t.Helper()
	ctx := context.Background()
	gates, err := rf.fc.ListGates(ctx, rf.fleet, fleetapi.GateFilter(runID, fleetapi.GateStatePending))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gates {
		if _, err := harnessDone(rf.fc.BeginApproveGate(ctx, rf.fleet, g.Name, &fleetapi.Precondition{IfMatch: g.ETag})); err != nil {
			t.Fatal(err)
		}
	}
	return len(gates) > 0
}

func harnessDone[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	return &v, err
}
