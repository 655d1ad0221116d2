package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// t0 is the test fleets' clock start, a Monday.
var t0 = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

const ubuntu = "AKSUbuntu-2204gen2containerd"

// testFleet is a fleet file with two regions and the given members (YAML
// list items). eastus offers 1.33.1 now and 1.33.2 from 12:00.
func testFleet(members string) string {
	return `fleet: {name: demo, subscriptionId: 00000000-0000-0000-0000-000000000001, resourceGroup: rg-fleet, location: eastus}
clock: {start: "2026-11-23T00:00:00Z", speed: 1}
regions:
  eastus:
    kubernetesVersions: ["1.32.5", "1.33.1"]
    nodeImages: {AKSUbuntu-2204gen2containerd: ["202509.01.0", "202510.01.0", "202511.04.0"]}
    releases: [{at: "2026-11-23T12:00:00Z", kubernetesVersion: "1.33.2"}]
  westeurope:
    kubernetesVersions: ["1.32.5", "1.33.1"]
    nodeImages: {AKSUbuntu-2204gen2containerd: ["202509.01.0", "202510.01.0"]}
members:
` + members
}

// member is a fleet file member on 1.32.5 with one Ubuntu pool and, unless
// extra says otherwise, 30-minute upgrades.
func member(name, group, location, extra string) string {
	if !strings.Contains(extra, "upgrade:") {
		extra += ", upgrade: {duration: 30m}"
	}
	return fmt.Sprintf("  - {name: %s, group: %s, location: %s, kubernetesVersion: \"1.32.5\", nodePools: [{name: system, count: 3, nodeImage: %s-202509.01.0}]%s}\n", name, group, location, ubuntu, extra)
}

// updates is a started emulator on a test fleet with the provider's Fleet
// API client pointed at it.
type updates struct {
	*fixture
	c     *fleetapi.Client
	fleet fleetapi.FleetID
	// man moves the simulated clock (speed 1); nil when the clock runs in real time.
	man *simclock.Manual
}

// newUpdates starts an emulator for fleetYAML. speed 0 gives a clock moved
// by hand (advance); otherwise it runs speed times faster than real time.
func newUpdates(t *testing.T, fleetYAML string, speed float64) *updates {
	t.Helper()
	f, err := fleetfile.Parse([]byte(fleetYAML))
	if err != nil {
		t.Fatal(err)
	}
	u := &updates{}
	u.fixture = newFixture(t, func(c *emulator.Config) {
		c.File, c.MemberKubeconfigs = f, nil
		if speed == 0 {
			u.man = simclock.NewManual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			c.Clock = simclock.New(f.Clock.Start, 1, u.man.Now)
		} else {
			c.Clock = simclock.New(f.Clock.Start, speed, nil)
		}
	})
	u.file = f
	opts := &arm.ClientOptions{ClientOptions: u.opts}
	opts.PerCallPolicies = []policy.Policy{instantOperations{}}
	if u.c, err = fleetapi.NewClientWithOptions(u.cred, opts, nil); err != nil {
		t.Fatal(err)
	}
	u.fleet = fleetapi.FleetID{SubscriptionID: u.sub, ResourceGroupName: u.rg, Name: f.Fleet.Name}
	return u
}

// instantOperations drops Retry-After from successful answers: the
// emulator's operations finish at once, and the one-second wait a poller
// would take first would only slow the tests. (429 retries keep theirs.)
type instantOperations struct{}

func (instantOperations) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode < 300 {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

func (u *updates) advance(d time.Duration) { u.man.Advance(d) }

// lro waits for a long-running operation.
func lro[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: 5 * time.Millisecond})
	return &v, err
}

func must[T any](t *testing.T, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (u *updates) put(t *testing.T, name string, props fleetapi.UpdateRunProperties) *fleetapi.UpdateRun {
	t.Helper()
	v, err := lro(u.c.BeginCreateOrUpdateUpdateRun(context.Background(), u.fleet, name, fleetapi.UpdateRun{Properties: &props}, nil))
	return must(t, v, err)
}

func (u *updates) start(t *testing.T, name string) *fleetapi.UpdateRun {
	t.Helper()
	v, err := lro(u.c.BeginStartUpdateRun(context.Background(), u.fleet, name, nil))
	return must(t, v, err)
}

func (u *updates) get(t *testing.T, name string) *fleetapi.UpdateRun {
	t.Helper()
	v, err := u.c.GetUpdateRun(context.Background(), u.fleet, name)
	return must(t, v, err)
}

func (u *updates) cluster(t *testing.T, name string) armcontainerservice.ManagedCluster {
	t.Helper()
	r, err := u.clusters(t).NewManagedClustersClient().Get(context.Background(), u.rg, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.ManagedCluster
}

// clusterAt checks a cluster's control plane and its first pool's image version.
func (u *updates) clusterAt(t *testing.T, name, version, image string) {
	t.Helper()
	c := u.cluster(t, name)
	p := c.Properties
	if *p.CurrentKubernetesVersion != version || *p.AgentPoolProfiles[0].NodeImageVersion != ubuntu+"-"+image {
		t.Errorf("cluster %s: %s / %s, want %s / %s", name, *p.CurrentKubernetesVersion, *p.AgentPoolProfiles[0].NodeImageVersion, version, image)
	}
}

// strictGet GETs a fleet child and decodes it, rejecting fields the model lacks.
func (u *updates) strictGet(t *testing.T, path string, v any) {
	t.Helper()
	resp, b := u.do(t, http.MethodGet, u.fleetPath(path)+"?api-version="+fleetapi.APIVersion)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET %s: %d, %v\n%s", path, resp.StatusCode, err, b)
	}
}

func full(version string) *fleetapi.ManagedClusterUpdate {
	return &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull, KubernetesVersion: version}}
}

func stages(st ...fleetapi.UpdateStage) *fleetapi.UpdateRunStrategy {
	return &fleetapi.UpdateRunStrategy{Stages: st}
}

func stage(name string, wait int32, groups ...string) fleetapi.UpdateStage {
	s := fleetapi.UpdateStage{Name: name, AfterStageWaitInSeconds: wait}
	for _, g := range groups {
		s.Groups = append(s.Groups, fleetapi.UpdateGroup{Name: g})
	}
	return s
}

func state(s *fleetapi.UpdateStatus) fleetapi.UpdateState {
	if s == nil {
		return ""
	}
	return s.State
}

// memberOf finds a member in a run's status tree.
func memberOf(t *testing.T, run *fleetapi.UpdateRun, name string) fleetapi.MemberUpdateStatus {
	t.Helper()
	for _, st := range run.Properties.Status.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.Name == name {
					return m
				}
			}
		}
	}
	t.Fatalf("member %s not in run %s", name, run.Name)
	return fleetapi.MemberUpdateStatus{}
}

func runState(run *fleetapi.UpdateRun) fleetapi.UpdateState {
	return state(run.Properties.Status.Status)
}

// apiError is the status and code of an API error.
func apiError(err error) string {
	if e, ok := fleetapi.AsError(err); ok {
		return fmt.Sprintf("%d %s", e.StatusCode, e.Code)
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("%d %s", re.StatusCode, re.ErrorCode)
	}
	return fmt.Sprint(err)
}

// TestTwoStageRunWithWaitCompletes runs a strategy's copy (canary, an hour's
// wait, then prod) to Completed on a clock 36,000 times faster than real
// time, watching only the managed clusters: the background runner alone
// upgrades them.
func TestTwoStageRunWithWaitCompletes(t *testing.T) {
	u := newUpdates(t, testFleet(member("canary-1", "canary", "eastus", "")+member("prod-1", "prod", "eastus", "")+member("prod-2", "prod", "westeurope", "")), 36000)
	ctx := context.Background()
	strategy := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: *stages(stage("canary", 3600, "canary"), stage("prod", 0, "prod"))}}
	s, err := lro(u.c.BeginCreateOrUpdateUpdateStrategy(ctx, u.fleet, "two-stages", strategy, &fleetapi.Precondition{IfNoneMatch: "*"}))
	must(t, s, err)
	if s.ETag == "" || s.Properties.ProvisioningState != "Succeeded" || s.ID != u.fleet.ChildID("updateStrategies", "two-stages") {
		t.Fatalf("strategy %+v", s)
	}
	if _, err := lro(u.c.BeginCreateOrUpdateUpdateStrategy(ctx, u.fleet, "two-stages", strategy, &fleetapi.Precondition{IfNoneMatch: "*"})); !fleetapi.IsPreconditionFailed(err) {
		t.Fatalf("create-only PUT of an existing strategy: %v", err)
	}
	run := u.put(t, "rollout", fleetapi.UpdateRunProperties{UpdateStrategyID: s.ID, ManagedClusterUpdate: full("1.33.1")})
	// The run took a copy: changing the strategy afterwards does not reach it.
	strategy.Properties.Strategy.Stages[0].AfterStageWaitInSeconds = 60
	if _, err := lro(u.c.BeginCreateOrUpdateUpdateStrategy(ctx, u.fleet, "two-stages", strategy, &fleetapi.Precondition{IfMatch: s.ETag})); err != nil {
		t.Fatal(err)
	}
	if got := run.Properties.Strategy.Stages[0].AfterStageWaitInSeconds; got != 3600 || runState(run) != fleetapi.UpdateStateNotStarted {
		t.Fatalf("run's strategy wait %d, state %s", got, runState(run))
	}
	started := u.start(t, "rollout")
	if runState(started) != fleetapi.UpdateStateRunning {
		t.Fatalf("start returned %s", runState(started))
	}

	deadline := time.Now().Add(30 * time.Second)
	for _, name := range []string{"canary-1", "prod-1", "prod-2"} {
		for *u.cluster(t, name).Properties.CurrentKubernetesVersion != "1.33.1" {
			if time.Now().After(deadline) {
				t.Fatalf("cluster %s never upgraded", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	run = u.get(t, "rollout")
	st := run.Properties.Status
	if runState(run) != fleetapi.UpdateStateCompleted || len(st.Stages) != 2 {
		t.Fatalf("run %s with %d stages", runState(run), len(st.Stages))
	}
	canary, prod := st.Stages[0], st.Stages[1]
	wait := canary.AfterStageWaitStatus
	if wait == nil || wait.WaitDurationInSeconds != 3600 || state(wait.Status) != fleetapi.UpdateStateCompleted ||
		wait.Status.CompletedTime.Sub(*wait.Status.StartTime) != time.Hour {
		t.Fatalf("after-stage wait %+v", wait)
	}
	if !prod.Status.StartTime.Equal(*wait.Status.CompletedTime) || prod.Status.StartTime.Before(*canary.Groups[0].Members[0].Status.CompletedTime) {
		t.Errorf("prod started %s, canary wait ended %s", prod.Status.StartTime, wait.Status.CompletedTime)
	}
	for _, m := range append(canary.Groups[0].Members, prod.Groups[0].Members...) {
		if state(m.Status) != fleetapi.UpdateStateCompleted || m.OperationID == "" || m.ClusterResourceID != "/subscriptions/"+u.sub+"/resourceGroups/"+u.rg+"/providers/Microsoft.ContainerService/managedClusters/"+m.Name {
			t.Errorf("member %+v", m)
		}
	}
	// Latest node images: the newest of each member's region.
	u.clusterAt(t, "prod-1", "1.33.1", "202511.04.0")
	u.clusterAt(t, "prod-2", "1.33.1", "202510.01.0")

	// The answers are fleets.json's shapes: nothing more, nothing less.
	u.strictGet(t, "/updateRuns/rollout", &fleetapi.UpdateRun{})
	u.strictGet(t, "/updateRuns", &fleetapi.UpdateRunListResult{})
	u.strictGet(t, "/updateStrategies/two-stages", &fleetapi.FleetUpdateStrategy{})
	list, err := u.c.ListUpdateStrategies(ctx, u.fleet)
	if err != nil || len(list) != 1 || list[0].Properties.Strategy.Stages[0].AfterStageWaitInSeconds != 60 {
		t.Errorf("strategies %+v, %v", list, err)
	}
}

// TestMaintenanceWindowOrder: open now, opening within four hours, none,
// closed; a closed window leaves its member Pending with the next opening.
func TestMaintenanceWindowOrder(t *testing.T) {
	win := func(w string) string {
		return ", maintenanceWindow: {" + w + ", durationHours: 4, startDate: \"2026-11-01\"}"
	}
	u := newUpdates(t, testFleet(
		member("a-closed", "prod", "eastus", win(`weekly: Saturday, startTime: "02:00"`))+
			member("b-none", "prod", "eastus", "")+
			member("c-soon", "prod", "eastus", win(`daily: true, startTime: "02:00"`))+
			member("d-open", "prod", "eastus", win(`daily: true, startTime: "23:00"`))), 0)
	u.put(t, "windows", fleetapi.UpdateRunProperties{Strategy: stages(stage("prod", 0, "prod")), ManagedClusterUpdate: full("1.33.1")})
	u.start(t, "windows")
	u.advance(4 * time.Hour)
	run := u.get(t, "windows")
	g := run.Properties.Status.Stages[0].Groups[0]
	if runState(run) != fleetapi.UpdateStatePending || state(g.Status) != fleetapi.UpdateStatePending {
		t.Fatalf("run %s group %s, want Pending", runState(run), state(g.Status))
	}
	closed := memberOf(t, run, "a-closed")
	if state(closed.Status) != fleetapi.UpdateStatePending || closed.Message != "maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z" {
		t.Fatalf("a-closed %s %q", state(closed.Status), closed.Message)
	}
	// Pending members are polled hourly from when they went Pending (00:30 for c-soon).
	for name, startAt := range map[string]string{"d-open": "00:00", "b-none": "00:30", "c-soon": "02:30"} {
		m := memberOf(t, run, name)
		if want := t0.Add(mustHM(t, startAt)); state(m.Status) != fleetapi.UpdateStateCompleted || !m.Status.StartTime.Equal(want) {
			t.Errorf("%s %s started %v, want Completed started %s", name, state(m.Status), m.Status.StartTime, want)
		}
	}
	u.clusterAt(t, "c-soon", "1.33.1", "202511.04.0")
	u.clusterAt(t, "a-closed", "1.32.5", "202509.01.0")
	u.advance(5 * 24 * time.Hour)
	run = u.get(t, "windows")
	closed = memberOf(t, run, "a-closed")
	if runState(run) != fleetapi.UpdateStateCompleted || !closed.Status.StartTime.Equal(time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)) {
		t.Fatalf("run %s, a-closed started %v", runState(run), closed.Status.StartTime)
	}
}

func mustHM(t *testing.T, hm string) time.Duration {
	d, err := time.ParseDuration(strings.Replace(hm, ":", "h", 1) + "m")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSkipMemberGroupStage skips a member before the start, then a group,
// a stage and an after-stage wait while the run goes.
func TestSkipMemberGroupStage(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1a", "g1", "eastus", "")+member("m1b", "g1", "eastus", "")+member("m2", "g2", "eastus", "")+member("m3", "g3", "eastus", "")), 0)
	ctx := context.Background()
	skip := func(targets ...fleetapi.SkipTarget) (*fleetapi.UpdateRun, error) {
		return lro(u.c.BeginSkipUpdateRun(ctx, u.fleet, "skips", fleetapi.SkipProperties{Targets: targets}, nil))
	}
	u.put(t, "skips", fleetapi.UpdateRunProperties{Strategy: stages(stage("s1", 3600, "g1"), stage("s2", 0, "g2"), stage("s3", 0, "g3")), ManagedClusterUpdate: full("1.33.1")})
	run, err := skip(fleetapi.SkipTarget{Type: fleetapi.TargetMember, Name: "m1b"})
	must(t, run, err)
	if m := memberOf(t, run, "m1b"); state(m.Status) != fleetapi.UpdateStateSkipped || m.Message != "skipped by user" || runState(run) != fleetapi.UpdateStateNotStarted {
		t.Fatalf("m1b %+v, run %s", m, runState(run))
	}
	if _, err := skip(fleetapi.SkipTarget{Type: fleetapi.TargetMember, Name: "nope"}); apiError(err) != "400 InvalidParameter" {
		t.Fatalf("skip of an unknown member: %v", err)
	}
	u.start(t, "skips")
	if _, err := skip(fleetapi.SkipTarget{Type: fleetapi.TargetGroup, Name: "g2"}, fleetapi.SkipTarget{Type: fleetapi.TargetStage, Name: "s3"}); err != nil {
		t.Fatal(err)
	}
	u.advance(45 * time.Minute)
	run = u.get(t, "skips")
	s1 := run.Properties.Status.Stages[0]
	if runState(run) != fleetapi.UpdateStateRunning || state(s1.AfterStageWaitStatus.Status) != fleetapi.UpdateStateRunning {
		t.Fatalf("run %s, s1 wait %s", runState(run), state(s1.AfterStageWaitStatus.Status))
	}
	run, err = skip(fleetapi.SkipTarget{Type: fleetapi.TargetAfterStageWait, Name: "s1"})
	must(t, run, err)
	st := run.Properties.Status.Stages
	if runState(run) != fleetapi.UpdateStateCompleted || state(st[0].Status) != fleetapi.UpdateStateCompleted || state(st[0].AfterStageWaitStatus.Status) != fleetapi.UpdateStateSkipped ||
		state(st[1].Status) != fleetapi.UpdateStateSkipped || state(st[1].Groups[0].Status) != fleetapi.UpdateStateSkipped || state(st[2].Status) != fleetapi.UpdateStateSkipped {
		t.Fatalf("run %s; stages %s (wait %s), %s (g2 %s), %s", runState(run), state(st[0].Status), state(st[0].AfterStageWaitStatus.Status), state(st[1].Status), state(st[1].Groups[0].Status), state(st[2].Status))
	}
	u.clusterAt(t, "m1a", "1.33.1", "202511.04.0")
	for _, name := range []string{"m1b", "m2", "m3"} {
		u.clusterAt(t, name, "1.32.5", "202509.01.0")
	}
	if _, err := skip(fleetapi.SkipTarget{Type: fleetapi.TargetMember, Name: "m1a"}); apiError(err) != "409 Conflict" {
		t.Fatalf("skip in a Completed run: %v", err)
	}
}

// TestStopThenStart: stop leaves the upgrade under way running to its end;
// start again continues with the next member.
func TestStopThenStart(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1", "g", "eastus", "")+member("m2", "g", "eastus", "")+member("m3", "g", "eastus", "")), 0)
	ctx := context.Background()
	u.put(t, "stops", fleetapi.UpdateRunProperties{ManagedClusterUpdate: full("1.33.1")})
	u.start(t, "stops")
	u.advance(10 * time.Minute)
	run, err := lro(u.c.BeginStopUpdateRun(ctx, u.fleet, "stops", nil))
	must(t, run, err)
	if runState(run) != fleetapi.UpdateStateStopping || state(memberOf(t, run, "m1").Status) != fleetapi.UpdateStateStopping {
		t.Fatalf("after stop: run %s, m1 %s", runState(run), state(memberOf(t, run, "m1").Status))
	}
	if _, err := lro(u.c.BeginStartUpdateRun(ctx, u.fleet, "stops", nil)); apiError(err) != "409 Conflict" {
		t.Fatalf("start while Stopping: %v", err)
	}
	u.advance(30 * time.Minute)
	run = u.get(t, "stops")
	if runState(run) != fleetapi.UpdateStateStopped || state(memberOf(t, run, "m1").Status) != fleetapi.UpdateStateCompleted || state(memberOf(t, run, "m2").Status) != fleetapi.UpdateStateNotStarted {
		t.Fatalf("stopped run %s, m1 %s, m2 %s", runState(run), state(memberOf(t, run, "m1").Status), state(memberOf(t, run, "m2").Status))
	}
	u.clusterAt(t, "m1", "1.33.1", "202511.04.0")
	if _, err := lro(u.c.BeginStopUpdateRun(ctx, u.fleet, "stops", nil)); apiError(err) != "409 Conflict" {
		t.Fatalf("stop of a Stopped run: %v", err)
	}
	if runState(u.start(t, "stops")) != fleetapi.UpdateStateRunning {
		t.Fatal("restart did not run")
	}
	u.advance(2 * time.Hour)
	if run = u.get(t, "stops"); runState(run) != fleetapi.UpdateStateCompleted {
		t.Fatalf("restarted run %s", runState(run))
	}
	u.clusterAt(t, "m3", "1.33.1", "202511.04.0")
}

// TestPlannedFailureThenClearedAndRestarted: a member whose upgrade fails
// fails the run with its message; once the admin endpoint clears the
// failure, starting again completes.
func TestPlannedFailureThenClearedAndRestarted(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1", "g", "eastus", "")+member("m2", "g", "eastus", `, upgrade: {duration: 30m, fail: true, message: "node drain timed out on pool system"}`)+member("m3", "g", "eastus", "")), 0)
	u.put(t, "fails", fleetapi.UpdateRunProperties{ManagedClusterUpdate: full("1.33.1")})
	u.start(t, "fails")
	u.advance(2 * time.Hour)
	run := u.get(t, "fails")
	m2 := memberOf(t, run, "m2")
	st := run.Properties.Status.Status
	if runState(run) != fleetapi.UpdateStateFailed || state(m2.Status) != fleetapi.UpdateStateFailed || m2.Message != "node drain timed out on pool system" ||
		m2.Status.Error == nil || m2.Status.Error.Message != m2.Message || st.Error == nil || !strings.Contains(st.Error.Message, "node drain timed out on pool system") {
		t.Fatalf("run %s (%+v), m2 %+v", runState(run), st.Error, m2)
	}
	if s := state(memberOf(t, run, "m3").Status); s != fleetapi.UpdateStateNotStarted {
		t.Fatalf("m3 %s after the failure, want NotStarted (fail-fast)", s)
	}
	if c := u.cluster(t, "m2"); *c.Properties.ProvisioningState != "Failed" || *c.Properties.CurrentKubernetesVersion != "1.32.5" {
		t.Fatalf("cluster m2 %s %s", *c.Properties.ProvisioningState, *c.Properties.CurrentKubernetesVersion)
	}

	// Clear the failure through the admin endpoint (unauthenticated, loopback).
	req, _ := http.NewRequest(http.MethodPatch, u.srv.URL()+"/_emulator/members/m2", strings.NewReader(`{"upgrade":{"fail":false}}`))
	resp, err := u.httpClient(t, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var admin struct {
		Upgrade fleetfile.Upgrade `json:"upgrade"`
	}
	err = json.NewDecoder(resp.Body).Decode(&admin)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || admin.Upgrade.Fail || admin.Upgrade.Duration.Duration != 30*time.Minute {
		t.Fatalf("admin PATCH: %d %+v %v", resp.StatusCode, admin, err)
	}
	u.start(t, "fails")
	u.advance(2 * time.Hour)
	if run = u.get(t, "fails"); runState(run) != fleetapi.UpdateStateCompleted {
		t.Fatalf("restarted run %s", runState(run))
	}
	if c := u.cluster(t, "m2"); *c.Properties.ProvisioningState != "Succeeded" || *c.Properties.CurrentKubernetesVersion != "1.33.1" {
		t.Fatalf("cluster m2 %s %s", *c.Properties.ProvisioningState, *c.Properties.CurrentKubernetesVersion)
	}
}

// TestConsistentImagesWithASkippedMember: the Consistent set is the newest
// image common to the run's regions, shown before the start; a member whose
// pool's image type has no common version is skipped.
func TestConsistentImagesWithASkippedMember(t *testing.T) {
	u := newUpdates(t, testFleet(member("east-1", "g", "eastus", "")+member("west-1", "g", "westeurope", "")+
		"  - {name: west-azl, group: g, location: westeurope, kubernetesVersion: \"1.32.5\", nodePools: [{name: system, count: 1, nodeImage: AKSAzureLinux-V2gen2-202510.01.0}], upgrade: {duration: 30m}}\n"), 0)
	run := u.put(t, "consistent", fleetapi.UpdateRunProperties{ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{
		Upgrade:            fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeNodeImageOnly},
		NodeImageSelection: &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionConsistent},
	}})
	sel := run.Properties.Status.NodeImageSelection
	if sel == nil || len(sel.SelectedNodeImageVersions) != 1 || sel.SelectedNodeImageVersions[0].Version != ubuntu+"-202510.01.0" {
		t.Fatalf("selected images before the start: %+v", sel)
	}
	u.start(t, "consistent")
	u.advance(2 * time.Hour)
	run = u.get(t, "consistent")
	azl := memberOf(t, run, "west-azl")
	if runState(run) != fleetapi.UpdateStateCompleted || state(azl.Status) != fleetapi.UpdateStateSkipped ||
		azl.Message != "no consistent node image version for node pool system (image type AKSAzureLinux-V2gen2)" {
		t.Fatalf("run %s, west-azl %s %q", runState(run), state(azl.Status), azl.Message)
	}
	// Not eastus's newer 202511.04.0: the image both regions have.
	u.clusterAt(t, "east-1", "1.32.5", "202510.01.0")
	u.clusterAt(t, "west-1", "1.32.5", "202510.01.0")
}

// TestApprovalGates: a stage's before gate and a group's after gate become
// fleets/gates resources when the run reaches them, hold it until approved
// (ETag-guarded), and go with the run.
func TestApprovalGates(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1", "g1", "eastus", "")+member("m2", "g2", "eastus", "")), 0)
	ctx := context.Background()
	s1 := stage("s1", 0, "g1")
	s1.BeforeGates = []fleetapi.GateConfiguration{{DisplayName: "approve s1", Type: fleetapi.GateTypeApproval}}
	s1.Groups[0].AfterGates = []fleetapi.GateConfiguration{{DisplayName: "check g1", Type: fleetapi.GateTypeApproval}}
	run := u.put(t, "gated", fleetapi.UpdateRunProperties{Strategy: stages(s1, stage("s2", 0, "g2")), ManagedClusterUpdate: full("1.33.1")})
	pending := func() []fleetapi.Gate {
		t.Helper()
		gs, err := u.c.ListGates(ctx, u.fleet, fleetapi.GateFilter(run.ID, fleetapi.GateStatePending))
		return must(t, gs, err)
	}
	if gs := pending(); len(gs) != 0 {
		t.Fatalf("gates before the start: %+v", gs)
	}
	u.start(t, "gated")
	gs := pending()
	if len(gs) != 1 {
		t.Fatalf("pending gates %+v", gs)
	}
	g := gs[0]
	tg := g.Properties.Target.UpdateRunProperties
	if g.Properties.DisplayName != "approve s1" || g.Properties.GateType != fleetapi.GateTypeApproval || tg.Stage != "s1" || tg.Group != "" || tg.Timing != fleetapi.TimingBefore || tg.Name != "gated" {
		t.Fatalf("gate %+v target %+v", g.Properties, tg)
	}
	run = u.get(t, "gated")
	if s := run.Properties.Status.Stages[0]; runState(run) != fleetapi.UpdateStatePending || s.BeforeGates[0].GateID != g.ID || state(s.BeforeGates[0].Status) != fleetapi.UpdateStatePending {
		t.Fatalf("run %s, stage gate %+v", runState(run), s.BeforeGates)
	}
	u.advance(time.Hour)
	if s := state(memberOf(t, u.get(t, "gated"), "m1").Status); s != fleetapi.UpdateStateNotStarted {
		t.Fatalf("m1 %s before the approval", s)
	}
	if _, err := lro(u.c.BeginApproveGate(ctx, u.fleet, g.Name, &fleetapi.Precondition{IfMatch: `"stale"`})); !fleetapi.IsPreconditionFailed(err) {
		t.Fatalf("approval with a stale ETag: %v", err)
	}
	bad := fleetapi.GatePatch{Properties: &fleetapi.GatePatchProperties{State: fleetapi.GateStatePending}}
	if _, err := lro(u.c.BeginUpdateGate(ctx, u.fleet, g.Name, bad, nil)); apiError(err) != "400 InvalidParameter" {
		t.Fatalf("PATCH to Pending: %v", err)
	}
	approved, err := lro(u.c.BeginApproveGate(ctx, u.fleet, g.Name, &fleetapi.Precondition{IfMatch: g.ETag}))
	must(t, approved, err)
	if approved.Properties.State != fleetapi.GateStateCompleted || approved.ETag == g.ETag {
		t.Fatalf("approved gate %+v", approved)
	}
	u.advance(30 * time.Minute)
	gs = pending()
	if len(gs) != 1 || gs[0].Properties.Target.UpdateRunProperties.Group != "g1" || gs[0].Properties.Target.UpdateRunProperties.Timing != fleetapi.TimingAfter {
		t.Fatalf("pending gates after m1: %+v", gs)
	}
	if s := state(memberOf(t, u.get(t, "gated"), "m2").Status); s != fleetapi.UpdateStateNotStarted {
		t.Fatalf("m2 %s while g1's after gate waits", s)
	}
	u.strictGet(t, "/gates/"+gs[0].Name, &fleetapi.Gate{})
	u.strictGet(t, "/gates", &fleetapi.GateListResult{})
	if _, err := lro(u.c.BeginApproveGate(ctx, u.fleet, gs[0].Name, nil)); err != nil {
		t.Fatal(err)
	}
	u.advance(30 * time.Minute)
	if run = u.get(t, "gated"); runState(run) != fleetapi.UpdateStateCompleted {
		t.Fatalf("run %s", runState(run))
	}
	// Approving again changes nothing; deleting the run deletes its gates.
	if again, err := lro(u.c.BeginApproveGate(ctx, u.fleet, g.Name, nil)); err != nil || again.Properties.State != fleetapi.GateStateCompleted {
		t.Fatalf("approved twice: %v", err)
	}
	if all, err := u.c.ListGates(ctx, u.fleet, ""); err != nil || len(all) != 2 {
		t.Fatalf("%d gates, want 2 (%v)", len(all), err)
	}
	if _, err := lro(u.c.BeginDeleteUpdateRun(ctx, u.fleet, "gated", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.c.GetGate(ctx, u.fleet, g.Name); !fleetapi.IsNotFound(err) {
		t.Fatalf("gate after its run was deleted: %v", err)
	}
	if _, err := u.c.ListGates(ctx, u.fleet, "properties/state ne 'Pending'"); apiError(err) != "400 InvalidParameter" {
		t.Fatalf("unsupported filter: %v", err)
	}
}

// TestUpdateRunRules: what the service rejects, and how runs change before
// and after their start and go on delete.
func TestUpdateRunRules(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1", "g", "eastus", "")+member("m2", "g", "eastus", "")), 0)
	ctx := context.Background()
	strategy := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: *stages(stage("s", 0, "g"))}}
	s, err := lro(u.c.BeginCreateOrUpdateUpdateStrategy(ctx, u.fleet, "one", strategy, nil))
	must(t, s, err)
	put := func(name string, props fleetapi.UpdateRunProperties, pre *fleetapi.Precondition) (*fleetapi.UpdateRun, error) {
		return lro(u.c.BeginCreateOrUpdateUpdateRun(ctx, u.fleet, name, fleetapi.UpdateRun{Properties: &props}, pre))
	}
	rejected := []struct {
		why   string
		props fleetapi.UpdateRunProperties
	}{
		{"both updateStrategyId and another strategy", fleetapi.UpdateRunProperties{UpdateStrategyID: s.ID, Strategy: stages(stage("other", 0, "g")), ManagedClusterUpdate: full("1.33.1")}},
		{"an unknown strategy", fleetapi.UpdateRunProperties{UpdateStrategyID: u.fleet.ChildID("updateStrategies", "nope"), ManagedClusterUpdate: full("1.33.1")}},
		{"NodeImageOnly with a version", fleetapi.UpdateRunProperties{ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeNodeImageOnly, KubernetesVersion: "1.33.1"}}}},
		{"Full without a version", fleetapi.UpdateRunProperties{ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull}}}},
		{"a group no member is in", fleetapi.UpdateRunProperties{Strategy: stages(stage("s", 0, "nobody")), ManagedClusterUpdate: full("1.33.1")}},
		{"Custom without versions", fleetapi.UpdateRunProperties{ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeNodeImageOnly}, NodeImageSelection: &fleetapi.NodeImageSelection{Type: fleetapi.NodeImageSelectionCustom}}}},
	}
	for _, r := range rejected {
		if _, err := put("bad", r.props, nil); apiError(err) != "400 InvalidParameter" {
			t.Errorf("%s: %v", r.why, err)
		}
	}
	// The strategy and its copy together are what a read shows: accepted.
	run, err := put("r", fleetapi.UpdateRunProperties{UpdateStrategyID: s.ID, ManagedClusterUpdate: full("1.33.1")}, nil)
	must(t, run, err)
	run.Properties.ManagedClusterUpdate = full("1.32.5")
	changed, err := put("r", *run.Properties, &fleetapi.Precondition{IfMatch: run.ETag})
	must(t, changed, err)
	if changed.ETag == run.ETag || changed.Properties.ManagedClusterUpdate.Upgrade.KubernetesVersion != "1.32.5" {
		t.Fatalf("update before the start: %+v", changed.Properties.ManagedClusterUpdate)
	}
	if _, err := put("r", *run.Properties, &fleetapi.Precondition{IfMatch: run.ETag}); !fleetapi.IsPreconditionFailed(err) {
		t.Fatalf("PUT with a stale ETag: %v", err)
	}
	if _, err := put("r", *run.Properties, &fleetapi.Precondition{IfNoneMatch: "*"}); !fleetapi.IsPreconditionFailed(err) {
		t.Fatalf("create-only PUT of an existing run: %v", err)
	}
	changed.Properties.ManagedClusterUpdate = full("1.33.1")
	changed, err = put("r", *changed.Properties, nil)
	must(t, changed, err)
	u.start(t, "r")
	if _, err := lro(u.c.BeginStartUpdateRun(ctx, u.fleet, "r", nil)); apiError(err) != "409 Conflict" {
		t.Fatalf("start of a Running run: %v", err)
	}
	same, err := put("r", *changed.Properties, nil)
	must(t, same, err)
	if runState(same) != fleetapi.UpdateStateRunning {
		t.Fatalf("unchanged PUT of a started run: %s", runState(same))
	}
	changed.Properties.ManagedClusterUpdate = full("1.33.2")
	if _, err := put("r", *changed.Properties, nil); apiError(err) != "400 PropertyChangeNotAllowed" {
		t.Fatalf("change after the start: %v", err)
	}
	if _, err := u.c.GetUpdateRun(ctx, u.fleet, "nope"); !fleetapi.IsNotFound(err) {
		t.Fatalf("GET of a missing run: %v", err)
	}

	// Deleting a Running run stops it; it goes once m1's upgrade has ended.
	u.advance(10 * time.Minute)
	p, err := u.c.BeginDeleteUpdateRun(ctx, u.fleet, "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Poll(ctx); err != nil || p.Done() {
		t.Fatalf("delete done while m1 upgrades: %v", err)
	}
	if run := u.get(t, "r"); runState(run) != fleetapi.UpdateStateStopping {
		t.Fatalf("run being deleted is %s", runState(run))
	}
	u.advance(30 * time.Minute)
	if _, err := p.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 5 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.c.GetUpdateRun(ctx, u.fleet, "r"); !fleetapi.IsNotFound(err) {
		t.Fatalf("run after delete: %v", err)
	}
	u.clusterAt(t, "m1", "1.33.1", "202511.04.0")
	u.clusterAt(t, "m2", "1.32.5", "202509.01.0")
	if _, err := lro(u.c.BeginDeleteUpdateRun(ctx, u.fleet, "r", nil)); err != nil { // gone already: 204
		t.Fatal(err)
	}

	// Lists page with $top and nextLink.
	for _, name := range []string{"a", "b", "c"} {
		u.put(t, name, fleetapi.UpdateRunProperties{ManagedClusterUpdate: full("1.33.1")})
	}
	var page fleetapi.UpdateRunListResult
	u.getFleetAPI(t, u.fleetPath("/updateRuns?$top=2"), &page)
	if len(page.Value) != 2 || page.NextLink == "" {
		t.Fatalf("first page: %d runs, nextLink %q", len(page.Value), page.NextLink)
	}
	if runs, err := u.c.ListUpdateRuns(ctx, u.fleet); err != nil || len(runs) != 3 {
		t.Fatalf("%d runs listed (%v)", len(runs), err)
	}
	if _, err := lro(u.c.BeginDeleteUpdateStrategy(ctx, u.fleet, "one", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.c.GetUpdateStrategy(ctx, u.fleet, "one"); !fleetapi.IsNotFound(err) {
		t.Fatalf("strategy after delete: %v", err)
	}
}

// TestUpdateCallsRetryFaults: 429 with Retry-After, 500 and a connection
// reset are retried by the client's pipeline; a failed long-running
// operation is reported and leaves the run as it was.
func TestUpdateCallsRetryFaults(t *testing.T) {
	u := newUpdates(t, testFleet(member("m1", "g", "eastus", "")), 0)
	ctx := context.Background()
	inject := func(rule emulator.FaultRule) {
		t.Helper()
		if _, err := u.srv.InjectFault(rule); err != nil {
			t.Fatal(err)
		}
	}
	inject(emulator.FaultRule{Method: http.MethodPut, Path: "/updateRuns/faulty$", Status: 500})
	inject(emulator.FaultRule{Method: http.MethodPost, Path: "/updateRuns/faulty/start$", Reset: true})
	inject(emulator.FaultRule{Method: http.MethodGet, Path: "/updateRuns/faulty$", Status: 429, RetryAfterSeconds: 1})
	// The failed operation comes through the admin endpoint, as other processes inject it.
	resp, err := u.httpClient(t, false).Post(u.srv.URL()+"/_emulator/faults", "application/json",
		strings.NewReader(`{"method":"POST","path":"/updateRuns/faulty/stop$","failOperation":true,"code":"InternalOperationError","message":"the stop was lost"}`))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("inject failOperation: %v %v", resp, err)
	}
	resp.Body.Close()
	u.put(t, "faulty", fleetapi.UpdateRunProperties{ManagedClusterUpdate: full("1.33.1")})
	u.start(t, "faulty")
	if runState(u.get(t, "faulty")) != fleetapi.UpdateStateRunning {
		t.Fatal("run not Running")
	}
	_, err = lro(u.c.BeginStopUpdateRun(ctx, u.fleet, "faulty", nil))
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "InternalOperationError" || !strings.Contains(err.Error(), "the stop was lost") {
		t.Fatalf("failed operation: %v", err)
	}
	if runState(u.get(t, "faulty")) != fleetapi.UpdateStateRunning {
		t.Fatal("a failed stop operation stopped the run")
	}
	if run, err := lro(u.c.BeginStopUpdateRun(ctx, u.fleet, "faulty", nil)); err != nil || runState(run) != fleetapi.UpdateStateStopping {
		t.Fatalf("second stop: %v", err)
	}
	for _, f := range u.srv.Faults() {
		if f.Hits != 1 || f.Remaining != 0 {
			t.Errorf("fault %+v: hits %d, remaining %d", f.Rule, f.Hits, f.Remaining)
		}
	}
}
