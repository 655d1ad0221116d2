package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

func TestThrottlingIsRetriedAfterRetryAfter(t *testing.T) {
	fx := newFixture(t)
	if _, err := fx.srv.InjectFault(emulator.FaultRule{Method: "GET", Path: "/managedClusters/prod-east-1$", Count: 1, Status: 429, RetryAfterSeconds: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := fx.clusters(t).NewManagedClustersClient().Get(context.Background(), fx.rg, "prod-east-1", nil)
	if err != nil {
		t.Fatalf("Get after a 429: %v", err)
	}
	if *got.Name != "prod-east-1" {
		t.Fatalf("got %s", *got.Name)
	}
	throttled := fx.log.matching("GET /subscriptions/", "/managedClusters/prod-east-1 -> 429")
	ok := fx.log.matching("GET /subscriptions/", "/managedClusters/prod-east-1 -> 200")
	if len(throttled) != 1 || len(ok) != 1 {
		t.Fatalf("want one 429 then one 200, log has %d and %d", len(throttled), len(ok))
	}
	if wait := ok[0].at.Sub(throttled[0].at); wait < 900*time.Millisecond {
		t.Fatalf("retried %v after the 429, want about Retry-After: 1s", wait)
	}
	st := fx.srv.Faults()
	if len(st) != 1 || st[0].Remaining != 0 || st[0].Hits != 1 || len(st[0].HitTimes) != 1 {
		t.Fatalf("fault status %+v", st)
	}
	// The hit's time is when the 429 arrived: before it was logged, and the
	// retry came at least Retry-After later.
	if hit := st[0].HitTimes[0]; hit.After(throttled[0].at) || ok[0].at.Sub(hit) < time.Second {
		t.Fatalf("hit at %v; 429 logged at %v, retry answered at %v", hit, throttled[0].at, ok[0].at)
	}
}

func TestConnectionResetIsRetried(t *testing.T) {
	for _, proto := range []struct {
		name  string
		http2 bool
	}{{"HTTP/1.1", false}, {"HTTP/2", true}} {
		t.Run(proto.name, func(t *testing.T) {
			fx := newFixture(t)
			opts := fx.clientOptions(t, proto.http2)
			cred := fx.credential(t, clientSecret)
			mc, err := armcontainerservice.NewManagedClustersClient(fx.sub, cred, &arm.ClientOptions{ClientOptions: opts})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fx.srv.InjectFault(emulator.FaultRule{Method: "POST", Path: "/listClusterUserCredential$", Count: 2, Reset: true}); err != nil {
				t.Fatal(err)
			}
			got, err := mc.ListClusterUserCredentials(context.Background(), fx.rg, "canary-east", nil)
			if err != nil {
				t.Fatalf("ListClusterUserCredentials after resets: %v", err)
			}
			if len(got.Kubeconfigs) != 1 || !bytes.Equal(got.Kubeconfigs[0].Value, canaryKubeconfig) {
				t.Fatalf("kubeconfigs %+v", got.Kubeconfigs)
			}
			if n := len(fx.log.matching("POST", "/listClusterUserCredential -> reset")); n != 2 {
				t.Fatalf("%d resets logged, want 2", n)
			}
			if n := len(fx.log.matching("POST", "/listClusterUserCredential -> 200")); n != 1 {
				t.Fatalf("%d successes logged, want 1", n)
			}
		})
	}
}

func TestServerErrorsBeyondTheRetryBudgetSurfaceInARMShape(t *testing.T) {
	fx := newFixture(t)
	if _, err := fx.srv.InjectFault(emulator.FaultRule{Path: "/fleets/demo$", Count: 10, Status: 503, Code: "ServiceUnavailable", Message: "The Fleet RP is down for maintenance."}); err != nil {
		t.Fatal(err)
	}
	resp, b := fx.do(t, http.MethodGet, fx.fleetPath("")+"?api-version="+fleetapi.APIVersion)
	if e := armError(t, b); resp.StatusCode != 503 || e.Code != "ServiceUnavailable" || e.Message != "The Fleet RP is down for maintenance." {
		t.Fatalf("%d %+v", resp.StatusCode, e)
	}
	if resp.Header.Get("Date") != fx.file.Clock.Start.Format(http.TimeFormat) {
		t.Fatalf("fault response Date %q is not the simulated time", resp.Header.Get("Date"))
	}
	// MaxRetries 3: four tries in all, and the rule has six left.
	if st := fx.srv.Faults(); st[0].Hits != 4 || st[0].Remaining != 6 {
		t.Fatalf("fault status %+v", st)
	}
	fx.srv.ClearFaults()
	var f fleetapi.Fleet
	fx.getFleetAPI(t, fx.fleetPath(""), &f)
}

func TestFaultRulesMatchMethodAndPath(t *testing.T) {
	fx := newFixture(t)
	if _, err := fx.srv.InjectFault(emulator.FaultRule{Method: "POST", Path: "/members$", Status: 500}); err != nil {
		t.Fatal(err)
	}
	var m fleetapi.FleetMember
	fx.getFleetAPI(t, fx.fleetPath("/members/canary-east"), &m) // neither method nor path match
	var list struct{ Value []fleetapi.FleetMember }
	fx.getFleetAPI(t, fx.fleetPath("/members"), &list) // path matches, method does not
	if st := fx.srv.Faults(); st[0].Hits != 0 || st[0].Remaining != 1 {
		t.Fatalf("rule fired on a request it does not match: %+v", st)
	}
	for _, bad := range []emulator.FaultRule{
		{Path: "("},                          // not a regular expression
		{Status: 200},                        // not an error
		{},                                   // neither status nor reset
		{Status: 500, Reset: true},           // both
		{Status: 429, RetryAfterSeconds: -1}, // negative
	} {
		if _, err := fx.srv.InjectFault(bad); err == nil {
			t.Errorf("InjectFault(%+v) accepted", bad)
		}
	}
}

func TestFaultsAdminEndpoint(t *testing.T) {
	fx := newFixture(t)
	hc := fx.httpClient(t, true)
	admin := fx.srv.URL() + "/_emulator/faults"

	resp, err := hc.Post(admin, "application/json", strings.NewReader(`{"method":"GET","path":"/members/canary-east$","count":1,"status":500}`))
	if err != nil {
		t.Fatal(err)
	}
	var created emulator.FaultStatus
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != 201 || created.ID == "" || created.Remaining != 1 {
		t.Fatalf("POST: %d %+v %v", resp.StatusCode, created, err)
	}
	resp.Body.Close()

	// azcore retries the 500 and succeeds; the rule is then spent.
	var m fleetapi.FleetMember
	fx.getFleetAPI(t, fx.fleetPath("/members/canary-east"), &m)
	if n := len(fx.log.matching("/members/canary-east -> 500")); n != 1 {
		t.Fatalf("%d injected 500s logged, want 1", n)
	}
	resp, err = hc.Get(admin)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Value []emulator.FaultStatus }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Value) != 1 || list.Value[0].Hits != 1 || list.Value[0].Remaining != 0 || len(list.Value[0].HitTimes) != 1 {
		t.Fatalf("GET: %+v %v", list, err)
	}
	resp.Body.Close()

	resp, err = hc.Post(admin, "application/json", strings.NewReader(`{"path":"(","status":500}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if e := armError(t, b); resp.StatusCode != 400 || !strings.Contains(e.Message, "path") {
		t.Fatalf("bad rule: %d %+v", resp.StatusCode, e)
	}
	resp, err = hc.Post(admin, "application/json", strings.NewReader(`{"status":500,"typo":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("unknown field accepted: %d", resp.StatusCode)
	}

	req, _ := http.NewRequest(http.MethodDelete, admin, nil)
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || len(fx.srv.Faults()) != 0 {
		t.Fatalf("DELETE: %d, %d rules left", resp.StatusCode, len(fx.srv.Faults()))
	}
}

func TestThrottledTokenRequestIsRetried(t *testing.T) {
	fx := newFixture(t)
	if _, err := fx.srv.InjectFault(emulator.FaultRule{Path: "/oauth2/v2.0/token$", Status: 503}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.clusters(t).NewManagedClustersClient().Get(context.Background(), fx.rg, "prod-east-1", nil); err != nil {
		t.Fatalf("Get with a throttled token endpoint: %v", err)
	}
	if n := len(fx.log.matching("/oauth2/v2.0/token -> 503")); n != 1 {
		t.Fatalf("%d throttled token requests, want 1", n)
	}
	if n := len(fx.log.matching("/oauth2/v2.0/token -> 200")); n != 1 {
		t.Fatalf("%d successful token requests after the 503, want 1", n)
	}
}
