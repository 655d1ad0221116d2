package fleetapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi/openapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/httplog"
)

// The preview api-version 2026-11-01-preview: its examples
// (testdata/azure-fleet-api/preview/2026-11-01-preview, with
// 2026-06-02-preview substitutes for the update examples it lacks), the
// upstream defects among them, the client's api-version option and the
// preview-only credential methods.

// previewDirs are the example directories of the preview api-version.
var previewDirs = []string{"preview/2026-11-01-preview/examples", "preview/2026-06-02-preview/examples"}

// exampleAPIVersion is the api-version a client sends an example's request
// with: the preview for the preview's examples and their substitutes.
func exampleAPIVersion(file string) string {
	if strings.Contains(file, "2026-11-01-preview") || strings.Contains(file, "2026-06-02-preview") {
		return PreviewAPIVersion
	}
	return APIVersion
}

// previewDefect is an upstream example that contradicts the preview spec or
// itself. present proves the defect is still there, so that a fixed example
// fails the test and leaves the list; repair, if set, makes a response body
// decodable as the spec defines it.
type previewDefect struct {
	why     string
	present func(t *testing.T, ex example) bool
	repair  func(body map[string]any)
}

var previewDefects = map[string]previewDefect{
	"preview/2026-11-01-preview/examples/FleetManagedNamespaces_CreateOrUpdate.json": {
		why: "the request carries the read-only properties.status ({lastOperationError: {}}), which the spec's PUT body refuses",
		present: func(t *testing.T, ex example) bool {
			return hasViolation(previewSpec(t).CheckBody(http.MethodPut, managedNamespacePath, ex.Parameters["resource"]), "properties.status", "readOnly")
		},
	},
	"preview/2026-11-01-preview/examples/FleetManagedNamespaces_ListMemberCredentials.json": {
		why: "no body, a $top parameter and a nextLink page; the spec defines a required FleetMemberCredentialRequest body " +
			"(memberNames, maxPageSize, continuationToken) and pages by continuationToken (as Fleets_ListMemberCredentials does)",
		present: func(t *testing.T, ex example) bool {
			_, body := ex.Parameters["body"]
			_, top := ex.Parameters["$top"]
			return !body && top && strictDecode(ex.Responses["200"].Body, &FleetMemberCredentialResults{}) != nil
		},
		repair: func(body map[string]any) { delete(body, "nextLink") },
	},
	"preview/2026-11-01-preview/examples/FleetManagedNamespaces_Update.json": {
		why: "the PATCH and its response carry defaultClusterResourcePlacement.rolloutStrategy ({type: External, clusterUpdateStrategy}), " +
			"which the spec's Placement.V1.ClusterResourcePlacementSpec (and its Patch) does not define: policy is its only property",
		present: func(t *testing.T, ex example) bool {
			const path = "properties.propagationPolicy.placementProfile.defaultClusterResourcePlacement.rolloutStrategy"
			return hasViolation(previewSpec(t).CheckBody(http.MethodPatch, managedNamespacePath, ex.Parameters["properties"]), path, "unknown") &&
				strictDecode(ex.Responses["200"].Body, &FleetManagedNamespace{}) != nil
		},
		repair: func(body map[string]any) {
			crp := dig(body, "properties", "propagationPolicy", "placementProfile", "defaultClusterResourcePlacement")
			delete(crp, "rolloutStrategy")
		},
	},
	"preview/2026-11-01-preview/examples/Gates_Get_ScheduledStart.json": scheduledStartDayDefect,
	"preview/2026-06-02-preview/examples/Gates_Get_ScheduledStart.json": scheduledStartDayDefect,
	"preview/2026-06-02-preview/examples/Gates_ListByFleet.json":        scheduledStartDayDefect,
}

// scheduledStartDayDefect: startDay Friday 18:00 at -05:00, but
// absoluteStartTime 2026-04-04T23:00:00Z is Saturday 18:00 at -05:00.
var scheduledStartDayDefect = previewDefect{
	why: "startDay Friday, but absoluteStartTime 2026-04-04T23:00:00Z is a Saturday at the gate's utcOffset -05:00",
	present: func(t *testing.T, ex example) bool {
		var gates []Gate
		var one Gate
		var page GateListResult
		body := ex.Responses["200"].Body
		if json.Unmarshal(body, &page) == nil && len(page.Value) > 0 {
			gates = page.Value
		} else {
			unmarshal(t, body, &one)
			gates = []Gate{one}
		}
		for _, g := range gates {
			if p := g.Properties.ScheduledStartProperties; p != nil && scheduledStartMismatch(t, p) != "" {
				return true
			}
		}
		return false
	},
}

// scheduledStartMismatch says how absoluteStartTime differs from the day and
// time it should resolve (startDay startTime at utcOffset), or "".
func scheduledStartMismatch(t *testing.T, p *ScheduledStartProperties) string {
	t.Helper()
	var sign, h, m int
	if _, err := fmt.Sscanf(p.UTCOffset[1:], "%d:%d", &h, &m); err != nil {
		t.Fatalf("utcOffset %q: %v", p.UTCOffset, err)
	}
	sign = 1
	if p.UTCOffset[0] == '-' {
		sign = -1
	}
	local := p.AbsoluteStartTime.In(time.FixedZone(p.UTCOffset, sign*(h*3600+m*60)))
	if got := DayOfWeek(local.Weekday().String()); got != p.StartDay || local.Format("15:04") != p.StartTime {
		return fmt.Sprintf("%s %s at %s, not %s %s", got, local.Format("15:04"), p.UTCOffset, p.StartDay, p.StartTime)
	}
	return ""
}

const managedNamespacePath = "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ContainerService/fleets/{f}/managedNamespaces/{n}"

func previewSpec(t *testing.T) *openapi.Spec {
	t.Helper()
	s, err := openapi.ForVersion(PreviewAPIVersion)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dig is the object at keys under m, or an empty one.
func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := m[k].(map[string]any)
		if next == nil {
			return map[string]any{}
		}
		m = next
	}
	return m
}

func hasViolation(vs []openapi.Violation, path, rule string) bool {
	for _, v := range vs {
		if v.Path == path && v.Rule == rule {
			return true
		}
	}
	return false
}

func previewExampleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, d := range previewDirs {
		m, err := filepath.Glob(filepath.Join(specDir(t), d, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 37 {
		t.Fatalf("found %d preview examples, want the 26 of 2026-11-01-preview and the 11 substitutes", len(files))
	}
	return files
}

// relExample is an example's path under testdata/azure-fleet-api.
func relExample(t *testing.T, file string) string {
	rel, err := filepath.Rel(specDir(t), file)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// previewModels are the models of the preview operations that
// TestUpdateExamplesParseIntoModels and TestAutoUpgradeExamplesParseIntoModels
// (whose globs take in preview/*) do not decode; nil: no body.
var previewModels = map[string]func() any{
	"Fleets_CreateOrUpdate":                        func() any { return &Fleet{} },
	"Fleets_Update":                                func() any { return &Fleet{} },
	"Fleets_ListBySubscription":                    func() any { return &fleetListResult{} },
	"Fleets_ListCredentials":                       func() any { return &FleetCredentialResults{} },
	"Fleets_ListMemberCredentials":                 func() any { return &FleetMemberCredentialResults{} },
	"Fleets_Delete":                                nil,
	"FleetMembers_Get":                             func() any { return &FleetMember{} },
	"FleetMembers_Update":                          func() any { return &FleetMember{} },
	"FleetMembers_ListByFleet":                     func() any { return &FleetMemberListResult{} },
	"FleetMembers_Delete":                          nil,
	"FleetManagedNamespaces_CreateOrUpdate":        func() any { return &FleetManagedNamespace{} },
	"FleetManagedNamespaces_Get":                   func() any { return &FleetManagedNamespace{} },
	"FleetManagedNamespaces_Update":                func() any { return &FleetManagedNamespace{} },
	"FleetManagedNamespaces_Delete":                nil,
	"FleetManagedNamespaces_ListCredentials":       func() any { return &FleetCredentialResults{} },
	"FleetManagedNamespaces_ListMemberCredentials": func() any { return &FleetMemberCredentialResults{} },
}

// notModelled are preview operations the provider has no use for.
var notModelled = map[string]string{
	"ClusterMeshProfiles_ListByFleet": "cluster mesh profiles (Cilium cluster mesh) are no part of the provider; a member's meshProperties is parsed only",
}

// TestPreviewExamplesParseIntoModels: every response body of the preview
// examples strict-decodes into the models and re-encodes without losing a
// field — here, or in the update and auto-upgrade tests for their
// operations; a listed upstream defect is repaired first, and must still be
// present.
func TestPreviewExamplesParseIntoModels(t *testing.T) {
	bodies := 0
	for _, f := range previewExampleFiles(t) {
		rel := relExample(t, f)
		ex := readExample(t, f)
		defect, isDefect := previewDefects[rel]
		if isDefect && !defect.present(t, ex) {
			t.Errorf("%s: listed as an upstream defect (%s), but the example no longer has it", rel, defect.why)
		}
		_, update := updateModels[ex.OperationID]
		_, auto := autoUpgradeModels[ex.OperationID]
		mk, known := previewModels[ex.OperationID]
		switch {
		case update && (strings.Contains(rel, "UpdateRuns_") || strings.Contains(rel, "UpdateStrategies_") || strings.Contains(rel, "Gates_")):
			continue // TestUpdateExamplesParseIntoModels
		case auto && strings.Contains(rel, "AutoUpgradeProfile"):
			continue // TestAutoUpgradeExamplesParseIntoModels
		case notModelled[ex.OperationID] != "":
			continue
		case !known:
			t.Errorf("%s: operation %s has no model in this test", rel, ex.OperationID)
			continue
		}
		for code, r := range ex.Responses {
			if mk == nil || len(r.Body) == 0 || string(r.Body) == "null" {
				continue
			}
			name := fmt.Sprintf("%s (%s %s)", rel, ex.OperationID, code)
			body := r.Body
			if isDefect && defect.repair != nil {
				var generic map[string]any
				unmarshal(t, body, &generic)
				defect.repair(generic)
				body, _ = json.Marshal(generic)
			}
			v := mk()
			if err := strictDecode(body, v); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonValue(t, out), jsonValue(t, body); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: re-encoded model differs\n got: %s\nwant: %s", name, out, body)
			}
			bodies++
		}
	}
	if bodies < 15 {
		t.Errorf("decoded %d response bodies", bodies)
	}
}

// TestPreviewRequestExamplesPass: every request body of the preview
// examples passes the embedded preview spec's check (the emulator's), but
// for the listed upstream defects.
func TestPreviewRequestExamplesPass(t *testing.T) {
	raw, err := os.ReadFile("openapi/fleets-2026-11-01-preview.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	unmarshal(t, raw, &doc)
	type op struct{ method, path, body string }
	ops := map[string]op{}
	for path, item := range doc.Paths {
		for method, m := range item {
			var o struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			}
			if method == "parameters" || json.Unmarshal(m, &o) != nil {
				continue
			}
			ops[o.OperationID] = op{strings.ToUpper(method), path, ""}
			for _, p := range o.Parameters {
				if p.In == "body" {
					ops[o.OperationID] = op{strings.ToUpper(method), path, p.Name}
				}
			}
		}
	}
	spec := previewSpec(t)
	checked := 0
	for _, f := range previewExampleFiles(t) {
		rel := relExample(t, f)
		ex := readExample(t, f)
		o, ok := ops[ex.OperationID]
		if !ok {
			t.Errorf("%s: operation %s is not in the preview spec", rel, ex.OperationID)
			continue
		}
		if o.body == "" {
			continue
		}
		vs := spec.CheckBody(o.method, o.path, ex.Parameters[o.body])
		if _, isDefect := previewDefects[rel]; isDefect {
			if len(vs) == 0 {
				t.Logf("%s: a listed defect, yet its request passes", rel)
			}
			continue
		}
		for _, v := range vs {
			t.Errorf("%s: %s", rel, v)
		}
		checked++
	}
	if checked < 6 {
		t.Errorf("checked %d request bodies", checked)
	}
}

// TestPreviewExampleValues: the preview's fields land where the engine reads them.
func TestPreviewExampleValues(t *testing.T) {
	dir := specDir(t)
	var run UpdateRun
	unmarshal(t, readExample(t, filepath.Join(dir, "preview/2026-06-02-preview/examples/UpdateRuns_Get.json")).Responses["200"].Body, &run)
	st, s := run.Properties.Status, run.Properties.Strategy
	if s.Stages[0].MaxAllowedFailures != "2" || s.Stages[0].Groups[0].MaxAllowedFailures != "1" || s.Stages[1].MaxAllowedFailures != "25%" ||
		s.Stages[0].Groups[0].MemberSelector.ByLabel != "tier=frontend" || s.Stages[1].MemberSelector.ByLabel != "env=production" {
		t.Errorf("strategy %+v", s)
	}
	if st.FailureCount == nil || *st.FailureCount != 0 || *st.Stages[0].MaxAllowedFailures != 2 || *st.Stages[0].FailureCount != 0 ||
		*st.Stages[0].Groups[0].MaxAllowedFailures != 1 || *st.Stages[1].MaxAllowedFailures != 1 {
		t.Errorf("status %+v", st)
	}

	unmarshal(t, readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/UpdateRuns_CreateOrUpdate.json")).Parameters["resource"], &run)
	g := run.Properties.Strategy.Stages[1].BeforeGates[0]
	if g.Type != GateTypeScheduledStart || *g.ScheduledStartConfiguration != (ScheduledStartConfiguration{StartDay: Friday, StartTime: "18:00", UTCOffset: "-05:00"}) {
		t.Errorf("scheduled start gate %+v", g)
	}

	var gate Gate
	unmarshal(t, readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/Gates_Get_ScheduledStart.json")).Responses["200"].Body, &gate)
	if got := scheduledStartMismatch(t, gate.Properties.ScheduledStartProperties); got != "Saturday 18:00 at -05:00, not Friday 18:00" {
		t.Errorf("the example's gate resolves to %q", got)
	}
	good := ScheduledStartProperties{StartDay: Friday, StartTime: "18:00", UTCOffset: "-05:00", AbsoluteStartTime: ptr(time.Date(2026, 4, 3, 23, 0, 0, 0, time.UTC))}
	if got := scheduledStartMismatch(t, &good); got != "" {
		t.Errorf("Friday 2026-04-03 18:00 -05:00: %s", got)
	}

	var creds FleetMemberCredentialResults
	unmarshal(t, readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/Fleets_ListMemberCredentials.json")).Responses["200"].Body, &creds)
	if kc, err := creds.Value[0].DecodeKubeconfig(); err != nil || string(kc) != "apiVersion: v1" {
		t.Errorf("member-1: %q %v", kc, err)
	}
	if _, err := creds.Value[1].DecodeKubeconfig(); err == nil || !strings.Contains(err.Error(), "MemberCredentialFetchFailed") {
		t.Errorf("member-2: %v", err)
	}
	if _, err := (FleetMemberCredentialResult{Name: "m", Status: MemberCredentialSucceeded, Kubeconfig: "not base64!"}).DecodeKubeconfig(); err == nil {
		t.Error("a kubeconfig that is not base64 decoded")
	}

	var m FleetMember
	unmarshal(t, readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/FleetMembers_Get.json")).Responses["200"].Body, &m)
	if mp := m.Properties.MeshProperties; mp == nil || mp.CiliumProperties.ID != 1 || mp.Status.State != "Connected" {
		t.Errorf("mesh properties %+v", mp)
	}
}

func ptr[T any](v T) *T { return &v }

// TestClientAPIVersion: a client sends 2026-06-01 unless built with
// WithAPIVersion(PreviewAPIVersion); another version is refused at construction.
func TestClientAPIVersion(t *testing.T) {
	for _, tc := range []struct {
		options []ClientOption
		want    string
	}{
		{nil, "2026-06-01"},
		{[]ClientOption{WithAPIVersion(APIVersion)}, "2026-06-01"},
		{[]ClientOption{WithAPIVersion(PreviewAPIVersion)}, "2026-11-01-preview"},
	} {
		var mu sync.Mutex
		var got []string
		c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.URL.RawQuery)
			mu.Unlock()
			fmt.Fprint(w, `{"value":[]}`)
		}, tc.options...)
		if c.APIVersion() != tc.want {
			t.Errorf("APIVersion() = %q, want %q", c.APIVersion(), tc.want)
		}
		if _, err := c.ListUpdateRuns(context.Background(), testFleet); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetGate(context.Background(), testFleet, "12345678-910a-bcde-f000-000000000000"); err != nil {
			t.Fatal(err)
		}
		for _, q := range got {
			if q != "api-version="+tc.want {
				t.Errorf("query %q, want api-version=%s", q, tc.want)
			}
		}
		if len(got) != 2 {
			t.Errorf("%d requests", len(got))
		}
	}
	if _, err := NewClientWithOptions(&fakeCredential{}, nil, nil, WithAPIVersion("2026-06-01-preview")); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("an unknown api-version: %v", err)
	}
}

// TestListMemberCredentialsFollowsContinuation: the POST carries the spec's
// body, again with each page's continuationToken until a page has none; the
// results of all pages come back in order; a repeated token is an error.
func TestListMemberCredentialsFollowsContinuation(t *testing.T) {
	kc := base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: Config\n"))
	for _, tc := range []struct {
		name, suffix string
		call         func(c *Client) ([]FleetMemberCredentialResult, error)
	}{
		{"fleet", "/fleets/fleet1/listMemberCredentials", func(c *Client) ([]FleetMemberCredentialResult, error) {
			return c.ListMemberCredentials(context.Background(), testFleet, []string{"member-1", "member-2", "member-3"})
		}},
		{"managed namespace", "/fleets/fleet1/managedNamespaces/team-a/listMemberCredentials", func(c *Client) ([]FleetMemberCredentialResult, error) {
			return c.ListManagedNamespaceMemberCredentials(context.Background(), testFleet, "team-a", []string{"member-1", "member-2", "member-3"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, string(b))
				mu.Unlock()
				if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, tc.suffix) {
					t.Errorf("request %s %s", r.Method, r.URL.Path)
				}
				var req FleetMemberCredentialRequest
				if err := strictDecode(b, &req); err != nil {
					t.Errorf("body %s: %v", b, err)
				}
				switch req.ContinuationToken {
				case "":
					fmt.Fprintf(w, `{"value":[{"name":"member-1","status":"Succeeded","kubeconfig":%q}],"continuationToken":"t1"}`, kc)
				case "t1":
					fmt.Fprint(w, `{"value":[{"name":"member-2","status":"Failed","error":{"code":"Forbidden","message":"no"}}],"continuationToken":"t2"}`)
				default:
					fmt.Fprintf(w, `{"value":[{"name":"member-3","status":"Succeeded","kubeconfig":%q}]}`, kc)
				}
			}, WithAPIVersion(PreviewAPIVersion))
			got, err := tc.call(c)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, r := range got {
				names = append(names, r.Name+"="+string(r.Status))
			}
			if strings.Join(names, ",") != "member-1=Succeeded,member-2=Failed,member-3=Succeeded" {
				t.Errorf("results %v", names)
			}
			want := []string{
				`{"memberNames":["member-1","member-2","member-3"]}`,
				`{"memberNames":["member-1","member-2","member-3"],"continuationToken":"t1"}`,
				`{"memberNames":["member-1","member-2","member-3"],"continuationToken":"t2"}`,
			}
			if !reflect.DeepEqual(bodies, want) {
				t.Errorf("bodies\n%s\nwant\n%s", strings.Join(bodies, "\n"), strings.Join(want, "\n"))
			}
		})
	}

	// Every member: the body the spec requires is sent, empty.
	var body string
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		fmt.Fprint(w, `{"value":[]}`)
	}, WithAPIVersion(PreviewAPIVersion))
	if got, err := c.ListMemberCredentials(context.Background(), testFleet, nil); err != nil || len(got) != 0 || body != "{}" {
		t.Errorf("every member: %v %v, body %q", got, err, body)
	}

	// A service that repeats a token would page for ever.
	calls := 0
	c, _ = testServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		fmt.Fprint(w, `{"value":[],"continuationToken":"again"}`)
	}, WithAPIVersion(PreviewAPIVersion))
	if _, err := c.ListMemberCredentials(context.Background(), testFleet, nil); err == nil || !strings.Contains(err.Error(), "repeated a continuation token") || calls != 2 {
		t.Errorf("repeated token: %v after %d calls", err, calls)
	}
}

// TestClientBuildsPreviewCredentialExampleRequests: the credential examples
// that follow the spec are the client's requests, and their responses its results.
func TestClientBuildsPreviewCredentialExampleRequests(t *testing.T) {
	dir := specDir(t)
	ex := readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/Fleets_ListMemberCredentials.json"))
	p := exampleParams{ex}
	c, reqs := exampleServerFor(t, PreviewAPIVersion, http.StatusOK, ex.Responses["200"].Body)
	var in FleetMemberCredentialRequest
	p.decode(t, "body", &in)
	got, err := c.ListMemberCredentials(context.Background(), p.fleet(t), in.MemberNames)
	if err != nil {
		t.Fatal(err)
	}
	var want FleetMemberCredentialResults
	unmarshal(t, ex.Responses["200"].Body, &want)
	if !reflect.DeepEqual(got, want.Value) {
		t.Errorf("results %+v\nwant %+v", got, want.Value)
	}
	r := (*reqs)[0]
	if len(*reqs) != 1 || r.method != http.MethodPost || r.path != p.fleet(t).String()+"/listMemberCredentials" {
		t.Errorf("requests %+v", *reqs)
	}
	if g, w := jsonValue(t, r.body), jsonValue(t, ex.Parameters["body"]); !reflect.DeepEqual(g, w) {
		t.Errorf("body %s, want %s", r.body, ex.Parameters["body"])
	}

	ex = readExample(t, filepath.Join(dir, "preview/2026-11-01-preview/examples/FleetManagedNamespaces_ListCredentials.json"))
	p = exampleParams{ex}
	c, reqs = exampleServerFor(t, PreviewAPIVersion, http.StatusOK, ex.Responses["200"].Body)
	kc, err := c.ListManagedNamespaceCredentials(context.Background(), p.fleet(t), p.str(t, "managedNamespaceName"))
	if err != nil || string(kc) != "apiVersion: v1" {
		t.Errorf("kubeconfig %q %v", kc, err)
	}
	r = (*reqs)[0]
	if len(*reqs) != 1 || r.method != http.MethodPost || r.path != p.fleet(t).ChildID("managedNamespaces", "namespace1")+"/listCredentials" || len(r.body) != 0 {
		t.Errorf("requests %+v", *reqs)
	}
}

// TestStableClientRefusesPreviewMethods: the preview's operations are not
// sent under 2026-06-01, which does not define them; bad names are refused
// before sending too.
func TestStableClientRefusesPreviewMethods(t *testing.T) {
	handler := func(w http.ResponseWriter, r *http.Request) { t.Errorf("unexpected request %s %s", r.Method, r.URL) }
	ctx := context.Background()
	stable, _ := testServer(t, handler)
	for name, call := range map[string]func(c *Client) error{
		"listMemberCredentials": func(c *Client) error { _, err := c.ListMemberCredentials(ctx, testFleet, nil); return err },
		"managedNamespaces/listCredentials": func(c *Client) error {
			_, err := c.ListManagedNamespaceCredentials(ctx, testFleet, "team-a")
			return err
		},
		"managedNamespaces/listMemberCredentials": func(c *Client) error {
			_, err := c.ListManagedNamespaceMemberCredentials(ctx, testFleet, "team-a", nil)
			return err
		},
	} {
		if err := call(stable); err == nil || !strings.Contains(err.Error(), name+" is defined by api-version 2026-11-01-preview only; this client sends 2026-06-01") {
			t.Errorf("%s on a stable client: %v", name, err)
		}
	}
	preview, _ := testServer(t, handler, WithAPIVersion(PreviewAPIVersion))
	if _, err := preview.ListMemberCredentials(ctx, testFleet, []string{"member-1", "Member_2"}); err == nil || !strings.Contains(err.Error(), `"Member_2" is not a fleet member name`) {
		t.Errorf("a bad member name: %v", err)
	}
	if _, err := preview.ListManagedNamespaceCredentials(ctx, testFleet, "Team_A"); err == nil || !strings.Contains(err.Error(), "managed namespace name") {
		t.Errorf("a bad namespace name: %v", err)
	}
	if _, err := preview.ListManagedNamespaceMemberCredentials(ctx, FleetID{}, "team-a", nil); err == nil {
		t.Error("an empty fleet ID was accepted")
	}
}

// TestPreviewCredentialBodiesAreNotLogged: the request log leaves out the
// bodies of the preview's credential endpoints (they carry kubeconfigs).
func TestPreviewCredentialBodiesAreNotLogged(t *testing.T) {
	for _, p := range []string{
		testFleet.String() + "/listMemberCredentials",
		testFleet.ChildID("managedNamespaces", "team-a") + "/listCredentials",
		testFleet.ChildID("managedNamespaces", "team-a") + "/listMemberCredentials",
	} {
		req, err := http.NewRequest(http.MethodPost, "https://management.azure.com"+p+"?api-version="+PreviewAPIVersion, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !httplog.CredentialEndpoint(req) {
			t.Errorf("%s is not a credential endpoint to the request log", p)
		}
	}
}
