package emulator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// TestLongRunningOperationsDriveAzcorePollers exercises the LRO helper the
// way later slices use it (a POST action that takes simulated time) with
// azcore's runtime.NewPoller, the provider's poller.
func TestLongRunningOperationsDriveAzcorePollers(t *testing.T) {
	f, err := fleetfile.Load("../../../examples/quickstart/fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wall := simclock.NewManual(time.Unix(0, 0))
	s, err := New(Config{File: f, Clock: simclock.New(f.Clock.Start, f.Clock.Speed, wall.Now), TenantID: "t", ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	// testAction succeeds (or, with ?fail=1, fails) 30 simulated minutes after it starts.
	type actionResult struct {
		ID string `json:"id"`
	}
	s.router.handle(http.MethodPost, fleetPath+"/testAction", fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
		s.world.mu.Lock()
		defer s.world.mu.Unlock()
		fleet, err := s.fleetRecord(p)
		if err != nil {
			return err
		}
		now := s.world.clock.Now()
		doneAt, fail := now.Add(30*time.Minute), r.URL.Query().Get("fail") == "1"
		op := s.world.beginOperation(&operation{
			Subscription: p["subscriptionId"], Location: f.Fleet.Location, ResourceID: fleet.ID,
			progress: func(now time.Time) (string, *fleetapi.ErrorDetail) {
				switch {
				case now.Before(doneAt):
					return opInProgress, nil
				case fail:
					return opFailed, &fleetapi.ErrorDetail{Code: "UpgradeFailed", Message: "the member upgrade failed"}
				}
				return opSucceeded, nil
			},
			result: func() any { return actionResult{ID: fleet.ID + "/updateRuns/generated"} },
		}, now)
		writeLROAccepted(w, r, op, http.StatusAccepted, nil)
		return nil
	})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CACertPEM())
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	opts := azcore.ClientOptions{
		Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: s.URL() + "/", Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: s.URL(), Audience: s.URL() + "/"},
		}},
		Transport: &http.Client{Transport: tr},
	}
	cred, err := azidentity.NewClientSecretCredential("t", "c", "s", &azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	client, err := arm.NewClient("lro-test", "v0.0.0", cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	begin := func(query string) *runtime.Poller[actionResult] {
		t.Helper()
		req, err := runtime.NewRequest(ctx, http.MethodPost, client.Endpoint()+fleetID(f.Fleet.SubscriptionID, f.Fleet.ResourceGroup, f.Fleet.Name)+"/testAction?api-version="+fleetapi.APIVersion+query)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Pipeline().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Azure-AsyncOperation") == "" || resp.Header.Get("Location") == "" {
			t.Fatalf("start: %d %v", resp.StatusCode, resp.Header)
		}
		poller, err := runtime.NewPoller[actionResult](resp, client.Pipeline(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return poller
	}

	poller := begin("")
	if _, err := poller.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if poller.Done() {
		t.Fatal("operation done before its simulated 30 minutes passed")
	}
	wall.Advance(time.Second) // one simulated hour at 3600x
	res, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("PollUntilDone: %v", err)
	}
	if want := fleetID(f.Fleet.SubscriptionID, f.Fleet.ResourceGroup, f.Fleet.Name) + "/updateRuns/generated"; res.ID != want {
		t.Fatalf("result %+v, want id %s", res, want)
	}

	failing := begin("&fail=1")
	wall.Advance(time.Second)
	_, err = failing.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 10 * time.Millisecond})
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "UpgradeFailed" {
		t.Fatalf("failed operation: %v", err)
	}
}
