package view

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// A pinned view answers from the facts and says what they lack; the clocks are the facts'.
func TestPinned(t *testing.T) {
	f := testFacts()
	v := Pinned(f, Overlay{})
	if !v.Now().Equal(f.TakenAt) || !v.FleetNow().Equal(f.FleetNow) {
		t.Fatalf("clocks: %v %v", v.Now(), v.FleetNow())
	}
	other := mustParseFleet(t, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/other")
	var notRead *facts.NotReadError
	if _, err := Members(t.Context(), v, other); !errors.As(err, &notRead) {
		t.Fatalf("a fleet the facts lack: %v", err)
	}
	f.Fleets[0].Windows = false
	fleet := mustParseFleet(t, f.Fleets[0].ID)
	if _, err := Members(t.Context(), v, fleet); !errors.As(err, &notRead) {
		t.Fatalf("windows the facts lack: %v", err)
	}
	if m, err := v.MemberClusters(t.Context(), fleet); err != nil || len(m) != 2 {
		t.Fatalf("member clusters: %v %v", m, err)
	}
	if hub, err := v.HubMemberClusters(t.Context()); err != nil || len(hub) != 1 {
		t.Fatalf("hub: %v %v", hub, err)
	}
}

// The overlay's planned update groups move the members a pinned view answers with, not the
// facts' own records.
func TestPinnedPlannedGroups(t *testing.T) {
	f := testFacts()
	fleet := mustParseFleet(t, f.Fleets[0].ID)
	v := Pinned(f, Overlay{Groups: func(id fleetapi.FleetID) map[string]string {
		if id != fleet {
			t.Errorf("groups asked of fleet %s", id)
		}
		return map[string]string{"c1": "canary"}
	}})
	for _, read := range []func() ([]facts.Member, error){
		func() ([]facts.Member, error) { return v.MemberClusters(t.Context(), fleet) },
		func() ([]facts.Member, error) { return Members(t.Context(), v, fleet) },
	} {
		m, err := read()
		if err != nil || len(m) != 2 || m[0].Group != "canary" || m[1].Group != "" {
			t.Fatalf("members with planned groups: %+v %v", m, err)
		}
	}
	if f.Fleets[0].Members[0].Group != "prod" {
		t.Fatal("the planned groups changed the facts")
	}
}

// A pinned view answers a strategy from the facts, through their encoding, and says what they
// lack; a strategy the facts' fleet lacks is read through the overlay; the settings the plan ran
// with are the view's.
func TestPinnedStrategiesAndSettings(t *testing.T) {
	f := testFacts()
	f.Fleets[0].StrategiesRead = true
	f.Fleets[0].Strategies = []facts.Strategy{ringsStrategy("canary", "prod")}
	f.Settings = &facts.Settings{PreviewDetail: "full", ListLimit: 0}
	decoded := encoded(t, f)
	errLive := errors.New("read now")
	var readNow []string
	v := Pinned(decoded, Overlay{Strategy: func(_ context.Context, _ fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
		readNow = append(readNow, name)
		return nil, errLive
	}})
	if v.ListLimit() != 0 {
		t.Fatalf("pinned list limit %d, want the plan's 0 (full)", v.ListLimit())
	}
	if got := Pinned(&facts.Snapshot{Settings: &facts.Settings{ListLimit: 20}}, Overlay{}).ListLimit(); got != 20 {
		t.Fatalf("pinned list limit %d, want the plan's 20", got)
	}
	if got := Pinned(&facts.Snapshot{}, Overlay{}).ListLimit(); got != 0 {
		t.Fatalf("list limit of facts without settings: %d", got)
	}
	fleet := mustParseFleet(t, f.Fleets[0].ID)
	st, err := v.UpdateStrategy(t.Context(), fleet, "RINGS")
	if err != nil || stageNames(st) != "canary, prod" {
		t.Fatalf("strategy: %v %v", st, err)
	}
	if len(readNow) != 0 {
		t.Fatalf("a strategy the facts hold was read now: %v", readNow)
	}
	// A strategy the facts lack is read now (session.Session.Pinned: from the live fleet).
	if _, err := v.UpdateStrategy(t.Context(), fleet, "other"); !errors.Is(err, errLive) || len(readNow) != 1 || readNow[0] != "other" {
		t.Fatalf("a strategy the facts lack: %v (read now: %v)", err, readNow)
	}
	if _, err := Pinned(decoded, Overlay{}).UpdateStrategy(t.Context(), fleet, "other"); !errors.Is(err, facts.ErrStrategyAbsent) {
		t.Fatalf("a strategy the facts lack, with nothing to read it now: %v", err)
	}
	var notRead *facts.NotReadError
	decoded.Fleets[0].StrategiesRead, decoded.Fleets[0].StrategiesErr = false, "403 Forbidden"
	if _, err := v.UpdateStrategy(t.Context(), fleet, "rings"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "403 Forbidden") {
		t.Fatalf("strategies not listed: %v", err)
	}
	other := mustParseFleet(t, "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/other")
	if _, err := v.UpdateStrategy(t.Context(), other, "rings"); !errors.As(err, &notRead) || !strings.Contains(err.Error(), "fleet_ids") {
		t.Fatalf("a fleet the facts lack: %v", err)
	}
	if len(readNow) != 1 {
		t.Fatalf("strategies read now: %v, want only the one the facts' fleet lacked", readNow)
	}
}
