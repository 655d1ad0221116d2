package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Envelopes: KubeFleet v0.18.9's ClusterResourceEnvelope (cluster-scoped objects) and
// ResourceEnvelope (objects of its namespace), whose data values the work generator places on
// members instead of the envelope (pkg/controllers/workgenerator/envelope.go). Both kinds exist in
// v1beta1 only (config/crd/bases/placement.kubernetes-fleet.io_*resourceenvelopes.yaml).
var (
	ClusterEnvelopeGVR  = placementv1beta1.GroupVersion.WithResource("clusterresourceenvelopes")
	ResourceEnvelopeGVR = placementv1beta1.GroupVersion.WithResource("resourceenvelopes")
)

// envelopeKind is the kind and resource of the envelope in namespace ("" for a ClusterResourceEnvelope).
func envelopeKind(namespace string) (string, placementv1beta1.EnvelopeType) {
	if namespace == "" {
		return placementv1beta1.ClusterResourceEnvelopeKind, placementv1beta1.ClusterResourceEnvelopeType
	}
	return placementv1beta1.ResourceEnvelopeKind, placementv1beta1.ResourceEnvelopeType
}

func (c *Client) envelopes(ctx context.Context, namespace string) (dynamic.ResourceInterface, string, error) {
	gvr := ClusterEnvelopeGVR
	if namespace != "" {
		gvr = ResourceEnvelopeGVR
	}
	gvr, err := c.resolve(ctx, gvr)
	if err != nil {
		return nil, "", err
	}
	r := c.dyn.Resource(gvr)
	if namespace == "" {
		return r, gvr.GroupVersion().String(), nil
	}
	return r.Namespace(namespace), gvr.GroupVersion().String(), nil
}

// Envelope reads the envelope namespace/name: a ResourceEnvelope, or a ClusterResourceEnvelope
// when namespace is "".
func (c *Client) Envelope(ctx context.Context, namespace, name string) (placementv1beta1.EnvelopeReader, error) {
	r, _, err := c.envelopes(ctx, namespace)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		e, err := decode[placementv1beta1.ClusterResourceEnvelope](u)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	e, err := decode[placementv1beta1.ResourceEnvelope](u)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// envelopeData is data as the unstructured envelope holds it.
func envelopeData(data map[string]runtime.RawExtension) (map[string]any, error) {
	out := make(map[string]any, len(data))
	for k, v := range data {
		var obj map[string]any
		if err := json.Unmarshal(v.Raw, &obj); err != nil {
			return nil, fmt.Errorf("envelope data %q: %w", k, err)
		}
		out[k] = obj
	}
	return out, nil
}

// CreateEnvelope creates the envelope namespace/name (a ClusterResourceEnvelope when namespace is
// "") holding data.
func (c *Client) CreateEnvelope(ctx context.Context, namespace, name string, data map[string]runtime.RawExtension) error {
	r, apiVersion, err := c.envelopes(ctx, namespace)
	if err != nil {
		return err
	}
	d, err := envelopeData(data)
	if err != nil {
		return err
	}
	kind, _ := envelopeKind(namespace)
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "data": d}}
	u.SetName(name)
	u.SetNamespace(namespace)
	_, err = r.Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
	return err
}

// UpdateEnvelope replaces the data of the envelope namespace/name (keys not in data are removed),
// keeping its labels and annotations; it retries on conflicts.
func (c *Client) UpdateEnvelope(ctx context.Context, namespace, name string, data map[string]runtime.RawExtension) error {
	r, _, err := c.envelopes(ctx, namespace)
	if err != nil {
		return err
	}
	d, err := envelopeData(data)
	if err != nil {
		return err
	}
	for {
		cur, err := r.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Object["data"] = d
		_, err = r.Update(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager})
		if IsConflict(err) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// DeleteEnvelope deletes the envelope namespace/name; a missing one is not an error. KubeFleet then
// deletes the envelope's Works, and the members the objects.
func (c *Client) DeleteEnvelope(ctx context.Context, namespace, name string) error {
	r, _, err := c.envelopes(ctx, namespace)
	if err != nil {
		return err
	}
	err = r.Delete(ctx, name, metav1.DeleteOptions{})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// EnvelopeWorks lists the Works the hub agent generated for the envelope namespace/name ("": a
// ClusterResourceEnvelope) for member (in the member's namespace fleet-member-<member>), found by
// the labels the work generator sets: the envelope's type and name, and its namespace for a
// ResourceEnvelope (pkg/controllers/workgenerator/envelope.go, buildNewWorkForEnvelopeCR).
func (c *Client) EnvelopeWorks(ctx context.Context, member, namespace, name string) ([]placementv1.Work, error) {
	_, typ := envelopeKind(namespace)
	sel := labels.Set{
		placementv1beta1.EnvelopeTypeLabel: string(typ),
		placementv1beta1.EnvelopeNameLabel: name,
	}
	if namespace != "" {
		sel[placementv1beta1.EnvelopeNamespaceLabel] = namespace
	}
	return c.memberWorks(ctx, member, sel)
}

// PlacementWorks lists every Work the hub agent generated for a placement for member, envelope
// Works included.
func (c *Client) PlacementWorks(ctx context.Context, member, placement string) ([]placementv1.Work, error) {
	return c.memberWorks(ctx, member, labels.Set{placementv1beta1.PlacementTrackingLabel: placement})
}

func (c *Client) memberWorks(ctx context.Context, member string, sel labels.Set) ([]placementv1.Work, error) {
	r, err := c.res(ctx, WorkGVR)
	if err != nil {
		return nil, err
	}
	l, err := r.Namespace(MemberNamespace(member)).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	out := make([]placementv1.Work, 0, len(l.Items))
	for i := range l.Items {
		w, err := decode[placementv1.Work](&l.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// MemberNamespace is the hub namespace of a member's Works (KubeFleet's pkg/utils/common.go, NamespaceNameFormat).
func MemberNamespace(member string) string { return fmt.Sprintf("fleet-member-%s", member) }

// The ConfigMap envelopes of KubeFleet v0.14 (a ConfigMap annotated
// kubernetes-fleet.io/envelope-configmap), which v0.18.9 places as plain ConfigMaps: read and
// deleted only to migrate them to envelope objects.

// IsConfigMapEnvelope reports whether KubeFleet v0.14 treated cm as an envelope: the annotation
// with any non-empty value.
func IsConfigMapEnvelope(cm *corev1.ConfigMap) bool {
	return len(cm.Annotations[placementv1beta1.EnvelopeConfigMapAnnotation]) != 0
}

// ConfigMapEnvelope reads the ConfigMap namespace/name.
func (c *Client) ConfigMapEnvelope(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	return c.kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
}

// DeleteConfigMapEnvelope deletes the ConfigMap namespace/name; a missing one is not an error.
func (c *Client) DeleteConfigMapEnvelope(ctx context.Context, namespace, name string) error {
	err := c.kube.CoreV1().ConfigMaps(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// discovered keeps, per client, the hub's answers on the group versions envelopes' objects use, so a
// plan of many envelopes asks once per group version and process.
var discovered sync.Map // *Client → *sync.Map of schema.GroupVersion → *metav1.APIResourceList

func (c *Client) groupVersionResources(gv schema.GroupVersion) (*metav1.APIResourceList, error) {
	m, _ := discovered.LoadOrStore(c, &sync.Map{})
	cache, _ := m.(*sync.Map)
	if rl, ok := cache.Load(gv); ok {
		l, _ := rl.(*metav1.APIResourceList)
		return l, nil
	}
	rl, err := c.disc.ServerResourcesForGroupVersion(gv.String())
	if IsNotFound(err) {
		rl, err = &metav1.APIResourceList{}, nil // not served: remembered too
	}
	if err != nil {
		return nil, err
	}
	cache.Store(gv, rl)
	return rl, nil
}

// Namespaced reports, for each kind the hub serves, whether its objects are namespaced, from the
// hub's discovery (the scope a RESTMapper gives them); kinds the hub does not serve (a member's
// CRDs) are left out. Without a discovery client (hubtest) the answer is empty.
func (c *Client) Namespaced(gvks []schema.GroupVersionKind) (map[schema.GroupVersionKind]bool, error) {
	out := map[schema.GroupVersionKind]bool{}
	if c.disc == nil {
		return out, nil
	}
	byGV := map[schema.GroupVersion][]schema.GroupVersionKind{}
	for _, gvk := range gvks {
		byGV[gvk.GroupVersion()] = append(byGV[gvk.GroupVersion()], gvk)
	}
	for gv, kinds := range byGV {
		rl, err := c.groupVersionResources(gv)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("discovering the hub's %s API: %w", gv, err)
		}
		for _, r := range rl.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			for _, gvk := range kinds {
				if r.Kind == gvk.Kind {
					out[gvk] = r.Namespaced
				}
			}
		}
	}
	return out, nil
}
