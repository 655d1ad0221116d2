package acctest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// HubClient is a client of the local fleet's hub (KUBE_CONFIG_PATH of its
// env file), for tests' checks and out-of-band changes.
func HubClient(t testing.TB) client.Client {
	t.Helper()
	cfg := hubRESTConfig(t)
	c, err := client.New(cfg, client.Options{Scheme: localfleet.HubScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hubRESTConfig is the local fleet's hub (KUBE_CONFIG_PATH of its env file).
func hubRESTConfig(t testing.TB) *rest.Config {
	t.Helper()
	Current(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBE_CONFIG_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// HubClients are the hub's typed clients, for tests' changes behind Terraform's back.
type HubClients struct {
	Hub   *hub.Client
	typed kubernetes.Interface
}

// HubKube is the local fleet's hub through the provider's own Kubernetes
// client (KUBE_CONFIG_PATH of its env file).
func HubKube(t testing.TB) *kube.Client {
	t.Helper()
	cfg := hubRESTConfig(t)
	kc, err := kube.NewClient(cfg, "acctest")
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// NewHubClients reaches the local fleet's hub directly, for changes behind Terraform's back.
func NewHubClients(t *testing.T) *HubClients {
	t.Helper()
	kc := HubKube(t)
	return &HubClients{Hub: hub.New(kc), typed: kc.Kubernetes}
}

// CreateNamespace creates a namespace on the hub, unless it exists.
func (h *HubClients) CreateNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := h.typed.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// ScalePlacement sets a PickN placement's number of clusters on the hub.
func (h *HubClients) ScalePlacement(t *testing.T, name string, n int32) {
	t.Helper()
	p, err := h.Hub.Placement(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Policy.NumberOfClusters = &n
	if _, err := h.Hub.UpdatePlacementSpec(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// DeletePlacement deletes a placement on the hub and waits until the hub agent has finished.
func (h *HubClients) DeletePlacement(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Hub.DeletePlacement(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := h.Hub.WaitPlacementGone(ctx, name, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// WaitForResourceIndex waits until the hub agent has cut the placement's resource snapshot of
// that index and labelled it latest.
func (h *HubClients) WaitForResourceIndex(t *testing.T, name, index string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		v, err := h.Hub.ResourceVersions(ctx, name)
		if err != nil {
			return false, err
		}
		last = v.Latest
		return v.Latest == index, nil
	})
	if err != nil {
		t.Fatalf("placement %s: want latest resource snapshot %s, have %q: %v", name, index, last, err)
	}
}

// WaitForBindings waits until the hub agent has bound the placement to n clusters.
func (h *HubClients) WaitForBindings(t *testing.T, placement string, n int) {
	t.Helper()
	if err := Eventually(2*time.Minute, fmt.Sprintf("%d bindings of placement %s", n, placement), func() (bool, string) {
		bs, err := h.Hub.Bindings(context.Background(), placement)
		if err != nil {
			return false, err.Error()
		}
		return len(bs) == n, fmt.Sprintf("%d bindings", len(bs))
	}); err != nil {
		t.Fatal(err)
	}
}

// MemberClient is a client of a member's own kube-apiserver (the local fleet's
// <dir>/member-<name>.kubeconfig), where KubeFleet's real member agent applies
// the member's Works: for reading placed objects and changing them by hand.
func MemberClient(t testing.TB, member string) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(Current(t).Dir, "member-"+member+".kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: localfleet.HubScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MemberNamespace creates ns on member's own API server, where KubeFleet's real member agent
// applies: a ResourcePlacement places namespaced objects into a namespace the member already has
// (it places no namespace itself), so a member without it fails the apply.
func MemberNamespace(t testing.TB, member, ns string) {
	t.Helper()
	err := MemberClient(t, member).Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
