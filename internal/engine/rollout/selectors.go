package rollout

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/labels"
)

// Membership: which members each stage and group of a strategy selects. NewRun places members
// with Assign; Plan reports the members Assign leaves out; the provider asks Assign (or
// ReachesLabeled, before it has read the clusters) which members a run reaches.
//
// 2026-11-01-preview fleets.json:
//   - UpdateGroup.memberSelector: "If specified, label-based selection will override group name
//     based selection, and Name is only used as an identifier. If not specified, group name based
//     selection will be used, and Name must match a group name of an existing fleet member."
//   - UpdateStage.memberSelector: "If specified without UpdateGroup, one implicit group containing
//     the selected members will be created. If specified with UpdateGroup, members will be
//     pre-filtered before group-level selection logic is applied. If not specified, group-level
//     selection logic will be used."
//   - MemberSelector.byLabel: "Kubernetes-style label selector for selecting Fleet members, e.g.
//     `env=production`." — parsed with k8s.io/apimachinery labels.Parse, as Kubernetes does.
//
// Choice: a member that several groups select (possible only with selectors) is placed in the
// first of them in strategy order (stages in order, then groups in order) and reported in
// Assignment.Overlaps. concepts-update-orchestration.md: "Each member cluster of the fleet can
// only be a part of one update group."; which group wins is not documented.
// Choice: the implicit group is named after its stage (the spec names it nowhere; the upstream
// UpdateRuns_CreateOrUpdate example lists such a stage with "groups": [] before the run starts),
// has no gates, and is not a skip target of its own (skip its stage).
// Choice: byLabel "" is the selector labels.Parse("") gives, which selects every member.

// Assignment is where Assign places the members.
type Assignment struct {
	Stages []StageAssignment
	// Unselected are the members no group selects, by name.
	Unselected []string
	// Overlaps are the members more than one group selects.
	Overlaps []Overlap
}

// StageAssignment is one stage's groups and their members.
type StageAssignment struct {
	Name   string
	Groups []GroupAssignment
}

// GroupAssignment is one group's members, sorted by name.
type GroupAssignment struct {
	Name string
	// Implicit: the stage's memberSelector made this group (the stage has no groups).
	Implicit bool
	// BySelector: the group selected by its memberSelector (false: by update group name).
	BySelector bool
	// NamedMembers counts the fleet members whose update group is Name, before the stage's
	// memberSelector and earlier groups took their pick (groups without a memberSelector only; the
	// default group of a run without strategy counts every member).
	NamedMembers int
	Members      []string
}

// Overlap is a member several groups select; it is placed in Groups[0].
type Overlap struct {
	Member string
	Groups []GroupRef
}

// GroupRef names a group by its stage.
type GroupRef struct {
	Stage, Group string
}

// selector is a parsed memberSelector; nil matches nothing extra (no selector).
type selector struct{ sel labels.Selector }

func parseSelector(ms *MemberSelector) (*selector, error) {
	if ms == nil {
		return nil, nil
	}
	sel, err := labels.Parse(ms.ByLabel)
	if err != nil {
		return nil, err
	}
	return &selector{sel: sel}, nil
}

func (s *selector) matches(m *Member) bool { return s.sel.Matches(labels.Set(m.Labels)) }

// Assign places members into strategy's stages and groups. strategy nil means every member in
// the single default stage and group (fleets.json UpdateRunProperties.strategy: "If not set, all
// members will be updated sequentially."). An error names a selector that does not parse.
func Assign(strategy *Strategy, members []Member) (Assignment, error) {
	var out Assignment
	if strategy == nil {
		g := GroupAssignment{Name: DefaultGroupName, NamedMembers: len(members)}
		for _, m := range members {
			g.Members = append(g.Members, m.Name)
		}
		sort.Strings(g.Members)
		out.Stages = []StageAssignment{{Name: DefaultStageName, Groups: []GroupAssignment{g}}}
		return out, nil
	}
	type slot struct{ stage, group int }
	placed := make(map[string]slot, len(members))
	extra := map[string][]GroupRef{}
	for i, st := range strategy.Stages {
		stageSel, err := parseSelector(st.MemberSelector)
		if err != nil {
			return Assignment{}, fmt.Errorf("strategy.stages[%d].memberSelector.byLabel: %w", i, err)
		}
		sa := StageAssignment{Name: st.Name}
		groups := st.Groups
		implicit := len(groups) == 0 && stageSel != nil
		if implicit {
			groups = []Group{{Name: st.Name}}
		}
		for j, g := range groups {
			groupSel, err := parseSelector(g.MemberSelector)
			if err != nil {
				return Assignment{}, fmt.Errorf("strategy.stages[%d].groups[%d].memberSelector.byLabel: %w", i, j, err)
			}
			ga := GroupAssignment{Name: g.Name, Implicit: implicit, BySelector: groupSel != nil}
			for k := range members {
				m := &members[k]
				if !implicit && groupSel == nil && m.Group == g.Name {
					ga.NamedMembers++
				}
				if stageSel != nil && !stageSel.matches(m) {
					continue
				}
				switch {
				case implicit:
				case groupSel != nil:
					if !groupSel.matches(m) {
						continue
					}
				case m.Group != g.Name:
					continue
				}
				if first, ok := placed[m.Name]; ok {
					if len(extra[m.Name]) == 0 {
						extra[m.Name] = []GroupRef{refOf(strategy, first.stage, first.group)}
					}
					extra[m.Name] = append(extra[m.Name], GroupRef{Stage: st.Name, Group: g.Name})
					continue
				}
				placed[m.Name] = slot{i, j}
				ga.Members = append(ga.Members, m.Name)
			}
			sort.Strings(ga.Members)
			sa.Groups = append(sa.Groups, ga)
		}
		out.Stages = append(out.Stages, sa)
	}
	for _, m := range members {
		if _, ok := placed[m.Name]; !ok {
			out.Unselected = append(out.Unselected, m.Name)
		}
		if refs := extra[m.Name]; len(refs) > 0 {
			out.Overlaps = append(out.Overlaps, Overlap{Member: m.Name, Groups: refs})
		}
	}
	sort.Strings(out.Unselected)
	sort.Slice(out.Overlaps, func(a, b int) bool { return out.Overlaps[a].Member < out.Overlaps[b].Member })
	return out, nil
}

// refOf names group j of stage i, the implicit group being named after its stage.
func refOf(s *Strategy, i, j int) GroupRef {
	st := s.Stages[i]
	if len(st.Groups) == 0 {
		return GroupRef{Stage: st.Name, Group: st.Name}
	}
	return GroupRef{Stage: st.Name, Group: st.Groups[j].Name}
}

func cloneSelector(ms *MemberSelector) *MemberSelector {
	if ms == nil {
		return nil
	}
	v := *ms
	return &v
}

// hasSelectors reports whether any stage or group of s has a memberSelector.
func (s *Strategy) hasSelectors() bool {
	if s == nil {
		return false
	}
	for _, st := range s.Stages {
		if st.MemberSelector != nil {
			return true
		}
		for _, g := range st.Groups {
			if g.MemberSelector != nil {
				return true
			}
		}
	}
	return false
}

// Reaches reports whether a run of strategy reaches a member of group, as newRun places members:
// without a strategy every member (fleets.json UpdateRunProperties.updateStrategyId "update all the
// members one by one"), otherwise those whose group is one of a stage's groups (UpdateGroup.name).
// Only these members' maintenance windows enter the run's preview. A strategy with a
// memberSelector selects by labels, which a group name alone cannot tell: then every group is
// reached (a superset; ReachesLabeled is exact).
func Reaches(strategy *Strategy) func(group string) bool {
	if strategy == nil || strategy.hasSelectors() {
		return func(string) bool { return true }
	}
	groups := map[string]bool{}
	for _, st := range strategy.Stages {
		for _, g := range st.Groups {
			groups[g.Name] = true
		}
	}
	return func(group string) bool { return groups[group] }
}

// ReachesLabeled is Reaches for a member's update group and labels, exact with memberSelectors:
// true when Assign would place the member in some group. A selector that does not parse reaches
// every member (ValidateStrategy reports it).
func ReachesLabeled(strategy *Strategy) func(group string, labels map[string]string) bool {
	if strategy == nil {
		return func(string, map[string]string) bool { return true }
	}
	type groupRule struct {
		name string
		sel  *selector
		any  bool // implicit group: every member the stage selects
	}
	type stageRule struct {
		sel    *selector
		groups []groupRule
	}
	var rules []stageRule
	for _, st := range strategy.Stages {
		ss, err := parseSelector(st.MemberSelector)
		if err != nil {
			return func(string, map[string]string) bool { return true }
		}
		sr := stageRule{sel: ss}
		if len(st.Groups) == 0 && ss != nil {
			sr.groups = []groupRule{{any: true}}
		}
		for _, g := range st.Groups {
			gs, err := parseSelector(g.MemberSelector)
			if err != nil {
				return func(string, map[string]string) bool { return true }
			}
			sr.groups = append(sr.groups, groupRule{name: g.Name, sel: gs})
		}
		rules = append(rules, sr)
	}
	return func(group string, lbls map[string]string) bool {
		m := &Member{Group: group, Labels: lbls}
		for _, sr := range rules {
			if sr.sel != nil && !sr.sel.matches(m) {
				continue
			}
			for _, gr := range sr.groups {
				switch {
				case gr.any:
					return true
				case gr.sel != nil:
					if gr.sel.matches(m) {
						return true
					}
				case gr.name == group:
					return true
				}
			}
		}
		return false
	}
}
