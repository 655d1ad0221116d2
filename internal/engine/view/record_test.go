package view

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

const otherFleetID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/other"

// recordedFacts are a snapshot with more than a rollout preview of fleet f reads: f's two members
// with their windows and two strategies, another fleet's member, the hub, a region and settings.
func recordedFacts() *facts.Snapshot {
	f := testFacts()
	window := func(day armcontainerservice.WeekDay) map[string]*armcontainerservice.MaintenanceWindow {
		return map[string]*armcontainerservice.MaintenanceWindow{facts.AutoUpgradeSchedule: {StartTime: to.Ptr("02:00"), UTCOffset: to.Ptr("+00:00"),
			DurationHours: to.Ptr[int32](4), Schedule: &armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{DayOfWeek: to.Ptr(day), IntervalWeeks: to.Ptr[int32](1)}}}}
	}
	f.Fleets[0].Members = []facts.MemberRecord{
		facts.RecordOf(facts.Member{Name: "c1", Group: "canary", Labels: map[string]string{"env": "prod"}, Windows: window(armcontainerservice.WeekDaySaturday)}),
		facts.RecordOf(facts.Member{Name: "c2", Group: "prod", Windows: window(armcontainerservice.WeekDaySaturday)}),
	}
	f.Fleets[0].StrategiesRead = true
	other := ringsStrategy("all")
	other.Name = "other"
	f.Fleets[0].Strategies = []facts.Strategy{other, ringsStrategy("canary", "prod")}
	f.Fleets = append(f.Fleets, facts.FleetRecord{ID: otherFleetID, Windows: true, StrategiesRead: true,
		Members:    []facts.MemberRecord{facts.RecordOf(facts.Member{Name: "d1", Labels: map[string]string{"env": "prod"}})},
		Strategies: []facts.Strategy{ringsStrategy("canary")}})
	f.Regions = []facts.Region{{Location: "eastus"}}
	f.Settings = &facts.Settings{PreviewDetail: "summary", ListLimit: 20}
	return f
}

// What a preview reads of a pinned view is what the Recorder notes, Only keeps exactly that of the
// snapshot (another fleet's members, a strategy not followed, the hub, regions and settings
// dropped), and what moved over two snapshots scoped alike names only what was read.
func TestRecordedReadsScopeTheSnapshot(t *testing.T) {
	planned := recordedFacts()
	fleet := mustParseFleet(t, testFleetID)
	rec := Record(Pinned(planned, Overlay{}), facts.InputFleetMembers, facts.InputWindows, facts.InputStrategies)
	members, err := Members(t.Context(), rec, fleet)
	if err != nil || len(members) != 2 || members[0].Windows[facts.AutoUpgradeSchedule] == nil {
		t.Fatalf("members: %+v %v", members, err)
	}
	st, err := rec.UpdateStrategy(t.Context(), fleet, "Rings")
	if err != nil || stageNames(st) != "canary, prod" {
		t.Fatalf("strategy: %v %v", st, err)
	}
	if _, err := rec.MemberClusters(t.Context(), fleet); err != nil { // read again: noted once
		t.Fatal(err)
	}
	reads := rec.Reads()
	key := facts.FleetKey(testFleetID)
	want := []facts.Read{
		{Input: facts.InputFleetMembers, Key: key},
		{Input: facts.InputWindows, Key: key},
		{Input: facts.InputStrategies, Key: key + "/rings"},
	}
	if !slices.Equal(reads, want) {
		t.Fatalf("reads %+v, want %+v", reads, want)
	}
	if u := rec.Undeclared(); len(u) != 0 {
		t.Fatalf("undeclared inputs read: %v", u)
	}

	scope := planned.Only(reads)
	if !scope.TakenAt.Equal(planned.TakenAt) || !scope.FleetNow.Equal(planned.FleetNow) {
		t.Errorf("clocks not kept: %v %v", scope.TakenAt, scope.FleetNow)
	}
	if len(scope.Fleets) != 1 || scope.Fleets[0].ID != testFleetID {
		t.Fatalf("fleets kept: %+v, want only %s", scope.Fleets, testFleetID)
	}
	kept := scope.Fleets[0]
	if !kept.Windows || len(kept.Members) != 2 || kept.Members[0].Name != "c1" || kept.Members[1].Name != "c2" {
		t.Errorf("members kept: %+v (windows %t), want c1 and c2 with their windows", kept.Members, kept.Windows)
	}
	if !kept.StrategiesRead || len(kept.Strategies) != 1 || kept.Strategies[0].Name != "rings" {
		t.Errorf("strategies kept: %+v, want only rings", kept.Strategies)
	}
	if scope.HubRead || scope.Hub != nil || scope.Settings != nil || scope.Regions != nil || scope.PlacementsRead {
		t.Errorf("kept what was not read: hub %t %v, settings %v, regions %v, placements %t", scope.HubRead, scope.Hub, scope.Settings, scope.Regions, scope.PlacementsRead)
	}
	if len(planned.Fleets) != 2 || len(planned.Fleets[0].Strategies) != 2 || !planned.HubRead {
		t.Fatal("Only changed the planned snapshot")
	}
	// A pinned view of the scoped snapshot answers the preview's reads as the whole one did.
	again := Record(Pinned(scope, Overlay{}))
	if m, err := Members(t.Context(), again, fleet); err != nil || len(m) != 2 {
		t.Fatalf("members of the scoped snapshot: %v %v", m, err)
	}
	if st, err := again.UpdateStrategy(t.Context(), fleet, "rings"); err != nil || stageNames(st) != "canary, prod" {
		t.Fatalf("strategy of the scoped snapshot: %v %v", st, err)
	}

	// The fleet moves: what the preview read, and what it did not.
	now := recordedFacts()
	now.TakenAt = now.TakenAt.Add(time.Hour)
	now.Fleets[0].Members[0].Labels = map[string]string{"env": "staging"}
	now.Fleets[0].Members[1].Windows[facts.AutoUpgradeSchedule].Schedule.Weekly.DayOfWeek = to.Ptr(armcontainerservice.WeekDaySunday)
	now.Fleets[0].Strategies[1] = ringsStrategy("prod", "canary")
	now.Fleets[0].Strategies[0].Strategy.Stages[0].Name = "everyone" // "other": not read
	now.Fleets[1].Members[0].Labels["env"] = "staging"               // another fleet: not read
	now.Fleets[1].Strategies = nil
	now.Hub[0].Labels["env"] = "staging" // the hub: not read
	now.Settings = &facts.Settings{PreviewDetail: "full"}
	wantMoved := []string{
		"fleet members: member c1: labels env: prod → staging",
		"maintenance windows: member c2: maintenance windows " + facts.AutoUpgradeSchedule +
			": every 1 week(s) on Saturday at 02:00+00:00 for 4h → every 1 week(s) on Sunday at 02:00+00:00 for 4h",
		"update strategies: update strategy rings: stages canary[canary], prod[prod] → prod[prod], canary[canary]",
	}
	if got := facts.Moved(scope, now.Only(reads)); strings.Join(got, "\n") != strings.Join(wantMoved, "\n") {
		t.Fatalf("Moved over the scoped snapshots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantMoved, "\n"))
	}
	// Unscoped, what the preview did not read would be said too.
	all := strings.Join(facts.Moved(planned, now), "\n")
	for _, notRead := range []string{"hub member clusters: member cluster c1", "update strategy other", "member d1", "preview settings:"} {
		if !strings.Contains(all, notRead) {
			t.Errorf("the unscoped snapshots do not differ in %q, so the test shows nothing of it:\n%s", notRead, all)
		}
	}
}
