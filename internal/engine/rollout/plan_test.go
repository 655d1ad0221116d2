package rollout

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// render prints a preview compactly: one line per member, in order.
func render(p Preview) []string {
	var out []string
	for _, st := range p.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				out = append(out, fmt.Sprintf("%s/%s %s %s [%s] %s", st.Name, g.Name, m.Name, m.Action, m.MaintenanceWindow, m.Reason))
			}
		}
	}
	return out
}

func planFleet() []Member {
	d := takes(30 * time.Minute)
	return []Member{
		member("a-closed", "canary", eastus, "1.32.5", autoWindow(saturdays()), d),
		member("b-none", "canary", eastus, "1.32.5", d),
		member("c-soon", "canary", eastus, "1.32.5", autoWindow(opensSoon), d),
		member("d-open", "canary", eastus, "1.32.5", autoWindow(openNow), d),
		member("e-done", "prod", eastus, "1.33.1", pools(NodePool{Name: "system", NodeImageVersion: newImg})),
		member("f-west", "prod", westeu, "1.32.5", d),
		member("g-stray", "", eastus, "1.32.5"),
		member("h-other", "legacy", eastus, "1.32.5"),
	}
}

func planStrategy() *Strategy {
	return &Strategy{Stages: []Stage{
		{Name: "canary", Groups: []Group{{Name: "canary"}}, AfterStageWaitInSeconds: 3600, AfterGates: []Gate{{DisplayName: "canary healthy", Type: Approval}}},
		{Name: "prod", Groups: []Group{{Name: "prod"}}},
	}}
}

// SPEC §5/§6b fleet_update_run.preview: stages in order, groups, members in update order by
// maintenance window (open, opening within 4h, none, closed), actions with reasons, pending members
// and why, unselected members with warnings.
func TestPlan(t *testing.T) {
	p, err := Plan(PlanInput{Strategy: planStrategy(), Update: full("1.33.1"), Members: planFleet(), Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, render(p), []string{
		"canary/canary d-open upgrade [open] control plane then node pools 1.32.5 → 1.33.1",
		"canary/canary c-soon pending [opens_soon] maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-23T02:00:00Z; expected to start at 2026-11-23T02:30:00Z",
		"canary/canary b-none upgrade [none] control plane then node pools 1.32.5 → 1.33.1",
		"canary/canary a-closed pending [closed] maintenance window aksManagedAutoUpgradeSchedule is closed; it opens at 2026-11-28T02:00:00Z; expected to start at 2026-11-28T02:00:00Z",
		"prod/prod e-done skip [none] already at target Kubernetes version 1.33.1",
		"prod/prod f-west upgrade [none] control plane then node pools 1.32.5 → 1.33.1",
	})
	if !reflect.DeepEqual(p.UnselectedMembers, []string{"g-stray", "h-other"}) {
		t.Fatalf("unselected %v", p.UnselectedMembers)
	}
	var memberWarnings []string
	for _, w := range p.MemberWarnings {
		memberWarnings = append(memberWarnings, w.String())
	}
	if len(p.Warnings) != 0 {
		t.Fatalf("run warnings %v", p.Warnings)
	}
	wantLines(t, memberWarnings, []string{
		`member "g-stray" has no update group; no group of the strategy selects it and the run will not update it`,
		`member "h-other" is in update group "legacy", which no stage of the strategy contains; the run will not update it`,
	})
	// Stage two starts after the last canary member (11-28 02:30) and the one-hour wait.
	if p.Stages[1].EstimatedStart != at("2026-11-28T03:30:00Z") || p.Outcome != Completed || p.EstimatedCompletion != at("2026-11-28T04:00:00Z") {
		t.Fatalf("stage two at %s, outcome %s at %s", p.Stages[1].EstimatedStart, p.Outcome, p.EstimatedCompletion)
	}
	if g := p.Stages[0]; g.AfterStageWaitInSeconds != 3600 || !reflect.DeepEqual(g.Gates, []GatePreview{{Timing: After, DisplayName: "canary healthy", Type: Approval}}) {
		t.Fatalf("stage gates %+v wait %d", g.Gates, g.AfterStageWaitInSeconds)
	}
	m := p.Stages[1].Groups[0].Members[1]
	if m.CurrentKubernetesVersion != "1.32.5" || m.TargetKubernetesVersion != "1.33.1" || m.TargetNodeImageVersions["system"] != midImg || m.CurrentNodeImageVersions["system"] != oldImg {
		t.Fatalf("f-west versions %+v", m)
	}
}

// The bar of SPEC §8: "Update-run previews equal the emulator's actual order and outcomes". The
// emulator is NewRun + Start + Advance on its clock with approvals granted as gates are reached.
func TestPlanEqualsEmulatorExecution(t *testing.T) {
	members := planFleet()
	members = append(members, member("i-skip-minor", "prod", eastus, "1.31.9"))
	for _, u := range []Update{full("1.33.1"), {Upgrade: NodeImageOnly, NodeImageSelection: Consistent}, {Upgrade: ControlPlaneOnly, KubernetesVersion: "1.33.1"}} {
		t.Run(string(u.Upgrade), func(t *testing.T) {
			p, err := Plan(PlanInput{Strategy: planStrategy(), Update: u, Members: members, Regions: regions()}, t0)
			if err != nil {
				t.Fatal(err)
			}
			f := Fleet{Members: cloneMembers(members), Regions: regions()}
			r, _, err := newRun(planStrategy(), u, f, t0, false)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := r.Start(f, t0)
			evs = append(evs, drive(t, r, &f, t0.Add(PlanHorizon), true)...)

			// First thing that happened to each member, in order, per group.
			got := map[string][]string{}
			seen := map[string]bool{}
			for _, e := range evs {
				if e.Member == "" || seen[e.Member] {
					continue
				}
				var a Action
				switch {
				case e.Kind == EventMemberStarted:
					a = ActionUpgrade
				case e.To == Pending:
					a = ActionPending
				case e.To == Skipped:
					a = ActionSkip
				case e.To == Failed:
					a = ActionFail
				default:
					continue
				}
				seen[e.Member] = true
				got[e.Group] = append(got[e.Group], e.Member+" "+string(a))
			}
			want := map[string][]string{}
			for _, st := range p.Stages {
				for _, g := range st.Groups {
					for _, m := range g.Members {
						if m.ReachedAt.IsZero() {
							continue
						}
						want[g.Name] = append(want[g.Name], m.Name+" "+string(m.Action))
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("emulator %v\npreview  %v", got, want)
			}
			if p.Outcome != r.Status.State {
				t.Fatalf("preview outcome %s, emulator %s", p.Outcome, r.Status.State)
			}
		})
	}
}

// A predicted failure: AKS rejects a minor-version skip; fail-fast stops the run, so later members
// are never reached, and the preview says so.
func TestPlanPredictsFailure(t *testing.T) {
	members := []Member{
		member("a", "one", eastus, "1.31.9"),
		member("b", "one", eastus, "1.32.5"),
		member("c", "two", eastus, "1.32.5"),
	}
	s := &Strategy{Stages: []Stage{{Name: "s1", Groups: []Group{{Name: "one"}}}, {Name: "s2", Groups: []Group{{Name: "two"}}}}}
	p, err := Plan(PlanInput{Strategy: s, Update: full("1.33.1"), Members: members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	fail := "AKS does not skip Kubernetes minor versions: 1.31.9 → 1.33.1 crosses 2 minor versions; upgrade one minor version at a time"
	wantLines(t, render(p), []string{
		"s1/one a fail [none] " + fail,
		"s1/one b pending [none] not reached: the run fails before it reaches this member (member a (stage s1, group one): " + fail + ")",
		"s2/two c pending [none] not reached: the run fails before it reaches this member (member a (stage s1, group one): " + fail + ")",
	})
	if w := p.MemberWarnings; p.Outcome != Failed || len(p.Warnings) != 0 || len(w) != 1 || w[0].Kind != MemberFails || w[0].Member != "a" ||
		!strings.HasPrefix(w[0].String(), `member "a": AKS does not skip`) {
		t.Fatalf("outcome %s warnings %v %v", p.Outcome, p.Warnings, p.MemberWarnings)
	}
}

// concepts-update-orchestration.md Consistent: "pick image versions that are currently available in
// all Azure regions where the clusters in this run are located"; Skipped "when consistent node image
// is selected and it's not possible to find the target image version for one of the node pools".
func TestPlanConsistent(t *testing.T) {
	members := []Member{
		member("east", "g", eastus, "1.32.5"),
		member("west", "g", westeu, "1.32.5"),
		member("far", "g", nowhere, "1.32.5", pools(NodePool{Name: "win", NodeImageVersion: "AKSWindows-2022-containerd-20348.2582.240716"})),
	}
	p, err := Plan(PlanInput{Update: Update{Upgrade: NodeImageOnly, NodeImageSelection: Consistent}, Members: members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.ConsistentNodeImageVersions, []string{midImg}) {
		t.Fatalf("consistent %v", p.ConsistentNodeImageVersions)
	}
	wantLines(t, render(p), []string{
		"default/default east upgrade [none] node images",
		"default/default far skip [none] no consistent node image version for node pool win (image type AKSWindows-2022-containerd)",
		"default/default west upgrade [none] node images",
	})
	wantLines(t, p.Warnings, []string{"no node image version is common to every region for image type(s) AKSWindows-2022-containerd; members with such node pools are skipped"})
}

// A member whose version never reaches its region stays Pending; the stage never completes.
func TestPlanStuckPending(t *testing.T) {
	members := []Member{member("a", "one", eastus, "1.32.5"), member("b", "two", eastus, "1.32.5")}
	s := &Strategy{Stages: []Stage{{Name: "s1", Groups: []Group{{Name: "one"}}}, {Name: "s2", Groups: []Group{{Name: "two"}}}}}
	p, err := Plan(PlanInput{Strategy: s, Update: Update{Upgrade: ControlPlaneOnly, KubernetesVersion: "1.33.9"}, Members: members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, render(p), []string{
		"s1/one a pending [none] Kubernetes version 1.33.9 is not yet available in region eastus",
		"s2/two b pending [none] not reached: an earlier stage does not complete within a year while members stay Pending (a: Kubernetes version 1.33.9 is not yet available in region eastus)",
	})
	if p.Outcome != Pending {
		t.Fatalf("outcome %s", p.Outcome)
	}
}

func TestPlanRejectsInvalidInput(t *testing.T) {
	if _, err := Plan(PlanInput{Update: Update{Upgrade: NodeImageOnly, KubernetesVersion: "1.33.1"}}, t0); err == nil {
		t.Fatal("invalid update must fail")
	}
	if _, err := Plan(PlanInput{Strategy: &Strategy{}, Update: full("1.33.1")}, t0); err == nil {
		t.Fatal("invalid strategy must fail")
	}
	// A group that selects nobody is a warning in the preview (the API would reject the run).
	p, err := Plan(PlanInput{Strategy: oneGroup("ghost"), Update: full("1.33.1"), Members: []Member{member("a", "g", eastus, "1.32.5")}, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), `group "ghost" of stage "s" matches no fleet member`) {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

// SPEC §8 speed: a preview over 1,000 members one by one, with windows, stays fast.
func TestPlanThousandMembers(t *testing.T) {
	var members []Member
	ws := []func(*Member){autoWindow(openNow), autoWindow(opensSoon), autoWindow(saturdays()), func(*Member) {}}
	for i := 0; i < 1000; i++ {
		members = append(members, member(fmt.Sprintf("m%04d", i), fmt.Sprintf("g%d", i%10), eastus, "1.32.5", ws[i%4], takes(20*time.Minute)))
	}
	start := time.Now()
	p, err := Plan(PlanInput{Update: full("1.33.1"), Members: members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Stages[0].Groups[0].Members); n != 1000 || p.Outcome != Completed {
		t.Fatalf("%d members, outcome %s", n, p.Outcome)
	}
	t.Logf("1,000 members one by one: %s", time.Since(start))
}
