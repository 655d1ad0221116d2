package facts

import (
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

	fleet := planned.Fleets[0].ID
	// What a preview read (Only): the fleet's members, one strategy, and the settings when read.
	reads := func(strategy string, settings bool) []Read {
		r := []Read{{Input: InputFleetMembers, Key: FleetKey(fleet)}}
		if strategy != "" {
			r = append(r, Read{Input: InputStrategies, Key: StrategyKey(fleet, strategy)})
		}
		if settings {
			r = append(r, Read{Input: InputSettings})
		}
		return r
	}
	scope := planned.Only(reads("RINGS", true))
	want := []string{
		"preview settings: preview_detail was full at plan and is summary now; the reviewed plan's detail is kept",
		"update strategies: update strategy rings: stages canary[canary], prod[prod] → prod[prod], canary[canary]",
	}
	if got := Moved(scope, now.Only(reads("RINGS", true))); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Moved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(planned.Fleets[0].Strategies) != 2 || planned.Settings.PreviewDetail != "full" {
		t.Fatal("Only changed the planned facts")
	}
	// The API version the plan was made under moved: named, with the version requests now use.
	scope = planned.Only(reads("", true))
	scope.Settings.FleetAPIVersion = "2026-11-01-preview"
	now.Settings.PreviewDetail, now.Settings.ListLimit = scope.Settings.PreviewDetail, scope.Settings.ListLimit
	if got := Moved(scope, now.Only(reads("", true))); len(got) != 1 ||
		got[0] != "preview settings: fleet_api_version was 2026-11-01-preview at plan and is 2026-06-01 now; requests are sent with 2026-06-01" {
		t.Fatalf("Moved: %q", got)
	}
	// "other" was not read by the preview; gone, it would be named only when it was. (The planned
	// side alone is scoped here: Only drops a strategy absent now, and with it the fact that the
	// strategies were listed, so both scoped alike say nothing: TestMovedStrategyDeletedScopedAlike.)
	scope = planned.Only(reads("other", false))
	if got := Moved(scope, now); len(got) != 1 || got[0] != "update strategies: update strategy other: deleted" {
		t.Fatalf("Moved: %q", got)
	}
	scope = planned.Only(reads("", false))
	if got := Moved(scope, now.Only(reads("", false))); len(got) != 0 {
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
