package fleetapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// updateModels maps the operations of update strategies, update runs and
// gates to the model of their response bodies (nil: no body).
var updateModels = map[string]func() any{
	"UpdateRuns_Get":                       func() any { return &UpdateRun{} },
	"UpdateRuns_CreateOrUpdate":            func() any { return &UpdateRun{} },
	"UpdateRuns_Start":                     func() any { return &UpdateRun{} },
	"UpdateRuns_Stop":                      func() any { return &UpdateRun{} },
	"UpdateRuns_Skip":                      func() any { return &UpdateRun{} },
	"UpdateRuns_ListByFleet":               func() any { return &UpdateRunListResult{} },
	"UpdateRuns_Delete":                    nil,
	"FleetUpdateStrategies_Get":            func() any { return &FleetUpdateStrategy{} },
	"FleetUpdateStrategies_CreateOrUpdate": func() any { return &FleetUpdateStrategy{} },
	"FleetUpdateStrategies_ListByFleet":    func() any { return &FleetUpdateStrategyListResult{} },
	"FleetUpdateStrategies_Delete":         nil,
	"Gates_Get":                            func() any { return &Gate{} },
	"Gates_Update":                         func() any { return &Gate{} },
	"Gates_ListByFleet":                    func() any { return &GateListResult{} },
}

func updateExampleFiles(t *testing.T) []string {
	t.Helper()
	dir := specDir(t)
	var files []string
	for _, glob := range []string{"stable/*/examples/UpdateRuns_*.json", "stable/*/examples/*UpdateStrategies_*.json",
		"preview/*/examples/UpdateRuns_*.json", "preview/*/examples/*UpdateStrategies_*.json", "preview/*/examples/Gates_*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

// upstreamDefect repairs what the 2025-04-01-preview examples get wrong
// against fleets.json (the same definitions in 2026-06-01), and says what:
// beforeGates/afterGates written as one object instead of an array, and gates
// with a "location" and a target of {type, properties.updateRun} instead of
// {id, updateRunProperties}. (Gates_Update also has a duplicate "stage" key;
// JSON keeps the last one, which decoding and the comparison both do.)
func upstreamDefect(file string, v any) (string, bool) {
	if !strings.Contains(file, "2025-04-01-preview") {
		return "", false
	}
	var fixed []string
	var walk func(any)
	walk = func(x any) {
		switch o := x.(type) {
		case map[string]any:
			for _, k := range []string{"beforeGates", "afterGates"} {
				if g, ok := o[k].(map[string]any); ok {
					o[k] = []any{g}
					fixed = append(fixed, k+" as an object")
				}
			}
			if p, ok := o["properties"].(map[string]any); ok {
				if tg, ok := p["target"].(map[string]any); ok {
					if tp, ok := tg["properties"].(map[string]any); ok {
						tg["updateRunProperties"] = tp["updateRun"]
						delete(tg, "properties")
						delete(tg, "type")
						delete(o, "location")
						fixed = append(fixed, "gate target {type, properties.updateRun} and location")
					}
				}
			}
			for _, e := range o {
				walk(e)
			}
		case []any:
			for _, e := range o {
				walk(e)
			}
		}
	}
	walk(v)
	return strings.Join(fixed, ", "), len(fixed) > 0
}

// TestUpdateExamplesParseIntoModels decodes every official response example
// of update strategies, update runs and gates (2026-06-01, the complete
// 2025-03-01 set, the preview examples: gates, and 2026-11-01-preview's
// failure thresholds, member selectors and ScheduledStart gates with their
// 2026-06-02-preview substitutes) into the models, rejecting unknown fields,
// and re-encodes them to check nothing was lost.
func TestUpdateExamplesParseIntoModels(t *testing.T) {
	files := updateExampleFiles(t)
	if len(files) < 50 {
		t.Fatalf("found only %d update examples", len(files))
	}
	bodies, repaired := 0, 0
	for _, f := range files {
		ex := readExample(t, f)
		mk, known := updateModels[ex.OperationID]
		if !known {
			t.Errorf("%s: operation %s has no model in this test", f, ex.OperationID)
			continue
		}
		for code, r := range ex.Responses {
			if mk == nil || len(r.Body) == 0 || string(r.Body) == "null" {
				continue
			}
			name := fmt.Sprintf("%s (%s %s)", filepath.Base(f), ex.OperationID, code)
			body := r.Body
			var generic any
			if err := json.Unmarshal(body, &generic); err != nil {
				t.Fatal(err)
			}
			if what, ok := upstreamDefect(f, generic); ok {
				// The defect must make the strict decode fail, or it is not one (any more).
				if err := strictDecode(body, mk()); err == nil {
					t.Errorf("%s: repaired %q, but the example parses as is", name, what)
				}
				body, _ = json.Marshal(generic)
				repaired++
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
	if bodies < 50 || repaired < 5 {
		t.Errorf("decoded %d response bodies (%d repaired)", bodies, repaired)
	}
}

func TestUpdateExampleValues(t *testing.T) {
	dir := specDir(t)
	ex := readExample(t, filepath.Join(dir, "stable/2026-06-01/examples/UpdateRuns_Stop.json"))
	var run UpdateRun
	if err := json.Unmarshal(ex.Responses["200"].Body, &run); err != nil {
		t.Fatal(err)
	}
	st := run.Properties.Status
	if st.Status.State != UpdateStateStopping || st.Stages[0].MaxConcurrency != 10 || st.Stages[0].Groups[0].Members[0].Status.State != UpdateStateStopping ||
		st.Stages[0].AfterStageWaitStatus.WaitDurationInSeconds != 3600 || run.Properties.Strategy.Stages[0].MaxConcurrency != "20%" || run.ETag != `"EtagValue"` {
		t.Errorf("stop example: %+v", run)
	}

	ex = readExample(t, filepath.Join(dir, "preview/2026-06-01-preview/examples/Gates_Get_ScheduledStart.json"))
	var g Gate
	if err := json.Unmarshal(ex.Responses["200"].Body, &g); err != nil {
		t.Fatal(err)
	}
	p := g.Properties
	if p.State != GateStatePending || p.Target.UpdateRunProperties.Timing != TimingBefore || p.Target.UpdateRunProperties.Group != "group1" ||
		p.ScheduledStartProperties == nil || !p.ScheduledStartProperties.AbsoluteStartTime.Equal(time.Date(2026, 4, 4, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("gate: %+v", p)
	}
	fleet, run1, err := ParseChildID(p.Target.ID, "updateRuns")
	if err != nil || run1 != "run1" || fleet.Name != "fleet-1" {
		t.Errorf("gate target %q: %+v %q %v", p.Target.ID, fleet, run1, err)
	}
}

// captured is one request a test server saw.
type captured struct {
	method, path string
	header       http.Header
	body         []byte
}

// exampleServer answers every request with status and body and records the requests.
func exampleServer(t *testing.T, status int, body []byte) (*Client, *[]captured) {
	t.Helper()
	return exampleServerFor(t, APIVersion, status, body)
}

// exampleServerFor is exampleServer with a client of api-version version,
// which every request must carry.
func exampleServerFor(t *testing.T, version string, status int, body []byte) (*Client, *[]captured) {
	t.Helper()
	var mu sync.Mutex
	var reqs []captured
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, captured{r.Method, r.URL.Path, r.Header.Clone(), b})
		mu.Unlock()
		if r.URL.Query().Get("api-version") != version {
			t.Errorf("api-version = %q, want %q", r.URL.Query().Get("api-version"), version)
		}
		if len(body) == 0 {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}, WithAPIVersion(version))
	return c, &reqs
}

// exampleParams reads an example's path parameters and headers.
type exampleParams struct{ ex example }

func (p exampleParams) str(t *testing.T, k string) string {
	t.Helper()
	raw, ok := p.ex.Parameters[k]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("parameter %s: %v", k, err)
	}
	if strings.HasPrefix(s, "Replace this value") {
		return "placeholder1" // MaximumSet examples name their pattern instead of a value
	}
	return s
}

func (p exampleParams) fleet(t *testing.T) FleetID {
	return FleetID{SubscriptionID: p.str(t, "subscriptionId"), ResourceGroupName: p.str(t, "resourceGroupName"), Name: p.str(t, "fleetName")}
}

// decodeParam strictly decodes an example's body parameter into v.
func (p exampleParams) decode(t *testing.T, k string, v any) {
	t.Helper()
	if err := strictDecode(p.ex.Parameters[k], v); err != nil {
		t.Fatalf("parameter %s: %v", k, err)
	}
}

// TestClientBuildsExampleRequests sends each write with the parameters of
// its official request example and checks the request line, the ETag
// headers and that the body equals the example's body (for a run's
// MaximumSet example, minus the read-only status and autoUpgradeProfileId
// the client never sends); the example's response is then the result.
func TestClientBuildsExampleRequests(t *testing.T) {
	dir := specDir(t)
	ctx := context.Background()
	cases := []struct {
		file, method, suffix string
		// call sends the request; want is the request body the example implies.
		call func(t *testing.T, c *Client, p exampleParams) (result any, want json.RawMessage)
	}{
		{"stable/2025-03-01/examples/UpdateRuns_CreateOrUpdate.json", http.MethodPut, "/updateRuns/run1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var run UpdateRun
			p.decode(t, "resource", &run)
			return putRun(t, c, p, run), p.ex.Parameters["resource"]
		}},
		{"stable/2025-03-01/examples/UpdateRuns_CreateOrUpdate_MaximumSet_Gen.json", http.MethodPut, "/updateRuns/placeholder1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var run UpdateRun
			p.decode(t, "resource", &run)
			var want map[string]map[string]any
			if err := json.Unmarshal(p.ex.Parameters["resource"], &want); err != nil {
				t.Fatal(err)
			}
			delete(want["properties"], "status")
			delete(want["properties"], "autoUpgradeProfileId")
			b, _ := json.Marshal(want)
			return putRun(t, c, p, run), b
		}},
		{"preview/2025-04-01-preview/examples/UpdateRuns_CreateOrUpdate.json", http.MethodPut, "/updateRuns/run1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var generic any
			unmarshal(t, p.ex.Parameters["resource"], &generic)
			if _, ok := upstreamDefect("2025-04-01-preview", generic); !ok {
				t.Fatal("the preview run example no longer has gates as objects")
			}
			b, _ := json.Marshal(generic)
			var run UpdateRun
			if err := strictDecode(b, &run); err != nil {
				t.Fatal(err)
			}
			return putRun(t, c, p, run), b
		}},
		// The preview's failure thresholds, member selectors and ScheduledStart
		// gates are sent as written (2026-06-02-preview substitutes for the
		// strategy example 2026-11-01-preview lacks).
		{"preview/2026-11-01-preview/examples/UpdateRuns_CreateOrUpdate.json", http.MethodPut, "/updateRuns/run1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var run UpdateRun
			p.decode(t, "resource", &run)
			return putRun(t, c, p, run), p.ex.Parameters["resource"]
		}},
		{"preview/2026-06-02-preview/examples/UpdateStrategies_CreateOrUpdate.json", http.MethodPut, "/updateStrategies/strategy1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var s FleetUpdateStrategy
			p.decode(t, "resource", &s)
			return must(t)(done(c.BeginCreateOrUpdateUpdateStrategy(ctx, p.fleet(t), p.str(t, "updateStrategyName"), s, pre(t, p)))), p.ex.Parameters["resource"]
		}},
		{"stable/2026-06-01/examples/FleetMembers_Create.json", http.MethodPut, "/members/member-1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var m FleetMember
			p.decode(t, "resource", &m)
			return must(t)(done(c.BeginCreateOrUpdateMember(ctx, p.fleet(t), p.str(t, "fleetMemberName"), m, pre(t, p)))), p.ex.Parameters["resource"]
		}},
		{"stable/2025-03-01/examples/UpdateStrategies_CreateOrUpdate.json", http.MethodPut, "/updateStrategies/strartegy1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var s FleetUpdateStrategy
			p.decode(t, "resource", &s)
			return must(t)(done(c.BeginCreateOrUpdateUpdateStrategy(ctx, p.fleet(t), p.str(t, "updateStrategyName"), s, pre(t, p)))), p.ex.Parameters["resource"]
		}},
		{"stable/2025-03-01/examples/FleetUpdateStrategies_CreateOrUpdate_MaximumSet_Gen.json", http.MethodPut, "/updateStrategies/strat1", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var s FleetUpdateStrategy
			p.decode(t, "resource", &s)
			return must(t)(done(c.BeginCreateOrUpdateUpdateStrategy(ctx, p.fleet(t), p.str(t, "updateStrategyName"), s, pre(t, p)))), p.ex.Parameters["resource"]
		}},
		{"stable/2025-03-01/examples/UpdateRuns_Skip.json", http.MethodPost, "/updateRuns/run1/skip", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var s SkipProperties
			p.decode(t, "body", &s)
			return must(t)(done(c.BeginSkipUpdateRun(ctx, p.fleet(t), p.str(t, "updateRunName"), s, pre(t, p)))), p.ex.Parameters["body"]
		}},
		{"stable/2025-03-01/examples/UpdateRuns_Skip_MaximumSet_Gen.json", http.MethodPost, "/skip", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var s SkipProperties
			p.decode(t, "body", &s)
			return must(t)(done(c.BeginSkipUpdateRun(ctx, p.fleet(t), p.str(t, "updateRunName"), s, pre(t, p)))), p.ex.Parameters["body"]
		}},
		{"stable/2025-03-01/examples/UpdateRuns_Start_MaximumSet_Gen.json", http.MethodPost, "/start", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			return must(t)(done(c.BeginStartUpdateRun(ctx, p.fleet(t), p.str(t, "updateRunName"), pre(t, p)))), nil
		}},
		{"stable/2026-06-01/examples/UpdateRuns_Stop.json", http.MethodPost, "/updateRuns/run1/stop", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			return must(t)(done(c.BeginStopUpdateRun(ctx, p.fleet(t), p.str(t, "updateRunName"), pre(t, p)))), nil
		}},
		// The example's body parameter is named "properties" and holds
		// GatePatchProperties; fleets.json's GatePatch wraps it in "properties".
		{"preview/2025-04-01-preview/examples/Gates_Update.json", http.MethodPatch, "/gates/12345678-910a-bcde-f000-000000000000", func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
			var props GatePatchProperties
			p.decode(t, "properties", &props)
			if props.State != GateStateCompleted {
				t.Fatalf("example state %q", props.State)
			}
			return must(t)(done(c.BeginApproveGate(ctx, p.fleet(t), p.str(t, "name"), pre(t, p)))), json.RawMessage(`{"properties":` + string(p.ex.Parameters["properties"]) + `}`)
		}},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ex := readExample(t, filepath.Join(dir, tc.file))
			p := exampleParams{ex}
			body := ex.Responses["200"].Body
			var generic any
			unmarshal(t, body, &generic)
			if _, ok := upstreamDefect(tc.file, generic); ok {
				body, _ = json.Marshal(generic)
			}
			c, reqs := exampleServerFor(t, exampleAPIVersion(tc.file), http.StatusOK, body)
			got, wantBody := tc.call(t, c, p)
			if len(*reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(*reqs))
			}
			r := (*reqs)[0]
			f := p.fleet(t)
			if r.method != tc.method || !strings.HasPrefix(r.path, f.String()) || !strings.HasSuffix(r.path, tc.suffix) {
				t.Errorf("request %s %s, want %s %s…%s", r.method, r.path, tc.method, f, tc.suffix)
			}
			for _, h := range []string{"If-Match", "If-None-Match"} {
				if got, want := r.header.Get(h), p.str(t, h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if wantBody == nil {
				if len(r.body) != 0 {
					t.Errorf("body %s, want none", r.body)
				}
			} else if g, w := jsonValue(t, r.body), jsonValue(t, wantBody); !reflect.DeepEqual(g, w) {
				t.Errorf("body\n got: %s\nwant: %s", r.body, wantBody)
			}
			want := reflect.New(reflect.TypeOf(got).Elem()).Interface()
			if err := json.Unmarshal(body, want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result %+v\nwant %+v", got, want)
			}
		})
	}
}

func unmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func pre(t *testing.T, p exampleParams) *Precondition {
	return &Precondition{IfMatch: p.str(t, "If-Match"), IfNoneMatch: p.str(t, "If-None-Match")}
}

func putRun(t *testing.T, c *Client, p exampleParams, run UpdateRun) any {
	t.Helper()
	name := p.str(t, "updateRunName")
	return must(t)(done(c.BeginCreateOrUpdateUpdateRun(context.Background(), p.fleet(t), name, run, pre(t, p))))
}

// done waits for a poller and returns a pointer to its result.
func done[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	return &v, err
}

// must fails the test on err and returns v.
func must(t *testing.T) func(v any, err error) any {
	return func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestClientReadsExamples serves the official read examples and checks the
// client's request line and result.
func TestClientReadsExamples(t *testing.T) {
	dir := specDir(t)
	ctx := context.Background()
	cases := []struct {
		file, suffix string
		call         func(c *Client, p exampleParams) (any, error)
		want         func(body []byte) any
	}{
		{"stable/2026-06-01/examples/UpdateStrategies_Get.json", "/updateStrategies/strategy1", func(c *Client, p exampleParams) (any, error) {
			return c.GetUpdateStrategy(ctx, p.fleet(t), p.str(t, "updateStrategyName"))
		}, func(b []byte) any { var v FleetUpdateStrategy; unmarshal(t, b, &v); return &v }},
		{"stable/2026-06-01/examples/UpdateStrategies_ListByFleet.json", "/updateStrategies", func(c *Client, p exampleParams) (any, error) {
			return c.ListUpdateStrategies(ctx, p.fleet(t))
		}, func(b []byte) any { var v FleetUpdateStrategyListResult; unmarshal(t, b, &v); return v.Value }},
		{"stable/2025-03-01/examples/UpdateRuns_Get.json", "/updateRuns/run1", func(c *Client, p exampleParams) (any, error) {
			return c.GetUpdateRun(ctx, p.fleet(t), p.str(t, "updateRunName"))
		}, func(b []byte) any { var v UpdateRun; unmarshal(t, b, &v); return &v }},
		{"stable/2026-06-01/examples/UpdateRuns_ListByFleet.json", "/updateRuns", func(c *Client, p exampleParams) (any, error) {
			return c.ListUpdateRuns(ctx, p.fleet(t))
		}, func(b []byte) any { var v UpdateRunListResult; unmarshal(t, b, &v); return v.Value }},
		{"preview/2026-06-01-preview/examples/Gates_Get_ScheduledStart.json", "/gates/12345678-910a-bcde-f000-000000000001", func(c *Client, p exampleParams) (any, error) {
			return c.GetGate(ctx, p.fleet(t), p.str(t, "gateName"))
		}, func(b []byte) any { var v Gate; unmarshal(t, b, &v); return &v }},
		{"preview/2026-06-01-preview/examples/Gates_ListByFleet.json", "/gates", func(c *Client, p exampleParams) (any, error) {
			return c.ListGates(ctx, p.fleet(t), GateFilter("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/updateRuns/o'neil", GateStatePending))
		}, func(b []byte) any { var v GateListResult; unmarshal(t, b, &v); return v.Value }},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ex := readExample(t, filepath.Join(dir, tc.file))
			p := exampleParams{ex}
			body := ex.Responses["200"].Body
			var reqs []string
			var srvURL string
			c, srv := testServer(t, func(w http.ResponseWriter, r *http.Request) {
				reqs = append(reqs, r.Method+" "+r.URL.Path)
				if r.URL.Query().Get("page") == "2" {
					fmt.Fprint(w, `{"value":[]}`)
					return
				}
				// The examples' nextLink (http://nextlink.contoso.com) becomes a second, empty page.
				_, _ = w.Write([]byte(strings.Replace(string(body), `"http://nextlink.contoso.com"`, `"`+srvURL+r.URL.Path+`?page=2"`, 1)))
			})
			srvURL = srv.URL
			got, err := tc.call(c, p)
			if err != nil {
				t.Fatal(err)
			}
			if want := "GET " + p.fleet(t).String() + tc.suffix; reqs[0] != want || (strings.Contains(string(body), "nextlink.contoso.com") != (len(reqs) == 2)) {
				t.Errorf("requests %v, want %s (and the next page when there is one)", reqs, want)
			}
			if want := tc.want(body); !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestGateFilterIsSent(t *testing.T) {
	var filter atomic.Value
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		filter.Store(r.URL.Query().Get("$filter"))
		fmt.Fprint(w, `{"value":[]}`)
	})
	gates, err := c.ListGates(context.Background(), testFleet, GateFilter(testFleet.ChildID("updateRuns", "o'neil"), GateStateCompleted))
	if err != nil || len(gates) != 0 {
		t.Fatal(gates, err)
	}
	want := "properties/target/id eq '" + testFleet.ChildID("updateRuns", "o''neil") + "' and properties/state eq 'Completed'"
	if got := filter.Load(); got != want {
		t.Errorf("$filter = %q, want %q", got, want)
	}
}

// TestClientFollowsLongRunningOperations runs an action through 202 +
// Azure-AsyncOperation polling to its Location result, and a failing one to
// the operation's error.
func TestClientFollowsLongRunningOperations(t *testing.T) {
	var polls atomic.Int32
	var base string
	c, srv := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		op := "/subscriptions/sub1/providers/Microsoft.ContainerService/locations/eastus/operations/"
		switch {
		case r.Method == http.MethodPost:
			id := "ok"
			if strings.Contains(r.URL.Path, "/fail/") {
				id = "bad"
			}
			w.Header().Set("Azure-AsyncOperation", base+op+id+"?api-version=2026-06-01")
			w.Header().Set("Location", base+op+id+"/result?api-version=2026-06-01")
			w.WriteHeader(http.StatusAccepted)
		case strings.HasSuffix(r.URL.Path, "/result"):
			fmt.Fprint(w, `{"name":"run1","properties":{"status":{"status":{"state":"Running"}}}}`)
		case strings.HasSuffix(r.URL.Path, "/ok"):
			if polls.Add(1) < 3 {
				fmt.Fprint(w, `{"status":"InProgress"}`)
				return
			}
			fmt.Fprint(w, `{"status":"Succeeded"}`)
		default:
			fmt.Fprint(w, `{"status":"Failed","error":{"code":"UpdateRunNotStartable","message":"cannot start"}}`)
		}
	})
	base = srv.URL
	run, err := done(c.BeginStartUpdateRun(context.Background(), testFleet, "run1", nil))
	if err != nil {
		t.Fatal(err)
	}
	if run.Name != "run1" || run.Properties.Status.Status.State != UpdateStateRunning || polls.Load() != 3 {
		t.Errorf("run %+v after %d polls", run, polls.Load())
	}
	p, err := c.BeginStartUpdateRun(context.Background(), testFleet, "fail", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "UpdateRunNotStartable" {
		t.Errorf("failed operation: %v", err)
	}
}

func TestClientRejectsBadNames(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) { t.Errorf("unexpected request %s", r.URL) })
	ctx := context.Background()
	if _, err := c.GetUpdateRun(ctx, testFleet, "Run_1"); err == nil {
		t.Error("GetUpdateRun accepted Run_1")
	}
	if _, err := c.GetUpdateStrategy(ctx, testFleet, strings.Repeat("a", 51)); err == nil {
		t.Error("GetUpdateStrategy accepted a 51-character name")
	}
	if _, err := c.GetGate(ctx, testFleet, "gate-1"); err == nil {
		t.Error("GetGate accepted a name that is not a GUID")
	}
	if _, err := c.BeginSkipUpdateRun(ctx, testFleet, "run1", SkipProperties{}, nil); err == nil {
		t.Error("BeginSkipUpdateRun accepted no targets")
	}
	if _, err := c.BeginCreateOrUpdateUpdateRun(ctx, testFleet, "run1", UpdateRun{}, nil); err == nil {
		t.Error("BeginCreateOrUpdateUpdateRun accepted a run without managedClusterUpdate")
	}
}
