package localfleet

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

var (
	nodePoolGVK  = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}
	nodeClaimGVK = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaim"}
)

// Karpenter's well-known labels and finalizer (sigs.k8s.io/karpenter
// pkg/apis/v1/labels.go).
const (
	labelNodePool     = "karpenter.sh/nodepool"
	labelInitialized  = "karpenter.sh/initialized"
	labelRegistered   = "karpenter.sh/registered"
	terminationFinal  = "karpenter.sh/termination"
	memberAPIPrefix   = "member-"
	nodeCPU, nodeMemo = "8", "32Gi"
)

// startMemberAPI runs a member's own kube-apiserver with Karpenter's CRDs
// and seeds the NodePools, NodeClaims and Nodes the fleet file describes.
func startMemberAPI(ctx context.Context, cfg Config, m fleetfile.Member) (*apiServer, error) {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	// KubeFleet's AppliedWork CRD: the real member agent needs it (realagent.go).
	crds := []string{cfg.KarpenterCRDs, filepath.Join(cfg.FleetCRDs, appliedWorkCRD)}
	srv, err := startAPIServer(cfg, memberAPIPrefix+m.Name, crds, s)
	if err != nil {
		return nil, err
	}
	if err := seedKarpenter(ctx, srv, m, time.Now()); err != nil {
		srv.stop()
		return nil, fmt.Errorf("seed %s: %w", m.Name, err)
	}
	return srv, nil
}

func seedKarpenter(ctx context.Context, srv *apiServer, m fleetfile.Member, now time.Time) error {
	c := srv.client
	for _, p := range m.Karpenter.NodePools {
		np := &unstructured.Unstructured{}
		np.SetGroupVersionKind(nodePoolGVK)
		np.SetName(p.Name)
		tmpl := map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "default"},
			"requirements": []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}}},
		}
		if p.ExpireAfter != "" {
			tmpl["expireAfter"] = p.ExpireAfter
		}
		// No spec.disruption: the API server defaults it as it would for a user.
		template := map[string]any{"spec": tmpl}
		if len(p.TemplateAnnotations) > 0 {
			template["metadata"] = map[string]any{"annotations": stringMap(p.TemplateAnnotations)}
		}
		np.Object["spec"] = map[string]any{"template": template}
		if err := c.Create(ctx, np); err != nil {
			return fmt.Errorf("nodepool %s: %w", p.Name, err)
		}
		hash, stale, err := stampNodePoolHash(ctx, c, np)
		if err != nil {
			return fmt.Errorf("nodepool %s: %w", p.Name, err)
		}
		drifted := map[string]bool{}
		for _, n := range p.Drifted {
			drifted[n] = true
		}
		var created []string
		for i := 0; i < p.Nodes; i++ {
			name := p.NodeName(i)
			ready := i >= p.NotReady
			claimHash := hash
			if drifted[name] {
				claimHash = stale
			}
			if err := createNode(ctx, c, p, name, tmpl, claimHash, ready); err != nil {
				return err
			}
			created = append(created, name)
		}
		for _, pod := range p.Pods {
			if err := createPod(ctx, c, pod, now); err != nil {
				return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
		}
		// The last `deleting` nodes are being deleted: a finalizer holds them.
		for i := p.Nodes - p.Deleting; i < p.Nodes; i++ {
			if err := markDeleting(ctx, c, created[i]); err != nil {
				return err
			}
		}
		if err := backdateNodeClaims(ctx, srv, created, p.AgeHours, now); err != nil {
			return err
		}
	}
	for _, p := range m.Karpenter.PodDisruptionBudgets {
		if err := createPDB(ctx, c, p); err != nil {
			return fmt.Errorf("poddisruptionbudget %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// createPDB creates a PodDisruptionBudget and writes the status the kube-controller-manager's
// disruption controller would (the local fleet runs none): the fleet file's disruptionsAllowed.
func createPDB(ctx context.Context, c client.Client, p fleetfile.PodDisruptionBudget) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:     &metav1.LabelSelector{MatchLabels: p.MatchLabels},
			MinAvailable: p.MinAvailable, MaxUnavailable: p.MaxUnavailable,
		},
	}
	if p.UnhealthyPodEvictionPolicy != "" {
		pol := policyv1.UnhealthyPodEvictionPolicyType(p.UnhealthyPodEvictionPolicy)
		pdb.Spec.UnhealthyPodEvictionPolicy = &pol
	}
	if err := c.Create(ctx, pdb); err != nil {
		return err
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: p.DisruptionsAllowed}
	return c.Status().Update(ctx, pdb)
}

// stampNodePoolHash does what Karpenter's NodePool hash controller does: the NodePool, as the API
// server stored and defaulted it, gets karpenter.sh/nodepool-hash (Karpenter's own NodePool.Hash)
// and its version. stale is the hash of a different template, for NodeClaims launched before a
// change. sigs.k8s.io/karpenter pkg/controllers/nodepool/hash/controller.go.
func stampNodePoolHash(ctx context.Context, c client.Client, np *unstructured.Unstructured) (hash, stale string, err error) {
	if err := c.Get(ctx, client.ObjectKeyFromObject(np), np); err != nil {
		return "", "", err
	}
	b, err := json.Marshal(np.Object)
	if err != nil {
		return "", "", err
	}
	var typed karpv1.NodePool
	if err := json.Unmarshal(b, &typed); err != nil {
		return "", "", err
	}
	hash = typed.Hash()
	previous := typed.DeepCopy()
	previous.Spec.Template.Labels = map[string]string{"localfleet/template": "previous"}
	stale = previous.Hash()
	annotations := np.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[karpv1.NodePoolHashAnnotationKey] = hash
	annotations[karpv1.NodePoolHashVersionAnnotationKey] = karpv1.NodePoolHashVersion
	np.SetAnnotations(annotations)
	return hash, stale, c.Update(ctx, np)
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func createNode(ctx context.Context, c client.Client, p fleetfile.KarpenterNodePool, name string, tmpl map[string]any, hash string, ready bool) error {
	providerID := "azure:///subscriptions/local/resourceGroups/local/providers/Microsoft.Compute/virtualMachines/" + name
	nc := &unstructured.Unstructured{}
	nc.SetGroupVersionKind(nodeClaimGVK)
	nc.SetName(name)
	nc.SetLabels(map[string]string{labelNodePool: p.Name})
	// Karpenter launches a NodeClaim with the template's annotations and the NodePool's hash, and
	// copies the NodeClaim's annotations to the Node at registration.
	// pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go, pkg/controllers/nodeclaim/lifecycle/registration.go.
	claimAnnotations := map[string]string{karpv1.NodePoolHashAnnotationKey: hash, karpv1.NodePoolHashVersionAnnotationKey: karpv1.NodePoolHashVersion}
	maps.Copy(claimAnnotations, p.TemplateAnnotations)
	nc.SetAnnotations(claimAnnotations)
	spec := map[string]any{"nodeClassRef": tmpl["nodeClassRef"], "requirements": tmpl["requirements"]}
	if v, ok := tmpl["expireAfter"]; ok {
		spec["expireAfter"] = v // NodeClaims carry their own copy (karpenter.sh_nodeclaims.yaml)
	}
	nc.Object["spec"] = spec
	if err := c.Create(ctx, nc); err != nil {
		return fmt.Errorf("nodeclaim %s: %w", name, err)
	}
	readyStatus := "True"
	if !ready {
		readyStatus = "False"
	}
	conds := []any{}
	for _, t := range []string{"Launched", "Registered", "Initialized", "Ready"} {
		conds = append(conds, map[string]any{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": metav1.Now().Format(time.RFC3339)})
	}
	nc.Object["status"] = map[string]any{"nodeName": name, "providerID": providerID, "conditions": conds}
	if err := c.Status().Update(ctx, nc); err != nil {
		return fmt.Errorf("nodeclaim %s status: %w", name, err)
	}
	nodeAnnotations := maps.Clone(claimAnnotations)
	maps.Copy(nodeAnnotations, p.NodeAnnotations[name])
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: nodeAnnotations, Labels: map[string]string{
			labelNodePool: p.Name, labelInitialized: "true", labelRegistered: "true",
			"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
		}},
		Spec: corev1.NodeSpec{ProviderID: providerID},
	}
	if err := c.Create(ctx, node); err != nil {
		return fmt.Errorf("node %s: %w", name, err)
	}
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(nodeCPU), corev1.ResourceMemory: resource.MustParse(nodeMemo)}
	node.Status = corev1.NodeStatus{
		Capacity: capacity, Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionStatus(readyStatus), Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
	}
	if err := c.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("node %s status: %w", name, err)
	}
	return nil
}

// createPod binds a running pod to its node, as the scheduler and the kubelet would leave it: its
// namespace is created if need be, and a DaemonSet pod gets a DaemonSet owner.
func createPod(ctx context.Context, c client.Client, p fleetfile.KarpenterPod, now time.Time) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, Annotations: p.Annotations},
		Spec: corev1.PodSpec{
			NodeName:                     p.Node,
			AutomountServiceAccountToken: ptrTo(false),
			Containers:                   []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	if p.DaemonSet {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: p.Name + "-ds", UID: k8stypes.UID("localfleet-ds-" + p.Namespace + "-" + p.Name), Controller: ptrTo(true)}}
	}
	if err := c.Create(ctx, pod); err != nil {
		return err
	}
	started := metav1.NewTime(now.UTC().Truncate(time.Second))
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}}}
	if p.NotReady {
		pod.Status.Conditions[0].Status = corev1.ConditionFalse
	}
	return c.Status().Update(ctx, pod)
}

func ptrTo[T any](v T) *T { return &v }

func markDeleting(ctx context.Context, c client.Client, name string) error {
	nc := &unstructured.Unstructured{}
	nc.SetGroupVersionKind(nodeClaimGVK)
	node := &corev1.Node{}
	for _, obj := range []client.Object{nc, node} {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, obj); err != nil {
			return err
		}
		obj.SetFinalizers([]string{terminationFinal})
		if err := c.Update(ctx, obj); err != nil {
			return err
		}
		if err := c.Delete(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// backdateNodeClaims gives the first nodes the ages the fleet file asks for.
// The API server stamps creationTimestamp itself, so the seed rewrites the
// stored objects in etcd (custom resources are stored as JSON); the API
// server's watch on etcd carries the change to every client.
func backdateNodeClaims(ctx context.Context, srv *apiServer, names []string, ageHours []float64, now time.Time) error {
	if len(ageHours) == 0 {
		return nil
	}
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.env.ControlPlane.Etcd.URL.String()}, DialTimeout: 10 * time.Second})
	if err != nil {
		return err
	}
	defer etcd.Close()
	for i, hours := range ageHours {
		key := "/registry/karpenter.sh/nodeclaims/" + names[i]
		resp, err := etcd.Get(ctx, key)
		if err != nil {
			return err
		}
		if len(resp.Kvs) != 1 {
			return fmt.Errorf("nodeclaim %s not found in etcd at %s", names[i], key)
		}
		var obj map[string]any
		if err := json.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
			return fmt.Errorf("nodeclaim %s in etcd: %w", names[i], err)
		}
		created := now.Add(-time.Duration(hours * float64(time.Hour))).UTC().Truncate(time.Second)
		meta, ok := obj["metadata"].(map[string]any)
		if !ok {
			return fmt.Errorf("nodeclaim %s in etcd has no metadata", names[i])
		}
		meta["creationTimestamp"] = created.Format(time.RFC3339)
		b, _ := json.Marshal(obj)
		if _, err := etcd.Put(ctx, key, string(b)); err != nil {
			return err
		}
	}
	// Wait until the API server serves the backdated values.
	last := names[len(ageHours)-1]
	want := now.Add(-time.Duration(ageHours[len(ageHours)-1] * float64(time.Hour))).UTC().Truncate(time.Second)
	for {
		nc := &unstructured.Unstructured{}
		nc.SetGroupVersionKind(nodeClaimGVK)
		if err := srv.client.Get(ctx, client.ObjectKey{Name: last}, nc); err != nil {
			return err
		}
		if nc.GetCreationTimestamp().Time.Equal(want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
