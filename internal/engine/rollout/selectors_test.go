package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func labeled(kv ...string) func(*Member) {
	return func(m *Member) {
		m.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Labels[kv[i]] = kv[i+1]
		}
	}
}

func byLabel(s string) *MemberSelector { return &MemberSelector{ByLabel: s} }

// statusMembers lists each group's members as "stage/group: a b".
func statusMembers(r *Run) []string {
	var out []string
	for _, st := range r.Status.Stages {
		for _, g := range st.Groups {
			var names []string
			for _, m := range g.Members {
				names = append(names, m.Name)
			}
			out = append(out, st.Name+"/"+g.Name+": "+strings.Join(names, " "))
		}
	}
	return out
}

// selectorFleet: update groups "canary" and "prod"; labels env and region cut across them.
func selectorFleet() Fleet {
	d := takes(10 * time.Minute)
	return Fleet{Regions: regions(), Members: []Member{
		member("c-eu", "canary", eastus, "1.32.5", d, labeled("env", "test", "region", "eu")),
		member("c-us", "canary", eastus, "1.32.5", d, labeled("env", "prod", "region", "us")),
		member("p-eu", "prod", eastus, "1.32.5", d, labeled("env", "prod", "region", "eu")),
		member("p-us", "prod", eastus, "1.32.5", d, labeled("env", "prod", "region", "us")),
		member("x-none", "", eastus, "1.32.5", d),
	}}
}

// UpdateGroup.memberSelector (preview): "If specified, label-based selection will override group name
// based selection, and Name is only used as an identifier."
func TestGroupSelectorOverridesGroupName(t *testing.T) {
	f := selectorFleet()
	s := preview(Stage{Name: "s", Groups: []Group{
		{Name: "canary", MemberSelector: byLabel("env=prod,region=us")}, // a group name that members carry, ignored
		{Name: "prod"}, // by name: p-eu, and p-us is already taken
	}})
	r, _, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, statusMembers(r), []string{"s/canary: c-us p-us", "s/prod: p-eu"})
	a, _ := Assign(s, f.Members)
	if !reflect.DeepEqual(a.Unselected, []string{"c-eu", "x-none"}) {
		t.Fatalf("unselected %v", a.Unselected)
	}
}

// UpdateStage.memberSelector (preview): "If specified with UpdateGroup, members will be pre-filtered
// before group-level selection logic is applied."
func TestStageSelectorPrefiltersGroups(t *testing.T) {
	f := selectorFleet()
	s := preview(Stage{Name: "eu", MemberSelector: byLabel("region=eu"), Groups: []Group{{Name: "canary"}, {Name: "prod"}}},
		Stage{Name: "rest", Groups: []Group{{Name: "all", MemberSelector: byLabel("env")}}})
	r, _, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, statusMembers(r), []string{"eu/canary: c-eu", "eu/prod: p-eu", "rest/all: c-us p-us"})
}

// UpdateStage.memberSelector (preview): "If specified without UpdateGroup, one implicit group containing
// the selected members will be created." Choice (selectors.go): named after its stage, with the stage's
// maxConcurrency, skipped only with its stage.
func TestStageSelectorWithoutGroups(t *testing.T) {
	f := selectorFleet()
	s := preview(Stage{Name: "prod", MaxConcurrency: "2", MemberSelector: byLabel("env=prod")})
	r, evs := start(t, s, full("1.33.1"), f, t0)
	wantLines(t, statusMembers(r), []string{"prod/prod: c-us p-eu p-us"})
	if g := r.Status.Stages[0].Groups[0]; !g.Implicit || g.MaxConcurrency != 2 {
		t.Fatalf("implicit %v maxConcurrency %d", g.Implicit, g.MaxConcurrency)
	}
	if _, err := r.Skip([]SkipTarget{{Type: SkipGroup, Name: "prod"}}, f, t0); err == nil {
		t.Fatal("an implicit group is not a skip target of its own")
	}
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	wantLines(t, trace(evs, EventMemberStarted), []string{
		"11-23T00:00 c-us NotStarted>Running",
		"11-23T00:00 p-eu NotStarted>Running",
		"11-23T00:10 p-us NotStarted>Running",
	})
	if r.Status.State != Completed {
		t.Fatalf("run %s", r.Status.State)
	}
	// The preview shows the implicit group too.
	p, err := Plan(PlanInput{Strategy: s, Update: full("1.33.1"), Members: selectorFleet().Members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Stages[0].Groups; len(g) != 1 || !g[0].Implicit || len(g[0].Members) != 3 || p.Outcome != Completed {
		t.Fatalf("preview groups %+v outcome %s", g, p.Outcome)
	}
}

// Choice (selectors.go): a member several groups select is updated once, in the first group in
// strategy order; concepts-update-orchestration.md "Each member cluster of the fleet can only be a part
// of one update group." The preview warns.
func TestOverlappingSelectorsFirstWins(t *testing.T) {
	f := selectorFleet()
	s := preview(
		Stage{Name: "one", Groups: []Group{{Name: "eu", MemberSelector: byLabel("region=eu")}, {Name: "prod-a", MemberSelector: byLabel("env=prod")}}},
		Stage{Name: "two", Groups: []Group{{Name: "prod"}}},
	)
	r, _, err := NewRun(s, full("1.33.1"), f, t0)
	if err != nil {
		t.Fatal(err)
	}
	// p-eu: eu (kept), prod-a, prod; c-us, p-us: prod-a (kept); p-us also prod by name.
	wantLines(t, statusMembers(r), []string{"one/eu: c-eu p-eu", "one/prod-a: c-us p-us", "two/prod: "})
	a, _ := Assign(s, f.Members)
	want := []Overlap{
		{Member: "p-eu", Groups: []GroupRef{{"one", "eu"}, {"one", "prod-a"}, {"two", "prod"}}},
		{Member: "p-us", Groups: []GroupRef{{"one", "prod-a"}, {"two", "prod"}}},
	}
	if !reflect.DeepEqual(a.Overlaps, want) {
		t.Fatalf("overlaps %+v", a.Overlaps)
	}
	p, err := Plan(PlanInput{Strategy: s, Update: full("1.33.1"), Members: f.Members, Regions: regions()}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.MemberWarnings {
		got = append(got, w.String())
	}
	wantLines(t, got, []string{
		`member "x-none": neither its update group nor a member_selector of the strategy selects it; the run will not update it`,
		`member "p-eu" is selected by one/eu, one/prod-a, two/prod; it is updated once, in the first`,
		`member "p-us" is selected by one/prod-a, two/prod; it is updated once, in the first`,
	})
	// The name group "prod" lost its members to selectors: reported, not refused (strict NewRun passed).
	if !strings.Contains(strings.Join(p.Warnings, "\n"), `group "prod" of stage "two": the members of update group "prod" are all filtered out by the stage's memberSelector or taken by an earlier group`) {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

// A selector that selects nothing leaves its group empty: a warning, not an error (Choice, create.go).
func TestSelectorSelectingNothing(t *testing.T) {
	f := selectorFleet()
	s := preview(Stage{Name: "s", Groups: []Group{{Name: "g", MemberSelector: byLabel("env=staging")}, {Name: "canary"}}})
	r, evs := start(t, s, full("1.33.1"), f, t0)
	evs = append(evs, drive(t, r, &f, t0.Add(time.Hour), false)...)
	if r.Status.State != Completed || len(r.Status.Stages[0].Groups[0].Members) != 0 {
		t.Fatalf("run %s, %v", r.Status.State, trace(evs))
	}
	p, _ := Plan(PlanInput{Strategy: s, Update: full("1.33.1"), Members: f.Members, Regions: regions()}, t0)
	if !strings.Contains(strings.Join(p.Warnings, "\n"), `group "g" of stage "s": its memberSelector selects no fleet member`) {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

// ReachesLabeled says of every member what Assign does; Reaches, which sees only a group name, reaches
// every group once a selector is present and is unchanged without.
func TestReachesAgreesWithAssign(t *testing.T) {
	f := selectorFleet()
	for _, s := range []*Strategy{
		nil,
		{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "prod"}}}}},
		preview(Stage{Name: "eu", MemberSelector: byLabel("region=eu"), Groups: []Group{{Name: "canary"}}}),
		preview(Stage{Name: "p", MemberSelector: byLabel("env=prod")}),
		preview(Stage{Name: "s", Groups: []Group{{Name: "a", MemberSelector: byLabel("region notin (eu)")}, {Name: "prod"}}}),
	} {
		a, err := Assign(s, f.Members)
		if err != nil {
			t.Fatal(err)
		}
		unselected := map[string]bool{}
		for _, n := range a.Unselected {
			unselected[n] = true
		}
		reach := ReachesLabeled(s)
		for _, m := range f.Members {
			if got := reach(m.Group, m.Labels); got == unselected[m.Name] {
				t.Errorf("strategy %+v: ReachesLabeled(%s) = %v, Assign unselected = %v", s, m.Name, got, unselected[m.Name])
			}
		}
	}
	if !Reaches(preview(Stage{Name: "p", MemberSelector: byLabel("env=prod")}))("anything") {
		t.Error("Reaches must reach every group of a strategy with selectors")
	}
	if r := Reaches(&Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "prod"}}}}}); r("canary") || !r("prod") {
		t.Error("Reaches without selectors must reach exactly the strategy's groups")
	}
}
