// Package hub is the typed client of a KubeFleet hub: placements, their snapshots and bindings,
// staged update strategies, runs and approval requests, envelopes. Resources in internal/provider
// use it instead of unstructured maps and dynamic clients.
package hub

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// The hub's resources in KubeFleet v0.18.9's v1 API; resolve picks the version a hub serves.
var (
	PlacementGVR        = placementv1.GroupVersion.WithResource("clusterresourceplacements")
	BindingGVR          = placementv1.GroupVersion.WithResource("clusterresourcebindings")
	PolicySnapshotGVR   = placementv1.GroupVersion.WithResource("clusterschedulingpolicysnapshots")
	ResourceSnapshotGVR = placementv1.GroupVersion.WithResource("clusterresourcesnapshots")
	StrategyGVR         = placementv1.GroupVersion.WithResource("clusterstagedupdatestrategies")
	RunGVR              = placementv1.GroupVersion.WithResource("clusterstagedupdateruns")
	ApprovalGVR         = placementv1.GroupVersion.WithResource("clusterapprovalrequests")
	WorkGVR             = placementv1.GroupVersion.WithResource("works")
	MemberClusterGVR    = clusterv1.GroupVersion.WithResource("memberclusters")
	CRDGVR              = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// FieldManager is the provider's field manager on the hub.
const FieldManager = "terraform-provider-fleet"

// Client reaches one hub with KubeFleet's types.
type Client struct {
	dyn  dynamic.Interface
	kube kubernetes.Interface
	// meta lists objects' metadata only (resource snapshots carry the selected resources: only
	// their labels are wanted); nil without a REST configuration (hubtest), then lists are full.
	meta metadata.Interface
	// disc answers which API versions the hub serves (nil in hubtest: the versions named here).
	disc   discovery.DiscoveryInterface
	served served
}

// New wraps the clients of a hub connection.
func New(kc *kube.Client) *Client {
	c := &Client{dyn: kc.Dynamic, kube: kc.Kubernetes}
	if kc.Kubernetes != nil && kc.Config != nil {
		c.disc = kc.Kubernetes.Discovery()
	}
	if kc.Config != nil {
		if m, err := metadata.NewForConfig(kc.Config); err == nil {
			c.meta = m
		}
	}
	return c
}

// Kubernetes is the hub's typed core clientset (namespaces, config maps).
func (c *Client) Kubernetes() kubernetes.Interface { return c.kube }

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return apierrors.IsNotFound(err) }

// IsAlreadyExists reports whether err says the object exists already.
func IsAlreadyExists(err error) bool { return apierrors.IsAlreadyExists(err) }

// IsConflict reports whether err is an optimistic-concurrency conflict.
func IsConflict(err error) bool { return apierrors.IsConflict(err) }

// object is a pointer to one of KubeFleet's API types.
type object[T any] interface {
	*T
	runtime.Object
	metav1.Object
}

func decode[T any, P object[T]](u *unstructured.Unstructured) (P, error) {
	var t T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t); err != nil {
		return nil, fmt.Errorf("decoding %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return P(&t), nil
}

func encode(o runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", o, err)
	}
	delete(m, "status")
	return &unstructured.Unstructured{Object: m}, nil
}

// encodeFor encodes o for gvr's kind in the version the hub serves.
func (c *Client) encodeFor(ctx context.Context, gvr schema.GroupVersionResource, o runtime.Object) (dynamic.ResourceInterface, *unstructured.Unstructured, error) {
	gvr, err := c.resolve(ctx, gvr)
	if err != nil {
		return nil, nil, err
	}
	u, err := encode(o)
	if err != nil {
		return nil, nil, err
	}
	u.SetAPIVersion(gvr.GroupVersion().String())
	return c.dyn.Resource(gvr), u, nil
}

func get[T any, P object[T]](ctx context.Context, c *Client, gvr schema.GroupVersionResource, name string) (P, error) {
	r, err := c.res(ctx, gvr)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return decode[T, P](u)
}

// list returns the cluster-scoped objects matching sel (nil: all), sorted by name so callers see
// a stable order.
func list[T any, P object[T]](ctx context.Context, c *Client, gvr schema.GroupVersionResource, sel labels.Set) ([]T, error) {
	return listIn[T, P](ctx, c, scoped{cluster: gvr}, "", sel)
}

func create[T any, P object[T]](ctx context.Context, c *Client, gvr schema.GroupVersionResource, o P) (P, error) {
	r, u, err := c.encodeFor(ctx, gvr, o)
	if err != nil {
		return nil, err
	}
	got, err := r.Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, err
	}
	return decode[T, P](got)
}

func update[T any, P object[T]](ctx context.Context, c *Client, gvr schema.GroupVersionResource, o P) (P, error) {
	r, u, err := c.encodeFor(ctx, gvr, o)
	if err != nil {
		return nil, err
	}
	got, err := r.Update(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return nil, err
	}
	return decode[T, P](got)
}

// MemberClusters lists the hub's MemberClusters by name.
func (c *Client) MemberClusters(ctx context.Context) ([]clusterv1.MemberCluster, error) {
	return list[clusterv1.MemberCluster](ctx, c, MemberClusterGVR, nil)
}
