package rollout

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// Shared fixtures. 2026-11-23 is a Monday.
var t0 = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

const (
	ubuntu  = "AKSUbuntu-2204gen2containerd"
	azl     = "AKSAzureLinux-V2gen2"
	oldImg  = ubuntu + "-202510.01.0"
	midImg  = ubuntu + "-202510.20.0"
	newImg  = ubuntu + "-202511.04.0"
	azlOld  = azl + "-202510.01.0"
	azlNew  = azl + "-202511.04.0"
	eastus  = "eastus"
	westeu  = "westeurope"
	nowhere = "antarctica"
)

func ptr[T any](v T) *T { return &v }

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func date(s string) *time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return &t
}

// daily window at HH:MM for 4h, from 2026-11-01.
func dailyAt(hhmm string) *armcontainerservice.MaintenanceWindow {
	return &armcontainerservice.MaintenanceWindow{
		Schedule:      &armcontainerservice.Schedule{Daily: &armcontainerservice.DailySchedule{IntervalDays: ptr[int32](1)}},
		StartTime:     ptr(hhmm),
		DurationHours: ptr[int32](4),
		UTCOffset:     ptr("+00:00"),
		StartDate:     date("2026-11-01"),
	}
}

// Saturday 02:00–06:00 UTC weekly; next opening after t0 is 2026-11-28T02:00Z.
func saturdays() *armcontainerservice.MaintenanceWindow {
	return &armcontainerservice.MaintenanceWindow{
		Schedule:      &armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{IntervalWeeks: ptr[int32](1), DayOfWeek: ptr(armcontainerservice.WeekDaySaturday)}},
		StartTime:     ptr("02:00"),
		DurationHours: ptr[int32](4),
		StartDate:     date("2026-01-01"),
	}
}

var (
	openNow   = dailyAt("23:00") // opened 2026-11-22T23:00Z, open at t0
	opensSoon = dailyAt("02:00") // opens 2026-11-23T02:00Z, 2h after t0
)

func regions() map[string]Region {
	return map[string]Region{
		eastus: {
			KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
			NodeImages:         map[string][]string{ubuntu: {"202510.01.0", "202510.20.0", "202511.04.0"}, azl: {"202510.01.0", "202511.04.0"}},
		},
		westeu: {
			KubernetesVersions: []string{"1.31.9", "1.32.5"},
			NodeImages:         map[string][]string{ubuntu: {"202510.01.0", "202510.20.0"}, azl: {"202510.01.0"}},
			Releases:           []Release{{At: at("2026-11-24T12:00:00Z"), KubernetesVersion: "1.33.1"}},
		},
	}
}

// member builds a member with one Ubuntu pool on the old image.
func member(name, group, loc, k8s string, opts ...func(*Member)) Member {
	m := Member{Name: name, Group: group, Location: loc, KubernetesVersion: k8s,
		NodePools: []NodePool{{Name: "system", OSSKU: "Ubuntu", NodeImageVersion: oldImg}}}
	for _, o := range opts {
		o(&m)
	}
	return m
}

func autoWindow(w *armcontainerservice.MaintenanceWindow) func(*Member) {
	return func(m *Member) { m.AutoUpgradeWindow = w }
}

func osWindow(w *armcontainerservice.MaintenanceWindow) func(*Member) {
	return func(m *Member) { m.NodeOSUpgradeWindow = w }
}

func takes(d time.Duration) func(*Member) {
	return func(m *Member) { m.Upgrade.Duration = d }
}

func fails(msg string) func(*Member) {
	return func(m *Member) { m.Upgrade.Fail, m.Upgrade.Message = true, msg }
}

func pools(ps ...NodePool) func(*Member) {
	return func(m *Member) { m.NodePools = ps }
}

func lts(m *Member) { m.LongTermSupport = true }

func full(v string) Update { return Update{Upgrade: Full, KubernetesVersion: v} }

// drive plays the emulator: it advances the run to each NextWake until until, approving gates
// when approve is set, and applies finished upgrades to the fleet. It returns all events.
func drive(t *testing.T, r *Run, f *Fleet, until time.Time, approve bool) []Event {
	t.Helper()
	var all []Event
	applyEvents := func(evs []Event) {
		idx := f.memberIndex()
		for _, e := range evs {
			if e.Kind == EventMemberFinished && e.To == Completed && e.Target != nil {
				ApplyTarget(idx[e.Member], r.Update.Upgrade, *e.Target)
			}
		}
		all = append(all, evs...)
	}
	for i := 0; i < 100000; i++ {
		if approve {
			for _, e := range all {
				if e.Kind == EventGateState && e.To == Pending {
					if g := r.Gate(*e.Gate); g != nil && g.State == Pending {
						evs, err := r.CompleteGate(*e.Gate, *f, r.Status.Clock)
						if err != nil {
							t.Fatalf("approve %+v: %v", *e.Gate, err)
						}
						applyEvents(evs)
					}
				}
			}
		}
		next, ok := r.NextWake()
		if !ok || next.After(until) {
			applyEvents(r.Advance(*f, until))
			return all
		}
		applyEvents(r.Advance(*f, next))
	}
	t.Fatal("drive did not settle")
	return nil
}

// trace renders member events as "HH:MM member from>to" lines, for compact expectations.
func trace(evs []Event, kinds ...EventKind) []string {
	var out []string
	for _, e := range evs {
		ok := len(kinds) == 0
		for _, k := range kinds {
			ok = ok || e.Kind == k
		}
		if !ok {
			continue
		}
		who := e.Member
		switch {
		case e.Gate != nil:
			who = fmt.Sprintf("gate:%s/%s/%s%d", e.Gate.Stage, e.Gate.Group, e.Gate.Timing, e.Gate.Index)
		case who == "" && e.Group != "":
			who = "group:" + e.Group
		case who == "" && e.Stage != "" && e.Kind == EventWaitState:
			who = "wait:" + e.Stage
		case who == "" && e.Stage != "":
			who = "stage:" + e.Stage
		case who == "":
			who = "run"
		}
		out = append(out, fmt.Sprintf("%s %s %s>%s", e.At.UTC().Format("01-02T15:04"), who, e.From, e.To))
	}
	return out
}

func wantLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func memberState(r *Run, name string) MemberStatus {
	_, _, m := r.findMember(name)
	if m == nil {
		panic("no member " + name)
	}
	return *m
}
