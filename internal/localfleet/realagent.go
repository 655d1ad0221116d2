package localfleet

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// KubeFleet's real member agent (go.goms.io/fleet v0.18.9 cmd/memberagent) runs for every member
// with its own kube-apiserver: its work applier applies the member's Works there, detects drifts,
// reports diffs (ReportDiff) and takes over or refuses pre-existing objects, and writes the Works'
// status on the hub. The simulated agent keeps the member's join, heartbeats and properties (the
// fleet file's, which previews and tests rely on) and stops writing the member's Work status. The
// real agent's InternalMemberCluster controller also runs (v0.18.9 cannot turn it off: it is what
// lets the work applier join); its hub identity may read the IMC but not write its status, so the
// hub's view of the member stays the simulated agent's.

// appliedWorkCRD is the one CRD v0.18.9's member agent needs on the member (main.go checks for
// AppliedWork at start).
const appliedWorkCRD = "placement.kubernetes-fleet.io_appliedworks.yaml"

// realAgentRequeueSeconds caps the work applier's requeue backoff: production waits up to 900 s
// between re-checks of an applied Work (cmd/memberagent/options/applier.go); the local fleet
// re-checks every few seconds, so a drift made by hand shows on the next refresh.
const realAgentRequeueSeconds = "5"

type realMemberAgent struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

// memberAgentUser is the real agent's user on the hub (the CN of its client certificate).
func memberAgentUser(member string) string { return "localfleet:member-agent:" + member }

// startRealMemberAgent grants the member's hub identity what its work applier needs in the
// member's hub namespace (which the hub agent made when the member joined) and starts the agent.
func startRealMemberAgent(ctx context.Context, cfg Config, hubSrv, member *apiServer, name string) (*realMemberAgent, error) {
	ns := imcKey(name).Namespace
	user := memberAgentUser(name)
	if err := grantMemberAgent(ctx, hubSrv.client, ns, user); err != nil {
		return nil, fmt.Errorf("member agent %s: hub RBAC: %w", name, err)
	}
	id, err := hubSrv.env.ControlPlane.AddUser(envtest.User{Name: user}, &rest.Config{})
	if err != nil {
		return nil, fmt.Errorf("member agent %s: hub identity: %w", name, err)
	}
	idc := id.Config()
	dir := filepath.Join(cfg.Dir, "memberagent-"+name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	certFile, keyFile := filepath.Join(dir, "identity.crt"), filepath.Join(dir, "identity.key")
	if err := os.WriteFile(certFile, idc.CertData, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyFile, idc.KeyData, 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(cfg.Dir, "memberagent-"+name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(cfg.BinDir, "memberagent"),
		"--use-ca-auth=true",
		"--leader-elect=false",
		"--hub-health-probe-bind-address=0", "--hub-metrics-bind-address=0",
		"--health-probe-bind-address=0", "--metrics-bind-address=0",
		"--work-applier-requeue-rate-limiter-fixed-delay-seconds=2",
		"--work-applier-requeue-rate-limiter-max-slow-backoff-delay-seconds="+realAgentRequeueSeconds,
		"--work-applier-requeue-rate-limiter-max-fast-backoff-delay-seconds="+realAgentRequeueSeconds,
		"--deletion-wait-time=1",
		"--v=2",
	)
	// The variables cmd/memberagent/main.go reads (buildHubConfig); the member's own API server
	// through controller-runtime's KUBECONFIG.
	cmd.Env = append(os.Environ(),
		"HUB_SERVER_URL="+hubSrv.admin.Host,
		"MEMBER_CLUSTER_NAME="+name,
		"IDENTITY_CERT="+certFile,
		"IDENTITY_KEY="+keyFile,
		"HUB_CERTIFICATE_AUTHORITY="+base64.StdEncoding.EncodeToString(idc.CAData),
		"KUBECONFIG="+member.kubeconfigPath(cfg.Dir),
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start member agent %s: %w", cmd.Path, err)
	}
	a := &realMemberAgent{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { a.done <- cmd.Wait(); logf.Close() }()
	return a, nil
}

// grantMemberAgent gives user what v0.18.9's work applier does on the hub in ns: Works and their
// status, events; the IMC read-only (see above).
func grantMemberAgent(ctx context.Context, c client.Client, ns, user string) error {
	const name = "localfleet-member-agent"
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"placement.kubernetes-fleet.io"}, Resources: []string{"works"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
			{APIGroups: []string{"placement.kubernetes-fleet.io"}, Resources: []string{"works/status"}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{"cluster.kubernetes-fleet.io"}, Resources: []string{"internalmemberclusters"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
			{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

func (a *realMemberAgent) stop() {
	if a == nil || a.cmd.Process == nil {
		return
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

// The local fleet runs no kube-controller-manager, and the work applier relies on the member's
// garbage collector: it deletes a gone Work's AppliedWork with foreground propagation
// (workapplier/controller.go garbageCollectAppliedWork) and waits until the collector has deleted the
// objects the AppliedWork owns. memberGC does that collector's part for AppliedWorks, as
// Kubernetes documents foreground cascading deletion (concepts/architecture/garbage-collection):
// each dependent is deleted (or, with other owners, only loses the AppliedWork's owner reference),
// a deleted namespace is finalized as the namespace controller would once the dependents inside it
// are gone, and then the owner's foregroundDeletion finalizer is removed.

var appliedWorkGVR = schema.GroupVersionResource{Group: "placement.kubernetes-fleet.io", Version: "v1beta1", Resource: "appliedworks"}

const foregroundDeletion = metav1.FinalizerDeleteDependents

// memberGC collects deleted AppliedWorks on a member's API server every gcPeriod until ctx ends.
func memberGC(ctx context.Context, member *apiServer, logf func(string, ...any)) {
	dyn, err := dynamic.NewForConfig(member.admin)
	if err != nil {
		logf("member %s: garbage collector: %v", member.name, err)
		return
	}
	cs, err := kubernetes.NewForConfig(member.admin)
	if err != nil {
		logf("member %s: garbage collector: %v", member.name, err)
		return
	}
	tick := time.NewTicker(gcPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := collectAppliedWorks(ctx, dyn, cs); err != nil && ctx.Err() == nil {
			logf("member %s: garbage collector: %v", member.name, err)
		}
	}
}

const gcPeriod = 500 * time.Millisecond

func collectAppliedWorks(ctx context.Context, dyn dynamic.Interface, cs kubernetes.Interface) error {
	list, err := dyn.Resource(appliedWorkGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range list.Items {
		aw := &list.Items[i]
		if aw.GetDeletionTimestamp() == nil || !slices.Contains(aw.GetFinalizers(), foregroundDeletion) {
			continue
		}
		remaining, err := deleteDependents(ctx, dyn, cs, aw)
		if err != nil {
			return fmt.Errorf("appliedwork %s: %w", aw.GetName(), err)
		}
		if remaining > 0 {
			continue // deleted, not gone yet: the next round looks again
		}
		aw.SetFinalizers(slices.DeleteFunc(aw.GetFinalizers(), func(f string) bool { return f == foregroundDeletion }))
		if _, err := dyn.Resource(appliedWorkGVR).Update(ctx, aw, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("appliedwork %s: %w", aw.GetName(), err)
		}
	}
	return nil
}

// deleteDependents deletes what owner lists as applied and still owns, and says how many remain.
func deleteDependents(ctx context.Context, dyn dynamic.Interface, cs kubernetes.Interface, owner *unstructured.Unstructured) (int, error) {
	resources, _, _ := unstructured.NestedSlice(owner.Object, "status", "appliedResources")
	remaining := 0
	for _, r := range resources {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		gvr := schema.GroupVersionResource{Group: str("group"), Version: str("version"), Resource: str("resource")}
		ri := dyn.Resource(gvr).Namespace(str("namespace"))
		obj, err := ri.Get(ctx, str("name"), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		refs := obj.GetOwnerReferences()
		mine := slices.IndexFunc(refs, func(o metav1.OwnerReference) bool { return o.UID == owner.GetUID() })
		if mine < 0 {
			continue
		}
		if len(refs) > 1 { // other owners keep it: it only loses this owner
			obj.SetOwnerReferences(slices.Delete(refs, mine, mine+1))
			if _, err := ri.Update(ctx, obj, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return 0, err
			}
			remaining++
			continue
		}
		remaining++
		if obj.GetDeletionTimestamp() == nil {
			if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return 0, err
			}
		}
		if gvr.Group == "" && gvr.Resource == "namespaces" {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName()}}
			if _, err := cs.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return 0, err
			}
		}
	}
	return remaining, nil
}
