package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	strategyPath = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}/updateStrategies/{updateStrategyName}"
	runPath      = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}/updateRuns/{updateRunName}"
	memberPath   = "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ContainerService/fleets/{f}/members/{m}"
)

func fleetsSpec(t *testing.T) *Spec {
	t.Helper()
	s, err := Fleets()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Each kind of constraint the document states is enforced, with the
// offending property's path (expectations written from fleets.json).
func TestCheckBodyRefusesWithPath(t *testing.T) {
	s := fleetsSpec(t)
	for name, tc := range map[string]struct {
		method, path, body string
		want               []string // "path rule"
	}{
		"valid strategy": {"PUT", strategyPath, `{"properties":{"strategy":{"stages":[{"name":"canary","groups":[{"name":"g1"}],"afterStageWaitInSeconds":60}]}}}`, nil},
		"stage name pattern": {"PUT", strategyPath, `{"properties":{"strategy":{"stages":[{"name":"Canary_1","groups":[{"name":"g"}]}]}}}`,
			[]string{"properties.strategy.stages[0].name pattern"}},
		"group name too long": {"PUT", strategyPath, `{"properties":{"strategy":{"stages":[{"name":"s","groups":[{"name":"g"},{"name":"` + strings.Repeat("a", 51) + `"}]}]}}}`,
			[]string{"properties.strategy.stages[0].groups[1].name maxLength"}},
		"required stages":  {"PUT", strategyPath, `{"properties":{"strategy":{}}}`, []string{"properties.strategy.stages required"}},
		"unknown property": {"PUT", strategyPath, `{"properties":{"strategy":{"stages":[]},"colour":"blue"}}`, []string{"properties.colour unknown"}},
		"read-only ARM id": {"PUT", strategyPath, `{"id":"/x","properties":{"strategy":{"stages":[]}}}`, []string{"id readOnly"}},
		"read-only state":  {"PUT", strategyPath, `{"properties":{"provisioningState":"Succeeded","strategy":{"stages":[]}}}`, []string{"properties.provisioningState readOnly"}},
		"wrong type":       {"PUT", strategyPath, `{"properties":{"strategy":{"stages":"all"}}}`, []string{"properties.strategy.stages type"}},
		"integer":          {"PUT", strategyPath, `{"properties":{"strategy":{"stages":[{"name":"s","afterStageWaitInSeconds":1.5}]}}}`, []string{"properties.strategy.stages[0].afterStageWaitInSeconds type"}},
		"enum": {"PUT", runPath, `{"properties":{"managedClusterUpdate":{"upgrade":{"type":"Everything"}}}}`,
			[]string{"properties.managedClusterUpdate.upgrade.type enum"}},
		"custom image versions are accepted": {"PUT", runPath,
			`{"properties":{"managedClusterUpdate":{"upgrade":{"type":"NodeImageOnly"},"nodeImageSelection":{"type":"Custom","customNodeImageVersions":[{"version":"AKSUbuntu-2204gen2containerd-202511.04.0"}]}}}}`, nil},
		"selected image versions are read-only": {"PUT", runPath,
			`{"properties":{"managedClusterUpdate":{"upgrade":{"type":"NodeImageOnly"},"nodeImageSelection":{"type":"Consistent"}},"status":{}}}`,
			[]string{"properties.status readOnly"}},
		"labels map values": {"PUT", memberPath, `{"properties":{"clusterResourceId":"/subscriptions/x","labels":{"ring":7}}}`, []string{"properties.labels.ring type"}},
		"empty body":        {"PUT", memberPath, ``, []string{" required"}},
		"not JSON":          {"PUT", memberPath, `{`, []string{" type"}},
		"no body schema":    {"POST", runPath + "/start", `{"anything":1}`, nil},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, v := range s.CheckBody(tc.method, tc.path, []byte(tc.body)) {
				if v.Message == "" {
					t.Errorf("violation without a message: %+v", v)
				}
				got = append(got, v.Path+" "+v.Rule)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Every official request example of the stable api-versions passes (the
// 2025-03-01 bodies keep their shape in 2026-06-01; the previews' gates had
// another). The generated *_MaximumSet_Gen examples fill in every property,
// read-only ones too, which azure-rest-api-specs' example validator (oav)
// flags as READONLY_PROPERTY_NOT_ALLOWED_IN_REQUEST: from them only other
// violations count.
func TestOfficialRequestExamplesPass(t *testing.T) {
	s := fleetsSpec(t)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(fleetsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	type op struct{ method, path, body string }
	ops := map[string]op{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var o struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			}
			if method == "parameters" || json.Unmarshal(raw, &o) != nil {
				continue
			}
			for _, p := range o.Parameters {
				if p.In == "body" {
					ops[o.OperationID] = op{strings.ToUpper(method), path, p.Name}
				}
			}
		}
	}
	files, _ := filepath.Glob("../testdata/azure-fleet-api/stable/*/examples/*.json")
	checked, generatedReadOnly := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ex struct {
			OperationID string                     `json:"operationId"`
			Parameters  map[string]json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(b, &ex); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		o, ok := ops[ex.OperationID]
		body, has := ex.Parameters[o.body]
		if !ok || !has {
			continue
		}
		checked++
		for _, v := range s.CheckBody(o.method, o.path, body) {
			if v.Rule == "readOnly" && strings.HasSuffix(f, "_MaximumSet_Gen.json") {
				generatedReadOnly++
				continue
			}
			t.Errorf("%s: %s", f, v)
		}
	}
	if checked < 15 {
		t.Errorf("checked %d request examples, want every one (at least 15)", checked)
	}
	t.Logf("%d official request examples pass (%d read-only properties in generated examples refused, as oav would)", checked, generatedReadOnly)
}

// ForVersion gives each embedded document under the api-version its info
// names, the stable one the same parsed Spec as Fleets; no other version.
func TestForVersion(t *testing.T) {
	stable, err := ForVersion("2026-06-01")
	if err != nil || stable != fleetsSpec(t) {
		t.Errorf("ForVersion(2026-06-01) = %p, %v; Fleets() = %p", stable, err, fleetsSpec(t))
	}
	preview, err := ForVersion("2026-11-01-preview")
	if err != nil || preview == nil || preview == stable {
		t.Fatalf("ForVersion(2026-11-01-preview) = %p, %v", preview, err)
	}
	for v, doc := range map[string][]byte{APIVersion: fleetsJSON, PreviewAPIVersion: previewJSON} {
		var info struct {
			Info struct {
				Version string `json:"version"`
			} `json:"info"`
		}
		if err := json.Unmarshal(doc, &info); err != nil || info.Info.Version != v {
			t.Errorf("the document embedded as %s says it is %q (%v)", v, info.Info.Version, err)
		}
	}
	for _, v := range []string{"", "2026-06-01-preview", "2025-03-01"} {
		if _, err := ForVersion(v); err == nil {
			t.Errorf("ForVersion(%q) has a document", v)
		}
	}
}

const (
	profilePath     = "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ContainerService/fleets/{f}/autoUpgradeProfiles/{p}"
	memberCredsPath = "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ContainerService/fleets/{f}/listMemberCredentials"
)

// The preview's constraints (fleets.json 2026-11-01-preview: UpdateStage and
// UpdateGroup maxAllowedFailures pattern, MemberSelector.byLabel maxLength
// 512, ScheduledStartConfiguration's patterns and DayOfWeek,
// FleetMemberCredentialRequest.maxPageSize minimum 1) are enforced with their
// paths; the stable document knows none of these properties.
func TestPreviewCheckBody(t *testing.T) {
	preview, err := ForVersion(PreviewAPIVersion)
	if err != nil {
		t.Fatal(err)
	}
	stage := func(extra string) string {
		return `{"properties":{"strategy":{"stages":[{"name":"s","groups":[{"name":"g"}]` + extra + `}]}}}`
	}
	group := func(extra string) string {
		return `{"properties":{"strategy":{"stages":[{"name":"s","groups":[{"name":"g"` + extra + `}]}]}}}`
	}
	gate := func(cfg string) string {
		return stage(`,"beforeGates":[{"type":"ScheduledStart","scheduledStartConfiguration":` + cfg + `}]`)
	}
	const gatePath = "properties.strategy.stages[0].beforeGates[0].scheduledStartConfiguration"
	for name, tc := range map[string]struct {
		method, path, body string
		want               []string
	}{
		"stage failures 100%":  {"PUT", strategyPath, stage(`,"maxAllowedFailures":"100%"`), nil},
		"stage failures 0":     {"PUT", strategyPath, stage(`,"maxAllowedFailures":"0"`), nil},
		"stage failures 25%":   {"PUT", strategyPath, stage(`,"maxAllowedFailures":"25%"`), nil},
		"stage failures 0%":    {"PUT", strategyPath, stage(`,"maxAllowedFailures":"0%"`), nil},
		"stage failures 12":    {"PUT", strategyPath, stage(`,"maxAllowedFailures":"12"`), nil},
		"stage failures 101%":  {"PUT", strategyPath, stage(`,"maxAllowedFailures":"101%"`), []string{"properties.strategy.stages[0].maxAllowedFailures pattern"}},
		"stage failures 07":    {"PUT", strategyPath, stage(`,"maxAllowedFailures":"07"`), []string{"properties.strategy.stages[0].maxAllowedFailures pattern"}},
		"stage failures -1":    {"PUT", strategyPath, stage(`,"maxAllowedFailures":"-1"`), []string{"properties.strategy.stages[0].maxAllowedFailures pattern"}},
		"group failures 101%":  {"PUT", strategyPath, group(`,"maxAllowedFailures":"101%"`), []string{"properties.strategy.stages[0].groups[0].maxAllowedFailures pattern"}},
		"group failures 25%":   {"PUT", runPath, `{"properties":{"managedClusterUpdate":{"upgrade":{"type":"NodeImageOnly"}},"strategy":{"stages":[{"name":"s","groups":[{"name":"g","maxAllowedFailures":"25%"}]}]}}}`, nil},
		"byLabel 512":          {"PUT", strategyPath, group(`,"memberSelector":{"byLabel":"` + strings.Repeat("a", 512) + `"}`), nil},
		"byLabel 513":          {"PUT", strategyPath, group(`,"memberSelector":{"byLabel":"` + strings.Repeat("a", 513) + `"}`), []string{"properties.strategy.stages[0].groups[0].memberSelector.byLabel maxLength"}},
		"byLabel required":     {"PUT", strategyPath, stage(`,"memberSelector":{}`), []string{"properties.strategy.stages[0].memberSelector.byLabel required"}},
		"scheduled start":      {"PUT", strategyPath, gate(`{"startDay":"Friday","startTime":"23:59","utcOffset":"+14:00"}`), nil},
		"startTime 24:00":      {"PUT", strategyPath, gate(`{"startDay":"Friday","startTime":"24:00","utcOffset":"-05:00"}`), []string{gatePath + ".startTime pattern"}},
		"startDay Funday":      {"PUT", strategyPath, gate(`{"startDay":"Funday","startTime":"18:00","utcOffset":"-05:00"}`), []string{gatePath + ".startDay enum"}},
		"utcOffset +14:30":     {"PUT", strategyPath, gate(`{"startDay":"Friday","startTime":"18:00","utcOffset":"+14:30"}`), []string{gatePath + ".utcOffset pattern"}},
		"scheduled start part": {"PUT", strategyPath, gate(`{"startDay":"Friday"}`), []string{gatePath + ".startTime required", gatePath + ".utcOffset required"}},
		"SecurityPatch":        {"PUT", profilePath, `{"properties":{"channel":"SecurityPatch"}}`, nil},
		"member credentials":   {"POST", memberCredsPath, `{"memberNames":["m1"],"maxPageSize":10,"continuationToken":"t"}`, nil},
		"every member":         {"POST", memberCredsPath, `{}`, nil},
		"page size 0":          {"POST", memberCredsPath, `{"maxPageSize":0}`, []string{"maxPageSize minimum"}},
		"no body":              {"POST", memberCredsPath, ``, []string{" required"}},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, v := range preview.CheckBody(tc.method, tc.path, []byte(tc.body)) {
				got = append(got, v.Path+" "+v.Rule)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("violations\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}

	stable := fleetsSpec(t)
	for body, want := range map[string]string{
		stage(`,"maxAllowedFailures":"1"`):                                     "properties.strategy.stages[0].maxAllowedFailures unknown",
		group(`,"memberSelector":{"byLabel":"a"}`):                             "properties.strategy.stages[0].groups[0].memberSelector unknown",
		gate(`{"startDay":"Friday","startTime":"18:00","utcOffset":"-05:00"}`): "properties.strategy.stages[0].beforeGates[0].scheduledStartConfiguration unknown",
	} {
		if vs := stable.CheckBody("PUT", strategyPath, []byte(body)); len(vs) == 0 || vs[0].Path+" "+vs[0].Rule != want {
			t.Errorf("2026-06-01 on %s: %v, want %s", body, vs, want)
		}
	}
	if vs := stable.CheckBody("PUT", profilePath, []byte(`{"properties":{"channel":"SecurityPatch"}}`)); len(vs) != 1 || vs[0].Rule != "enum" {
		t.Errorf("2026-06-01 took the SecurityPatch channel: %v", vs)
	}
	if stable.HasBody("POST", memberCredsPath) {
		t.Error("2026-06-01 defines listMemberCredentials")
	}
}
