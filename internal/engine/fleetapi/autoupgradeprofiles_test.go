package fleetapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// autoUpgradeModels maps the operations of auto-upgrade profiles to the model
// of their response bodies (nil: no body).
var autoUpgradeModels = map[string]func() any{
	"AutoUpgradeProfiles_Get":                        func() any { return &AutoUpgradeProfile{} },
	"AutoUpgradeProfiles_CreateOrUpdate":             func() any { return &AutoUpgradeProfile{} },
	"AutoUpgradeProfiles_ListByFleet":                func() any { return &AutoUpgradeProfileListResult{} },
	"AutoUpgradeProfiles_Delete":                     nil,
	"AutoUpgradeProfileOperations_GenerateUpdateRun": func() any { return &GenerateResponse{} },
	// The 2025-03-01 set also names the operation without "UpdateRun".
	"AutoUpgradeProfileOperations_Generate": func() any { return &GenerateResponse{} },
}

// TestAutoUpgradeExamplesParseIntoModels decodes every official
// AutoUpgradeProfile* response example into the models, rejecting unknown
// fields, and re-encodes them to check nothing was lost.
func TestAutoUpgradeExamplesParseIntoModels(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(specDir(t), "*/*/examples/AutoUpgradeProfile*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) < 12 {
		t.Fatalf("found only %d auto-upgrade examples", len(files))
	}
	bodies := 0
	for _, f := range files {
		ex := readExample(t, f)
		mk, known := autoUpgradeModels[ex.OperationID]
		if !known {
			t.Errorf("%s: operation %s has no model in this test", f, ex.OperationID)
			continue
		}
		for code, r := range ex.Responses {
			if mk == nil || len(r.Body) == 0 || string(r.Body) == "null" {
				continue
			}
			name := fmt.Sprintf("%s (%s %s)", filepath.Base(f), ex.OperationID, code)
			v := mk()
			if err := strictDecode(r.Body, v); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := jsonValue(t, out), jsonValue(t, r.Body); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: re-encoded model differs\n got: %s\nwant: %s", name, out, r.Body)
			}
			bodies++
		}
	}
	if bodies < 10 {
		t.Errorf("decoded %d response bodies", bodies)
	}
}

// TestAutoUpgradeStatusRoundTrip covers what no official example shows: the
// status, the target version and LTS (fleets.json AutoUpgradeProfileStatus).
func TestAutoUpgradeStatusRoundTrip(t *testing.T) {
	body := []byte(`{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/autoUpgradeProfiles/p","name":"p",
	"properties":{"channel":"TargetKubernetesVersion","targetKubernetesVersion":"1.32","longTermSupport":true,"disabled":false,
	"autoUpgradeProfileStatus":{"lastTriggeredAt":"2026-11-23T12:00:00Z","lastTriggerStatus":"Failed",
	"lastTriggerError":{"code":"NoMembers","message":"no members"},"lastTriggerUpgradeVersions":["1.32.5"]}},"eTag":"\"1\""}`)
	var p AutoUpgradeProfile
	if err := strictDecode(body, &p); err != nil {
		t.Fatal(err)
	}
	st := p.Properties.AutoUpgradeProfileStatus
	if p.Properties.Channel != UpgradeChannelTargetKubernetesVersion || p.Properties.TargetKubernetesVersion != "1.32" || !*p.Properties.LongTermSupport ||
		st.LastTriggerStatus != AutoUpgradeTriggerFailed || st.LastTriggerError.Code != "NoMembers" || st.LastTriggerUpgradeVersions[0] != "1.32.5" ||
		st.LastTriggeredAt.Hour() != 12 || p.Properties.Disabled == nil || *p.Properties.Disabled {
		t.Errorf("decoded %+v / %+v", p.Properties, st)
	}
	out, _ := json.Marshal(p)
	if got, want := jsonValue(t, out), jsonValue(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("re-encoded\n got: %s\nwant: %s", out, body)
	}
}

// TestAutoUpgradePreviewFieldsRoundTrip covers what no preview example
// shows: the SecurityPatch channel and lastTriggerMessage (fleets.json
// 2026-11-01-preview UpgradeChannel and AutoUpgradeProfileStatus).
func TestAutoUpgradePreviewFieldsRoundTrip(t *testing.T) {
	body := []byte(`{"name":"p","properties":{"channel":"SecurityPatch","autoUpgradeProfileStatus":{"lastTriggerStatus":"Succeeded",
	"lastTriggerMessage":"a run was created for the security patches of 2026-11-20"}}}`)
	var p AutoUpgradeProfile
	if err := strictDecode(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Properties.Channel != UpgradeChannelSecurityPatch || p.Properties.AutoUpgradeProfileStatus.LastTriggerMessage != "a run was created for the security patches of 2026-11-20" {
		t.Errorf("decoded %+v / %+v", p.Properties, p.Properties.AutoUpgradeProfileStatus)
	}
	out, _ := json.Marshal(p)
	if got, want := jsonValue(t, out), jsonValue(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("re-encoded\n got: %s\nwant: %s", out, body)
	}
}

// TestClientBuildsAutoUpgradeExampleRequests sends each operation with the
// parameters of its official example and checks the request line, the ETag
// headers, that the body equals the example's request body, and that the
// example's response is the result.
func TestClientBuildsAutoUpgradeExampleRequests(t *testing.T) {
	dir := specDir(t)
	ctx := context.Background()
	put := func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
		var prof AutoUpgradeProfile
		p.decode(t, "resource", &prof)
		return must(t)(done(c.BeginCreateOrUpdateAutoUpgradeProfile(ctx, p.fleet(t), p.str(t, "autoUpgradeProfileName"), prof, pre(t, p)))), p.ex.Parameters["resource"]
	}
	generate := func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
		return must(t)(done(c.BeginGenerateUpdateRun(ctx, p.fleet(t), p.str(t, "autoUpgradeProfileName")))), nil
	}
	get := func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
		return must(t)(c.GetAutoUpgradeProfile(ctx, p.fleet(t), p.str(t, "autoUpgradeProfileName"))), nil
	}
	list := func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage) {
		v, err := c.ListAutoUpgradeProfiles(ctx, p.fleet(t))
		if err != nil {
			t.Fatal(err)
		}
		return &AutoUpgradeProfileListResult{Value: v}, nil
	}
	cases := []struct {
		file, method, suffix string
		call                 func(t *testing.T, c *Client, p exampleParams) (any, json.RawMessage)
	}{
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_CreateOrUpdate.json", http.MethodPut, "/autoUpgradeProfiles/autoupgradeprofile1", put},
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_CreateOrUpdate_MaximumSet_Gen.json", http.MethodPut, "/autoUpgradeProfiles/placeholder1", put},
		{"stable/2025-03-01/examples/AutoUpgradeProfileOperations_GenerateUpdateRun_MaximumSet_Gen.json", http.MethodPost, "/autoUpgradeProfiles/aup1/generateUpdateRun", generate},
		{"stable/2025-03-01/examples/AutoUpgradeProfileOperations_Generate_MaximumSet_Gen.json", http.MethodPost, "/autoUpgradeProfiles/placeholder1/generateUpdateRun", generate},
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_Get.json", http.MethodGet, "/autoUpgradeProfiles/autoupgradeprofile1", get},
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_Get_MaximumSet_Gen.json", http.MethodGet, "/autoUpgradeProfiles/placeholder1", get},
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_ListByFleet.json", http.MethodGet, "/autoUpgradeProfiles", list},
		{"stable/2025-03-01/examples/AutoUpgradeProfiles_ListByFleet_MaximumSet_Gen.json", http.MethodGet, "/autoUpgradeProfiles", list},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ex := readExample(t, filepath.Join(dir, tc.file))
			p := exampleParams{ex}
			body := ex.Responses["200"].Body
			if strings.Contains(tc.file, "ListByFleet") {
				// The client follows nextLink; the examples' links point elsewhere.
				var page map[string]any
				unmarshal(t, body, &page)
				delete(page, "nextLink")
				body, _ = json.Marshal(page)
			}
			c, reqs := exampleServer(t, http.StatusOK, body)
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
			unmarshal(t, body, want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestClientDeletesAutoUpgradeProfile follows the delete example: 202 with a
// Location, then 204 (and sends If-Match).
func TestClientDeletesAutoUpgradeProfile(t *testing.T) {
	for _, f := range []string{"stable/2026-06-01/examples/AutoUpgradeProfiles_Delete.json", "stable/2025-03-01/examples/AutoUpgradeProfiles_Delete_MaximumSet_Gen.json"} {
		ex := readExample(t, filepath.Join(specDir(t), f))
		p := exampleParams{ex}
		c, reqs := exampleServer(t, http.StatusNoContent, nil)
		if _, err := done(c.BeginDeleteAutoUpgradeProfile(context.Background(), p.fleet(t), p.str(t, "autoUpgradeProfileName"), &Precondition{IfMatch: p.str(t, "If-Match")})); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r := (*reqs)[0]
		if len(*reqs) != 1 || r.method != http.MethodDelete || !strings.HasSuffix(r.path, "/autoUpgradeProfiles/"+p.str(t, "autoUpgradeProfileName")) || r.header.Get("If-Match") != p.str(t, "If-Match") {
			t.Errorf("%s: requests %+v", f, *reqs)
		}
	}
}

func TestAutoUpgradeClientRejectsBadInput(t *testing.T) {
	c, reqs := exampleServer(t, http.StatusOK, nil)
	f := FleetID{SubscriptionID: "s", ResourceGroupName: "rg", Name: "f"}
	if _, err := c.BeginCreateOrUpdateAutoUpgradeProfile(context.Background(), f, "p", AutoUpgradeProfile{}, nil); err == nil || !strings.Contains(err.Error(), "channel is required") {
		t.Errorf("no channel: %v", err)
	}
	if _, err := c.GetAutoUpgradeProfile(context.Background(), f, "Bad_Name"); err == nil || !strings.Contains(err.Error(), "auto-upgrade profile name") {
		t.Errorf("bad name: %v", err)
	}
	if len(*reqs) != 0 {
		t.Errorf("sent %d requests", len(*reqs))
	}
}
