package disruption

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	fakecloud "sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	karpdisruption "sigs.k8s.io/karpenter/pkg/controllers/disruption"
	ncdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/expiration"
	"sigs.k8s.io/karpenter/pkg/controllers/nodepool/hash"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
)

// These cross-checks run Karpenter v1.14.1's own controllers on generated clusters — the NodePool
// hash controller, the NodeClaim drift/consolidatable and expiration controllers, cluster state, the
// disruption controller's BuildDisruptionBudgetMapping and GetCandidates with its Emptiness and Drift
// filters — on controller-runtime's fake client with Karpenter's fake cloud provider, and compare
// what Karpenter decides with what BuildPreview computes from the same objects. Nothing of ours is
// fed to Karpenter: it counts, hashes and filters by itself. 100 % equal is the bar.

// testNodeClassRef is the node class Karpenter's fake cloud provider supports (pkg/test/v1alpha1).
var testNodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}

// fakeInstanceType is the fake cloud provider's default instance type.
const fakeInstanceType = "default-instance-type"

// noEvents is a Karpenter event recorder that drops everything.
type noEvents struct{}

func (noEvents) Publish(...events.Event) {}

// world is one generated cluster: the NodePool "pool" (planned = current), a second pool, and
// NodeClaims, Nodes and Pods in every state the rules distinguish.
type world struct {
	pool, other *karpv1.NodePool
	claims      []karpv1.NodeClaim
	nodes       []corev1.Node
	pods        []corev1.Pod
	pdbs        []policyv1.PodDisruptionBudget
	marked      []string // provider IDs Karpenter marked for deletion (seen as the disrupted taint)
	now         time.Time
}

// back is an instant up to maxHours before now, on a second boundary (the API's precision).
func (g gen) back(now time.Time, maxHours int) metav1.Time {
	return metav1.Time{Time: now.Add(-time.Duration(g.r.Int64N(int64(maxHours) * int64(time.Hour)))).Truncate(time.Second)}
}

func (g gen) nillable() karpv1.NillableDuration {
	return karpv1.MustParseNillableDuration(g.pick("Never", "0s", "30s", "10m", "1h", "720h", "24h"))
}

// template makes a random NodePool template (what the hash covers).
func (g gen) template() karpv1.NodeClaimTemplate {
	t := karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{NodeClassRef: testNodeClassRef, ExpireAfter: g.nillable()}}
	if g.r.IntN(3) == 0 {
		t.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Duration(1+g.r.IntN(5)) * time.Hour}
	}
	switch g.r.IntN(6) {
	case 0:
		t.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	case 1:
		t.Annotations = map[string]string{"team": g.pick("a", "b")}
	}
	if g.r.IntN(4) == 0 {
		t.Labels = map[string]string{"tier": g.pick("gold", "silver")}
	}
	if g.r.IntN(5) == 0 {
		t.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: g.pick("gpu", "db"), Effect: corev1.TaintEffectNoSchedule}}
	}
	return t
}

// pods makes the pods of one node.
func (g gen) podsOn(node string, now time.Time, i int) []corev1.Pod {
	var out []corev1.Pod
	for j := range g.r.IntN(4) {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: g.pick("default", "kube-system", "db"), Name: fmt.Sprintf("p-%d-%d", i, j), UID: types.UID(fmt.Sprintf("uid-%d-%d", i, j))},
			Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			Status:     corev1.PodStatus{Phase: corev1.PodRunning, StartTime: ptr(g.back(now, 2))},
		}
		// Labels for the generated PDBs' selectors (a few apps, so one PDB selects pods on several
		// nodes); sometimes not Ready, for the unhealthy-pod eviction policy.
		p.Labels = map[string]string{"app": g.pick("web", "api", "db", "cache"), "tier": g.pick("a", "b")}
		if g.r.IntN(5) == 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		} else if g.r.IntN(2) == 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		switch g.r.IntN(12) {
		case 0:
			p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
		case 1:
			p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: g.pick("30m", "1h", "3h", "nonsense", "false", "-5m")}
		case 2:
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds-uid"}}
			if g.r.IntN(2) == 0 {
				p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
			}
		case 3:
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: "node-uid"}}
		case 4:
			p.Status.Phase = g.pick2(corev1.PodSucceeded, corev1.PodFailed)
			if g.r.IntN(2) == 0 {
				p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
			}
		case 5:
			p.DeletionTimestamp = ptr(g.back(now, 1))
			p.Finalizers = []string{"test/hold"}
			if g.r.IntN(2) == 0 {
				p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
			}
			if g.r.IntN(2) == 0 {
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid"}}
			}
		case 6:
			p.Annotations = map[string]string{corev1.PodDeletionCost: g.pick("-2147483647", "-1000000", "1000", "oops")}
		case 7:
			p.Spec.Priority = ptr(int32(g.pick3(-2147483648, -100000000, 1000000000)))
		}
		out = append(out, p)
	}
	return out
}

func (g gen) pick2(a, b corev1.PodPhase) corev1.PodPhase {
	if g.r.IntN(2) == 0 {
		return a
	}
	return b
}

func (g gen) pick3(xs ...int) int { return xs[g.r.IntN(len(xs))] }

// world makes one cluster at now. With probe budgets the NodePool has one 100% budget for Empty and
// none for the other reasons, so Karpenter's allowances reveal both its node count (Empty: count -
// disrupting) and its disrupting count (the others: MaxInt32 - disrupting).
func (g gen) world(now time.Time, probe bool) world {
	w := world{now: now}
	mk := func(name string) *karpv1.NodePool {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: karpv1.NodePoolSpec{Template: g.template()}}
		np.Spec.Disruption.ConsolidateAfter = g.nillable()
		np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
		return np
	}
	w.pool, w.other = mk("pool"), mk("other")
	if probe {
		w.pool.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}}}
	} else {
		w.pool.Spec.Disruption.Budgets = g.budgets()
		// controller-runtime's fake client stores typed objects through encoding/json, whose omitempty
		// turns `reasons: []` into nil (a real API server keeps []), so the world leaves it out;
		// TestMustAllowedByReason covers it on Karpenter's functions directly.
		for i := range w.pool.Spec.Disruption.Budgets {
			if b := &w.pool.Spec.Disruption.Budgets[i]; b.Reasons != nil && len(b.Reasons) == 0 {
				b.Reasons = nil
			}
		}
	}
	current := w.pool.Hash()
	stale := TemplateHash(g.template())
	for i := range g.r.IntN(30) {
		name := fmt.Sprintf("n%d", i)
		poolName := "pool"
		if g.r.IntN(8) == 0 {
			poolName = "other"
		}
		id := "fake://" + name
		labels := map[string]string{karpv1.NodePoolLabelKey: poolName, corev1.LabelInstanceTypeStable: fakeInstanceType}
		claim := karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: g.back(now, 1000), Annotations: map[string]string{}},
			Spec:       karpv1.NodeClaimSpec{NodeClassRef: testNodeClassRef, ExpireAfter: karpv1.MustParseNillableDuration(g.pick("Never", "720h", "2000h", "168h", "1h"))},
			Status:     karpv1.NodeClaimStatus{ProviderID: id, NodeName: name},
		}
		switch g.r.IntN(20) {
		case 0, 1, 2, 3:
			claim.Annotations[karpv1.NodePoolHashAnnotationKey], claim.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = stale, karpv1.NodePoolHashVersion
		case 4:
			claim.Annotations[karpv1.NodePoolHashAnnotationKey], claim.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = stale, "v2"
		case 5:
			claim.Annotations[karpv1.NodePoolHashAnnotationKey] = stale
		case 6:
		default:
			claim.Annotations[karpv1.NodePoolHashAnnotationKey], claim.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = current, karpv1.NodePoolHashVersion
		}
		if g.r.IntN(10) == 0 {
			claim.Annotations[karpv1.DoNotDisruptAnnotationKey] = "true"
		}
		if g.r.IntN(3) == 0 {
			claim.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
		}
		if g.r.IntN(3) == 0 {
			claim.Status.LastPodEventTime = g.back(now, 3)
		}
		var conds []status.Condition
		if g.r.IntN(10) != 0 {
			conds = append(conds, status.Condition{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched", LastTransitionTime: g.back(now, 1000)})
		}
		if g.r.IntN(8) != 0 {
			conds = append(conds, status.Condition{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, Reason: "Initialized", LastTransitionTime: g.back(now, 3)})
		}
		if g.r.IntN(25) == 0 {
			conds = append(conds, status.Condition{Type: karpv1.ConditionTypeInstanceTerminating, Status: metav1.ConditionTrue, Reason: "Terminating", LastTransitionTime: g.back(now, 1)})
		}
		claim.Status.Conditions = conds
		if g.r.IntN(20) == 0 {
			claim.DeletionTimestamp, claim.Finalizers = ptr(g.back(now, 1)), []string{karpv1.TerminationFinalizer}
		}
		node := corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				karpv1.NodePoolLabelKey: poolName, corev1.LabelInstanceTypeStable: fakeInstanceType, karpv1.NodeRegisteredLabelKey: "true",
			}},
			Spec:   corev1.NodeSpec{ProviderID: id},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
		if g.r.IntN(10) != 0 {
			node.Labels[karpv1.NodeInitializedLabelKey] = "true"
		}
		switch g.r.IntN(12) {
		case 0:
			node.Status.Conditions[0].Status = corev1.ConditionFalse
		case 1:
			node.Status.Conditions = nil
		case 2:
			node.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint}
			w.marked = append(w.marked, id)
		case 3:
			node.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: g.pick("true", "false", "1h")}
		case 4:
			if claim.Annotations[karpv1.DoNotDisruptAnnotationKey] == "true" {
				node.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"} // copied at registration
			}
		}
		w.claims, w.nodes = append(w.claims, claim), append(w.nodes, node)
		w.pods = append(w.pods, g.podsOn(name, now, i)...)
	}
	w.pdbs = g.pdbs()
	if g.r.IntN(4) == 0 { // an unmanaged node, which Karpenter never counts
		w.nodes = append(w.nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "unmanaged", Labels: map[string]string{karpv1.NodeInitializedLabelKey: "true"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
	}
	return w
}

// pdbs makes up to five PodDisruptionBudgets: blocking (disruptionsAllowed 0) and not, selectors
// by label or expression matching pods on several nodes (and sometimes the same pod as another
// PDB), maxUnavailable and minAvailable as counts and percentages, and the unhealthy-pod policy.
func (g gen) pdbs() []policyv1.PodDisruptionBudget {
	var out []policyv1.PodDisruptionBudget
	for i := range g.r.IntN(6) {
		p := policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: g.pick("default", "kube-system", "db"), Name: fmt.Sprintf("pdb-%d", i)}}
		switch g.r.IntN(3) {
		case 0:
			p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": g.pick("web", "api", "db", "cache")}}
		case 1:
			p.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick("web", "api"), g.pick("db", "cache")}}}}
		default:
			p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": g.pick("a", "b")}}
		}
		v := func() *intstr.IntOrString {
			x := intstr.FromInt32(int32(g.r.IntN(3)))
			if g.r.IntN(2) == 0 {
				x = intstr.FromString(g.pick("0%", "50%", "100%"))
			}
			return &x
		}
		if g.r.IntN(2) == 0 {
			p.Spec.MaxUnavailable = v()
		} else {
			p.Spec.MinAvailable = v()
		}
		switch g.r.IntN(3) {
		case 0:
			p.Spec.UnhealthyPodEvictionPolicy = ptr(policyv1.AlwaysAllow)
		case 1:
			p.Spec.UnhealthyPodEvictionPolicy = ptr(policyv1.IfHealthyBudget)
		}
		p.Status.DisruptionsAllowed = int32(g.r.IntN(3))
		if g.r.IntN(2) == 0 {
			p.Status.DisruptionsAllowed = 0
		}
		out = append(out, p)
	}
	return out
}

// karpenter is Karpenter's view of a world after its NodePool and NodeClaim controllers ran.
type karpenter struct {
	ctx     context.Context
	kc      client.Client
	cp      *fakecloud.CloudProvider
	clk     *clocktesting.FakeClock
	cluster *state.Cluster
	claims  map[string]*karpv1.NodeClaim // after the controllers; nil when deleted
}

// runKarpenter loads the world into a fake API server and runs Karpenter's NodePool hash controller,
// its NodeClaim disruption controller (drift and consolidatable conditions) and its expiration
// controller, then builds cluster state from the result.
func runKarpenter(t *testing.T, w world) karpenter {
	t.Helper()
	ctx := context.Background()
	objs := []client.Object{w.pool.DeepCopy(), w.other.DeepCopy()}
	for i := range w.claims {
		objs = append(objs, w.claims[i].DeepCopy())
	}
	for i := range w.nodes {
		objs = append(objs, w.nodes[i].DeepCopy())
	}
	for i := range w.pods {
		objs = append(objs, w.pods[i].DeepCopy())
	}
	for i := range w.pdbs {
		objs = append(objs, w.pdbs[i].DeepCopy())
	}
	// A plain object tracker: the default one deduces managed fields on every write, which costs more
	// than everything else here and plays no part in Karpenter's decisions.
	tracker := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	kc := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjectTracker(tracker).WithObjects(objs...).
		WithStatusSubresource(&karpv1.NodeClaim{}, &karpv1.NodePool{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
			if p, ok := o.(*corev1.Pod); ok {
				return []string{p.Spec.NodeName}
			}
			return nil
		}).
		Build()
	k := karpenter{ctx: ctx, kc: kc, cp: fakecloud.NewCloudProvider(), clk: clocktesting.NewFakeClock(w.now), claims: map[string]*karpv1.NodeClaim{}}
	for _, name := range []string{w.pool.Name, w.other.Name} {
		np := &karpv1.NodePool{}
		must(t, kc.Get(ctx, client.ObjectKey{Name: name}, np))
		_, err := hash.NewController(kc, k.cp).Reconcile(ctx, np)
		must(t, err)
	}
	dis, exp := ncdisruption.NewController(k.clk, kc, k.cp), expiration.NewController(k.clk, kc, k.cp)
	for _, c := range w.claims {
		for _, reconcile := range []func(context.Context, *karpv1.NodeClaim) error{
			func(ctx context.Context, nc *karpv1.NodeClaim) error { _, err := dis.Reconcile(ctx, nc); return err },
			func(ctx context.Context, nc *karpv1.NodeClaim) error { _, err := exp.Reconcile(ctx, nc); return err },
		} {
			nc := &karpv1.NodeClaim{}
			if err := kc.Get(ctx, client.ObjectKey{Name: c.Name}, nc); err != nil {
				break // deleted by expiration
			}
			must(t, reconcile(ctx, nc))
		}
		nc := &karpv1.NodeClaim{}
		if err := kc.Get(ctx, client.ObjectKey{Name: c.Name}, nc); err == nil {
			k.claims[c.Name] = nc
		} else {
			k.claims[c.Name] = nil
		}
	}
	k.cluster = state.NewCluster(k.clk, kc, k.cp)
	for _, c := range w.claims {
		nc := k.claims[c.Name]
		if nc == nil {
			nc = c.DeepCopy()
			nc.DeletionTimestamp = &metav1.Time{Time: w.now} // deleted by expiration: what the informer last saw
		}
		k.cluster.UpdateNodeClaim(nc)
	}
	for i := range w.nodes {
		must(t, k.cluster.UpdateNode(ctx, w.nodes[i].DeepCopy()))
	}
	k.cluster.MarkForDeletion(w.marked...)
	return k
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// candidates runs Karpenter's GetCandidates with a filter and returns the pool's candidate nodes.
func (k karpenter) candidates(t *testing.T, pool string, filter karpdisruption.CandidateFilter, class string) []string {
	t.Helper()
	queue := karpdisruption.NewQueue(k.kc, noEvents{}, k.cluster, k.clk, nil)
	cs, err := karpdisruption.GetCandidates(k.ctx, k.cluster, k.kc, noEvents{}, k.clk, k.cp, filter, class, queue)
	must(t, err)
	var out []string
	for _, c := range cs {
		if c.NodePool.Name == pool {
			out = append(out, c.Name())
		}
	}
	slices.Sort(out)
	return out
}

// TestCrossCheckKarpenter compares the preview with Karpenter's own controllers on generated
// clusters: per reason the allowance BuildDisruptionBudgetMapping gives the NodePool (Karpenter's
// counting, half the time with probe budgets that expose its node and disrupting counts); the
// NodeClaims its drift controller marks Drifted after its hash controller stamped the NodePool
// (Karpenter's hashing); the candidates GetCandidates returns with its Emptiness and Drift filters;
// the nodes NewCandidate refuses for do-not-disrupt (blocked); and the NodeClaims its expiration
// controller deletes.
func TestCrossCheckKarpenter(t *testing.T) {
	quietKlog(t)
	g := newGen(20261123)
	n := *crossCheckCases / 10
	var clusters, nodes, reasons, drifted, empty, driftCands, blocked, expired, pdbs, byPDB int
	for range n {
		now := g.now().UTC().Truncate(time.Second)
		w := g.world(now, g.r.IntN(2) == 0)
		k := runKarpenter(t, w)
		p := BuildPreview(Input{NodePool: w.pool, NodeClaims: w.claims, Nodes: w.nodes, Pods: w.pods, PDBs: PDBs{Items: w.pdbs}, Now: now})
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf(format+"\nnow=%s budgets=%s\npreview=%+v", append(args, now.Format(time.RFC3339), describe(w.pool.Spec.Disruption.Budgets, p.Nodes, now), p)...)
		}
		clusters++
		nodes += p.Nodes
		pdbs += len(w.pdbs)

		// Counting: Karpenter's own mapping per reason against the preview's allowance.
		for _, reason := range []karpv1.DisruptionReason{"Empty", "Underutilized", "Drifted"} {
			m, err := karpdisruption.BuildDisruptionBudgetMapping(k.ctx, k.cluster, k.clk, k.kc, k.cp, noEvents{}, reason)
			must(t, err)
			rp, _ := p.reason(reason)
			if m["pool"] != rp.Allowed {
				fail("%s: Karpenter's BuildDisruptionBudgetMapping gives %d, the preview %d (nodes %d, disrupting %d)", reason, m["pool"], rp.Allowed, p.Nodes, p.Disrupting)
			}
			reasons++
		}

		// Hashing and drift: the NodeClaims Karpenter marked Drifted.
		var wantDrifted []string
		for _, c := range w.claims {
			nc := k.claims[c.Name]
			if nc != nil && nc.Labels[karpv1.NodePoolLabelKey] == "pool" && nc.DeletionTimestamp == nil && nc.StatusConditions().Get(karpv1.ConditionTypeDrifted).IsTrue() {
				wantDrifted = append(wantDrifted, c.Name)
			}
		}
		var gotDrifted []string
		for _, d := range p.Drifted {
			if k.claims[d.NodeClaim] != nil { // expired ones are deleted before they can drift
				gotDrifted = append(gotDrifted, d.NodeClaim)
			}
		}
		slices.Sort(wantDrifted)
		slices.Sort(gotDrifted)
		if !slices.Equal(gotDrifted, wantDrifted) {
			fail("drifted: preview %v, Karpenter %v (NodePool hash %s)", gotDrifted, wantDrifted, w.pool.Hash())
		}
		drifted += len(wantDrifted)

		// Expiry: the NodeClaims the expiration controller deleted.
		var wantExpired []string
		for _, c := range w.claims {
			nc := k.claims[c.Name]
			if c.Labels[karpv1.NodePoolLabelKey] == "pool" && c.DeletionTimestamp == nil && (nc == nil || nc.DeletionTimestamp != nil) {
				wantExpired = append(wantExpired, c.Name)
			}
		}
		slices.Sort(wantExpired)
		if got := p.Candidates[ReasonExpired]; !slices.Equal(got, wantExpired) {
			fail("expired: preview %v, Karpenter %v", got, wantExpired)
		}
		expired += len(wantExpired)

		// Candidates: Karpenter's GetCandidates with its own Emptiness and Drift filters.
		queue := karpdisruption.NewQueue(k.kc, noEvents{}, k.cluster, k.clk, nil)
		emptiness := karpdisruption.NewEmptiness(karpdisruption.MakeConsolidation(k.clk, k.cluster, k.kc, nil, k.cp, noEvents{}, queue))
		drift := karpdisruption.NewDrift(k.kc, k.cluster, nil, noEvents{}, k.clk)
		for _, m := range []karpdisruption.Method{emptiness, drift} {
			want := k.candidates(t, "pool", m.ShouldDisrupt, m.Class())
			got := p.Candidates[m.Reason()]
			if !slices.Equal(got, want) {
				fail("%s candidates: preview %v, Karpenter %v", m.Reason(), got, want)
			}
			if m.Reason() == karpv1.DisruptionReasonEmpty {
				empty += len(want)
			} else {
				driftCands += len(want)
			}
		}

		// Blocked: considered nodes NewCandidate refuses in the graceful class (do-not-disrupt on the
		// node or its pods, or a PDB of its pods, refuses them).
		all := k.candidates(t, "pool", func(context.Context, *karpdisruption.Candidate) bool { return true }, karpdisruption.GracefulDisruptionClass)
		var wantBlocked []string
		for _, sn := range k.cluster.DeepCopyNodes() {
			if sn.NodeClaim == nil || sn.Node == nil || sn.Labels()[karpv1.NodePoolLabelKey] != "pool" || !sn.Initialized() || sn.MarkedForDeletion() {
				continue
			}
			if !slices.Contains(all, sn.Name()) {
				wantBlocked = append(wantBlocked, sn.Name())
			}
		}
		slices.Sort(wantBlocked)
		var gotBlocked []string
		for _, b := range p.Blocked {
			gotBlocked = append(gotBlocked, b.Node)
			if b.Kind == BlockedByPDB {
				byPDB++
			}
		}
		if !slices.Equal(gotBlocked, wantBlocked) {
			fail("blocked: preview %v, Karpenter %v", gotBlocked, wantBlocked)
		}
		blocked += len(wantBlocked)
	}
	t.Logf("%d generated clusters (%d counted nodes, %d PodDisruptionBudgets): %d (NodePool, reason) allowances equal to BuildDisruptionBudgetMapping; "+
		"%d drifted NodeClaims, %d Empty and %d Drifted candidates, %d blocked (%d by PDBs) and %d expired nodes equal to Karpenter's controllers",
		clusters, nodes, pdbs, reasons, drifted, empty, driftCands, blocked, byPDB, expired)
	if byPDB == 0 {
		t.Fatal("no generated node was blocked by a PodDisruptionBudget: the generator no longer exercises PDBs")
	}
}
