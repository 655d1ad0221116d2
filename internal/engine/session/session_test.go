package session

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

type fakeCredential struct {
	mu     sync.Mutex
	scopes []string
}

func (c *fakeCredential) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.mu.Lock()
	c.scopes = append(c.scopes, o.Scopes...)
	c.mu.Unlock()
	return azcore.AccessToken{Token: "entra-" + strings.TrimSuffix(o.Scopes[0], "/.default"), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// fakeBackend plays the Fleet API, AKS and the hub/member API servers on
// one loopback TLS server.
type fakeBackend struct {
	srv             *httptest.Server
	listCreds       atomic.Int32
	failCreds       atomic.Bool
	memberCreds     atomic.Int32
	batchCreds      atomic.Int32
	mu              sync.Mutex
	kubeAuth        map[string]string // path prefix -> last Authorization
	clusterResource string
}

const fleetPath = "/subscriptions/sub1/resourceGroups/rg1/providers/Microsoft.ContainerService/fleets/demo"

func newFakeBackend(t *testing.T) *fakeBackend {
	b := &fakeBackend{kubeAuth: map[string]string{}}
	b.srv = httptest.NewTLSServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	b.clusterResource = "/subscriptions/sub2/resourceGroups/rg2/providers/Microsoft.ContainerService/managedClusters/aks-east-1"
	return b
}

func (b *fakeBackend) kubeconfig(server, user string) []byte {
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.srv.Certificate().Raw}))
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: %q, certificate-authority-data: %s}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: %s}]
`, server, ca, user))
}

func (b *fakeBackend) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Date", "Mon, 23 Nov 2026 06:00:00 GMT")
	p := r.URL.Path
	switch {
	case p == fleetPath+"/listCredentials" && r.Method == http.MethodPost:
		b.listCreds.Add(1)
		if b.failCreds.Load() {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"error":{"code":"AuthorizationFailed","message":"no access"}}`)
			return
		}
		kc := b.kubeconfig(b.srv.URL+"/hub", "{token: hub-token}")
		_ = json.NewEncoder(w).Encode(map[string]any{"kubeconfigs": []any{map[string]any{"name": "hub", "value": kc}}})
	case p == fleetPath+"/listMemberCredentials" && r.Method == http.MethodPost:
		// 2026-11-01-preview FleetMemberCredentialRequest → FleetMemberCredentialResults.
		b.batchCreds.Add(1)
		var req fleetapi.FleetMemberCredentialRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		var out fleetapi.FleetMemberCredentialResults
		for _, name := range req.MemberNames {
			if name == "aks-east-1" {
				kc := b.kubeconfig(b.srv.URL+"/member", "{token: batch-token}")
				out.Value = append(out.Value, fleetapi.FleetMemberCredentialResult{Name: name, Status: fleetapi.MemberCredentialSucceeded, Kubeconfig: base64.StdEncoding.EncodeToString(kc)})
				continue
			}
			out.Value = append(out.Value, fleetapi.FleetMemberCredentialResult{Name: name, Status: fleetapi.MemberCredentialFailed, Error: &fleetapi.ErrorDetail{Code: "NotFound", Message: "no member " + name}})
		}
		_ = json.NewEncoder(w).Encode(out)
	case p == fleetPath+"/members/aks-east-1":
		fmt.Fprintf(w, `{"name":"aks-east-1","properties":{"clusterResourceId":%q,"group":"canary"}}`, b.clusterResource)
	case strings.HasPrefix(p, fleetPath+"/members/"):
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"code":"NotFound","message":"member not found"}}`)
	case p == b.clusterResource+"/listClusterUserCredential":
		b.memberCreds.Add(1)
		kc := b.kubeconfig(b.srv.URL+"/member", `{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: kubelogin, args: [get-token, --login, devicecode, --server-id, member-server-app]}}`)
		_ = json.NewEncoder(w).Encode(map[string]any{"kubeconfigs": []any{map[string]any{"name": "clusterUser", "value": kc}}})
	case strings.HasPrefix(p, "/hub/") || strings.HasPrefix(p, "/member/"):
		prefix := strings.SplitN(p, "/", 3)[1]
		b.mu.Lock()
		b.kubeAuth[prefix] = r.Header.Get("Authorization")
		b.mu.Unlock()
		fmt.Fprintf(w, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, prefix)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"code":"NotFound","message":"`+p+`"}}`)
	}
}

func (b *fakeBackend) session(cred azcore.TokenCredential) *azure.Session {
	return azure.NewTestSession("sub1", cloud.Configuration{
		ActiveDirectoryAuthorityHost: b.srv.URL + "/",
		Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: b.srv.URL, Audience: "https://management.local/"}},
	}, cred, b.srv.Client())
}

func (b *fakeBackend) auth(prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.kubeAuth[prefix]
}

var demoFleet = &fleetapi.FleetID{SubscriptionID: "sub1", ResourceGroupName: "rg1", Name: "demo"}

func TestNothingConfigured(t *testing.T) {
	c := New(Options{})
	ctx := context.Background()
	_, err := c.Fleet()
	if !IsNotConfigured(err) || err.Error() != "the provider's azure block (or ARM_* environment) is not configured" {
		t.Errorf("Fleet: %v", err)
	}
	if _, err := c.AKS(); !IsNotConfigured(err) {
		t.Errorf("AKS: %v", err)
	}
	if _, err := c.DefaultFleet(); !IsNotConfigured(err) {
		t.Errorf("DefaultFleet: %v", err)
	}
	_, err = c.Hub(ctx)
	if !IsNotConfigured(err) || !strings.Contains(err.Error(), "hub block") || !strings.Contains(err.Error(), "azure block") {
		t.Errorf("Hub: %v", err)
	}
	_, err = c.Cluster(ctx, "aks-east-1")
	if !IsNotConfigured(err) || !strings.Contains(err.Error(), `cluster "aks-east-1" is not the name of a cluster block of the provider`) {
		t.Errorf("Cluster: %v", err)
	}
	if IsConfigUnknown(err) {
		t.Error("not configured is not unknown")
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c = New(Options{Now: func() time.Time { return fixed }})
	if !c.Now().Equal(fixed) || !c.FleetNow().Equal(fixed) {
		t.Errorf("clocks: %v %v", c.Now(), c.FleetNow())
	}
}

func TestUnknownConfiguration(t *testing.T) {
	c := New(Options{HubUnknown: true, AzureUnknown: true, UnknownClusters: map[string]bool{"x": true}})
	ctx := context.Background()
	if _, err := c.Hub(ctx); !IsConfigUnknown(err) {
		t.Errorf("Hub: %v", err)
	}
	if _, err := c.Fleet(); !IsConfigUnknown(err) {
		t.Errorf("Fleet: %v", err)
	}
	if _, err := c.Cluster(ctx, "x"); !IsConfigUnknown(err) {
		t.Errorf("Cluster x: %v", err)
	}
	if _, err := c.Cluster(ctx, "y"); !IsConfigUnknown(err) {
		t.Errorf("Cluster y (through azure): %v", err)
	}
}

func TestExplicitHubAndClusters(t *testing.T) {
	hub := &rest.Config{Host: "https://hub.example"}
	member := &rest.Config{Host: "https://member.example"}
	c := New(Options{Hub: hub, Clusters: map[string]*rest.Config{"b": member, "a": member}, UserAgent: "ua/1"})
	ctx := context.Background()
	h1, err := c.Hub(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := c.Hub(ctx)
	if h1 != h2 || h1.Config.Host != "https://hub.example" || h1.Config.UserAgent != "ua/1" {
		t.Errorf("hub not cached or wrong: %p %p %s", h1, h2, h1.Config.Host)
	}
	m, err := c.Cluster(ctx, "a")
	if err != nil || m.Config.Host != "https://member.example" {
		t.Fatalf("cluster a: %v %v", m, err)
	}
	if strings.Join(c.ClusterNames(), ",") != "a,b" {
		t.Errorf("ClusterNames = %v", c.ClusterNames())
	}
	_, err = c.Cluster(ctx, "zzz")
	if !IsNotConfigured(err) || !strings.Contains(err.Error(), `"a", "b"`) {
		t.Errorf("unknown cluster without azure: %v", err)
	}
}

func TestHubFromFleetAPI(t *testing.T) {
	b := newFakeBackend(t)
	cred := &fakeCredential{}
	c := New(Options{Azure: b.session(cred), DefaultFleet: demoFleet})
	ctx := context.Background()

	b.failCreds.Store(true)
	_, err := c.Hub(ctx)
	if err == nil || !strings.Contains(err.Error(), "listCredentials of "+fleetPath) || !strings.Contains(err.Error(), "AuthorizationFailed") {
		t.Fatalf("failing listCredentials: %v", err)
	}
	b.failCreds.Store(false)

	var wg sync.WaitGroup
	hubs := make([]any, 8)
	for i := range hubs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			h, err := c.Hub(ctx)
			if err != nil {
				t.Error(err)
			}
			hubs[i] = h
		}(i)
	}
	wg.Wait()
	for _, h := range hubs {
		if h != hubs[0] {
			t.Fatal("concurrent Hub calls built different clients")
		}
	}
	if n := b.listCreds.Load(); n != 2 {
		t.Errorf("listCredentials calls = %d, want 2 (one failed, one cached)", n)
	}
	h, _ := c.Hub(ctx)
	ns, err := h.Kubernetes.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{})
	if err != nil || ns.Name != "hub" || b.auth("hub") != "Bearer hub-token" {
		t.Errorf("hub request: %v %v auth %q", ns, err, b.auth("hub"))
	}
	if got := c.FleetNow(); !got.Equal(time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)) {
		t.Errorf("FleetNow = %v", got)
	}
}

func TestClusterFromFleetMember(t *testing.T) {
	b := newFakeBackend(t)
	cred := &fakeCredential{}
	c := New(Options{Azure: b.session(cred), DefaultFleet: demoFleet, Clusters: map[string]*rest.Config{"other": {Host: "https://other"}}})
	ctx := context.Background()
	m, err := c.Cluster(ctx, "aks-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.ExecProvider != nil {
		t.Error("kubelogin exec kept")
	}
	ns, err := m.Kubernetes.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{})
	if err != nil || ns.Name != "member" {
		t.Fatalf("member request: %v %v", ns, err)
	}
	if b.auth("member") != "Bearer entra-member-server-app" {
		t.Errorf("member Authorization = %q", b.auth("member"))
	}
	if _, err := c.Cluster(ctx, "aks-east-1"); err != nil || b.memberCreds.Load() != 1 {
		t.Errorf("member credentials fetched %d times (err %v)", b.memberCreds.Load(), err)
	}
	_, err = c.Cluster(ctx, "nope")
	if err == nil || !strings.Contains(err.Error(), `cluster "nope" is neither the name of a cluster block of the provider ("other") nor a member of fleet`) {
		t.Errorf("unknown member: %v", err)
	}
}

func TestDefaultFleetAndResolve(t *testing.T) {
	b := newFakeBackend(t)
	c := New(Options{Azure: b.session(&fakeCredential{})})
	_, err := c.DefaultFleet()
	if !IsNotConfigured(err) || !strings.Contains(err.Error(), "FLEET_RESOURCE_GROUP_NAME") {
		t.Errorf("DefaultFleet: %v", err)
	}
	if _, err := c.ResolveFleet(""); !IsNotConfigured(err) || !strings.Contains(err.Error(), "fleet_id") {
		t.Errorf("ResolveFleet(\"\"): %v", err)
	}
	_, err = c.Hub(context.Background())
	if err == nil || !strings.Contains(err.Error(), "hub block is not configured") || !strings.Contains(err.Error(), "azure.fleet_name") {
		t.Errorf("Hub without default fleet: %v", err)
	}
	f, err := c.ResolveFleet(demoFleet.String())
	if err != nil || f != *demoFleet {
		t.Errorf("ResolveFleet(id) = %v %v", f, err)
	}
	if _, err := c.ResolveFleet("/subscriptions/x"); err == nil {
		t.Error("ResolveFleet accepted a subscription ID")
	}
	c = New(Options{Azure: b.session(&fakeCredential{}), DefaultFleet: demoFleet})
	if f, err := c.ResolveFleet(""); err != nil || f != *demoFleet {
		t.Errorf("ResolveFleet default = %v %v", f, err)
	}
	fc, err := c.Fleet()
	if err != nil || fc.Endpoint() != b.srv.URL {
		t.Errorf("Fleet = %v %v", fc, err)
	}
	if fc2, _ := c.Fleet(); fc2 != fc {
		t.Error("Fleet client not cached")
	}
}

func TestLazyHonoursContext(t *testing.T) {
	var l lazy[int]
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = l.get(context.Background(), func(context.Context) (int, error) {
			close(started)
			<-release
			return 1, nil
		})
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := l.get(ctx, func(context.Context) (int, error) { return 2, nil }); err != context.DeadlineExceeded {
		t.Errorf("waiting caller: %v", err)
	}
	close(release)
	v, err := l.get(context.Background(), func(context.Context) (int, error) { return 3, nil })
	if err != nil || v != 1 {
		t.Errorf("cached value = %d %v", v, err)
	}
}

// The hub's served API versions are discovered once per process: every resource's call of
// HubAPI gets the same client, whose discovery is cached.
func TestHubAPIDiscoversOncePerProcess(t *testing.T) {
	var discovery, reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/version":
			discovery.Add(1)
			fmt.Fprint(w, `{"gitVersion":"v1.32.4"}`)
		case r.URL.Path == "/apis/placement.kubernetes-fleet.io/v1":
			discovery.Add(1)
			fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"placement.kubernetes-fleet.io/v1","resources":[{"name":"clusterresourceplacements","namespaced":false,"kind":"ClusterResourcePlacement","verbs":["get"]}]}`)
		case strings.HasPrefix(r.URL.Path, "/apis/placement.kubernetes-fleet.io/v1/clusterresourceplacements/"):
			reads.Add(1)
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		default: // other group versions: not served
			discovery.Add(1)
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	defer srv.Close()
	c := New(Options{Hub: &rest.Config{Host: srv.URL}})
	ctx := context.Background()
	var first int32
	for i := range 3 { // three resources planning in one provider process
		h, err := c.HubAPI(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if there, err := h.PlacementExists(ctx, fmt.Sprintf("p%d", i)); err != nil || there {
			t.Fatalf("PlacementExists: %t, %v", there, err)
		}
		if i == 0 {
			first = discovery.Load()
		}
	}
	if first == 0 || discovery.Load() != first || reads.Load() != 3 {
		t.Errorf("discovery requests: %d after the first resource, %d after three; reads %d (want discovery once, 3 reads)", first, discovery.Load(), reads.Load())
	}
}

// TestBatchMemberCredentials: under the preview Fleet API, a snapshot's several members' kubeconfigs
// come from one fleets/listMemberCredentials; a member the batch failed keeps the one-by-one path
// (and its error); under the stable version nothing is batched.
func TestBatchMemberCredentials(t *testing.T) {
	b := newFakeBackend(t)
	ctx := context.Background()
	c := New(Options{Azure: b.session(&fakeCredential{}), DefaultFleet: demoFleet, FleetAPIVersion: fleetapi.PreviewAPIVersion})
	c.prefetchClusters(ctx, []string{"aks-east-1", "aks-west-9"})
	if b.batchCreds.Load() != 1 || c.BatchCredentialCalls() != 1 {
		t.Fatalf("batch requests %d (counted %d), want 1", b.batchCreds.Load(), c.BatchCredentialCalls())
	}
	kc, err := c.Cluster(ctx, "aks-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Kubernetes.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.memberCreds.Load() != 0 || b.auth("member") != "Bearer batch-token" {
		t.Errorf("AKS credential reads %d, member auth %q: the batch's kubeconfig was not used", b.memberCreds.Load(), b.auth("member"))
	}
	if _, err := c.Cluster(ctx, "aks-west-9"); err == nil || !strings.Contains(err.Error(), "aks-west-9") {
		t.Errorf("a member the batch failed: %v", err)
	}
	c.prefetchClusters(ctx, []string{"aks-east-1", "aks-west-9"})
	if b.batchCreds.Load() != 1 {
		t.Errorf("members already connected were asked for again (%d batch requests)", b.batchCreds.Load())
	}
	stable := New(Options{Azure: b.session(&fakeCredential{}), DefaultFleet: demoFleet})
	stable.prefetchClusters(ctx, []string{"aks-east-1", "aks-west-9"})
	if b.batchCreds.Load() != 1 {
		t.Error("the stable version batched member credentials")
	}
}
