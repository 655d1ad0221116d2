package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// sendAt sends body (nil: none) at api-version v through the ARM pipeline.
func (fx *fixture) sendAt(t *testing.T, method, path, v string, body any) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := runtime.NewRequest(ctx, method, fx.arm.Endpoint()+path+"?api-version="+v)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := fx.arm.Pipeline().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp, buf.Bytes()
}

// previewClient is the provider's Fleet API client at 2026-11-01-preview.
func (u *updates) previewClient(t *testing.T) *fleetapi.Client {
	t.Helper()
	opts := &arm.ClientOptions{ClientOptions: u.opts}
	opts.PerCallPolicies = []policy.Policy{instantOperations{}}
	c, err := fleetapi.NewClientWithOptions(u.cred, opts, nil, fleetapi.WithAPIVersion(fleetapi.PreviewAPIVersion))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFleetAPIVersions: each request is held to its own api-version's
// document (a stable strategy with maxAllowedFailures is refused as unknown,
// the same at the preview is taken); a stable read does not show what only
// the preview defines; a stable write keeps it untouched.
func TestFleetAPIVersions(t *testing.T) {
	u := newUpdates(t, testFleet(member("canary-1", "canary", "eastus", "")), 0)
	path := u.fleetPath("/updateStrategies/s")
	body := func(maxConcurrency string, preview bool) map[string]any {
		g := map[string]any{"name": "canary"}
		st := map[string]any{"name": "one", "groups": []any{g}, "maxConcurrency": maxConcurrency}
		if preview {
			g["maxAllowedFailures"] = "1"
			st["memberSelector"] = map[string]any{"byLabel": "env in (prod,test)"}
		}
		return map[string]any{"properties": map[string]any{"strategy": map[string]any{"stages": []any{st}}}}
	}
	resp, b := u.sendAt(t, http.MethodPut, path, fleetapi.APIVersion, body("1", true))
	if e := armError(t, b); resp.StatusCode != 400 || e.Code != "InvalidRequestContent" ||
		!strings.Contains(e.Message, "properties.strategy.stages[0].groups[0].maxAllowedFailures: the property is not in the api-version's schema") ||
		!strings.Contains(e.Message, "properties.strategy.stages[0].memberSelector") {
		t.Fatalf("stable PUT with preview fields: %d %+v, want 400 InvalidRequestContent naming both", resp.StatusCode, e)
	}
	if resp, b := u.sendAt(t, http.MethodPut, path, fleetapi.PreviewAPIVersion, body("1", true)); resp.StatusCode != 201 {
		t.Fatalf("preview PUT: %d %s", resp.StatusCode, b)
	}
	read := func(v string) (string, fleetapi.FleetUpdateStrategy) {
		resp, b := u.sendAt(t, http.MethodGet, path, v, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET at %s: %d %s", v, resp.StatusCode, b)
		}
		var s fleetapi.FleetUpdateStrategy
		decode(t, b, &s)
		return string(b), s
	}
	raw, _ := read(fleetapi.APIVersion)
	if strings.Contains(raw, "maxAllowedFailures") || strings.Contains(raw, "memberSelector") || !strings.Contains(raw, `"maxConcurrency":"1"`) {
		t.Errorf("stable read shows preview-only fields or lost others: %s", raw)
	}
	_, s := read(fleetapi.PreviewAPIVersion)
	if st := s.Properties.Strategy.Stages[0]; st.Groups[0].MaxAllowedFailures != "1" || st.MemberSelector == nil {
		t.Errorf("preview read: %+v, want the preview fields", st)
	}
	// A stable PUT (what a stable client sends back after a read, one field changed) keeps them.
	if resp, b := u.sendAt(t, http.MethodPut, path, fleetapi.APIVersion, body("2", false)); resp.StatusCode != 200 {
		t.Fatalf("stable PUT: %d %s", resp.StatusCode, b)
	}
	_, s = read(fleetapi.PreviewAPIVersion)
	if st := s.Properties.Strategy.Stages[0]; st.MaxConcurrency != "2" || st.Groups[0].MaxAllowedFailures != "1" || st.MemberSelector == nil || st.MemberSelector.ByLabel != "env in (prod,test)" {
		t.Errorf("after a stable PUT: %+v, want maxConcurrency 2 and the preview fields kept", st)
	}
	var checks struct{ Checked, Refused int }
	u.getFleetAPI(t, "/_emulator/bodychecks", &checks)
	if checks.Checked != 3 || checks.Refused != 1 {
		t.Errorf("body checks %+v, want 3 checked and 1 refused", checks)
	}
}

// TestPreviewThresholdRunCompletes: a preview run whose one failure is
// within maxAllowedFailures goes on and ends Completed with failureCount 1,
// its thresholds resolved in the status; a stable read of the same run does
// not show the counts.
func TestPreviewThresholdRunCompletes(t *testing.T) {
	u := newUpdates(t, testFleet(
		member("a", "g", "eastus", `, upgrade: {duration: 30m, fail: true, message: "drain timed out"}`)+
			member("b", "g", "eastus", "")), 0)
	pc := u.previewClient(t)
	ctx := context.Background()
	run := fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{
		Strategy:             &fleetapi.UpdateRunStrategy{Stages: []fleetapi.UpdateStage{{Name: "s", MaxAllowedFailures: "50%", Groups: []fleetapi.UpdateGroup{{Name: "g", MaxAllowedFailures: "1"}}}}},
		ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull, KubernetesVersion: "1.33.1"}},
	}}
	if _, err := lro(pc.BeginCreateOrUpdateUpdateRun(ctx, u.fleet, "r", run, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := lro(pc.BeginStartUpdateRun(ctx, u.fleet, "r", nil)); err != nil {
		t.Fatal(err)
	}
	u.advance(time.Hour)
	got, err := pc.GetUpdateRun(ctx, u.fleet, "r")
	if err != nil {
		t.Fatal(err)
	}
	st := got.Properties.Status
	stage, group := st.Stages[0], st.Stages[0].Groups[0]
	if st.Status.State != fleetapi.UpdateStateCompleted || st.FailureCount == nil || *st.FailureCount != 1 ||
		stage.MaxAllowedFailures == nil || *stage.MaxAllowedFailures != 1 || group.MaxAllowedFailures == nil || *group.MaxAllowedFailures != 1 ||
		stage.FailureCount == nil || *stage.FailureCount != 1 || group.FailureCount == nil || *group.FailureCount != 1 {
		b, _ := json.Marshal(st)
		t.Fatalf("run status %s, want Completed with failureCount 1 and thresholds 1 (50%% of 2; 1)", b)
	}
	for _, m := range group.Members {
		if want := map[string]fleetapi.UpdateState{"a": fleetapi.UpdateStateFailed, "b": fleetapi.UpdateStateCompleted}[m.Name]; m.Status.State != want {
			t.Errorf("member %s %s, want %s", m.Name, m.Status.State, want)
		}
	}
	_, raw := u.sendAt(t, http.MethodGet, u.fleetPath("/updateRuns/r"), fleetapi.APIVersion, nil)
	if strings.Contains(string(raw), "failureCount") || strings.Contains(string(raw), "maxAllowedFailures") || !strings.Contains(string(raw), `"state":"Completed"`) {
		t.Errorf("stable read of the run: %s", raw)
	}
}

// TestMemberCredentials: fleets/listMemberCredentials and a managed
// namespace's credential actions exist at the preview only; members are
// answered page by page through continuation tokens, a member with an API
// server Succeeded with its base64 kubeconfig, the others Failed.
func TestMemberCredentials(t *testing.T) {
	fx := newFixture(t)
	path := fx.fleetPath("/listMemberCredentials")
	resp, b := fx.sendAt(t, http.MethodPost, path, fleetapi.APIVersion, map[string]any{})
	if e := armError(t, b); resp.StatusCode != 400 || e.Code != "InvalidApiVersion" {
		t.Errorf("stable listMemberCredentials: %d %+v, want 400 InvalidApiVersion", resp.StatusCode, e)
	}
	var members []string
	for _, m := range fx.file.Members {
		if m.IsJoined() {
			members = append(members, m.Name)
		}
	}
	if len(members) < 3 {
		t.Fatalf("the quickstart has %d members; the paging check wants 3 or more", len(members))
	}
	// One member a page: as many pages as members, in creation order, the last without a token.
	var got []fleetapi.FleetMemberCredentialResult
	token := ""
	for page := 0; ; page++ {
		req := map[string]any{"maxPageSize": 1}
		if token != "" {
			req["continuationToken"] = token
		}
		resp, b := fx.sendAt(t, http.MethodPost, path, fleetapi.PreviewAPIVersion, req)
		if resp.StatusCode != 200 {
			t.Fatalf("page %d: %d %s", page, resp.StatusCode, b)
		}
		var res fleetapi.FleetMemberCredentialResults
		decode(t, b, &res)
		if len(res.Value) != 1 {
			t.Fatalf("page %d has %d results, want 1", page, len(res.Value))
		}
		got = append(got, res.Value...)
		if token = res.ContinuationToken; token == "" {
			break
		}
		if page > len(members) {
			t.Fatal("more pages than members")
		}
	}
	if len(got) != len(members) {
		t.Fatalf("%d results, want %d", len(got), len(members))
	}
	for i, r := range got {
		if r.Name != members[i] {
			t.Errorf("result %d is %s, want %s", i, r.Name, members[i])
		}
		kc, err := r.DecodeKubeconfig()
		switch {
		case r.Name == "canary-east" && (err != nil || !bytes.Equal(kc, canaryKubeconfig)):
			t.Errorf("canary-east: %+v (%v), want Succeeded with its kubeconfig", r, err)
		case r.Name != "canary-east" && (r.Status != fleetapi.MemberCredentialFailed || r.Error == nil || r.Error.Code != "CredentialsUnavailable"):
			t.Errorf("%s: %+v, want Failed CredentialsUnavailable (no API server)", r.Name, r)
		}
	}
	resp, b = fx.sendAt(t, http.MethodPost, path, fleetapi.PreviewAPIVersion, map[string]any{"continuationToken": "bm90LW91cnM"})
	if e := armError(t, b); resp.StatusCode != 400 || !strings.Contains(e.Message, "continuationToken") {
		t.Errorf("foreign token: %d %+v, want 400 naming continuationToken", resp.StatusCode, e)
	}
	resp, b = fx.sendAt(t, http.MethodPost, path, fleetapi.PreviewAPIVersion, map[string]any{"maxPageSize": 0})
	if resp.StatusCode != 400 || !strings.Contains(string(b), "maxPageSize") {
		t.Errorf("maxPageSize 0: %d %s, want 400 naming it", resp.StatusCode, b)
	}

	// The provider's client at the preview: names asked for, each once, an unknown one Failed.
	opts := &arm.ClientOptions{ClientOptions: fx.opts}
	opts.PerCallPolicies = []policy.Policy{instantOperations{}}
	pc, err := fleetapi.NewClientWithOptions(fx.cred, opts, nil, fleetapi.WithAPIVersion(fleetapi.PreviewAPIVersion))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fleet := fleetapi.FleetID{SubscriptionID: fx.sub, ResourceGroupName: fx.rg, Name: fx.file.Fleet.Name}
	res, err := pc.ListMemberCredentials(ctx, fleet, []string{"canary-east", "nobody", "canary-east"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Status != fleetapi.MemberCredentialSucceeded || res[1].Name != "nobody" || res[1].Error == nil || res[1].Error.Code != "ResourceNotFound" {
		t.Errorf("named members: %+v", res)
	}

	// A managed namespace's: 404 until it exists; then the hub's kubeconfig, and the members' it is
	// placed on: none without a hub (credentials_test.go has one).
	if _, err := pc.ListManagedNamespaceCredentials(ctx, fleet, "team-a"); !fleetapi.IsNotFound(err) {
		t.Errorf("credentials of a namespace that does not exist: %v, want 404", err)
	}
	if resp, b := fx.sendAt(t, http.MethodPut, fx.fleetPath("/managedNamespaces/team-a"), fleetapi.APIVersion, namespaceBody()); resp.StatusCode != 201 {
		t.Fatalf("PUT namespace: %d %s", resp.StatusCode, b)
	}
	kc, err := pc.ListManagedNamespaceCredentials(ctx, fleet, "team-a")
	if err != nil || !bytes.Equal(kc, hubKubeconfig) {
		t.Errorf("namespace listCredentials: %q (%v), want the hub kubeconfig", kc, err)
	}
	res, err = pc.ListManagedNamespaceMemberCredentials(ctx, fleet, "team-a", []string{"canary-east"})
	if err != nil || len(res) != 1 || res[0].Status != fleetapi.MemberCredentialFailed || res[0].Error == nil || res[0].Error.Code != "ManagedNamespaceNotPlaced" {
		t.Errorf("namespace listMemberCredentials without a hub: %+v (%v), want canary-east Failed ManagedNamespaceNotPlaced", res, err)
	}
	resp, b = fx.sendAt(t, http.MethodPost, fx.fleetPath("/managedNamespaces/team-a/listCredentials"), fleetapi.APIVersion, nil)
	if e := armError(t, b); resp.StatusCode != 400 || e.Code != "InvalidApiVersion" {
		t.Errorf("stable namespace listCredentials: %d %+v, want 400 InvalidApiVersion", resp.StatusCode, e)
	}
}

// TestSecurityPatchChannel: SecurityPatch is a channel of the preview only,
// and the emulator says it generates no run for it rather than invent one.
func TestSecurityPatchChannel(t *testing.T) {
	u := newUpdates(t, testFleet(member("a", "g", "eastus", "")), 0)
	path := u.fleetPath("/autoUpgradeProfiles/patches")
	body := map[string]any{"properties": map[string]any{"channel": "SecurityPatch"}}
	resp, b := u.sendAt(t, http.MethodPut, path, fleetapi.APIVersion, body)
	if e := armError(t, b); resp.StatusCode != 400 || !strings.Contains(e.Message, "properties.channel") {
		t.Errorf("stable SecurityPatch: %d %+v, want 400 naming properties.channel", resp.StatusCode, e)
	}
	if resp, b := u.sendAt(t, http.MethodPut, path, fleetapi.PreviewAPIVersion, body); resp.StatusCode != 201 {
		t.Fatalf("preview SecurityPatch: %d %s", resp.StatusCode, b)
	}
	resp, b = u.sendAt(t, http.MethodPost, path+"/generateUpdateRun", fleetapi.PreviewAPIVersion, nil)
	if e := armError(t, b); resp.StatusCode != 501 || e.Code != "NotImplemented" || !strings.Contains(e.Message, "SecurityPatch") {
		t.Errorf("generateUpdateRun: %d %+v, want 501 NotImplemented naming SecurityPatch", resp.StatusCode, e)
	}
	u.advance(24 * time.Hour)
	var runs struct{ Value []fleetapi.UpdateRun }
	u.getFleetAPI(t, u.fleetPath("/updateRuns"), &runs)
	if len(runs.Value) != 0 {
		t.Errorf("a SecurityPatch profile made %d runs", len(runs.Value))
	}
}
