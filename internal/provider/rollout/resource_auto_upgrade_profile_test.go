package rollout

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/channel"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

func aupModel(ch, target string, lts bool) autoUpgradeProfileModel {
	m := aupNullModel()
	m.Name, m.Channel = types.StringValue("p"), types.StringValue(ch)
	m.LongTermSupport, m.Disabled = types.BoolValue(lts), types.BoolValue(false)
	if target != "" {
		m.TargetKubernetesVersion = types.StringValue(target)
	}
	return m
}

// ValidateConfig reports each invalid combination at its attribute path, offline.
func TestAutoUpgradeProfileValidateConfig(t *testing.T) {
	validate := sharedtest.ConfigValidator[autoUpgradeProfileModel](t, &autoUpgradeProfileResource{})
	withStrategy := aupModel("Stable", "", false)
	withStrategy.UpdateStrategyID = types.StringValue("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateRuns/x")
	unknownChannel := aupModel("Stable", "1.33", false)
	unknownChannel.Channel = types.StringUnknown()
	cases := []struct {
		name     string
		m        autoUpgradeProfileModel
		path, in string // "" path: no error
	}{
		{"stable", aupModel("Stable", "", false), "", ""},
		{"target with its version and LTS", aupModel("TargetKubernetesVersion", "1.32", true), "", ""},
		{"target version with Stable", aupModel("Stable", "1.33", false), "target_kubernetes_version", "only for the TargetKubernetesVersion channel, not Stable"},
		{"target channel without a version", aupModel("TargetKubernetesVersion", "", false), "target_kubernetes_version", "needs target_kubernetes_version"},
		{"LTS with Rapid", aupModel("Rapid", "", true), "long_term_support", "only for the TargetKubernetesVersion channel, not Rapid"},
		{"a strategy ID that is no strategy", withStrategy, "update_strategy_id", "is not the ID of a fleet's updateStrategies"},
		{"unknown channel: nothing to say yet", unknownChannel, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := validate(t, tc.m)
			if tc.path == "" {
				if d.HasError() {
					t.Fatalf("unexpected %v", d)
				}
				return
			}
			errs := d.Errors()
			if len(errs) != 1 {
				t.Fatalf("%d errors, want 1: %v", len(errs), d)
			}
			e, ok := errs[0].(diag.DiagnosticWithPath)
			if !ok || e.Path().String() != tc.path || !strings.Contains(e.Detail(), tc.in) {
				t.Errorf("error %v, want at %s containing %q", errs[0], tc.path, tc.in)
			}
		})
	}
}

func aupTable(t *testing.T, images ...string) channel.VersionTable {
	t.Helper()
	entry := func(minor string, preview bool, patches ...string) *armcontainerservice.KubernetesVersion {
		kv := &armcontainerservice.KubernetesVersion{Version: to.Ptr(minor), IsPreview: to.Ptr(preview), PatchVersions: map[string]*armcontainerservice.KubernetesPatchVersion{}}
		for _, p := range patches {
			kv.PatchVersions[p] = &armcontainerservice.KubernetesPatchVersion{}
		}
		return kv
	}
	tab, err := channel.TableFromAKS([]*armcontainerservice.KubernetesVersion{
		entry("1.31", false, "1.31.9"), entry("1.32", false, "1.32.5"), entry("1.33", false, "1.33.1"), entry("1.34", true, "1.34.0"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range images {
		tab.AddNodeImage(i)
	}
	return tab
}

// The preview is the channel rules' answer in the schema's shape: the target, and per member the
// action and the reason (the member two minors behind is skipped, saying why).
func TestAutoUpgradeProfilePreview(t *testing.T) {
	const img = "AKSUbuntu-2204gen2containerd-"
	members := []rollout.Member{
		{Name: "a", Location: "eastus", KubernetesVersion: "1.32.5", NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: img + "202510.01.0"}}},
		{Name: "old", Location: "eastus", KubernetesVersion: "1.31.9", NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: img + "202511.04.0"}}},
	}
	regions := map[string]channel.VersionTable{"eastus": aupTable(t, img+"202510.01.0", img+"202511.04.0")}
	type row struct{ action, target, reason string }
	rowsOf := func(t *testing.T, o types.Object) (string, []string, []row) {
		t.Helper()
		attrs := o.Attributes()
		var images []string
		for _, v := range sharedtest.As[types.List](t, attrs["target_node_image_versions"]).Elements() {
			images = append(images, sharedtest.As[types.String](t, v).ValueString())
		}
		var rows []row
		byName := sharedtest.As[types.Map](t, attrs["members"]).Elements()
		for _, name := range []string{"a", "old"} {
			a := sharedtest.As[types.Object](t, byName[name]).Attributes()
			rows = append(rows, row{sharedtest.As[types.String](t, a["action"]).ValueString(), sharedtest.As[types.String](t, a["target_kubernetes_version"]).ValueString(), sharedtest.As[types.String](t, a["reason"]).ValueString()})
		}
		return sharedtest.As[types.String](t, attrs["target_kubernetes_version"]).ValueString(), images, rows
	}
	var d diag.Diagnostics
	target, _, rows := rowsOf(t, aupBuildPreview(aupModel("Rapid", "", false), members, nil, regions, preview.SummaryListLimit, &d))
	if target != "1.33.1" || rows[0].action != "upgrade" || rows[1].action != "skip" || !strings.Contains(rows[1].reason, "2 minor versions behind") || d.HasError() {
		t.Errorf("Rapid: %s %+v %v", target, rows, d)
	}
	target, _, rows = rowsOf(t, aupBuildPreview(aupModel("Stable", "", false), members, nil, regions, preview.SummaryListLimit, &d))
	if target != "1.32.5" || rows[0].action != "none" || rows[1].action != "upgrade" || rows[1].target != "1.32.5" {
		t.Errorf("Stable: %s %+v", target, rows)
	}
	target, images, rows := rowsOf(t, aupBuildPreview(aupModel("NodeImage", "", false), members, nil, regions, preview.SummaryListLimit, &d))
	if target != "" || strings.Join(images, ",") != img+"202511.04.0" || rows[0].action != "upgrade" || rows[1].action != "none" {
		t.Errorf("NodeImage: %q %v %+v", target, images, rows)
	}
	// With an update strategy: a member no group selects is counted apart and never shown as upgraded.
	unselected := []rollout.Member{{Name: "old", Group: "lab", Location: "eastus", KubernetesVersion: "1.31.9"}}
	o := aupBuildPreview(aupModel("Stable", "", false), members[:1], unselected, regions, preview.SummaryListLimit, &d)
	counts := sharedtest.As[types.Map](t, o.Attributes()["actions"]).Elements()
	oldRow := sharedtest.As[types.Object](t, sharedtest.As[types.Map](t, o.Attributes()["members"]).Elements()["old"]).Attributes()
	if c := sharedtest.As[types.Int64](t, counts["unselected"]).ValueInt64(); c != 1 || sharedtest.As[types.String](t, oldRow["action"]).ValueString() != "unselected" ||
		!strings.Contains(sharedtest.As[types.String](t, oldRow["reason"]).ValueString(), `update group "lab"`) {
		t.Errorf("unselected: counts %v, row %v", counts, oldRow)
	}
	// A target minor AKS has not released: no target, every member skipped, a warning on the attribute.
	d = nil
	target, _, rows = rowsOf(t, aupBuildPreview(aupModel("TargetKubernetesVersion", "1.35", false), members, nil, regions, preview.SummaryListLimit, &d))
	w := d.Warnings()
	if target != "" || rows[0].action != "skip" || !strings.Contains(rows[0].reason, "does not offer Kubernetes 1.35") || len(w) != 1 ||
		sharedtest.As[diag.DiagnosticWithPath](t, w[0]).Path().String() != "target_kubernetes_version" {
		t.Errorf("unreleased target: %q %+v %v", target, rows, d)
	}
}

// At 1,000 members the profile's preview counts every member (member_count, actions equal to the
// full detail's), lists at most preview.SummaryListLimit members keyed by name — skips first, then
// upgrades, then members already there, each by name — and says how many it leaves out.
func TestAutoUpgradeProfilePreviewCaps(t *testing.T) {
	const img = "AKSUbuntu-2204gen2containerd-202510.01.0"
	var members []rollout.Member
	for i := 999; i >= 0; i-- {
		v := "1.32.5"
		switch {
		case i%100 == 7:
			v = "1.30.9" // outside the window: skip
		case i%3 == 0:
			v = "1.31.9" // Stable 1.32.5: upgrade
		}
		members = append(members, rollout.Member{Name: fmt.Sprintf("m%04d", i), Location: "eastus", KubernetesVersion: v,
			NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: img}}})
	}
	regions := map[string]channel.VersionTable{"eastus": aupTable(t, img)}
	var d diag.Diagnostics
	summary := aupBuildPreview(aupModel("Stable", "", false), members, nil, regions, preview.SummaryListLimit, &d).Attributes()
	full := aupBuildPreview(aupModel("Stable", "", false), members, nil, regions, 0, &d).Attributes()
	count := func(a map[string]attr.Value) int64 {
		return sharedtest.As[types.Int64](t, a["member_count"]).ValueInt64()
	}
	omitted := func(a map[string]attr.Value) int64 {
		return sharedtest.As[types.Int64](t, a["members_omitted"]).ValueInt64()
	}
	listed := func(a map[string]attr.Value) map[string]attr.Value {
		return sharedtest.As[types.Map](t, a["members"]).Elements()
	}
	fullCounts := map[string]int64{}
	for _, v := range listed(full) {
		fullCounts[sharedtest.As[types.String](t, sharedtest.As[types.Object](t, v).Attributes()["action"]).ValueString()]++
	}
	if count(full) != 1000 || count(summary) != 1000 || len(listed(full)) != 1000 || omitted(full) != 0 ||
		len(listed(summary)) != preview.SummaryListLimit || omitted(summary) != 1000-preview.SummaryListLimit {
		t.Fatalf("counts: full %d/%d listed, summary %d/%d listed, omitted %d", count(full), len(listed(full)), count(summary), len(listed(summary)), omitted(summary))
	}
	for _, a := range []map[string]attr.Value{summary, full} {
		for k, v := range sharedtest.As[types.Map](t, a["actions"]).Elements() {
			if sharedtest.As[types.Int64](t, v).ValueInt64() != fullCounts[k] {
				t.Errorf("actions[%s] = %v, the full detail lists %d", k, v, fullCounts[k])
			}
		}
		if len(sharedtest.As[types.Map](t, a["actions"]).Elements()) != len(fullCounts) || fullCounts["skip"] != 10 || fullCounts["upgrade"] == 0 || fullCounts["none"] == 0 {
			t.Errorf("actions %v, full %v", a["actions"], fullCounts)
		}
	}
	// The 10 skips (m0007, m0107, …), then the first upgrades by name (m0000, m0003, …).
	for _, name := range []string{"m0007", "m0907", "m0000", "m0027"} {
		if _, ok := listed(summary)[name]; !ok {
			t.Errorf("summary lacks %s: %v", name, listed(summary))
		}
	}
	if _, ok := listed(summary)["m0001"]; ok {
		t.Errorf("summary lists m0001 (none) before upgrades")
	}
}

// Members whose cluster cannot be read are told in one warning, not one each.
func TestAutoUpgradeProfileUnreadableWarningOnce(t *testing.T) {
	names := make([]string, 300)
	for i := range names {
		names[i] = fmt.Sprintf("m%03d", i)
	}
	var u preview.UnreadableMembers
	for _, n := range names {
		u.Add(n, errors.New("403"))
	}
	w := u.Message(": they are left out of the preview")
	if !strings.Contains(w, "300 members (m000, m001, m002, m003, m004 and 295 more)") || !strings.Contains(w, "403") {
		t.Errorf("warning %q", w)
	}
}

// The API body carries the configuration; a read maps back onto it, with the status.
func TestAutoUpgradeProfileAPIMapping(t *testing.T) {
	m := aupModel("TargetKubernetesVersion", "1.32", true)
	m.UpdateStrategyID = types.StringValue("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateStrategies/st")
	m.NodeImageSelectionType = types.StringValue("Consistent")
	m.Disabled = types.BoolValue(true)
	body := aupToAPI(m)
	p := body.Properties
	if p.Channel != fleetapi.UpgradeChannelTargetKubernetesVersion || p.TargetKubernetesVersion != "1.32" || !*p.LongTermSupport || !*p.Disabled ||
		p.NodeImageSelection.Type != fleetapi.AutoUpgradeNodeImageConsistent || p.UpdateStrategyID != m.UpdateStrategyID.ValueString() {
		t.Fatalf("body %+v", p)
	}
	if s := aupToAPI(aupModel("Rapid", "", false)).Properties; s.LongTermSupport != nil || s.NodeImageSelection != nil || s.TargetKubernetesVersion != "" {
		t.Errorf("Rapid body sends what is unset: %+v", s)
	}
	read := fleetapi.AutoUpgradeProfile{Resource: fleetapi.Resource{ID: "id", Name: "p"}, Properties: p}
	read.Properties.AutoUpgradeProfileStatus = &fleetapi.AutoUpgradeProfileStatus{
		LastTriggerStatus: fleetapi.AutoUpgradeTriggerFailed, LastTriggerError: &fleetapi.ErrorDetail{Code: "InvalidParameter", Message: "no strategy"},
		LastTriggerUpgradeVersions: []string{"1.32.6"},
	}
	got := aupModel("Stable", "", false)
	aupFromAPI(&got, &read)
	if got.Channel.ValueString() != "TargetKubernetesVersion" || got.TargetKubernetesVersion.ValueString() != "1.32" || !got.LongTermSupport.ValueBool() ||
		!got.Disabled.ValueBool() || got.NodeImageSelectionType.ValueString() != "Consistent" || got.UpdateStrategyID != m.UpdateStrategyID {
		t.Errorf("read back %+v", got)
	}
	st := got.Status.Attributes()
	if sharedtest.As[types.String](t, st["last_trigger_status"]).ValueString() != "Failed" || sharedtest.As[types.String](t, st["last_trigger_error"]).ValueString() != "InvalidParameter: no strategy" ||
		!st["last_triggered_at"].IsNull() || len(sharedtest.As[types.List](t, st["last_trigger_upgrade_versions"]).Elements()) != 1 {
		t.Errorf("status %v", st)
	}
	if s := aupStatus(&fleetapi.AutoUpgradeProfile{}).Attributes(); !s["last_trigger_status"].IsNull() || len(sharedtest.As[types.List](t, s["last_trigger_upgrade_versions"]).Elements()) != 0 {
		t.Errorf("empty status %v", s)
	}
}

// A Consistent NodeImage profile over two regions whose AKS lists show only their latest image:
// eastus is taken to offer westeurope's 202510.01.0 as the update run's preview takes it, the common
// image is 202510.01.0, and a warning says it rests on that assumption. Latest warns nothing.
func TestAupAssumeOlderImages(t *testing.T) {
	const ub = "AKSUbuntu-2204gen2containerd"
	members := []rollout.Member{
		{Name: "e", Location: "eastus", KubernetesVersion: "1.32.5", NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: ub + "-202509.01.0"}}},
		{Name: "w", Location: "westeurope", KubernetesVersion: "1.32.5", NodePools: []rollout.NodePool{{Name: "system", NodeImageVersion: ub + "-202509.01.0"}}},
	}
	listed := map[string]map[string][]string{"eastus": {ub: {"202511.04.0"}}, "westeurope": {ub: {"202510.01.0"}}}
	tables := func() map[string]channel.VersionTable {
		out := map[string]channel.VersionTable{}
		for loc, v := range map[string]string{"eastus": "202511.04.0", "westeurope": "202510.01.0"} {
			var tab channel.VersionTable
			tab.AddNodeImage(ub + "-" + v)
			tab.AddNodeImage(ub + "-202509.01.0")
			out[loc] = tab
		}
		return out
	}
	m := aupModel("NodeImage", "", false)
	m.NodeImageSelectionType = types.StringValue("Consistent")
	regions := tables()
	var d diag.Diagnostics
	aupAssumeOlderImages(m, members, regions, listed, &d)
	if got := regions["eastus"].NodeImages[ub]; !strings.Contains(strings.Join(got, ","), "202510.01.0") {
		t.Errorf("eastus offers %v, want 202510.01.0 assumed", got)
	}
	if d.WarningsCount() != 1 || !strings.Contains(d.Warnings()[0].Detail(), ub+"-202510.01.0 in eastus") {
		t.Errorf("warnings %v, want one naming %s-202510.01.0 in eastus", d, ub)
	}
	m.NodeImageSelectionType = types.StringValue("Latest")
	d = nil
	aupAssumeOlderImages(m, members, tables(), listed, &d)
	if d.WarningsCount() != 0 {
		t.Errorf("Latest: warnings %v", d)
	}
}
