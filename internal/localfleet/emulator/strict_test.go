package emulator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The emulator refuses bodies real ARM would refuse, and the provider's own
// Fleet API client reports the refusal with the property's path: a stage
// name outside the API's pattern, an unknown upgrade type (the client never
// sends read-only properties: the openapi package's tests cover those). A
// valid body goes through, a refused one changes nothing, and the counters
// say what was checked.
func TestStrictBodiesThroughTheClient(t *testing.T) {
	u := newUpdates(t, testFleet(member("canary-1", "canary", "eastus", "")), 36000)
	ctx := context.Background()
	strategy := func(stage string) fleetapi.FleetUpdateStrategy {
		return fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{
			Stages: []fleetapi.UpdateStage{{Name: stage, Groups: []fleetapi.UpdateGroup{{Name: "canary"}}}},
		}}}
	}
	put := func(name string, body fleetapi.FleetUpdateStrategy) error {
		p, err := u.c.BeginCreateOrUpdateUpdateStrategy(ctx, u.fleet, name, body, nil)
		if err == nil {
			_, err = p.PollUntilDone(ctx, nil)
		}
		return err
	}
	if err := put("good", strategy("canary")); err != nil {
		t.Fatalf("a valid strategy: %v", err)
	}
	err := put("bad", strategy("Canary_1"))
	if want := "properties.strategy.stages[0].name: \"Canary_1\" does not match the pattern"; err == nil ||
		!strings.Contains(err.Error(), "InvalidRequestContent") || !strings.Contains(err.Error(), want) {
		t.Errorf("stage name: %v, want 400 InvalidRequestContent with %q", err, want)
	}
	if _, err := u.c.GetUpdateStrategy(ctx, u.fleet, "bad"); !fleetapi.IsNotFound(err) {
		t.Errorf("the refused strategy exists (%v): a refusal must change nothing", err)
	}
	run := fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{
		Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: "Everything"}}}}
	_, err = u.c.BeginCreateOrUpdateUpdateRun(ctx, u.fleet, "bad-run", run, nil)
	if want := "properties.managedClusterUpdate.upgrade.type: \"Everything\" is not one of"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("upgrade type: %v, want %q", err, want)
	}
	var checks struct{ Checked, Refused int }
	u.getFleetAPI(t, "/_emulator/bodychecks", &checks)
	if checks.Checked != 3 || checks.Refused != 2 {
		t.Errorf("body checks %+v, want 3 checked and 2 refused", checks)
	}
}
