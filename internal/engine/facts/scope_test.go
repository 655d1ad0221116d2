package facts

import "testing"

// A strategy a preview read that is gone at apply is named when both snapshots are scoped alike,
// as apply scopes them (Only over the same reads, then Moved).
func TestMovedStrategyDeletedScopedAlike(t *testing.T) {
	planned := testFacts()
	planned.Fleets[0].StrategiesRead = true
	planned.Fleets[0].Strategies = []Strategy{ringsStrategy("canary", "prod"), {Name: "other"}}
	now := testFacts()
	now.Fleets[0].StrategiesRead = true
	now.Fleets[0].Strategies = []Strategy{ringsStrategy("canary", "prod")}
	reads := []Read{{Input: InputStrategies, Key: StrategyKey(planned.Fleets[0].ID, "other")}}
	got := Moved(planned.Only(reads), now.Only(reads))
	if len(got) != 1 || got[0] != "update strategies: update strategy other: deleted" {
		t.Fatalf("Moved: %q", got)
	}
}
