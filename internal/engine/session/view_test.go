package session

import (
	"errors"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The live view has the provider's preview settings, ViewWith the settings it is given (apply:
// the reviewed plan's), each on the session's clocks; a pinned view has the snapshot's.
func TestViewSettings(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New(Options{ListLimit: 20, PreviewDetail: "summary", Now: func() time.Time { return fixed }})
	if got := s.View().ListLimit(); got != 20 {
		t.Fatalf("live list limit %d", got)
	}
	if got := s.Settings(); got != (facts.Settings{PreviewDetail: "summary", ListLimit: 20}) {
		t.Fatalf("settings %+v", got)
	}
	w := s.ViewWith(&facts.Settings{ListLimit: 7})
	if w.ListLimit() != 7 || !w.FleetNow().Equal(s.FleetNow()) || !w.Now().Equal(fixed) {
		t.Fatalf("ViewWith: list limit %d, clocks %v %v", w.ListLimit(), w.Now(), w.FleetNow())
	}
	if got := s.ViewWith(nil).ListLimit(); got != 20 {
		t.Fatalf("ViewWith(nil) list limit %d, want the provider's 20", got)
	}
	if got := New(Options{FleetAPIVersion: fleetapi.PreviewAPIVersion}).Settings().FleetAPIVersion; got != fleetapi.PreviewAPIVersion {
		t.Fatalf("preview settings record %q", got)
	}
	if got := New(Options{FleetAPIVersion: fleetapi.APIVersion}).Settings(); got.FleetAPIVersion != "" || facts.StableFleetAPIVersion != fleetapi.APIVersion {
		t.Fatalf("the stable version is recorded as %q (facts' stable %s)", got.FleetAPIVersion, facts.StableFleetAPIVersion)
	}
	planned := &facts.Snapshot{TakenAt: fixed.Add(-time.Hour), FleetNow: fixed.Add(-time.Hour), Settings: &facts.Settings{PreviewDetail: "full", ListLimit: 0}}
	if p := s.Pinned(planned); p.ListLimit() != 0 || !p.Now().Equal(planned.TakenAt) || !p.FleetNow().Equal(planned.FleetNow) {
		t.Fatalf("pinned: list limit %d (want the plan's 0, full), clocks %v %v", p.ListLimit(), p.Now(), p.FleetNow())
	}
}

// A session's pinned view reads an update strategy the snapshot's fleet lacked from the live fleet
// (here: no Azure configured, so the live session says so), and answers members with the update
// groups this run's fleet_member plans move them to.
func TestPinnedOverlay(t *testing.T) {
	const id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f"
	fleet, err := fleetapi.ParseFleetID(id)
	if err != nil {
		t.Fatal(err)
	}
	snap := &facts.Snapshot{Fleets: []facts.FleetRecord{{ID: id, StrategiesRead: true, Members: []facts.MemberRecord{{Name: "c1", Group: "prod"}, {Name: "c2"}},
		Strategies: []facts.Strategy{{Name: "rings", Strategy: fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{{Name: "canary"}}}}}}}}
	s := New(Options{})
	v := s.Pinned(snap)
	if st, err := v.UpdateStrategy(t.Context(), fleet, "rings"); err != nil || len(st.Stages) != 1 || st.Stages[0].Name != "canary" {
		t.Fatalf("a strategy the snapshot holds: %+v %v", st, err)
	}
	var notConfigured *NotConfiguredError
	if _, err := v.UpdateStrategy(t.Context(), fleet, "other"); !errors.As(err, &notConfigured) {
		t.Fatalf("a strategy the snapshot lacks: %v, want it read from the live fleet", err)
	}
	s.PlanMemberGroup(fleet, "c2", "canary")
	m, err := v.MemberClusters(t.Context(), fleet)
	if err != nil || len(m) != 2 || m[0].Group != "prod" || m[1].Group != "canary" {
		t.Fatalf("members with this run's planned groups: %+v %v", m, err)
	}
	if snap.Fleets[0].Members[1].Group != "" {
		t.Fatal("the planned groups changed the snapshot")
	}
}
