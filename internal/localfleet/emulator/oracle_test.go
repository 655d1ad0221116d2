package emulator_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// TestOracleTraces is the update-run oracle (issue #11 item 2, #22 item 8): traces
// written by hand from Microsoft's update-run, auto-upgrade and update-strategy
// documentation (testdata/oracle/*.yaml; each quotes the rules of rules.yaml it
// checks, TestOracleRules holds every rule to a trace), not derived
// from the rollout engine. This file shares no code with the engine: each
// trace is a small fleet, a run, and steps of actions (start, stop, skip,
// approve, release, advance the clock) with the states expected over HTTP
// after each step; the emulator is reached only through the Fleet API, AKS
// and its admin endpoints.
func TestOracleTraces(t *testing.T) {
	files, err := filepath.Glob("testdata/oracle/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	traces, steps, mismatches := 0, 0, 0
	for _, file := range files {
		if filepath.Base(file) == oracleRulesFile {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Traces []oracleTrace `json:"traces"`
		}
		if err := yaml.UnmarshalStrict(b, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, tr := range doc.Traces {
			traces++
			s, m := runOracleTrace(t, filepath.Base(file), tr)
			steps += s
			mismatches += m
		}
	}
	t.Logf("oracle: %d traces, %d steps, %d mismatches", traces, steps, mismatches)
	if traces < 54 {
		t.Errorf("%d traces, want at least 54", traces)
	}
}

type oracleTrace struct {
	Name string `json:"name"`
	// Doc is the documentation the trace is written from.
	Doc string `json:"doc"`
	// Rules are the documented rules (testdata/oracle/rules.yaml) the trace checks, each with its
	// quote copied verbatim beside it (TestOracleRules holds the copy to the registry's).
	Rules []oracleRuleRef `json:"rules"`
	// Profile, when set, makes the run an auto-upgrade profile's: the profile is created and its
	// generateUpdateRun names the run the steps act on (Run is then unused).
	Profile *oracleProfile `json:"profile,omitempty"`
	Start   string         `json:"start"` // the simulated clock at the beginning (RFC 3339)
	// Regions replace the default regions when set.
	Regions map[string]fleetfile.Region `json:"regions,omitempty"`
	Members []oracleMember              `json:"members"`
	Run     oracleRun                   `json:"run"`
	Steps   []oracleStep                `json:"steps"`
}

type oracleRuleRef struct {
	ID    string `json:"id"`
	Quote string `json:"quote"`
}

type oracleProfile struct {
	Channel   string `json:"channel"`
	Target    string `json:"target,omitempty"` // targetKubernetesVersion
	Selection string `json:"selection,omitempty"`
	// Groups: a strategy of one stage with these groups; none: every member, one by one.
	Groups []string `json:"groups,omitempty"`
}

type oracleMember struct {
	Name     string                       `json:"name"`
	Group    string                       `json:"group,omitempty"`
	Location string                       `json:"location,omitempty"` // default eastus
	Kube     string                       `json:"kube,omitempty"`     // default 1.32.5
	Images   []string                     `json:"images,omitempty"`   // node pools' images; default one Ubuntu 202510.01.0 pool
	Window   *fleetfile.MaintenanceWindow `json:"window,omitempty"`
	NodeOS   *fleetfile.MaintenanceWindow `json:"nodeOSWindow,omitempty"`
	Duration string                       `json:"duration,omitempty"` // default 1h
	Fail     string                       `json:"fail,omitempty"`     // planned failure message
	// Labels are the fleet member's labels (a memberSelector selects by them).
	Labels map[string]string `json:"labels,omitempty"`
}

type oracleRun struct {
	// API is the api-version the run is created and read at; default the stable 2026-06-01.
	API       string   `json:"api,omitempty"`
	Upgrade   string   `json:"upgrade"` // Full | ControlPlaneOnly | NodeImageOnly
	Kube      string   `json:"kube,omitempty"`
	Selection string   `json:"selection,omitempty"`
	Custom    []string `json:"custom,omitempty"`
	// Stages: absent means members one by one.
	Stages []struct {
		Name        string `json:"name"`
		Groups      []string
		Wait        int32 `json:"wait,omitempty"`
		BeforeGate  bool  `json:"beforeGate,omitempty"`
		AfterGate   bool  `json:"afterGate,omitempty"`
		Concurrency string
		// GroupGates: groups that get an Approval before-gate.
		GroupGates []string `json:"groupGates,omitempty"`
		// The preview's stage fields: maxAllowedFailures, memberSelector.byLabel, and a
		// ScheduledStart gate before (or, to be refused, after) the stage.
		MaxAllowedFailures  string                                `json:"maxAllowedFailures,omitempty"`
		MemberSelector      string                                `json:"memberSelector,omitempty"`
		ScheduledStart      *fleetapi.ScheduledStartConfiguration `json:"scheduledStart,omitempty"`
		AfterScheduledStart *fleetapi.ScheduledStartConfiguration `json:"afterScheduledStart,omitempty"`
		// GroupSpecs are groups with the preview's fields (after Groups' plain ones).
		GroupSpecs []oracleGroup `json:"groupSpecs,omitempty"`
	} `json:"stages,omitempty"`
}

// oracleGroup is an update group with the preview's fields.
type oracleGroup struct {
	Name               string `json:"name"`
	Concurrency        string `json:"concurrency,omitempty"`
	MaxAllowedFailures string `json:"maxAllowedFailures,omitempty"`
	MemberSelector     string `json:"memberSelector,omitempty"`
}

type oracleStep struct {
	// One action: create (the run is then created by this first step, not before the steps), start,
	// stop, approve (every Pending gate), skip, release, advance (a duration) or advanceTo (an instant).
	Do        string                   `json:"do,omitempty"`
	Skip      []fleetapi.SkipTarget    `json:"skip,omitempty"`
	Release   *emulator.ReleaseRequest `json:"release,omitempty"`
	Advance   string                   `json:"advance,omitempty"`
	AdvanceTo string                   `json:"advanceTo,omitempty"`
	// Error: the action must be refused with a message containing it.
	Error  string       `json:"error,omitempty"`
	Expect oracleExpect `json:"expect"`
}

type oracleExpect struct {
	Run     string            `json:"run,omitempty"`
	Members map[string]string `json:"members,omitempty"`
	// Order lists members by the start time of their upgrade, earliest first.
	Order []string `json:"order,omitempty"`
	// Messages: member → a substring of its message.
	Messages map[string]string `json:"messages,omitempty"`
	// Gates is the number of Pending gates.
	Gates *int `json:"gates,omitempty"`
	// Selected is the Consistent image set (selectedNodeImageVersions).
	Selected []string `json:"selected,omitempty"`
	// Clusters: member → "kube image image…" the managed cluster runs.
	Clusters map[string]string `json:"clusters,omitempty"`
	Wait     string            `json:"wait,omitempty"` // the first stage's after-stage wait state
	// Upgrade is the run's upgrade, "<type> <kubernetesVersion>" ("NodeImageOnly" alone).
	Upgrade string `json:"upgrade,omitempty"`
	// Absent are members the run does not hold.
	Absent []string `json:"absent,omitempty"`
	// Running is the number of members Running.
	Running *int `json:"running,omitempty"`
	// Stages and Groups: name → state.
	Stages map[string]string `json:"stages,omitempty"`
	Groups map[string]string `json:"groups,omitempty"`
	// The preview's failure counts: the run's failureCount, and by stage or group name the
	// failureCount and the resolved maxAllowedFailures.
	Failures                *int           `json:"failures,omitempty"`
	StageFailures           map[string]int `json:"stageFailures,omitempty"`
	GroupFailures           map[string]int `json:"groupFailures,omitempty"`
	StageMaxAllowedFailures map[string]int `json:"stageMaxAllowedFailures,omitempty"`
	GroupMaxAllowedFailures map[string]int `json:"groupMaxAllowedFailures,omitempty"`
	// GateStarts: the absoluteStartTime (RFC 3339) of the ScheduledStart gate before a stage
	// ("stage") or group ("stage/group"), read from the run's fleets/gates resources.
	GateStarts map[string]string `json:"gateStarts,omitempty"`
}

const (
	oracleUbuntu = "AKSUbuntu-2204gen2containerd"
	oracleSub    = "00000000-0000-0000-0000-000000000009"
)

func oracleFile(tr oracleTrace) (*fleetfile.File, error) {
	start, err := time.Parse(time.RFC3339, tr.Start)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	f := &fleetfile.File{
		Fleet: fleetfile.Fleet{Name: "oracle", SubscriptionID: oracleSub, ResourceGroup: "rg-oracle", Location: "eastus"},
		Clock: fleetfile.Clock{Start: start, Speed: 1},
		Regions: map[string]fleetfile.Region{
			"eastus":     {KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"}, NodeImages: map[string][]string{oracleUbuntu: {"202510.01.0", "202511.04.0"}}},
			"westeurope": {KubernetesVersions: []string{"1.31.9", "1.32.5"}, NodeImages: map[string][]string{oracleUbuntu: {"202510.01.0"}}},
		},
	}
	if tr.Regions != nil {
		f.Regions = tr.Regions
	}
	for _, m := range tr.Members {
		fm := fleetfile.Member{Name: m.Name, Group: m.Group, Location: m.Location, KubernetesVersion: m.Kube, MaintenanceWindow: m.Window, NodeOSMaintenanceWindow: m.NodeOS, Labels: m.Labels}
		if fm.Group == "" {
			fm.Group = "g"
		}
		if fm.Location == "" {
			fm.Location = "eastus"
		}
		if fm.KubernetesVersion == "" {
			fm.KubernetesVersion = "1.32.5"
		}
		d := time.Hour
		if m.Duration != "" {
			if d, err = time.ParseDuration(m.Duration); err != nil {
				return nil, err
			}
		}
		fm.Upgrade = fleetfile.Upgrade{Duration: fleetfile.Duration{Duration: d}, Fail: m.Fail != "", Message: m.Fail}
		images := m.Images
		if len(images) == 0 {
			images = []string{oracleUbuntu + "-202510.01.0"}
		}
		for i, img := range images {
			fm.NodePools = append(fm.NodePools, fleetfile.NodePool{Name: fmt.Sprintf("pool%d", i), Count: 1, NodeImage: img})
		}
		f.Members = append(f.Members, fm)
	}
	b, err := yaml.Marshal(f)
	if err != nil {
		return nil, err
	}
	return fleetfile.Parse(b)
}

type oracleDrop struct{}

func (oracleDrop) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode < 300 {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

func oracleDone[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	return &v, err
}

// runOracleTrace executes one trace and returns its steps and mismatches.
func runOracleTrace(t *testing.T, file string, tr oracleTrace) (steps, mismatches int) {
	t.Helper()
	where := file + " " + tr.Name
	f, err := oracleFile(tr)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	man := simclock.NewManual(time.Unix(0, 0))
	srv, err := emulator.New(emulator.Config{File: f, Clock: simclock.New(f.Clock.Start, 1, man.Now), TenantID: "t", ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CACertPEM())
	htr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	defer htr.CloseIdleConnections()
	hc := &http.Client{Transport: htr}
	opts := azcore.ClientOptions{
		Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: srv.URL() + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: srv.URL(), Audience: srv.URL() + "/"},
		}},
		Transport: hc, PerCallPolicies: []policy.Policy{oracleDrop{}},
	}
	cred, err := azidentity.NewClientSecretCredential("t", "c", "s", &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	var clientOpts []fleetapi.ClientOption
	if tr.Run.API != "" {
		clientOpts = append(clientOpts, fleetapi.WithAPIVersion(tr.Run.API))
	}
	fc, err := fleetapi.NewClientWithOptions(cred, &arm.ClientOptions{ClientOptions: opts}, nil, clientOpts...)
	if err != nil {
		t.Fatal(err)
	}
	ac := aks.NewClientWithOptions(oracleSub, cred, &arm.ClientOptions{ClientOptions: opts})
	fleet := fleetapi.FleetID{SubscriptionID: oracleSub, ResourceGroupName: "rg-oracle", Name: "oracle"}
	ctx := context.Background()

	u := &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.ManagedClusterUpgradeType(tr.Run.Upgrade), KubernetesVersion: tr.Run.Kube}}
	if tr.Run.Selection != "" {
		u.NodeImageSelection = &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionType(tr.Run.Selection)}
		for _, v := range tr.Run.Custom {
			u.NodeImageSelection.CustomNodeImageVersions = append(u.NodeImageSelection.CustomNodeImageVersions, fleetapi.NodeImageVersion{Version: v})
		}
	}
	props := fleetapi.UpdateRunProperties{ManagedClusterUpdate: u}
	if len(tr.Run.Stages) > 0 {
		s := &fleetapi.UpdateRunStrategy{}
		for _, st := range tr.Run.Stages {
			us := fleetapi.UpdateStage{Name: st.Name, AfterStageWaitInSeconds: st.Wait, MaxConcurrency: st.Concurrency}
			if st.BeforeGate {
				us.BeforeGates = []fleetapi.GateConfiguration{{DisplayName: "before " + st.Name, Type: fleetapi.GateTypeApproval}}
			}
			if st.AfterGate {
				us.AfterGates = []fleetapi.GateConfiguration{{DisplayName: "after " + st.Name, Type: fleetapi.GateTypeApproval}}
			}
			for _, g := range st.Groups {
				ug := fleetapi.UpdateGroup{Name: g}
				if slices.Contains(st.GroupGates, g) {
					ug.BeforeGates = []fleetapi.GateConfiguration{{DisplayName: "before " + g, Type: fleetapi.GateTypeApproval}}
				}
				us.Groups = append(us.Groups, ug)
			}
			us.MaxAllowedFailures = st.MaxAllowedFailures
			if st.MemberSelector != "" {
				us.MemberSelector = &fleetapi.MemberSelector{ByLabel: st.MemberSelector}
			}
			if c := st.ScheduledStart; c != nil {
				us.BeforeGates = append(us.BeforeGates, fleetapi.GateConfiguration{DisplayName: "start " + st.Name, Type: fleetapi.GateTypeScheduledStart, ScheduledStartConfiguration: c})
			}
			if c := st.AfterScheduledStart; c != nil {
				us.AfterGates = append(us.AfterGates, fleetapi.GateConfiguration{DisplayName: "after " + st.Name, Type: fleetapi.GateTypeScheduledStart, ScheduledStartConfiguration: c})
			}
			for _, g := range st.GroupSpecs {
				ug := fleetapi.UpdateGroup{Name: g.Name, MaxConcurrency: g.Concurrency, MaxAllowedFailures: g.MaxAllowedFailures}
				if g.MemberSelector != "" {
					ug.MemberSelector = &fleetapi.MemberSelector{ByLabel: g.MemberSelector}
				}
				us.Groups = append(us.Groups, ug)
			}
			s.Stages = append(s.Stages, us)
		}
		props.Strategy = s
	}
	name := "oracle-run"
	if pr := tr.Profile; pr != nil {
		p := fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannel(pr.Channel), TargetKubernetesVersion: pr.Target}
		if pr.Selection != "" {
			p.NodeImageSelection = &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageSelectionType(pr.Selection)}
		}
		if len(pr.Groups) > 0 {
			st := fleetapi.UpdateStage{Name: "s"}
			for _, g := range pr.Groups {
				st.Groups = append(st.Groups, fleetapi.UpdateGroup{Name: g})
			}
			res, err := oracleDone(fc.BeginCreateOrUpdateUpdateStrategy(ctx, fleet, "oracle-strategy", fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{st}}}}, nil))
			if err != nil {
				t.Fatalf("%s: strategy: %v", where, err)
			}
			p.UpdateStrategyID = res.ID
		}
		if _, err := oracleDone(fc.BeginCreateOrUpdateAutoUpgradeProfile(ctx, fleet, "oracle-profile", fleetapi.AutoUpgradeProfile{Properties: &p}, nil)); err != nil {
			t.Fatalf("%s: profile: %v", where, err)
		}
		gen, err := oracleDone(fc.BeginGenerateUpdateRun(ctx, fleet, "oracle-profile"))
		if err != nil {
			t.Fatalf("%s: generateUpdateRun: %v", where, err)
		}
		name = gen.ID[strings.LastIndex(gen.ID, "/")+1:]
	} else if len(tr.Steps) == 0 || tr.Steps[0].Do != "create" {
		if _, err := oracleDone(fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, fleetapi.UpdateRun{Properties: &props}, nil)); err != nil {
			t.Fatalf("%s: create: %v", where, err)
		}
	}
	runID := fleet.ChildID("updateRuns", name)
	for i, step := range tr.Steps {
		steps++
		at := fmt.Sprintf("%s step %d", where, i+1)
		var actErr error
		switch {
		case step.Do == "create":
			if i != 0 {
				t.Fatalf("%s: create must be the first step", at)
			}
			_, actErr = oracleDone(fc.BeginCreateOrUpdateUpdateRun(ctx, fleet, name, fleetapi.UpdateRun{Properties: &props}, nil))
		case step.Do == "start":
			_, actErr = oracleDone(fc.BeginStartUpdateRun(ctx, fleet, name, nil))
		case step.Do == "stop":
			_, actErr = oracleDone(fc.BeginStopUpdateRun(ctx, fleet, name, nil))
		case step.Do == "approve":
			gates, err := fc.ListGates(ctx, fleet, fleetapi.GateFilter(runID, fleetapi.GateStatePending))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gates {
				if _, err := oracleDone(fc.BeginApproveGate(ctx, fleet, g.Name, &fleetapi.Precondition{IfMatch: g.ETag})); err != nil {
					actErr = err
				}
			}
		case len(step.Skip) > 0:
			_, actErr = oracleDone(fc.BeginSkipUpdateRun(ctx, fleet, name, fleetapi.SkipProperties{Targets: step.Skip}, nil))
		case step.Release != nil:
			b, _ := json.Marshal(step.Release)
			resp, err := hc.Post(srv.URL()+"/_emulator/releases", "application/json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				actErr = fmt.Errorf("release: %s", resp.Status)
			}
		case step.Advance != "":
			d, err := time.ParseDuration(step.Advance)
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			man.Advance(d)
		case step.AdvanceTo != "":
			to, err := time.Parse(time.RFC3339, step.AdvanceTo)
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			// The simulated clock runs at speed 1 from the trace's start on the manual clock.
			start, _ := time.Parse(time.RFC3339, tr.Start)
			if d := to.Sub(start) - man.Now().Sub(time.Unix(0, 0)); d < 0 {
				t.Fatalf("%s: advanceTo %s is in the past", at, step.AdvanceTo)
			} else {
				man.Advance(d)
			}
		case step.Do != "":
			t.Fatalf("%s: unknown action %q", at, step.Do)
		}
		mismatch := func(format string, args ...any) {
			mismatches++
			t.Errorf("%s (%s): "+format, append([]any{at, tr.Doc}, args...)...)
		}
		switch {
		case step.Error != "" && (actErr == nil || !strings.Contains(actErr.Error(), step.Error)):
			mismatch("want the action refused with %q, got %v", step.Error, actErr)
		case step.Error == "" && actErr != nil:
			mismatch("action failed: %v", actErr)
		}
		if step.Do == "create" && actErr != nil {
			// A refused run does not exist: nothing more to read.
			if !reflect.DeepEqual(step.Expect, oracleExpect{}) {
				t.Fatalf("%s: a refused create expects nothing", at)
			}
			continue
		}
		run, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			t.Fatal(err)
		}
		st := run.Properties.Status
		checkOracleCounts(st, step.Expect, mismatch)
		if len(step.Expect.GateStarts) > 0 {
			gates, err := fc.ListGates(ctx, fleet, fleetapi.GateFilter(runID, ""))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, g := range gates {
				if sp := g.Properties.ScheduledStartProperties; sp != nil && sp.AbsoluteStartTime != nil {
					key := g.Properties.Target.UpdateRunProperties.Stage
					if grp := g.Properties.Target.UpdateRunProperties.Group; grp != "" {
						key += "/" + grp
					}
					got[key] = sp.AbsoluteStartTime.UTC().Format(time.RFC3339)
				}
			}
			for k, want := range step.Expect.GateStarts {
				if got[k] != want {
					mismatch("ScheduledStart gate %s absoluteStartTime %q, want %q", k, got[k], want)
				}
			}
		}
		e := step.Expect
		if e.Run != "" && string(st.Status.State) != e.Run {
			mismatch("run %s, want %s", st.Status.State, e.Run)
		}
		got := map[string]fleetapi.MemberUpdateStatus{}
		for _, stg := range st.Stages {
			for _, g := range stg.Groups {
				for _, m := range g.Members {
					got[m.Name] = m
				}
			}
		}
		for m, want := range e.Members {
			if g, ok := got[m]; !ok || string(g.Status.State) != want {
				mismatch("member %s %s (%q), want %s", m, g.Status.State, g.Message, want)
			}
		}
		for m, want := range e.Messages {
			if !strings.Contains(got[m].Message, want) {
				mismatch("member %s message %q, want it to contain %q", m, got[m].Message, want)
			}
		}
		if len(e.Order) > 0 {
			var order []string
			for n, m := range got {
				if m.Status.StartTime != nil {
					order = append(order, n)
				}
			}
			sort.Slice(order, func(a, b int) bool {
				ta, tb := *got[order[a]].Status.StartTime, *got[order[b]].Status.StartTime
				if !ta.Equal(tb) {
					return ta.Before(tb)
				}
				return order[a] < order[b]
			})
			if strings.Join(order, ",") != strings.Join(e.Order, ",") {
				mismatch("upgrade order %v, want %v", order, e.Order)
			}
		}
		if e.Gates != nil {
			gates, err := fc.ListGates(ctx, fleet, fleetapi.GateFilter(runID, fleetapi.GateStatePending))
			if err != nil {
				t.Fatal(err)
			}
			if len(gates) != *e.Gates {
				mismatch("%d Pending gates, want %d", len(gates), *e.Gates)
			}
		}
		if e.Selected != nil {
			var sel []string
			if st.NodeImageSelection != nil {
				for _, v := range st.NodeImageSelection.SelectedNodeImageVersions {
					sel = append(sel, v.Version)
				}
			}
			if strings.Join(sel, ",") != strings.Join(e.Selected, ",") {
				mismatch("selected images %v, want %v", sel, e.Selected)
			}
		}
		for _, m := range e.Absent {
			if _, ok := got[m]; ok {
				mismatch("member %s is in the run, want it absent", m)
			}
		}
		if e.Upgrade != "" {
			u := run.Properties.ManagedClusterUpdate.Upgrade
			if got := strings.TrimSpace(string(u.Type) + " " + u.KubernetesVersion); got != e.Upgrade {
				mismatch("run upgrade %q, want %q", got, e.Upgrade)
			}
		}
		if e.Running != nil {
			n := 0
			for _, m := range got {
				if m.Status.State == fleetapi.UpdateStateRunning {
					n++
				}
			}
			if n != *e.Running {
				mismatch("%d members Running, want %d", n, *e.Running)
			}
		}
		if e.Wait != "" {
			w := ""
			if len(st.Stages) > 0 && st.Stages[0].AfterStageWaitStatus != nil && st.Stages[0].AfterStageWaitStatus.Status != nil {
				w = string(st.Stages[0].AfterStageWaitStatus.Status.State)
			}
			if w != e.Wait {
				mismatch("after-stage wait %s, want %s", w, e.Wait)
			}
		}
		for m, want := range e.Clusters {
			cid := got[m].ClusterResourceID
			if cid == "" { // a member the run does not hold: its cluster is named after it
				cid = "/subscriptions/" + oracleSub + "/resourceGroups/rg-oracle/providers/Microsoft.ContainerService/managedClusters/" + m
			}
			id, err := aks.ParseClusterID(cid)
			if err != nil {
				t.Fatalf("%s: member %s: %v", at, m, err)
			}
			mc, err := ac.GetCluster(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			have := []string{*mc.Properties.CurrentKubernetesVersion}
			for _, p := range mc.Properties.AgentPoolProfiles {
				have = append(have, strings.TrimPrefix(*p.NodeImageVersion, oracleUbuntu+"-"))
			}
			if strings.Join(have, " ") != want {
				mismatch("cluster %s runs %q, want %q", m, strings.Join(have, " "), want)
			}
		}
	}
	return steps, mismatches
}

// checkOracleCounts compares the stage and group states and the preview's failure counts.
func checkOracleCounts(st *fleetapi.UpdateRunStatus, e oracleExpect, mismatch func(string, ...any)) {
	count := func(p *int32) int {
		if p == nil {
			return -1 // absent: a preview answer always has them
		}
		return int(*p)
	}
	state := func(u *fleetapi.UpdateStatus) string {
		if u == nil {
			return ""
		}
		return string(u.State)
	}
	if e.Failures != nil && count(st.FailureCount) != *e.Failures {
		mismatch("run failureCount %d, want %d", count(st.FailureCount), *e.Failures)
	}
	stages := map[string]fleetapi.UpdateStageStatus{}
	groups := map[string]fleetapi.UpdateGroupStatus{}
	for _, stg := range st.Stages {
		stages[stg.Name] = stg
		for _, g := range stg.Groups {
			groups[g.Name] = g
		}
	}
	for n, want := range e.Stages {
		if got := state(stages[n].Status); got != want {
			mismatch("stage %s %s, want %s", n, got, want)
		}
	}
	for n, want := range e.Groups {
		if got := state(groups[n].Status); got != want {
			mismatch("group %s %s, want %s", n, got, want)
		}
	}
	for n, want := range e.StageFailures {
		if got := count(stages[n].FailureCount); got != want {
			mismatch("stage %s failureCount %d, want %d", n, got, want)
		}
	}
	for n, want := range e.GroupFailures {
		if got := count(groups[n].FailureCount); got != want {
			mismatch("group %s failureCount %d, want %d", n, got, want)
		}
	}
	for n, want := range e.StageMaxAllowedFailures {
		if got := count(stages[n].MaxAllowedFailures); got != want {
			mismatch("stage %s maxAllowedFailures %d, want %d", n, got, want)
		}
	}
	for n, want := range e.GroupMaxAllowedFailures {
		if got := count(groups[n].MaxAllowedFailures); got != want {
			mismatch("group %s maxAllowedFailures %d, want %d", n, got, want)
		}
	}
}
