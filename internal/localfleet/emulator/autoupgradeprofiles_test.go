package emulator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// autoFleet: eastus offers 1.31.9 to 1.33.1 and releases 1.33.2 at 12:00
// and a node image at 06:00; "old" runs 1.31.9, two minors behind 1.33.2.
func autoFleet() string {
	return `fleet: {name: demo, subscriptionId: 00000000-0000-0000-0000-000000000001, resourceGroup: rg-fleet, location: eastus}
clock: {start: "2026-11-23T00:00:00Z", speed: 1}
regions:
  eastus:
    kubernetesVersions: ["1.31.9", "1.32.5", "1.33.1"]
    nodeImages: {AKSUbuntu-2204gen2containerd: ["202509.01.0", "202510.01.0"]}
    releases:
      - {at: "2026-11-23T06:00:00Z", nodeImage: AKSUbuntu-2204gen2containerd-202511.04.0}
      - {at: "2026-11-23T12:00:00Z", kubernetesVersion: "1.33.2"}
members:
` + member("canary-1", "canary", "eastus", "") + member("prod-1", "prod", "eastus", "") +
		`  - {name: old, group: prod, location: eastus, kubernetesVersion: "1.31.9", nodePools: [{name: system, count: 1, nodeImage: ` + ubuntu + `-202509.01.0}], upgrade: {duration: 30m}}
`
}

func (u *updates) putProfile(t *testing.T, name string, props fleetapi.AutoUpgradeProfileProperties, pre *fleetapi.Precondition) (*fleetapi.AutoUpgradeProfile, error) {
	t.Helper()
	return lro(u.c.BeginCreateOrUpdateAutoUpgradeProfile(context.Background(), u.fleet, name, fleetapi.AutoUpgradeProfile{Properties: &props}, pre))
}

func (u *updates) mustProfile(t *testing.T, name string, props fleetapi.AutoUpgradeProfileProperties, pre *fleetapi.Precondition) *fleetapi.AutoUpgradeProfile {
	t.Helper()
	v, err := u.putProfile(t, name, props, pre)
	return must(t, v, err)
}

func (u *updates) strategy(t *testing.T, name string, st *fleetapi.UpdateRunStrategy) *fleetapi.FleetUpdateStrategy {
	t.Helper()
	v, err := lro(u.c.BeginCreateOrUpdateUpdateStrategy(context.Background(), u.fleet, name, fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: *st}}, nil))
	return must(t, v, err)
}

func (u *updates) profile(t *testing.T, name string) *fleetapi.AutoUpgradeProfile {
	t.Helper()
	v, err := u.c.GetAutoUpgradeProfile(context.Background(), u.fleet, name)
	return must(t, v, err)
}

func (u *updates) generate(t *testing.T, name string) string {
	t.Helper()
	v, err := lro(u.c.BeginGenerateUpdateRun(context.Background(), u.fleet, name))
	return must(t, v, err).ID
}

func runNames(t *testing.T, u *updates) []string {
	t.Helper()
	runs, err := u.c.ListUpdateRuns(context.Background(), u.fleet)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range runs {
		out = append(out, r.Name)
	}
	return out
}

// TestProfileTriggersOnRelease: creating profiles triggers nothing; the
// release of 1.33.2 at 12:00 makes the enabled Rapid profile create and start
// a run that copies its strategy, skips the member two minors behind and
// completes; the disabled Rapid profile and the Stable one (still 1.32.5)
// trigger nothing; the NodeImage profile triggers on the 06:00 image.
func TestProfileTriggersOnRelease(t *testing.T) {
	u := newUpdates(t, autoFleet(), 0)
	strategy := stages(stage("canary", 600, "canary"), stage("prod", 0, "prod"))
	s := u.strategy(t, "two-stages", strategy)
	rapid := u.mustProfile(t, "rapid", fleetapi.AutoUpgradeProfileProperties{
		Channel: fleetapi.UpgradeChannelRapid, UpdateStrategyID: s.ID,
		NodeImageSelection: &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageConsistent},
	}, &fleetapi.Precondition{IfNoneMatch: "*"})
	if rapid.ETag == "" || rapid.Properties.ProvisioningState != "Succeeded" || rapid.ID != u.fleet.ChildID("autoUpgradeProfiles", "rapid") || rapid.Type != "Microsoft.ContainerService/fleets/autoUpgradeProfiles" {
		t.Fatalf("profile %+v", rapid)
	}
	u.mustProfile(t, "off", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelRapid, Disabled: to.Ptr(true)}, nil)
	u.mustProfile(t, "stable", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelStable}, nil)
	u.mustProfile(t, "images", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelNodeImage}, nil)

	// At creation members run older versions than Rapid's 1.33.1: no trigger.
	u.advance(time.Hour)
	if names := runNames(t, u); len(names) != 0 {
		t.Fatalf("runs before any release: %v", names)
	}
	if st := u.profile(t, "rapid").Properties.AutoUpgradeProfileStatus; st != nil {
		t.Fatalf("status before any release: %+v", st)
	}

	// 06:00: a new node image triggers the NodeImage profile only.
	u.advance(5*time.Hour + time.Minute)
	img := u.profile(t, "images").Properties.AutoUpgradeProfileStatus
	if img == nil || img.LastTriggerStatus != fleetapi.AutoUpgradeTriggerSucceeded || fmt.Sprint(img.LastTriggerUpgradeVersions) != "["+ubuntu+"-202511.04.0]" {
		t.Fatalf("node image profile status %+v", img)
	}
	names := runNames(t, u)
	if len(names) != 1 || !strings.HasPrefix(names[0], "images-nodeimage-") {
		t.Fatalf("runs after the image release: %v", names)
	}
	if r := u.get(t, names[0]); r.Properties.ManagedClusterUpdate.Upgrade.Type != fleetapi.UpgradeTypeNodeImageOnly || runState(r) == fleetapi.UpdateStateNotStarted {
		t.Errorf("node image run %s: %+v", runState(r), r.Properties.ManagedClusterUpdate)
	}
	u.advance(6 * time.Hour) // to 12:01; the image run is done by then
	st := u.profile(t, "rapid").Properties.AutoUpgradeProfileStatus
	if st == nil || st.LastTriggerStatus != fleetapi.AutoUpgradeTriggerSucceeded || fmt.Sprint(st.LastTriggerUpgradeVersions) != "[1.33.2]" ||
		st.LastTriggeredAt.Before(t0.Add(12*time.Hour)) || st.LastTriggerError != nil {
		t.Fatalf("rapid status after the release: %+v", st)
	}
	if got := u.profile(t, "rapid").ETag; got != rapid.ETag {
		t.Errorf("a trigger changed the profile's ETag %s → %s", rapid.ETag, got)
	}
	for _, p := range []string{"off", "stable"} {
		if st := u.profile(t, p).Properties.AutoUpgradeProfileStatus; st != nil {
			t.Errorf("profile %s triggered: %+v", p, st)
		}
	}
	run := u.get(t, "rapid-1-33-2")
	props := run.Properties
	if props.AutoUpgradeProfileID != rapid.ID || props.UpdateStrategyID != s.ID || !sameStages(props.Strategy, strategy) ||
		props.ManagedClusterUpdate.Upgrade.KubernetesVersion != "1.33.2" || props.ManagedClusterUpdate.NodeImageSelection.Type != fleetapi.NodeImageSelectionConsistent {
		t.Fatalf("triggered run %+v", props)
	}
	if old := memberOf(t, run, "old"); state(old.Status) != fleetapi.UpdateStateSkipped || !strings.Contains(old.Message, "more than one minor version") {
		t.Errorf("member two minors behind: %s %q", state(old.Status), old.Message)
	}
	if runState(run) != fleetapi.UpdateStateRunning {
		t.Errorf("triggered run is %s", runState(run))
	}
	if n := runNames(t, u); len(n) != 2 {
		t.Errorf("runs: %v (the disabled and Stable profiles made none)", n)
	}
	u.advance(4 * time.Hour)
	run = u.get(t, "rapid-1-33-2")
	if runState(run) != fleetapi.UpdateStateCompleted {
		t.Fatalf("triggered run %s", runState(run))
	}
	u.clusterAt(t, "canary-1", "1.33.2", "202511.04.0")
	u.clusterAt(t, "prod-1", "1.33.2", "202511.04.0")
	if v := *u.cluster(t, "old").Properties.CurrentKubernetesVersion; v != "1.31.9" {
		t.Errorf("old moved to %s", v)
	}
	// Nothing new is released: no second trigger.
	u.advance(24 * time.Hour)
	if n := runNames(t, u); len(n) != 2 {
		t.Errorf("runs a day later: %v", n)
	}
}

func sameStages(a, b *fleetapi.UpdateRunStrategy) bool {
	return a != nil && b != nil && fmt.Sprint(a.Stages) == fmt.Sprint(b.Stages)
}

// TestGenerateUpdateRunIsIdempotent: generateUpdateRun creates the run for
// the channel's current target, not started, and returns the same run
// unchanged when asked again; a release then starts that very run.
func TestGenerateUpdateRunIsIdempotent(t *testing.T) {
	u := newUpdates(t, autoFleet(), 0)
	u.mustProfile(t, "rapid", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelRapid}, nil)
	id := u.generate(t, "rapid")
	if id != u.fleet.ChildID("updateRuns", "rapid-1-33-1") {
		t.Fatalf("generated %s", id)
	}
	first := u.get(t, "rapid-1-33-1")
	if runState(first) != fleetapi.UpdateStateNotStarted || first.Properties.AutoUpgradeProfileID != u.fleet.ChildID("autoUpgradeProfiles", "rapid") ||
		first.Properties.ManagedClusterUpdate.NodeImageSelection.Type != fleetapi.NodeImageSelectionLatest {
		t.Fatalf("generated run %s %+v", runState(first), first.Properties)
	}
	u.advance(time.Hour)
	if again := u.generate(t, "rapid"); again != id {
		t.Fatalf("second generate %s, want %s", again, id)
	}
	if second := u.get(t, "rapid-1-33-1"); second.ETag != first.ETag || runState(second) != fleetapi.UpdateStateNotStarted {
		t.Errorf("second generate changed the run: %s → %s, %s", first.ETag, second.ETag, runState(second))
	}
	if st := u.profile(t, "rapid").Properties.AutoUpgradeProfileStatus; st != nil {
		t.Errorf("generate is no trigger: %+v", st)
	}
	// The 12:00 release moves Rapid to 1.33.2: a second, started run.
	u.advance(12 * time.Hour)
	if got := fmt.Sprint(runNames(t, u)); got != "[rapid-1-33-1 rapid-1-33-2]" {
		t.Fatalf("runs %s", got)
	}
	if r := u.get(t, "rapid-1-33-2"); runState(r) == fleetapi.UpdateStateNotStarted {
		t.Errorf("triggered run not started")
	}
	if id := u.generate(t, "rapid"); id != u.fleet.ChildID("updateRuns", "rapid-1-33-2") {
		t.Errorf("generate after the trigger: %s", id)
	}
}

// TestAutoUpgradeProfileRules: the service's validation, create-only
// fields, ETags and delete.
func TestAutoUpgradeProfileRules(t *testing.T) {
	u := newUpdates(t, autoFleet(), 0)
	ctx := context.Background()
	s := u.strategy(t, "s1", stages(stage("all", 0, "canary", "prod")))
	s2 := u.strategy(t, "s2", stages(stage("all", 0, "canary", "prod")))
	bad := []struct {
		props fleetapi.AutoUpgradeProfileProperties
		want  string
	}{
		{fleetapi.AutoUpgradeProfileProperties{Channel: "SecurityPatch"}, "is not one of"},
		{fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelStable, TargetKubernetesVersion: "1.33"}, "targetKubernetesVersion must be empty"},
		{fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelRapid, LongTermSupport: to.Ptr(true)}, "longTermSupport must be false"},
		{fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelTargetKubernetesVersion}, "must not be empty"},
		{fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelTargetKubernetesVersion, TargetKubernetesVersion: "1.33.1"}, "{major version}.{minor version}"},
		{fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelStable, UpdateStrategyID: u.fleet.ChildID("updateStrategies", "nope")}, "was not found"},
	}
	for _, b := range bad {
		_, err := u.putProfile(t, "p", b.props, nil)
		if e, ok := fleetapi.AsError(err); !ok || e.StatusCode != 400 || !strings.Contains(e.Message, b.want) {
			t.Errorf("%+v: %v, want 400 with %q", b.props, err, b.want)
		}
	}
	p := u.mustProfile(t, "p", fleetapi.AutoUpgradeProfileProperties{
		Channel: fleetapi.UpgradeChannelTargetKubernetesVersion, TargetKubernetesVersion: "1.32", LongTermSupport: to.Ptr(true), UpdateStrategyID: s.ID,
		NodeImageSelection: &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageLatest},
	}, nil)
	if p.Properties.TargetKubernetesVersion != "1.32" || !*p.Properties.LongTermSupport {
		t.Fatalf("profile %+v", p.Properties)
	}
	// A read sent back as is succeeds (status and provisioningState are not sent).
	back := *p.Properties
	back.Disabled = to.Ptr(true)
	p2 := u.mustProfile(t, "p", back, &fleetapi.Precondition{IfMatch: p.ETag})
	if p2.ETag == p.ETag || !*p2.Properties.Disabled {
		t.Errorf("update: %+v", p2)
	}
	if _, err := u.putProfile(t, "p", back, &fleetapi.Precondition{IfMatch: p.ETag}); apiError(err) != "412 PreconditionFailed" {
		t.Errorf("stale If-Match: %v", err)
	}
	if _, err := u.putProfile(t, "p", back, &fleetapi.Precondition{IfNoneMatch: "*"}); apiError(err) != "412 PreconditionFailed" {
		t.Errorf("If-None-Match on an existing profile: %v", err)
	}
	changed := back
	changed.UpdateStrategyID = s2.ID
	if _, err := u.putProfile(t, "p", changed, nil); apiError(err) != "400 PropertyChangeNotAllowed" {
		t.Errorf("changing updateStrategyId: %v", err)
	}
	changed = back
	changed.NodeImageSelection = &fleetapi.AutoUpgradeNodeImageSelection{Type: fleetapi.AutoUpgradeNodeImageConsistent}
	if _, err := u.putProfile(t, "p", changed, nil); apiError(err) != "400 PropertyChangeNotAllowed" {
		t.Errorf("changing nodeImageSelection: %v", err)
	}
	all, err := u.c.ListAutoUpgradeProfiles(ctx, u.fleet)
	if err != nil || len(all) != 1 || all[0].Name != "p" {
		t.Fatalf("list: %v %+v", err, all)
	}
	// A profile whose channel resolves to nothing can't generate a run.
	u.mustProfile(t, "future", fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelTargetKubernetesVersion, TargetKubernetesVersion: "1.34"}, nil)
	if _, err := lro(u.c.BeginGenerateUpdateRun(ctx, u.fleet, "future")); apiError(err) != "400 InvalidParameter" {
		t.Errorf("generate for an unreleased minor: %v", err)
	}
	if _, err := lro(u.c.BeginDeleteAutoUpgradeProfile(ctx, u.fleet, "p", &fleetapi.Precondition{IfMatch: p.ETag})); apiError(err) != "412 PreconditionFailed" {
		t.Errorf("delete with a stale If-Match: %v", err)
	}
	if _, err := lro(u.c.BeginDeleteAutoUpgradeProfile(ctx, u.fleet, "p", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.c.GetAutoUpgradeProfile(ctx, u.fleet, "p"); !fleetapi.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	if _, err := lro(u.c.BeginDeleteAutoUpgradeProfile(ctx, u.fleet, "p", nil)); err != nil {
		t.Errorf("deleting a deleted profile: %v", err)
	}
}

// TestLongProfileNameFitsRunName: the run name is cut to 50 characters.
func TestLongProfileNameFitsRunName(t *testing.T) {
	u := newUpdates(t, autoFleet(), 0)
	name := strings.Repeat("a", 44) + "-bcdef"
	u.mustProfile(t, name, fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelNodeImage}, nil)
	id := u.generate(t, name)
	_, run, err := fleetapi.ParseChildID(id, "updateRuns")
	if err != nil || len(run) > 50 || !strings.HasSuffix(run, "-nodeimage-"+run[len(run)-10:]) || !strings.HasPrefix(run, strings.Repeat("a", 20)) {
		t.Errorf("run %q (%d characters): %v", run, len(run), err)
	}
}
