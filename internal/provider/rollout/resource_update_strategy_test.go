package rollout

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// ValidateConfig reports duplicate stages and a group in two stages at their attribute paths, offline.
func TestUpdateStrategyValidateConfig(t *testing.T) {
	validateModel := sharedtest.ConfigValidator[updateStrategyModel](t, &updateStrategyResource{})
	validate := func(t *testing.T, stages ...stageModel) diag.Diagnostics {
		t.Helper()
		m := updateStrategyModel{ID: types.StringNull(), Name: types.StringValue("s"), FleetID: types.StringNull(), Stages: stages,
			Timeouts: nullTimeouts("create", "update", "delete"), Preview: types.ObjectNull(strategyPreviewType.AttrTypes)}
		return validateModel(t, m)
	}
	unknownName := stage("b", "g1")
	unknownName.Groups[0].Name = types.StringUnknown()
	t.Run("two stages", func(t *testing.T) {
		checkOneError(t, validate(t, stage("canary", "canary"), stage("prod", "prod-east", "prod-west")), "", "")
	})
	t.Run("duplicate stage", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1"), stage("b", "g2"), stage("a", "g3")), "stage[2].name", `Stage "a" is named twice`)
	})
	t.Run("group twice in a stage", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1", "g1")), "stage[0].group[1].name", `Group "g1" is already in stage "a"`)
	})
	t.Run("group in two stages", func(t *testing.T) {
		checkOneError(t, validate(t, stage("a", "g1"), stage("b", "g2", "g1")), "stage[1].group[1].name", `Group "g1" is already in stage "a"`)
	})
	t.Run("unknown group name: nothing to say yet", func(t *testing.T) { checkOneError(t, validate(t, stage("a", "g1"), unknownName), "", "") })
}

// The strategy's preview counts every member and lists at most preview.SummaryListLimit names per list,
// by name; with full detail every name, and the same counts.
func TestUpdateStrategyPreviewCaps(t *testing.T) {
	groups := map[string][]string{"": {}}
	for i := 999; i >= 0; i-- {
		g := fmt.Sprintf("g%d", i%6+1)
		if i%50 == 0 {
			g = "legacy"
		}
		groups[g] = append(groups[g], fmt.Sprintf("m%04d", i))
	}
	groups[""] = []string{"stray-b", "stray-a"}
	stages := []stageModel{stage("canary", "g1", "g2"), stage("early", "g3", "g4"), stage("broad", "g5", "g6", "empty")}
	var members []rollout.Member
	for g, names := range groups {
		for _, n := range names {
			members = append(members, rollout.Member{Name: n, Group: g})
		}
	}
	summary, warnings := strategyPreview(stages, members, preview.SummaryListLimit)
	full, _ := strategyPreview(stages, members, 0)
	if len(warnings) != 1 || !strings.Contains(warnings[0], `Group "empty"`) {
		t.Errorf("warnings %q", warnings)
	}
	var total int64
	listed := 0
	for si, st := range full.Stages {
		for gi, g := range st.Groups {
			sg := summary.Stages[si].Groups[gi]
			want := int64(len(groups[g.Name]))
			if g.MemberCount != want || int64(len(g.Members)) != want || g.MembersOmitted != 0 || sg.MemberCount != want ||
				len(sg.Members) > preview.SummaryListLimit || int64(len(sg.Members))+sg.MembersOmitted != want {
				t.Errorf("%s: full %d (%d listed), summary %d (%d listed, %d omitted), want %d", g.Name, g.MemberCount, len(g.Members), sg.MemberCount, len(sg.Members), sg.MembersOmitted, want)
			}
			if !sort.StringsAreSorted(sg.Members) || (len(sg.Members) > 0 && sg.Members[0] != g.Members[0]) {
				t.Errorf("%s: summary %v not the first names of %v", g.Name, sg.Members, g.Members[:min(3, len(g.Members))])
			}
			total += g.MemberCount
			listed += len(sg.Members)
		}
	}
	// Seven groups share the 20 names: two each.
	if listed != 6*(preview.SummaryListLimit/7) {
		t.Errorf("the summary lists %d names over its groups, want %d", listed, 6*(preview.SummaryListLimit/7))
	}
	if g := summary.Stages[2].Groups[2]; g.Members != nil || g.MemberCount != 0 {
		t.Errorf("empty group: %+v, want null members", g)
	}
	if summary.UnselectedMemberCount != 22 || full.UnselectedMemberCount != 22 || len(summary.UnselectedMembers) != preview.SummaryListLimit ||
		len(full.UnselectedMembers) != 22 || summary.UnselectedMembers[0] != "m0000" || total+22 != 1002 {
		t.Errorf("unselected: summary %d %v, full %d %d; total %d", summary.UnselectedMemberCount, summary.UnselectedMembers, full.UnselectedMemberCount, len(full.UnselectedMembers), total)
	}
	if _, d := types.ObjectValueFrom(context.Background(), strategyPreviewType.AttrTypes, summary); d.HasError() {
		t.Fatal(d)
	}
}
