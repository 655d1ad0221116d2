package emulator

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// specDefinitions reads the definitions of one of the embedded documents.
func specDefinitions(t *testing.T, file string) map[string]struct {
	Properties map[string]json.RawMessage `json:"properties"`
} {
	t.Helper()
	b, err := os.ReadFile("../../engine/fleetapi/openapi/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Definitions
}

// TestPreviewOnlyPropertiesAreTheDocuments: what a stable answer leaves out
// is exactly what the preview document adds to the definitions both
// documents share and no stable definition has; and every free-form map of
// either document is one stripPreview does not look into.
func TestPreviewOnlyPropertiesAreTheDocuments(t *testing.T) {
	stable, preview := specDefinitions(t, "fleets.json"), specDefinitions(t, "fleets-2026-11-01-preview.json")
	inStable := map[string]bool{}
	for _, d := range stable {
		for p := range d.Properties {
			inStable[p] = true
		}
	}
	want := map[string]bool{}
	for name, d := range preview {
		if _, shared := stable[name]; !shared {
			continue
		}
		for p := range d.Properties {
			if !inStable[p] {
				want[p] = true
			}
		}
	}
	if !reflect.DeepEqual(want, previewOnlyProperties) {
		t.Errorf("previewOnlyProperties = %v, the documents say %v", keys(previewOnlyProperties), keys(want))
	}
	for _, defs := range []map[string]struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}{stable, preview} {
		for name, d := range defs {
			for p, raw := range d.Properties {
				if strings.Contains(string(raw), `"additionalProperties"`) && !freeFormProperties[p] {
					t.Errorf("%s.%s is a free-form map that freeFormProperties lacks", name, p)
				}
			}
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestStripPreview: preview-only properties go at any depth, a user's
// label or tag of the same name stays, and an answer without any is left
// as it was.
func TestStripPreview(t *testing.T) {
	var v any
	in := `{"properties":{"failureCount":1,"labels":{"failureCount":"x"},"tags":{"memberSelector":"y"},
	  "stages":[{"name":"s","maxAllowedFailures":"2","groups":[{"name":"g","memberSelector":{"byLabel":"a=b"}}]}]}}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if !stripPreview(v) {
		t.Fatal("stripPreview dropped nothing")
	}
	got, _ := json.Marshal(v)
	want := `{"properties":{"labels":{"failureCount":"x"},"stages":[{"groups":[{"name":"g"}],"name":"s"}],"tags":{"memberSelector":"y"}}}`
	if string(got) != want {
		t.Errorf("stripped\n%s\nwant\n%s", got, want)
	}
	var plain any
	_ = json.Unmarshal([]byte(`{"labels":{"failureCount":"1"}}`), &plain)
	if stripPreview(plain) {
		t.Error("stripPreview reports a change inside a free-form map")
	}
}

// TestRunnerWakesAtScheduledStart: a preview run whose stage waits on a
// ScheduledStart gate has the gate's absoluteStartTime as the runner's next
// wake-up, and the runner's own tick (what its loop runs, no request in
// between) completes the gate then, not a minute before, and starts the stage.
func TestRunnerWakesAtScheduledStart(t *testing.T) {
	f, err := fleetfile.Parse([]byte(`fleet: {name: demo, subscriptionId: 00000000-0000-0000-0000-000000000001, resourceGroup: rg-fleet, location: eastus}
clock: {start: "2026-11-23T10:00:00Z", speed: 1}
regions:
  eastus: {kubernetesVersions: ["1.32.5", "1.33.1"], nodeImages: {AKSUbuntu-2204gen2containerd: ["202510.01.0"]}}
members:
  - {name: a, group: g, location: eastus, kubernetesVersion: "1.32.5", nodePools: [{name: system, count: 1, nodeImage: AKSUbuntu-2204gen2containerd-202510.01.0}], upgrade: {duration: 1h}}
`))
	if err != nil {
		t.Fatal(err)
	}
	man := simclock.NewManual(time.Unix(0, 0))
	s, err := New(Config{File: f, Clock: simclock.New(f.Clock.Start, 1, man.Now), TenantID: "t", ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) // Monday 12:00 at +00:00, two hours on
	strategy := &fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{{Name: "s", Groups: []fleetapi.UpdateGroup{{Name: "g"}},
		BeforeGates: []fleetapi.GateConfiguration{{DisplayName: "noon", Type: fleetapi.GateTypeScheduledStart,
			ScheduledStartConfiguration: &fleetapi.ScheduledStartConfiguration{StartDay: fleetapi.Monday, StartTime: "12:00", UTCOffset: "+00:00"}}}}}}
	w := s.world
	w.mu.Lock()
	rr, err := s.newRunRecord(s.fleetResourceID(), "r", fleetapi.UpdateRunProperties{Strategy: strategy,
		ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull, KubernetesVersion: "1.33.1"}}}, true, w.clock.Now())
	if err == nil {
		_, _, err = w.store.put(rr.api.ID, typeUpdateRuns, rr, precondition{}, w.clock.Now())
	}
	if err == nil {
		err = s.startRun(rr, w.clock.Now())
	}
	next, ok := s.nextWake()
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !next.Equal(at) {
		t.Fatalf("next wake-up %v (%v), want the gate's time %v", next, ok, at)
	}
	gateState := func() (fleetapi.GateState, *fleetapi.ScheduledStartProperties) {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, name := range rr.gates {
			rec, _ := w.store.get(s.fleetResourceID() + "/gates/" + name)
			g := s.gateView(rec)
			return g.Properties.State, g.Properties.ScheduledStartProperties
		}
		return "", nil
	}
	member := func() rollout.State {
		w.mu.Lock()
		defer w.mu.Unlock()
		return memberStatus(rr.run, "a").State
	}
	if st, sp := gateState(); st != fleetapi.GateStatePending || sp == nil || sp.AbsoluteStartTime == nil || !sp.AbsoluteStartTime.Equal(at) {
		t.Fatalf("gate %s %+v, want Pending with absoluteStartTime %v", st, sp, at)
	}
	man.Advance(at.Sub(w.clock.Now()) - time.Minute)
	s.runner.tick()
	if st, _ := gateState(); st != fleetapi.GateStatePending || member() != rollout.NotStarted {
		t.Fatalf("a minute early: gate %s, member %s; want Pending, NotStarted", st, member())
	}
	man.Advance(time.Minute)
	s.runner.tick()
	if st, _ := gateState(); st != fleetapi.GateStateCompleted || member() != rollout.Running {
		t.Fatalf("at the gate's time: gate %s, member %s; want Completed, Running", st, member())
	}
}
