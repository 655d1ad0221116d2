package facts

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func ringsStrategy(stages ...string) Strategy {
	s := Strategy{Name: "rings"}
	for _, st := range stages {
		s.Strategy.Stages = append(s.Strategy.Stages, fleetapi.UpdateStage{Name: st, Groups: []fleetapi.UpdateGroup{{Name: st}}})
	}
	return s
}

// A pinned view answers a strategy from the facts, through their encoding, and says what they lack;
// the settings the plan ran with are the view's.
func TestFactsStrategiesAndSettingsPinned(t *testing.T) {
	f := testFacts()
	f.Fleets[0].StrategiesRead = true
	f.Fleets[0].Strategies = []Strategy{ringsStrategy("canary", "prod")}
	f.Settings = &Settings{PreviewDetail: "full", ListLimit: 0}
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{ListLimit: 20, PreviewDetail: "summary"}).WithFacts(decoded)
	if c.ListLimit() != 0 {
		t.Fatalf("pinned list limit %d, want the plan's 0 (full)", c.ListLimit())
	}
	if got := New(Options{ListLimit: 20}).ListLimit(); got != 20 {
		t.Fatalf("live list limit %d", got)
	}
	fleet, _ := fleetapi.ParseFleetID(f.Fleets[0].ID)
	st, err := c.UpdateStrategy(t.Context(), fleet, "RINGS")
	if err != nil || stagesText(*st) != "canary[canary], prod[prod]" {
		t.Fatalf("strategy: %v %v", st, err)
	}
	var notRead *NotReadError
	// A strategy the facts lack is read now (here: no Azure configured, so the live bundle says so).
	var notConfigured *NotConfiguredError
	if _, err := c.UpdateStrategy(t.Context(), fleet, "other"); !errors.As(err, &notConfigured) {
		t.Fatalf("a strategy the facts lack: %v", err)
	}
	decoded.Fleets[0].StrategiesRead, decoded.Fleets[0].StrategiesErr = false, "403 Forbidden"
	if _, err := c.UpdateStrategy(t.Context(), fleet, "rings"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "403 Forbidden") {
		t.Fatalf("strategies not listed: %v", err)
	}
	other, _ := fleetapi.ParseFleetID("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/other")
	if _, err := c.UpdateStrategy(t.Context(), other, "rings"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "fleet_ids") {
		t.Fatalf("a fleet the facts lack: %v", err)
	}
	if w := c.WithSettings(&Settings{PreviewDetail: "summary", ListLimit: 20}); w.FleetNow() != c.FleetNow() || New(Options{}).WithSettings(&Settings{ListLimit: 7}).ListLimit() != 7 {
		t.Fatal("WithSettings")
	}
}

// What moved names the strategy a preview read whose stages changed (or that is gone), none it did
// not read, and a preview setting that differs from the plan's.
func TestMovedStrategiesAndSettings(t *testing.T) {
	planned := testFacts()
	planned.Fleets[0].StrategiesRead = true
	planned.Fleets[0].Strategies = []Strategy{ringsStrategy("canary", "prod"), {Name: "other"}}
	planned.Settings = &Settings{PreviewDetail: "full"}
	now := testFacts()
	now.Fleets[0].StrategiesRead = true
	now.Fleets[0].Strategies = []Strategy{ringsStrategy("prod", "canary")}
	now.Settings = &Settings{PreviewDetail: "summary", ListLimit: 20}

	scope := *planned
	scope.Fleets = append([]Fleet(nil), planned.Fleets...)
	scope.OnlyStrategy("rings")
	want := []string{
		"update strategy rings: stages canary[canary], prod[prod] → prod[prod], canary[canary]",
		"preview_detail was full at plan and is summary now; the reviewed plan's detail is kept",
	}
	if got := Moved(&scope, now); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Moved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(planned.Fleets[0].Strategies) != 2 {
		t.Fatal("OnlyStrategy changed the planned facts")
	}
	// "other" was not read by the preview; gone, it would be named only when it was.
	scope.Fleets = append([]Fleet(nil), planned.Fleets...)
	scope.OnlyStrategy("other")
	scope.Settings = now.Settings
	if got := Moved(&scope, now); len(got) != 1 || got[0] != "update strategy other: deleted" {
		t.Fatalf("Moved: %q", got)
	}
	scope.Fleets = append([]Fleet(nil), planned.Fleets...)
	scope.OnlyStrategy("")
	if got := Moved(&scope, now); len(got) != 0 {
		t.Fatalf("a preview that read no strategy: %q", got)
	}
	// Every part of a stage counts: waits, concurrency and gates.
	gated := ringsStrategy("canary")
	gated.Strategy.Stages[0].AfterStageWaitInSeconds = 3600
	gated.Strategy.Stages[0].MaxConcurrency = "50%"
	gated.Strategy.Stages[0].Groups[0].BeforeGates = []fleetapi.GateConfiguration{{Type: "Approval"}}
	if got := stagesText(gated.Strategy); got != "canary[canary; wait 3600s; max 50%; 1 gate(s)]" {
		t.Fatalf("stagesText: %q", got)
	}
}

// A fleet's strategies cost little in the facts: ten strategies of three stages of two groups each
// add under 1,500 bytes encoded (the facts of 1,000 members take about 75,000: TestFactsEncodedSize).
func TestFactsStrategiesEncodedSize(t *testing.T) {
	base := testFacts()
	without, err := base.Encode()
	if err != nil {
		t.Fatal(err)
	}
	base.Fleets[0].StrategiesRead = true
	for i := 0; i < 10; i++ {
		s := Strategy{Name: fmt.Sprintf("strategy-%d", i)}
		for j, st := range []string{"canary", "prod", "rest"} {
			s.Strategy.Stages = append(s.Strategy.Stages, fleetapi.UpdateStage{Name: st, AfterStageWaitInSeconds: int32(600 * j),
				Groups: []fleetapi.UpdateGroup{{Name: st + "-east"}, {Name: st + "-west", MaxConcurrency: "25%"}}})
		}
		base.Fleets[0].Strategies = append(base.Fleets[0].Strategies, s)
	}
	base.Settings = &Settings{PreviewDetail: "summary", ListLimit: 20}
	with, err := base.Encode()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10 strategies and the settings: %d bytes encoded", len(with)-len(without))
	if len(with)-len(without) > 1500 {
		t.Fatalf("10 strategies take %d bytes encoded, over 1,500", len(with)-len(without))
	}
}
