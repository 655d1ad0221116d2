package emulator_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// TestRetryAfterIsConfigurable: the Retry-After of long-running operations
// is one second by default, as the Fleet RP sends, and none when the fleet
// file's fleetAPI.retryAfterSeconds (or Config.RetryAfterSeconds) is 0, so a
// poller does not wait a second for every write.
func TestRetryAfterIsConfigurable(t *testing.T) {
	zero, three := 0, 3
	for _, tc := range []struct {
		name string
		file *int
		cfg  *int
		want string
	}{
		{"default", nil, nil, "1"},
		{"fleet file 0", &zero, nil, ""},
		{"fleet file 3", &three, nil, "3"},
		{"config overrides the file", &three, &zero, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, func(c *emulator.Config) {
				c.File.FleetAPI.RetryAfterSeconds = tc.file
				c.RetryAfterSeconds = tc.cfg
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			req, err := runtime.NewRequest(ctx, http.MethodPut, fx.arm.Endpoint()+fx.fleetPath("/updateStrategies/s?api-version="+fleetapi.APIVersion))
			if err != nil {
				t.Fatal(err)
			}
			body := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{
				Stages: []fleetapi.UpdateStage{{Name: "all", Groups: []fleetapi.UpdateGroup{{Name: "canary"}}}},
			}}}
			if err := runtime.MarshalAsJSON(req, body); err != nil {
				t.Fatal(err)
			}
			resp, err := fx.arm.Pipeline().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusCreated || resp.Header.Get("Azure-AsyncOperation") == "" {
				t.Fatalf("PUT: %d, Azure-AsyncOperation %q; want 201 with an operation", resp.StatusCode, resp.Header.Get("Azure-AsyncOperation"))
			}
			if got := resp.Header.Get("Retry-After"); got != tc.want {
				t.Errorf("Retry-After %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNodeImageVersions: locations/nodeImageVersions lists the latest
// version of each image type of the region, images no member runs and
// releases whose time has come included; an unknown region is an error.
func TestNodeImageVersions(t *testing.T) {
	fx := newFixture(t, func(c *emulator.Config) {
		eastus := c.File.Regions["eastus"]
		eastus.NodeImages = map[string][]string{
			"AKSUbuntu-2204gen2containerd": {"202510.01.0", "202511.04.0"},
			"AKSAzureLinux-V2gen2":         {"202511.01.0"},
		}
		eastus.Releases = append(eastus.Releases, fleetfile.Release{At: c.File.Clock.Start.Add(2 * time.Hour), NodeImage: "AKSUbuntu-2204gen2containerd-202512.01.0"})
		c.File.Regions["eastus"] = eastus
	})
	ac := aks.NewClientWithOptions(fx.sub, fx.cred, fx.armOptions())
	got, err := ac.ListNodeImageVersions(context.Background(), "eastus")
	if err != nil {
		t.Fatal(err)
	}
	want := []aks.NodeImageVersion{
		{FullName: "AKSAzureLinux-V2gen2-202511.01.0", OS: "AKSAzureLinux", SKU: "V2gen2", Version: "202511.01.0"},
		{FullName: "AKSUbuntu-2204gen2containerd-202511.04.0", OS: "AKSUbuntu", SKU: "2204gen2containerd", Version: "202511.04.0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("eastus = %+v, want %+v", got, want)
	}
	fx.real.Advance(3 * time.Second) // 3 simulated hours: the release is out
	later := aks.NewClientWithOptions(fx.sub, fx.cred, fx.armOptions())
	got, err = later.ListNodeImageVersions(context.Background(), "East US")
	if err != nil || len(got) != 2 || got[1].FullName != "AKSUbuntu-2204gen2containerd-202512.01.0" {
		t.Errorf("after the release: %+v, %v", got, err)
	}
	if _, err := later.ListNodeImageVersions(context.Background(), "mars"); err == nil || !strings.Contains(err.Error(), "LocationNotAvailableForResourceType") {
		t.Errorf("mars: %v, want LocationNotAvailableForResourceType", err)
	}
}

// blockingJoins holds the first member join in its commit until released.
type blockingJoins struct {
	calls            atomic.Int32
	entered, release chan struct{}
}

func (b *blockingJoins) JoinMember(context.Context, string, string, map[string]string) error {
	if b.calls.Add(1) == 1 {
		close(b.entered)
		<-b.release
	}
	return nil
}

func (b *blockingJoins) LeaveMember(context.Context, string) error { return nil }

// Two writes with the same If-Match that both pass it before either is
// stored: the one stored second fails its precondition against what the
// first stored (412, as if it had come after it), not a bare 409, so a
// client tells an ETag race the same way however close the writes came.
func TestRacingWritesFailTheirPrecondition(t *testing.T) {
	hooks := &blockingJoins{entered: make(chan struct{}), release: make(chan struct{})}
	fx := newFixture(t, func(c *emulator.Config) { c.Members = hooks })
	var m fleetapi.FleetMember
	etag := fx.getFleetAPI(t, fx.fleetPath("/members/canary-east"), &m).Header.Get("ETag")
	fc, err := fleetapi.NewClientWithOptions(fx.cred, fx.armOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fleet := fleetapi.FleetID{SubscriptionID: fx.sub, ResourceGroupName: fx.rg, Name: fx.file.Fleet.Name}
	write := func(group string) error {
		body := fleetapi.FleetMember{Properties: &fleetapi.FleetMemberProperties{ClusterResourceID: m.Properties.ClusterResourceID, Group: group}}
		_, err := fc.BeginCreateOrUpdateMember(context.Background(), fleet, "canary-east", body, &fleetapi.Precondition{IfMatch: etag})
		return err
	}
	first := make(chan error, 1)
	go func() { first <- write("first") }()
	select {
	case <-hooks.entered: // the first write passed its precondition and waits in its commit
	case <-time.After(10 * time.Second):
		t.Fatal("the first write did not reach its commit")
	}
	if err := write("second"); err != nil {
		t.Fatalf("second write: %v", err)
	}
	close(hooks.release)
	if err := <-first; !fleetapi.IsPreconditionFailed(err) {
		t.Fatalf("first write, stored after the second: %v, want 412 PreconditionFailed", err)
	}
	fx.getFleetAPI(t, fx.fleetPath("/members/canary-east"), &m)
	if m.Properties.Group != "second" {
		t.Fatalf("member group %q, want the second write's", m.Properties.Group)
	}
}
