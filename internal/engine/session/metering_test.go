package session_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

const (
	tenant = "11111111-2222-3333-4444-555555555555"
	client = "66666666-7777-8888-9999-000000000000"
	secret = "s3cret-value"
)

// meteredFleet is the Fleet API emulator serving testdata/metered-fleet.yaml
// under ARM's read limits, and engine clients on the provider's own Azure
// session (credential, pipeline, pacer) pointed at it.
type meteredFleet struct {
	srv     *emulator.Server
	file    *fleetfile.File
	clients *session.Session
	session *azure.Session
	fleet   fleetapi.FleetID
}

func newMeteredFleet(t *testing.T) *meteredFleet {
	t.Helper()
	f, err := fleetfile.Load("testdata/metered-fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := emulator.New(emulator.Config{File: f, TenantID: tenant, ClientID: client, ClientSecret: secret, HubKubeconfig: []byte("apiVersion: v1\nkind: Config\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CACertPEM())
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	cl := cloud.Configuration{
		ActiveDirectoryAuthorityHost: srv.URL() + "/",
		Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL(), Audience: srv.URL() + "/"}},
	}
	cred, err := azidentity.NewClientSecretCredential(tenant, client, secret, &azidentity.ClientSecretCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: cl, Transport: hc}, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := azure.NewTestSession(f.Fleet.SubscriptionID, cl, cred, hc)
	fid := fleetapi.FleetID{SubscriptionID: f.Fleet.SubscriptionID, ResourceGroupName: f.Fleet.ResourceGroup, Name: f.Fleet.Name}
	return &meteredFleet{srv: srv, file: f, session: s, fleet: fid,
		clients: session.New(session.Options{Azure: s, DefaultFleet: &fid})}
}

// TestPacedReadsSurfaceNo429: reading a 300-member fleet's inventory and
// rollout facts costs more reads than ARM's bucket of 250 holds; the reads
// are bulk (one cluster list, not 300 GETs) and paced on the remaining-reads
// header, so no 429 reaches the caller — none is even received — and the
// bucket keeps the pacer's reserve for the subscription's other tools.
// A 429 reaching a diagnostic fails this test (view.ReadRolloutFleet returns it).
func TestPacedReadsSurfaceNo429(t *testing.T) {
	mf := newMeteredFleet(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rf, err := view.ReadRolloutFleet(ctx, mf.clients.View(), mf.fleet)
	if err != nil {
		t.Fatalf("ReadRolloutFleet under ARM's read limits: %v", err)
	}
	elapsed := time.Since(start)
	if len(rf.Members) != 300 || len(rf.Unreadable) != 0 {
		t.Fatalf("%d members read, %d unreadable; want 300 and 0", len(rf.Members), len(rf.Unreadable))
	}
	windows := 0
	for _, m := range rf.Members {
		if m.AutoUpgradeWindow != nil {
			windows++
		}
	}
	if windows == 0 {
		t.Error("no member has a maintenance window: the maintenance configurations were not read")
	}
	st, _ := mf.srv.Metering()
	want := map[string]int{
		"GET Microsoft.ContainerService/fleets/*/members":                            1,
		"GET Microsoft.ContainerService/managedClusters":                             1,
		"GET Microsoft.ContainerService/managedClusters/*/maintenanceConfigurations": 300,
	}
	total := 0
	for class, n := range st.Reads {
		total += n
		if strings.HasPrefix(class, "GET Microsoft.ContainerService/managedClusters/*") && !strings.HasSuffix(class, "maintenanceConfigurations") {
			t.Errorf("%d reads of %s: clusters are read by list", n, class)
		}
	}
	for class, n := range want {
		if st.Reads[class] != n {
			t.Errorf("%s: %d reads, want %d (all: %v)", class, st.Reads[class], n, st.Reads)
		}
	}
	throttled := 0
	for _, n := range st.Throttled {
		throttled += n
	}
	ps := mf.session.Pacer.Stats()
	if throttled != 0 || ps.Throttled != 0 || ps.Surfaced != 0 {
		t.Errorf("429s: %d sent by ARM, %d received, %d surfaced; want none", throttled, ps.Throttled, ps.Surfaced)
	}
	if ps.Paced == 0 {
		t.Errorf("no read was paced over %d reads against a bucket of 250", total)
	}
	// The floor: the reads beyond the bucket, at 25 a second.
	floor := time.Duration(total-azure.ARMReadBucket) * time.Second / azure.ARMReadRefillPerSecond
	t.Logf("%d reads (%v) in %v; %d paced; floor %v", total, st.Reads, elapsed.Round(time.Millisecond), ps.Paced, floor)
	if elapsed < floor {
		t.Errorf("%v for %d reads: faster than the bucket refills (floor %v), so ARM would have throttled", elapsed, total, floor)
	}
	// Once per process: a second preview reads nothing more.
	if _, err := view.ReadRolloutFleet(ctx, mf.clients.View(), mf.fleet); err != nil {
		t.Fatal(err)
	}
	if again, _ := mf.srv.Metering(); sum(again.Reads) != sum(st.Reads) {
		t.Errorf("a second ReadRolloutFleet read %d more", sum(again.Reads)-sum(st.Reads))
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Test429StormEndsInOneClearError: throttling beyond what pacing absorbs
// (every read answered 429) ends in one error that names the limit, the
// headers and what to do, within the request's deadline — never a hang,
// and never azcore's retries on top of the pacer's.
func Test429StormEndsInOneClearError(t *testing.T) {
	mf := newMeteredFleet(t)
	// The production MaxThrottledWait is 30 s; 4 s keeps the test short.
	mf.session.Pacer.SetMaxThrottledWait(4 * time.Second)
	if _, err := mf.srv.InjectFault(emulator.FaultRule{Method: http.MethodGet, Path: "/maintenanceConfigurations$", Count: 100000, Status: http.StatusTooManyRequests, RetryAfterSeconds: 1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := view.Members(ctx, mf.clients.View(), mf.fleet)
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("Members succeeded through a 429 storm")
	}
	if !azure.IsThrottled(err) {
		t.Fatalf("error is not a ThrottledError: %v", err)
	}
	for _, part := range []string{"429 TooManyRequests", "token bucket of 250 reads refilled at 25 a second", "Retry-After: 1",
		azure.ReadRemainingHeader + ": 0", "run fewer plans in parallel", "a principal of its own"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error lacks %q: %v", part, err)
		}
	}
	t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
	// 4 s of nothing but 429s, then every read fails at once.
	if elapsed > 10*time.Second {
		t.Errorf("the storm took %v to end", elapsed)
	}
	if hits := mf.srv.Faults()[0].Hits; hits > memberReadConcurrencyBound*azure.MaxThrottledAttempts {
		t.Errorf("%d throttled requests: azcore's retry policy retried on top of the pacer", hits)
	}

	// A deadline nearer than Retry-After: the error comes before it, naming the timeout.
	short, cancel2 := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel2()
	mf2 := newMeteredFleet(t)
	if _, err := mf2.srv.InjectFault(emulator.FaultRule{Method: http.MethodGet, Path: "/maintenanceConfigurations$", Count: 100000, Status: http.StatusTooManyRequests, RetryAfterSeconds: 5}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = view.Members(short, mf2.clients.View(), mf2.fleet)
	if err == nil || !strings.Contains(err.Error(), "would pass the configured timeout") {
		t.Errorf("with a 2.5 s deadline and Retry-After: 5: %v", err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("returned after %v, past the 2.5 s deadline", d)
	}
}

// memberReadConcurrencyBound is the engine's parallel reads (inventory.go).
const memberReadConcurrencyBound = 8

// TestForbiddenListFallsBackWithOneWarning: a principal with rights on single
// clusters only (the list answers 403) reads them one by one, with one
// warning that says what it costs.
func TestForbiddenListFallsBackWithOneWarning(t *testing.T) {
	mf := newMeteredFleet(t)
	if _, err := mf.srv.InjectFault(emulator.FaultRule{Method: http.MethodGet, Path: "/managedClusters$", Count: 100, Status: http.StatusForbidden, Code: "AuthorizationFailed",
		Message: "The client does not have authorization to perform action 'Microsoft.ContainerService/managedClusters/read' over scope '/subscriptions/x/resourceGroups/rg-fleet'."}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	members, err := view.Members(ctx, mf.clients.View(), mf.fleet)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if m.Cluster == nil || m.ClusterErr != nil {
			t.Fatalf("member %s: cluster %v, error %v", m.Name, m.Cluster != nil, m.ClusterErr)
		}
	}
	w := mf.clients.InventoryWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "costs 300 ARM reads instead of 1") || !strings.Contains(w[0], "403 AuthorizationFailed") {
		t.Errorf("warnings %q; want one naming the cost and the 403", w)
	}
	// A plan shows it once: on the first resource whose preview read it.
	if first, again := mf.clients.TakeInventoryWarnings(), mf.clients.TakeInventoryWarnings(); len(first) != 1 || len(again) != 0 {
		t.Errorf("TakeInventoryWarnings: first %q, then %q; want one, then none", first, again)
	}
	st, _ := mf.srv.Metering()
	if n := st.Reads["GET Microsoft.ContainerService/managedClusters/*"]; n != 300 {
		t.Errorf("%d cluster GETs, want 300", n)
	}
	if ps := mf.session.Pacer.Stats(); ps.Surfaced != 0 {
		t.Errorf("%d 429s surfaced", ps.Surfaced)
	}
}

// TestMaintenanceConfigurationsOnlyWhenNeeded: previews that need only the
// members' clusters (a strategy's groups, regions' versions) cost two reads
// at any fleet size; the windows cost one read per member, once.
func TestMaintenanceConfigurationsOnlyWhenNeeded(t *testing.T) {
	mf := newMeteredFleet(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	members, err := mf.clients.View().MemberClusters(ctx, mf.fleet)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 300 || members[0].Cluster == nil || members[0].Windows != nil {
		t.Fatalf("MemberClusters: %d members, first cluster %v, windows %v", len(members), members[0].Cluster != nil, members[0].Windows)
	}
	st, _ := mf.srv.Metering()
	if n := sum(st.Reads); n != 2 {
		t.Errorf("MemberClusters of 300 members: %d reads (%v), want 2", n, st.Reads)
	}
	if _, err := view.Members(ctx, mf.clients.View(), mf.fleet); err != nil {
		t.Fatal(err)
	}
	if _, err := mf.clients.View().MemberClusters(ctx, mf.fleet); err != nil {
		t.Fatal(err)
	}
	st, _ = mf.srv.Metering()
	if n := sum(st.Reads); n != 302 || st.Reads["GET Microsoft.ContainerService/managedClusters/*/maintenanceConfigurations"] != 300 {
		t.Errorf("then Members and MemberClusters: %d reads (%v), want 302: the clusters once, 300 maintenance lists", n, st.Reads)
	}
}

// TestWindowsReadOnlyForTheMembersNeeded: a run over the canary stage reads
// the maintenance configurations of the canary members only (issue 24:
// "maintenance configurations only for the members whose previews need
// them"); a preview that then needs every member's reads the rest, each
// member once per process, with the same windows as a read of all at once.
func TestWindowsReadOnlyForTheMembersNeeded(t *testing.T) {
	mf := newMeteredFleet(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const class = "GET Microsoft.ContainerService/managedClusters/*/maintenanceConfigurations"
	canary := rollout.Reaches(&rollout.Strategy{Stages: []rollout.Stage{{Name: "canary", Groups: []rollout.Group{{Name: "canary"}}}}})
	rf, err := view.ReadRolloutFleetFor(ctx, mf.clients.View(), mf.fleet, canary)
	if err != nil {
		t.Fatal(err)
	}
	inCanary, withWindow := 0, 0
	for _, m := range rf.Members {
		if m.Group == "canary" {
			inCanary++
		} else if m.AutoUpgradeWindow != nil || m.NodeOSUpgradeWindow != nil {
			t.Errorf("member %s of group %s: windows read though the run does not reach it", m.Name, m.Group)
		}
		if m.Group == "canary" && m.AutoUpgradeWindow != nil {
			withWindow++
		}
	}
	st, _ := mf.srv.Metering()
	if inCanary == 0 || inCanary == len(rf.Members) || st.Reads[class] != inCanary || mf.clients.MaintenanceWindowReads() != inCanary {
		t.Fatalf("%d maintenance configuration lists (%d counted by the process) for %d canary members of %d", st.Reads[class], mf.clients.MaintenanceWindowReads(), inCanary, len(rf.Members))
	}
	if withWindow == 0 {
		t.Fatal("no canary member has a window: the fleet file should give 70% of them one")
	}
	all, err := view.Members(ctx, mf.clients.View(), mf.fleet)
	if err != nil {
		t.Fatal(err)
	}
	st, _ = mf.srv.Metering()
	if st.Reads[class] != len(all) {
		t.Fatalf("%d maintenance configuration lists after reading every member's windows, want %d (each member once)", st.Reads[class], len(all))
	}
	// The same windows as a process that reads them all at once, while a run's preview asks for
	// the canary members' at the same moment: still one list per member.
	fresh := newMeteredFleet(t)
	var want []facts.Member
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() { defer wg.Done(); want, errs[0] = view.Members(ctx, fresh.clients.View(), fresh.fleet) }()
	go func() {
		defer wg.Done()
		_, errs[1] = view.ReadRolloutFleetFor(ctx, fresh.clients.View(), fresh.fleet, canary)
	}()
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if st, _ := fresh.srv.Metering(); st.Reads[class] != len(want) {
		t.Errorf("%d maintenance configuration lists by two previews at once, want %d (each member once)", st.Reads[class], len(want))
	}
	for i := range all {
		if got, w := windowsText(all[i]), windowsText(want[i]); got != w || all[i].Name != want[i].Name {
			t.Fatalf("member %s: windows %s read lazily, %s at once", all[i].Name, got, w)
		}
	}
	t.Logf("%d of %d members' maintenance configurations read for the canary run, the other %d when every member's were needed", inCanary, len(all), len(all)-inCanary)
}

func windowsText(m facts.Member) string {
	b, _ := json.Marshal(m.Windows)
	return string(b)
}
