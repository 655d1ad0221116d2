// Package placementperf measures the SPEC §8 bar "a plan of 50 placements against a 1,000-member
// hub lists member clusters once per provider process, not once per resource" with the real
// terraform CLI. It has its own package because it needs its own hub: a kube-apiserver (envtest)
// with KubeFleet's CRDs and 1,000 MemberClusters created directly — a full local fleet of 1,000
// members takes minutes to join, and only the listing is measured here.
package placementperf

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

const (
	members    = 1000
	placements = 50
)

var memberClustersGVR = clusterv1.GroupVersion.WithResource("memberclusters")

func TestAccPlacementPlanListsMembersOncePerProcess(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	// The provider must reach only the hub below, not a local fleet from the environment.
	for _, k := range []string{"FLEET_HUB_CONFIG_PATH", "KUBE_CONFIG_PATH", "KUBE_CTX", "KUBE_HOST", "ARM_SUBSCRIPTION_ID"} {
		t.Setenv(k, "")
	}
	t.Setenv("CHECKPOINT_DISABLE", "1")

	start := time.Now()
	cfg := startHub(t)
	seedMembers(t, cfg, members)
	t.Logf("hub with %d member clusters ready in %s", members, time.Since(start).Round(time.Millisecond))

	counter := newRequestCounter(t, cfg)
	var instances atomic.Int32
	factories := map[string]func() (tfprotov6.ProviderServer, error){
		// One provider server per terraform command, as terraform runs one provider process per
		// command; its version in the User-Agent tells the processes apart at the hub.
		"fleet": func() (tfprotov6.ProviderServer, error) {
			n := instances.Add(1)
			return provider.NewServer(fmt.Sprintf("perf-%d", n))()
		},
	}
	planStart := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             placementsConfig(counter.url),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_placement.p0", plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue("fleet_placement.p0", tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListSizeExact(10)),
				plancheck.ExpectKnownValue("fleet_placement.p49", tfjsonpath.New("preview").AtMapKey("fulfilled"), knownvalue.Bool(true)),
				// Bounded by default: at most 20 clusters listed, exact counts of the rest.
				plancheck.ExpectKnownValue("fleet_placement.p0", tfjsonpath.New("preview").AtMapKey("selected_count"), knownvalue.Int64Exact(10)),
				plancheck.ExpectKnownValue("fleet_placement.p0", tfjsonpath.New("preview").AtMapKey("excluded"), knownvalue.MapSizeExact(20)),
				plancheck.ExpectKnownValue("fleet_placement.p0", tfjsonpath.New("preview").AtMapKey("excluded_count"), knownvalue.Int64Exact(members-10)),
				plancheck.ExpectKnownValue("fleet_placement.p0", tfjsonpath.New("preview").AtMapKey("excluded_omitted"), knownvalue.Int64Exact(members-10-20)),
				plancheck.ExpectKnownValue("fleet_placement.p2", tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListSizeExact(10)),
				// The counts equal what the full detail lists (the data source's detail = "full").
				outputsEqual("full_selected_listed", "summary_selected_count"),
				outputsEqual("full_excluded_listed", "summary_excluded_count"),
				outputsEqual("full_excluded_by_reason_sum", "summary_excluded_count"),
				outputsEqual("full_listed", "members"),
			}},
		}},
	})
	planTime := time.Since(planStart)

	lists, gets := counter.snapshot()
	if len(lists) == 0 {
		t.Fatal("no provider process listed the hub's member clusters")
	}
	planning := 0
	var windows []string
	for ua, n := range lists {
		if n != 1 {
			t.Errorf("%s listed the member clusters %d times, want once", ua, n)
		}
		if gets[ua] == placements {
			planning++ // this process planned all 50 placements (one existence check each)
			windows = append(windows, counter.window(ua).Round(time.Millisecond).String())
		}
	}
	if planning == 0 {
		t.Errorf("no provider process planned all %d placements: placement reads per process %v", placements, gets)
	}
	t.Logf("%d placements over %d member clusters: %d terraform plan process(es), member clusters listed %v (once per process); "+
		"%d provider processes in all; first to last hub request of each plan: %v; the test step (plans and shows) took %s",
		placements, members, planning, lists, instances.Load(), windows, planTime.Round(time.Millisecond))
}

// placementsConfig is 50 placements of mixed policies, each previewed over every member.
func placementsConfig(hubURL string) string {
	policies := []string{`{
    placement_type     = "PickN"
    number_of_clusters = 10
    preferred_cluster_selector {
      weight = 60
      property_sorter {
        name       = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
    preferred_cluster_selector {
      weight = 20
      labels = { env = "prod" }
    }
  }`, `{
    placement_type     = "PickN"
    number_of_clusters = 25
    topology_spread_constraint {
      topology_key = "fleet.azure.com/location"
    }
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }`, `{
    required_cluster_selector {
      property_expression {
        name     = "resources.kubernetes-fleet.io/available-cpu"
        operator = "Ge"
        values   = ["8"]
      }
    }
  }`, `{
    placement_type = "PickFixed"
    cluster_names  = ["member-0001", "member-0500", "member-0999"]
  }`, `{
    placement_type     = "PickN"
    number_of_clusters = 5
    toleration {
      key   = "dedicated"
      value = "gpu"
    }
    preferred_cluster_selector {
      weight = 40
      property_sorter {
        name       = "resources.kubernetes-fleet.io/available-memory"
        sort_order = "Ascending"
      }
    }
  }`,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "provider \"fleet\" {\n  hub {\n    host = %q\n  }\n}\n", hubURL)
	for i := 0; i < placements; i++ {
		p := policies[i%len(policies)]
		fmt.Fprintf(&b, `
resource "fleet_placement" "p%d" {
  name = "perf-%d"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "app-%d"
  }
  policy %s
}
`, i, i, i, p)
	}
	// The full detail of p2's policy, to compare with p2's summary counts.
	fmt.Fprintf(&b, `
data "fleet_placement_preview" "full" {
  detail = "full"
  policy %s
}
output "full_selected_listed" { value = length(data.fleet_placement_preview.full.preview.selected) }
output "full_excluded_listed" { value = length(data.fleet_placement_preview.full.preview.excluded) }
output "full_excluded_by_reason_sum" { value = sum(values(data.fleet_placement_preview.full.preview.excluded_by_reason)) }
output "full_listed" { value = length(data.fleet_placement_preview.full.preview.selected) + length(data.fleet_placement_preview.full.preview.excluded) }
output "members" { value = %d }
output "summary_selected_count" { value = fleet_placement.p2.preview.selected_count }
output "summary_excluded_count" { value = fleet_placement.p2.preview.excluded_count }
`, policies[2], members)
	return b.String()
}

// outputsEqual checks that two outputs are planned known and equal.
func outputsEqual(a, b string) plancheck.PlanCheck { return outputsEqualCheck{a, b} }

type outputsEqualCheck struct{ a, b string }

func (c outputsEqualCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	value := func(name string) any {
		ch, ok := req.Plan.OutputChanges[name]
		if !ok || ch == nil {
			resp.Error = fmt.Errorf("output %s is not in the plan", name)
			return nil
		}
		return ch.After
	}
	va, vb := value(c.a), value(c.b)
	if resp.Error != nil {
		return
	}
	if va == nil || fmt.Sprint(va) != fmt.Sprint(vb) {
		resp.Error = fmt.Errorf("output %s = %v, output %s = %v: want equal and known", c.a, va, c.b, vb)
	}
}

// startHub starts a kube-apiserver with KubeFleet's CRDs (from the module cache) and returns its
// admin configuration.
func startHub(t *testing.T) *rest.Config {
	t.Helper()
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	assets := t.TempDir()
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatal("etcd not on PATH (make deps)")
	}
	for name, target := range map[string]string{"kube-apiserver": filepath.Join(root, "bin", "kube-apiserver"), "etcd": etcd} {
		if _, err := os.Stat(target); err != nil {
			t.Fatalf("%s missing: run `make tools` (%v)", name, err)
		}
		if err := os.Symlink(target, filepath.Join(assets, name)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.goms.io/fleet").Output()
	if err != nil {
		t.Fatalf("locate go.goms.io/fleet: %v", err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	return cfg
}

// seedMembers creates n MemberClusters with labels, a taint on some, and the status a healthy
// member agent reports (heartbeat, Joined, Healthy, properties, resource usage).
func seedMembers(t *testing.T, cfg *rest.Config, n int) {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = 2000, 2000
	dyn := dynamic.NewForConfigOrDie(c)
	regions := []string{"eastus", "westeurope", "southeastasia"}
	envs := []string{"prod", "prod", "staging", "canary"}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	work := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := seedMember(dyn, i, regions[i%len(regions)], envs[i%len(envs)]); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func seedMember(dyn dynamic.Interface, i int, region, env string) error {
	ctx := context.Background()
	now := metav1.Now()
	mc := &clusterv1.MemberCluster{
		TypeMeta: metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MemberCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("member-%04d", i), Labels: map[string]string{
			"fleet.azure.com/location": region, "env": env,
		}},
		Spec: clusterv1.MemberClusterSpec{
			Identity:               rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "member-agent", Namespace: "fleet-system"},
			HeartbeatPeriodSeconds: 60,
		},
	}
	if i%10 == 0 {
		mc.Spec.Taints = []clusterv1.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}}
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mc)
	if err != nil {
		return err
	}
	created, err := dyn.Resource(memberClustersGVR).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s: %w", mc.Name, err)
	}
	status := clusterv1.MemberClusterStatus{
		AgentStatus: []clusterv1.AgentStatus{{
			Type: clusterv1.MemberAgent, LastReceivedHeartbeat: now,
			Conditions: []metav1.Condition{
				{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionTrue, Reason: "Joined", LastTransitionTime: now},
				{Type: string(clusterv1.AgentHealthy), Status: metav1.ConditionTrue, Reason: "Healthy", LastTransitionTime: now},
			},
		}},
		Properties: map[clusterv1.PropertyName]clusterv1.PropertyValue{
			"kubernetes-fleet.io/node-count": {Value: fmt.Sprint(1 + i%17), ObservationTime: now},
		},
	}
	st, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		return err
	}
	usage := map[string]any{
		"available": map[string]any{"cpu": fmt.Sprint(2 + i%23), "memory": fmt.Sprintf("%dGi", 4+i%61)},
	}
	st["resourceUsage"] = usage
	created.Object["status"] = st
	if _, err := dyn.Resource(memberClustersGVR).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("status of %s: %w", mc.Name, err)
	}
	return nil
}

// requestCounter is a plain-HTTP proxy in front of the hub that counts, per User-Agent (one per
// provider process), the member cluster list requests and the placement reads.
type requestCounter struct {
	url         string
	mu          sync.Mutex
	lists       map[string]int
	gets        map[string]int
	first, last map[string]time.Time
}

func newRequestCounter(t *testing.T, cfg *rest.Config) *requestCounter {
	t.Helper()
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rc := &requestCounter{lists: map[string]int{}, gets: map[string]int{}, first: map[string]time.Time{}, last: map[string]time.Time{}}
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: transport,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ua := r.UserAgent()
			rc.mu.Lock()
			if _, ok := rc.first[ua]; !ok {
				rc.first[ua] = time.Now()
			}
			rc.last[ua] = time.Now()
			switch {
			case r.URL.Path == "/apis/cluster.kubernetes-fleet.io/v1/memberclusters":
				rc.lists[ua]++
			case strings.HasPrefix(r.URL.Path, "/apis/placement.kubernetes-fleet.io/v1/clusterresourceplacements/"):
				rc.gets[ua]++
			}
			rc.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rc.url = srv.URL
	return rc
}

// window is how long a process talked to the hub: from its first request to its last.
func (rc *requestCounter) window(ua string) time.Duration {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.last[ua].Sub(rc.first[ua])
}

func (rc *requestCounter) snapshot() (lists, gets map[string]int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	lists, gets = map[string]int{}, map[string]int{}
	for k, v := range rc.lists {
		lists[k] = v
	}
	for k, v := range rc.gets {
		gets[k] = v
	}
	return lists, gets
}
