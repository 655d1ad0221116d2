package rollout

import (
	"strings"
	"testing"
)

// ValidateStrategy on the preview API's fields (2026-11-01-preview fleets.json), and their refusal in
// a 2026-06-01 strategy, which has none of them.
func TestValidatePreviewFields(t *testing.T) {
	grp := func(g Group) *Strategy { return preview(Stage{Name: "s", Groups: []Group{g}}) }
	stg := func(st Stage) *Strategy { st.Name = "s"; return preview(st) }
	gate := func(timing Timing, g Gate) *Strategy {
		st := Stage{Name: "s", Groups: []Group{{Name: "a"}}}
		if timing == Before {
			st.BeforeGates = []Gate{g}
		} else {
			st.AfterGates = []Gate{g}
		}
		return preview(st)
	}
	tests := []struct {
		name string
		s    *Strategy
		err  string
	}{
		// maxAllowedFailures pattern ^(?:0|[1-9]\d*|(?:0|[1-9]\d?|100)%)$
		{"failures 0", grp(Group{Name: "a", MaxAllowedFailures: "0"}), ""},
		{"failures 0%", grp(Group{Name: "a", MaxAllowedFailures: "0%"}), ""},
		{"failures 100%", stg(Stage{MaxAllowedFailures: "100%", Groups: []Group{{Name: "a"}}}), ""},
		{"failures 101%", grp(Group{Name: "a", MaxAllowedFailures: "101%"}), `strategy.stages[0].groups[0].maxAllowedFailures: "101%" is not a count ("3", 0 or more) or a percentage from 0% to 100% ("25%")`},
		{"failures -1", stg(Stage{MaxAllowedFailures: "-1", Groups: []Group{{Name: "a"}}}), `strategy.stages[0].maxAllowedFailures: "-1" is not a count ("3", 0 or more) or a percentage from 0% to 100% ("25%")`},
		{"failures 01", grp(Group{Name: "a", MaxAllowedFailures: "01"}), `strategy.stages[0].groups[0].maxAllowedFailures: "01" is not a count ("3", 0 or more) or a percentage from 0% to 100% ("25%")`},
		// UpdateGroupStatus.maxAllowedFailures is an int32.
		{"failures over int32", grp(Group{Name: "a", MaxAllowedFailures: "2147483648"}), `strategy.stages[0].groups[0].maxAllowedFailures: "2147483648" is larger than 2147483647`},
		// MemberSelector.byLabel: maxLength 512, a Kubernetes label selector.
		{"selector", grp(Group{Name: "a", MemberSelector: byLabel("env in (prod,canary),!legacy")}), ""},
		{"selector of 512", grp(Group{Name: "a", MemberSelector: byLabel(strings.Repeat("a,", 255) + "ab")}), ""},
		{"selector 513", grp(Group{Name: "a", MemberSelector: byLabel(strings.Repeat("k", 513))}), "strategy.stages[0].groups[0].memberSelector.byLabel: 513 characters; at most 512"},
		// The parser's own words follow the prefix.
		{"bad selector", stg(Stage{MemberSelector: byLabel("env in (prod")}), `strategy.stages[0].memberSelector.byLabel: "env in (prod" is not a label selector: …`},
		// UpdateStage.memberSelector "If specified without UpdateGroup, one implicit group ... will be created."
		{"stage selector without groups", stg(Stage{MemberSelector: byLabel("env=prod")}), ""},
		{"no groups, no selector", stg(Stage{}), "strategy.stages[0].groups: at least one group is required"},
		// ScheduledStart: a before-gate with its configuration.
		{"scheduled start", gate(Before, scheduled("Friday", "18:00", "-05:00")), ""},
		{"scheduled start -14:00", gate(Before, scheduled("Sunday", "00:00", "-14:00")), ""},
		{"scheduled start after", gate(After, scheduled("Friday", "18:00", "-05:00")), "strategy.stages[0].afterGates[0].type: ScheduledStart works only as a before-gate"},
		{"scheduled start without configuration", gate(Before, Gate{Type: ScheduledStart}), "strategy.stages[0].beforeGates[0].scheduledStartConfiguration: required for a ScheduledStart gate"},
		{"startDay", gate(Before, scheduled("friday", "18:00", "+00:00")), `strategy.stages[0].beforeGates[0].scheduledStartConfiguration.startDay: "friday" is not a day of the week (Monday … Sunday)`},
		{"startTime 24:00", gate(Before, scheduled("Friday", "24:00", "+00:00")), `strategy.stages[0].beforeGates[0].scheduledStartConfiguration.startTime: "24:00" is not a 24-hour HH:mm time`},
		{"startTime 6:00", gate(Before, scheduled("Friday", "6:00", "+00:00")), `strategy.stages[0].beforeGates[0].scheduledStartConfiguration.startTime: "6:00" is not a 24-hour HH:mm time`},
		{"utcOffset +14:30", gate(Before, scheduled("Friday", "18:00", "+14:30")), `strategy.stages[0].beforeGates[0].scheduledStartConfiguration.utcOffset: "+14:30" is not ±HH:mm from -14:00 to +14:00`},
		{"utcOffset without sign", gate(Before, scheduled("Friday", "18:00", "05:00")), `strategy.stages[0].beforeGates[0].scheduledStartConfiguration.utcOffset: "05:00" is not ±HH:mm from -14:00 to +14:00`},
		{"approval with configuration", gate(Before, Gate{Type: Approval, ScheduledStart: &ScheduledStartConfig{}}), "strategy.stages[0].beforeGates[0].scheduledStartConfiguration: only for gates of type ScheduledStart"},
		{"unknown gate type", gate(Before, Gate{Type: "Timer"}), `strategy.stages[0].beforeGates[0].type: "Timer" is not Approval or ScheduledStart`},
		// 2026-06-01 has none of the fields: a value would be lost, so it is refused.
		{"stable failures", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "a", MaxAllowedFailures: "1"}}}}}, "strategy.stages[0].groups[0].maxAllowedFailures: requires api-version 2026-11-01-preview"},
		{"stable selector", &Strategy{Stages: []Stage{{Name: "s", MemberSelector: byLabel("a=b")}}}, "strategy.stages[0].memberSelector: requires api-version 2026-11-01-preview"},
		{"stable scheduled start", &Strategy{Stages: []Stage{{Name: "s", Groups: []Group{{Name: "a"}}, BeforeGates: []Gate{scheduled("Friday", "18:00", "+00:00")}}}}, `strategy.stages[0].beforeGates[0].type: "ScheduledStart" is not Approval`},
		{"unknown api", &Strategy{API: "2025-01-01", Stages: []Stage{{Name: "s", Groups: []Group{{Name: "a"}}}}}, `strategy: api-version "2025-01-01" is not 2026-06-01 or 2026-11-01-preview`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := ValidateStrategy(tc.s); err != nil {
				got = err.Error()
			}
			if p, ok := strings.CutSuffix(tc.err, "…"); ok && strings.HasPrefix(got, p) && len(got) > len(p) {
				return
			}
			if got != tc.err {
				t.Fatalf("ValidateStrategy = %q, want %q", got, tc.err)
			}
		})
	}
}
