package fleetapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// specDir is the official spec and examples copied into testdata (its README names the source),
// or FLEET_API_SPEC_DIR to test against another copy.
func specDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("FLEET_API_SPEC_DIR"); d != "" {
		return d
	}
	const d = "testdata/azure-fleet-api"
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Fatalf("%s is missing: %v", d, err)
	}
	return d
}

// fleetListResult is the fleet list page (the client does not list fleets).
type fleetListResult struct {
	Value    []Fleet `json:"value"`
	NextLink string  `json:"nextLink,omitempty"`
}

type example struct {
	OperationID string                     `json:"operationId"`
	Parameters  map[string]json.RawMessage `json:"parameters"`
	Responses   map[string]struct {
		Body json.RawMessage `json:"body"`
	} `json:"responses"`
}

func readExample(t *testing.T, path string) example {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ex example
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ex
}

// strictDecode decodes body into v, failing on any field the model lacks.
func strictDecode(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// normalize turns JSON into generic values without nulls and with times
// compared by instant, so a re-encoded model can be compared with the example.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			n := normalize(e)
			if isEmpty(n) {
				continue
			}
			out[k] = n
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return x
	}
	return v
}

// isEmpty is true for null, {} and []: omitempty drops them.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return normalize(v)
}

// TestExamplesParseIntoModels decodes every official response example of
// the fleet and member operations (2026-06-01 and the complete 2025-03-01
// set) into the models, rejecting unknown fields, and re-encodes them to
// check nothing was lost.
func TestExamplesParseIntoModels(t *testing.T) {
	dir := specDir(t)
	models := map[string]func() any{
		"Fleets_Get":                 func() any { return &Fleet{} },
		"Fleets_CreateOrUpdate":      func() any { return &Fleet{} },
		"Fleets_Update":              func() any { return &Fleet{} },
		"Fleets_ListByResourceGroup": func() any { return &fleetListResult{} },
		"Fleets_ListBySubscription":  func() any { return &fleetListResult{} },
		"Fleets_ListCredentials":     func() any { return &FleetCredentialResults{} },
		"FleetMembers_Get":           func() any { return &FleetMember{} },
		"FleetMembers_Create":        func() any { return &FleetMember{} },
		"FleetMembers_Update":        func() any { return &FleetMember{} },
		"FleetMembers_ListByFleet":   func() any { return &FleetMemberListResult{} },
		"FleetMembers_Delete":        nil,
		"Fleets_Delete":              nil,
	}
	var files []string
	for _, v := range []string{"2026-06-01", "2025-03-01"} {
		for _, prefix := range []string{"Fleets_", "FleetMembers_"} {
			m, err := filepath.Glob(filepath.Join(dir, "stable", v, "examples", prefix+"*.json"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
	}
	if len(files) < 25 {
		t.Fatalf("found only %d fleet/member examples under %s", len(files), dir)
	}
	bodies := 0
	for _, f := range files {
		ex := readExample(t, f)
		mk, known := models[ex.OperationID]
		if !known {
			t.Errorf("%s: operation %s has no model in this test", f, ex.OperationID)
			continue
		}
		for code, r := range ex.Responses {
			if mk == nil || len(r.Body) == 0 || string(r.Body) == "null" {
				continue
			}
			v := mk()
			if err := strictDecode(r.Body, v); err != nil {
				t.Errorf("%s (%s %s): %v", filepath.Base(f), ex.OperationID, code, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonValue(t, out), jsonValue(t, r.Body); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%s %s): re-encoded model differs\n got: %s\nwant: %s", filepath.Base(f), ex.OperationID, code, out, r.Body)
			}
			bodies++
		}
	}
	if bodies < 30 {
		t.Errorf("decoded only %d response bodies", bodies)
	}
}

func TestExampleValues(t *testing.T) {
	dir := specDir(t)
	ex := readExample(t, filepath.Join(dir, "stable/2026-06-01/examples/Fleets_Get.json"))
	var f Fleet
	if err := json.Unmarshal(ex.Responses["200"].Body, &f); err != nil {
		t.Fatal(err)
	}
	if f.Properties == nil || f.Properties.HubProfile == nil || f.Properties.HubProfile.Fqdn != "dnsprefix1-abcd1234.flt.eastus.azmk8s.io" {
		t.Errorf("hub profile = %+v", f.Properties)
	}
	if f.ETag != "23ujdflewrj3=" || f.SystemData == nil || f.SystemData.CreatedAt == nil ||
		!f.SystemData.CreatedAt.Equal(time.Date(2022, 3, 23, 5, 40, 40, 657000000, time.UTC)) {
		t.Errorf("etag/systemData = %q %+v", f.ETag, f.SystemData)
	}
	id, err := ParseFleetID(f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if id != (FleetID{SubscriptionID: "subid1", ResourceGroupName: "rg1", Name: "fleet1"}) {
		t.Errorf("fleet id = %+v", id)
	}

	ex = readExample(t, filepath.Join(dir, "stable/2025-03-01/examples/Fleets_ListCredentialsResult.json"))
	var cr FleetCredentialResults
	if err := json.Unmarshal(ex.Responses["200"].Body, &cr); err != nil {
		t.Fatal(err)
	}
	if len(cr.Kubeconfigs) != 1 || string(cr.Kubeconfigs[0].Value) != "credentialValue1" {
		t.Errorf("kubeconfigs = %+v", cr.Kubeconfigs)
	}

	ex = readExample(t, filepath.Join(dir, "stable/2025-03-01/examples/FleetMembers_ListByFleet.json"))
	var page FleetMemberListResult
	if err := json.Unmarshal(ex.Responses["200"].Body, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Value) != 1 || page.NextLink != "" || page.Value[0].Properties.ClusterResourceID !=
		"/subscriptions/subid1/resourcegroups/rg1/providers/Microsoft.ContainerService/managedClusters/cluster-1" {
		t.Errorf("members page = %+v", page)
	}
	f2, name, err := ParseChildID(page.Value[0].ID, "members")
	if err != nil || name != "member-1" || f2.Name != "fleet-1" || f2.ResourceGroupName != "rg1" {
		t.Errorf("ParseChildID = %+v %q %v", f2, name, err)
	}

	ex = readExample(t, filepath.Join(dir, "stable/2025-03-01/examples/FleetMembers_Get_MaximumSet_Gen.json"))
	var m FleetMember
	if err := json.Unmarshal(ex.Responses["200"].Body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Properties == nil || m.Properties.Group != "group1" || m.Properties.ProvisioningState != "Succeeded" {
		t.Errorf("member = %+v", m.Properties)
	}
}

func TestFleetIDs(t *testing.T) {
	id := FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000001", ResourceGroupName: "rg-fleet", Name: "demo"}
	s := id.String()
	if s != "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo" {
		t.Fatalf("String = %s", s)
	}
	back, err := ParseFleetID(s)
	if err != nil || back != id {
		t.Fatalf("ParseFleetID(String) = %+v, %v", back, err)
	}
	f, name, err := ParseChildID(id.ChildID("updateRuns", "run-1"), "updateRuns")
	if err != nil || f != id || name != "run-1" {
		t.Fatalf("ParseChildID = %+v %q %v", f, name, err)
	}
	bad := []string{
		"",
		"fleets/demo",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/demo",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/demo/members/m",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/Demo_Fleet",
	}
	for _, b := range bad {
		if _, err := ParseFleetID(b); err == nil {
			t.Errorf("ParseFleetID(%q) accepted", b)
		}
	}
	if _, _, err := ParseChildID(id.ChildID("members", "m"), "updateRuns"); err == nil {
		t.Error("ParseChildID accepted a member ID as an update run")
	}
	if _, _, err := ParseChildID(id.String(), "members"); err == nil {
		t.Error("ParseChildID accepted a fleet ID as a member")
	}
}

type fakeCredential struct{ calls atomic.Int32 }

func (c *fakeCredential) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.calls.Add(1)
	if len(o.Scopes) != 1 || o.Scopes[0] != "https://fleet.test/.default" {
		return azcore.AccessToken{}, fmt.Errorf("unexpected scopes %v", o.Scopes)
	}
	return azcore.AccessToken{Token: "test-token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// testServer serves handler over TLS and returns a client whose pipeline
// reaches it (fast retries).
func testServer(t *testing.T, handler http.HandlerFunc, options ...ClientOption) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewTLSServer(handler)
	t.Cleanup(srv.Close)
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: srv.URL + "/",
				Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://fleet.test"}},
			},
			Transport: srv.Client(),
			Retry:     policy.RetryOptions{MaxRetries: 3, RetryDelay: time.Millisecond, MaxRetryDelay: 10 * time.Millisecond},
		},
		DisableRPRegistration: true,
	}
	c, err := NewClientWithOptions(&fakeCredential{}, opts, nil, options...)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

var testFleet = FleetID{SubscriptionID: "sub1", ResourceGroupName: "rg1", Name: "fleet1"}

func TestClientGetFleetAndErrors(t *testing.T) {
	var calls atomic.Int32
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer test-token" {
			t.Errorf("Authorization = %q", got)
		}
		if got := r.URL.Query().Get("api-version"); got != "2026-06-01" {
			t.Errorf("api-version = %q", got)
		}
		w.Header().Set("Date", "Mon, 23 Nov 2026 03:04:05 GMT")
		switch r.URL.Path {
		case "/subscriptions/sub1/resourceGroups/rg1/providers/Microsoft.ContainerService/fleets/fleet1":
			if r.Method != http.MethodGet {
				t.Errorf("method = %s", r.Method)
			}
			fmt.Fprint(w, `{"id":"`+testFleet.String()+`","name":"fleet1","location":"eastus","properties":{"provisioningState":"Succeeded","hubProfile":{"fqdn":"hub.example"}}}`)
		default:
			w.Header().Set("x-ms-request-id", "req-1")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"ResourceNotFound","message":"The Resource 'Microsoft.ContainerService/fleets/gone' was not found."}}`)
		}
	})
	f, err := c.GetFleet(context.Background(), testFleet)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "fleet1" || f.Properties.HubProfile.Fqdn != "hub.example" {
		t.Errorf("fleet = %+v", f)
	}
	if now, ok := c.Clock().Latest(); !ok || !now.Equal(time.Date(2026, 11, 23, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("clock = %v %v", now, ok)
	}

	_, err = c.GetFleet(context.Background(), FleetID{SubscriptionID: "sub1", ResourceGroupName: "rg1", Name: "gone"})
	if !IsNotFound(err) {
		t.Fatalf("IsNotFound(%v) = false", err)
	}
	e, ok := AsError(err)
	if !ok || e.StatusCode != 404 || e.Code != "ResourceNotFound" || !strings.Contains(e.Message, "was not found") || e.RequestID != "req-1" || e.Method != "GET" {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(err.Error(), "404 ResourceNotFound") || strings.Contains(err.Error(), "api-version") {
		t.Errorf("error text = %s", err)
	}
	if IsConflict(err) || IsPreconditionFailed(err) {
		t.Error("a 404 is neither a conflict nor a failed precondition")
	}
	if IsNotFound(errors.New("plain")) {
		t.Error("IsNotFound(plain error) = true")
	}
	if calls.Load() != 2 {
		t.Errorf("calls = %d (404 must not be retried)", calls.Load())
	}
	if _, err := c.GetFleet(context.Background(), FleetID{}); err == nil {
		t.Error("GetFleet accepted an empty fleet ID")
	}
}

func TestClientRetriesTransientFailures(t *testing.T) {
	var calls atomic.Int32
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 3:
			// a connection reset: hijack and close without answering
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Error("no hijacker")
				return
			}
			conn, _, _ := hj.Hijack()
			conn.Close()
		default:
			fmt.Fprint(w, `{"name":"m1","properties":{"clusterResourceId":"/subscriptions/sub1/resourceGroups/rg1/providers/Microsoft.ContainerService/managedClusters/c1","group":"canary"}}`)
		}
	})
	m, err := c.GetMember(context.Background(), testFleet, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Properties.Group != "canary" || calls.Load() != 4 {
		t.Errorf("member = %+v after %d calls", m.Properties, calls.Load())
	}
}

func TestClientListMembersFollowsNextLink(t *testing.T) {
	var srvURL string
	c, srv := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		base := "/subscriptions/sub1/resourceGroups/rg1/providers/Microsoft.ContainerService/fleets/fleet1/members"
		if r.URL.Path != base {
			t.Errorf("path = %s", r.URL.Path)
		}
		switch r.URL.Query().Get("page") {
		case "":
			fmt.Fprintf(w, `{"value":[{"name":"a"},{"name":"b"}],"nextLink":"%s%s?api-version=2026-06-01&page=2"}`, srvURL, base)
		case "2":
			fmt.Fprintf(w, `{"value":[{"name":"c"}],"nextLink":"%s%s?api-version=2026-06-01&page=3"}`, srvURL, base)
		case "3":
			fmt.Fprint(w, `{"value":[{"name":"d"}],"nextLink":null}`)
		}
	})
	srvURL = srv.URL
	ms, err := c.ListMembers(context.Background(), testFleet)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d" {
		t.Errorf("members = %v", names)
	}
}

func TestClientListMembersRejectsNextLinkLoop(t *testing.T) {
	var srvURL string
	c, srv := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"value":[{"name":"a"}],"nextLink":"%s%s?page=again"}`, srvURL, r.URL.Path)
	})
	srvURL = srv.URL
	if _, err := c.ListMembers(context.Background(), testFleet); err == nil || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("err = %v", err)
	}
}

func TestClientListCredentials(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/fleets/fleet1/listCredentials") {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		fmt.Fprint(w, `{"kubeconfigs":[{"name":"credentialName1","value":"Y3JlZGVudGlhbFZhbHVlMQ=="}]}`)
	})
	kc, err := c.ListCredentials(context.Background(), testFleet)
	if err != nil {
		t.Fatal(err)
	}
	if string(kc) != "credentialValue1" {
		t.Errorf("kubeconfig = %q", kc)
	}
}

func TestClientListCredentialsEmpty(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"kubeconfigs":[]}`)
	})
	if _, err := c.ListCredentials(context.Background(), testFleet); err == nil {
		t.Error("no error for an answer without kubeconfig")
	}
}

func TestClientErrorShapes(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/flat"):
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"code":"Conflict","message":"flat envelope"}`)
		case strings.HasSuffix(r.URL.Path, "/empty"):
			w.Header().Set("x-ms-error-code", "PreconditionFailed")
			w.WriteHeader(http.StatusPreconditionFailed)
		default:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"code":"InvalidParameter","message":"bad","details":[{"code":"Sub","message":"inner"}]}}`)
		}
	})
	_, err := c.GetMember(context.Background(), testFleet, "flat")
	if e, _ := AsError(err); !IsConflict(err) || e.Code != "Conflict" || e.Message != "flat envelope" {
		t.Errorf("flat: %v", err)
	}
	_, err = c.GetMember(context.Background(), testFleet, "empty")
	if e, _ := AsError(err); !IsPreconditionFailed(err) || e.Code != "PreconditionFailed" {
		t.Errorf("empty: %v", err)
	}
	_, err = c.GetMember(context.Background(), testFleet, "bad")
	if e, _ := AsError(err); e == nil || e.StatusCode != 400 || len(e.Details) != 1 || !strings.Contains(err.Error(), "Sub: inner") {
		t.Errorf("details: %v", err)
	}
}

func TestClientStopsOnCancel(t *testing.T) {
	c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	// the test client caps retry delays at 10ms; use a long Retry-After
	// through a per-call override so the wait is real.
	ctx, cancel := context.WithCancel(policy.WithRetryOptions(context.Background(), policy.RetryOptions{MaxRetries: 5, MaxRetryDelay: time.Minute}))
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.GetFleet(ctx, testFleet)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

// TestClientAgainstExamples sends each read operation with the parameters
// of its official example to a server that checks the request line and
// answers with the example's body.
func TestClientAgainstExamples(t *testing.T) {
	dir := specDir(t)
	cases := []struct {
		file   string
		method string
		suffix string
		call   func(c *Client, f FleetID, member string) (any, error)
		want   func() any
	}{
		{"2026-06-01/examples/Fleets_Get.json", http.MethodGet, "", func(c *Client, f FleetID, _ string) (any, error) { return c.GetFleet(context.Background(), f) }, func() any { return &Fleet{} }},
		{"2025-03-01/examples/FleetMembers_Get.json", http.MethodGet, "/members/", func(c *Client, f FleetID, m string) (any, error) { return c.GetMember(context.Background(), f, m) }, func() any { return &FleetMember{} }},
		{"2025-03-01/examples/FleetMembers_ListByFleet.json", http.MethodGet, "/members", func(c *Client, f FleetID, _ string) (any, error) {
			ms, err := c.ListMembers(context.Background(), f)
			return &FleetMemberListResult{Value: ms}, err
		}, func() any { return &FleetMemberListResult{} }},
		{"2025-03-01/examples/Fleets_ListCredentialsResult.json", http.MethodPost, "/listCredentials", func(c *Client, f FleetID, _ string) (any, error) {
			kc, err := c.ListCredentials(context.Background(), f)
			return &FleetCredentialResults{Kubeconfigs: []FleetCredentialResult{{Name: "credentialName1", Value: kc}}}, err
		}, func() any { return &FleetCredentialResults{} }},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ex := readExample(t, filepath.Join(dir, "stable", tc.file))
			param := func(k string) string {
				var s string
				if err := json.Unmarshal(ex.Parameters[k], &s); err != nil {
					t.Fatalf("parameter %s: %v", k, err)
				}
				return s
			}
			f := FleetID{SubscriptionID: param("subscriptionId"), ResourceGroupName: param("resourceGroupName"), Name: param("fleetName")}
			member := ""
			wantPath := "/subscriptions/" + f.SubscriptionID + "/resourceGroups/" + f.ResourceGroupName + "/providers/Microsoft.ContainerService/fleets/" + f.Name + tc.suffix
			if tc.suffix == "/members/" {
				member = param("fleetMemberName")
				wantPath += member
			}
			body := ex.Responses["200"].Body
			c, _ := testServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != tc.method || r.URL.Path != wantPath {
					t.Errorf("request %s %s, want %s %s", r.Method, r.URL.Path, tc.method, wantPath)
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			})
			got, err := tc.call(c, f, member)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want()
			if err := json.Unmarshal(body, want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}
