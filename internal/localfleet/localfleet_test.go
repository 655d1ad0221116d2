package localfleet_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

func TestMain(m *testing.M) { acctest.Main(m, "examples/quickstart/fleet.yaml") }

func kubeClient(t *testing.T, kubeconfig string, scheme *runtime.Scheme) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// placed waits for the placement to be Available and returns the clusters
// it was placed on with their per-cluster Scheduled messages.
func placed(t *testing.T, c client.Client, name string) map[string]string {
	t.Helper()
	crp := &placementv1.ClusterResourcePlacement{}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crp); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(crp.Status.Conditions, string(placementv1.ClusterResourcePlacementAvailableConditionType))
		return cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == crp.Generation, nil
	})
	if err != nil {
		t.Fatalf("placement %s never became Available: %v; status: %+v", name, err, crp.Status.Conditions)
	}
	out := map[string]string{}
	for _, ps := range crp.Status.PerClusterPlacementStatuses {
		if cond := meta.FindStatusCondition(ps.Conditions, string(placementv1.PerClusterScheduledConditionType)); cond != nil {
			out[ps.ClusterName] = cond.Message
		}
	}
	return out
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The real hub agent schedules a PickN placement over the simulated members:
// the node-count sorter ranks prod-east-1 (5 nodes) and prod-west-1 (4)
// first, interpolated between the fleet's minimum (1) and maximum (5).
func TestHubAgentSchedulesPickN(t *testing.T) {
	f := acctest.Current(t)
	c := kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
	createNamespace(t, c, "pickn-app")
	n := int32(2)
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "pickn"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "pickn-app"}},
			Policy: &placementv1.PlacementPolicy{
				PlacementType: placementv1.PickNPlacementType, NumberOfClusters: &n,
				Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{{
						Weight:     50,
						Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{Name: "kubernetes-fleet.io/node-count", SortOrder: placementv1.Descending}},
					}},
				}},
			},
		},
	}
	if err := c.Create(context.Background(), crp); err != nil {
		t.Fatal(err)
	}
	got := placed(t, c, "pickn")
	if want := []string{"prod-east-1", "prod-west-1"}; !equal(keys(got), want) {
		t.Fatalf("picked %v, want %v", keys(got), want)
	}
	// (4-1)/(5-1)*50 = 37.5, rounded half away from zero.
	for cluster, score := range map[string]string{"prod-east-1": "50", "prod-west-1": "38"} {
		if !regexp.MustCompile(`affinity score: ` + score + `\b`).MatchString(got[cluster]) {
			t.Errorf("%s: want affinity score %s in %q", cluster, score, got[cluster])
		}
	}
}

// PickAll leaves out the unhealthy member (no heartbeat) and the tainted one.
func TestHubAgentExcludesUnhealthyAndTainted(t *testing.T) {
	f := acctest.Current(t)
	c := kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
	createNamespace(t, c, "pickall-app")
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "pickall"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "pickall-app"}},
		},
	}
	if err := c.Create(context.Background(), crp); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(placed(t, c, "pickall")), []string{"canary-east", "prod-east-1", "prod-west-1"}; !equal(got, want) {
		t.Fatalf("placed on %v, want %v (staging-west is unhealthy, prod-east-2 tainted)", got, want)
	}
}

// canary-east has its own API server with Karpenter's CRDs and the NodePool,
// NodeClaims and Nodes its fleet file describes.
func TestKarpenterMemberSeeded(t *testing.T) {
	f := acctest.Current(t)
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	c := kubeClient(t, filepath.Join(f.Dir, "member-canary-east.kubeconfig"), s)
	ctx := context.Background()

	np := &unstructured.Unstructured{}
	np.SetAPIVersion("karpenter.sh/v1")
	np.SetKind("NodePool")
	if err := c.Get(ctx, client.ObjectKey{Name: "default"}, np); err != nil {
		t.Fatal(err)
	}
	budgets, _, _ := unstructured.NestedSlice(np.Object, "spec", "disruption", "budgets")
	if first, ok := budgets[0].(map[string]any); len(budgets) != 1 || !ok || first["nodes"] != "10%" {
		t.Errorf("the API server should default spec.disruption.budgets to [{nodes: 10%%}], got %v", budgets)
	}
	claims := &unstructured.UnstructuredList{}
	claims.SetAPIVersion("karpenter.sh/v1")
	claims.SetKind("NodeClaimList")
	if err := c.List(ctx, claims); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 10 {
		t.Fatalf("%d NodeClaims, want 10", len(claims.Items))
	}
	ages := map[string]time.Duration{}
	for _, nc := range claims.Items {
		ages[nc.GetName()] = time.Since(nc.GetCreationTimestamp().Time)
	}
	for name, hours := range map[string]float64{"default-0": 1, "default-1": 200, "default-2": 700} {
		if d := ages[name] - time.Duration(hours*float64(time.Hour)); d < -time.Minute || d > 10*time.Minute {
			t.Errorf("%s is %s old, want about %vh", name, ages[name].Round(time.Minute), hours)
		}
	}
	nodes := &corev1.NodeList{}
	if err := c.List(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	notReady := 0
	for _, n := range nodes.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
				notReady++
			}
		}
	}
	if len(nodes.Items) != 10 || notReady != 1 {
		t.Errorf("%d nodes with %d not ready, want 10 with 1", len(nodes.Items), notReady)
	}

	// The disruption keys: the NodePool's hash (Karpenter's own NodePool.Hash of the stored,
	// defaulted NodePool) on the pool and its NodeClaims, a stale one on the drifted; node
	// annotations; pods bound to their nodes.
	b, _ := json.Marshal(np.Object)
	var typed karpv1.NodePool
	if err := json.Unmarshal(b, &typed); err != nil {
		t.Fatal(err)
	}
	if got := np.GetAnnotations()[karpv1.NodePoolHashAnnotationKey]; got != typed.Hash() {
		t.Errorf("NodePool hash annotation %q, want %q", got, typed.Hash())
	}
	for _, nc := range claims.Items {
		stale := nc.GetName() == "default-4" || nc.GetName() == "default-5"
		if got := nc.GetAnnotations()[karpv1.NodePoolHashAnnotationKey]; (got != typed.Hash()) != stale || got == "" {
			t.Errorf("NodeClaim %s hash %q (NodePool %s), stale should be %v", nc.GetName(), got, typed.Hash(), stale)
		}
	}
	for _, n := range nodes.Items {
		if got, want := n.Annotations[karpv1.DoNotDisruptAnnotationKey], map[bool]string{true: "true"}[n.Name == "default-6"]; got != want {
			t.Errorf("node %s do-not-disrupt %q, want %q", n.Name, got, want)
		}
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, p := range pods.Items {
		seen[p.Namespace+"/"+p.Name] = p.Spec.NodeName
		if p.Name == "ledger-0" && p.Annotations[karpv1.DoNotDisruptAnnotationKey] != "true" {
			t.Errorf("ledger-0 annotations %v", p.Annotations)
		}
		if p.Name == "node-exporter-7" && (len(p.OwnerReferences) != 1 || p.OwnerReferences[0].Kind != "DaemonSet") {
			t.Errorf("node-exporter-7 owners %v", p.OwnerReferences)
		}
		if p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s phase %s", p.Name, p.Status.Phase)
		}
	}
	if want := map[string]string{"payments/ledger-0": "default-3", "web/frontend-0": "default-4", "web/frontend-1": "default-5", "kube-system/node-exporter-7": "default-7"}; !maps.Equal(seen, want) {
		t.Errorf("pods %v, want %v", seen, want)
	}
}

// A local fleet whose supervisor is killed outright still leaves no process
// behind once Stop (make fleet-down) has run.
func TestStopAfterCrashLeavesNothing(t *testing.T) {
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := acctest.Start(root, filepath.Join(root, "examples/quickstart/fleet.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	b, err := os.ReadFile(filepath.Join(f.Dir, "pids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p localfleet.Processes
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Children) < 6 { // hub etcd + apiserver, hub agent, member etcd + apiserver, member agent
		t.Fatalf("recorded children %v, want at least 6", p.Children)
	}
	memberAgents := 0
	for _, pid := range p.Children {
		if isMemberAgent(pid) {
			memberAgents++
		}
	}
	if memberAgents != 1 { // canary-east's
		t.Fatalf("recorded %d member agents among %v, want canary-east's", memberAgents, p.Children)
	}
	if err := syscall.Kill(p.Supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := localfleet.Stop(f.Dir, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, pid := range append([]int{p.Supervisor}, p.Children...) {
		if localfleet.Alive(pid) {
			t.Errorf("process %d survived", pid)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
