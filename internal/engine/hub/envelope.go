package hub

import (
	"context"
	"fmt"
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Envelopes: ConfigMaps annotated kubernetes-fleet.io/envelope-configmap, whose data values KubeFleet's
// work generator places on members instead of the ConfigMap (pkg/controllers/workgenerator/controller.go).

// envelopeAnnotationValue is what the provider writes; KubeFleet checks only that the value is not empty.
const envelopeAnnotationValue = "true"

// IsEnvelope reports whether KubeFleet treats cm as an envelope: the annotation with any non-empty
// value (workgenerator/controller.go).
func IsEnvelope(cm *corev1.ConfigMap) bool {
	return len(cm.Annotations[placementv1beta1.EnvelopeConfigMapAnnotation]) != 0
}

// Envelope reads the ConfigMap namespace/name.
func (c *Client) Envelope(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	return c.kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
}

// CreateEnvelope creates the envelope ConfigMap namespace/name holding data.
func (c *Client) CreateEnvelope(ctx context.Context, namespace, name string, data map[string]string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   namespace,
			Name:        name,
			Annotations: map[string]string{placementv1beta1.EnvelopeConfigMapAnnotation: envelopeAnnotationValue},
		},
		Data: data,
	}
	return c.kube.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{FieldManager: FieldManager})
}

// UpdateEnvelope replaces the data of the ConfigMap namespace/name with data (keys not in data are
// removed) and marks it as an envelope, keeping its other labels and annotations; it retries on
// conflicts.
func (c *Client) UpdateEnvelope(ctx context.Context, namespace, name string, data map[string]string) (*corev1.ConfigMap, error) {
	for {
		cur, err := c.Envelope(ctx, namespace, name)
		if err != nil {
			return nil, err
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		if !IsEnvelope(cur) {
			cur.Annotations[placementv1beta1.EnvelopeConfigMapAnnotation] = envelopeAnnotationValue
		}
		cur.Data = maps.Clone(data)
		got, err := c.kube.CoreV1().ConfigMaps(namespace).Update(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager})
		if IsConflict(err) && ctx.Err() == nil {
			continue
		}
		return got, err
	}
}

// DeleteEnvelope deletes the ConfigMap namespace/name; a missing one is not an error. KubeFleet then
// deletes the envelope's Works, and the members the objects.
func (c *Client) DeleteEnvelope(ctx context.Context, namespace, name string) error {
	err := c.kube.CoreV1().ConfigMaps(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// EnvelopeWorks lists the Works the hub agent generated for the envelope namespace/name for member
// (in the member's namespace fleet-member-<member>), found by the labels the work generator sets.
func (c *Client) EnvelopeWorks(ctx context.Context, member, namespace, name string) ([]placementv1.Work, error) {
	return c.memberWorks(ctx, member, labels.Set{
		placementv1beta1.EnvelopeTypeLabel:      string(placementv1beta1.ConfigMapEnvelopeType),
		placementv1beta1.EnvelopeNamespaceLabel: namespace,
		placementv1beta1.EnvelopeNameLabel:      name,
	})
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
