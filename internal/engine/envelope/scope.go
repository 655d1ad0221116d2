package envelope

import (
	"encoding/json"
	"fmt"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// The kinds of KubeFleet v0.18.9's envelopes, both only in placement.kubernetes-fleet.io/v1beta1
// (apis/placement/v1beta1/commons.go, envelope_types.go).
const (
	ClusterKind    = placementv1beta1.ClusterResourceEnvelopeKind
	NamespacedKind = placementv1beta1.ResourceEnvelopeKind
)

// Kind is the envelope kind for an envelope in namespace: a ClusterResourceEnvelope without one, a
// ResourceEnvelope with one.
func Kind(namespace string) string {
	if namespace == "" {
		return ClusterKind
	}
	return NamespacedKind
}

// MaxManifests is the most objects an envelope holds: the CRDs' data has minProperties 1 and
// maxProperties 50 (config/crd/bases/placement.kubernetes-fleet.io_clusterresourceenvelopes.yaml,
// _resourceenvelopes.yaml).
const MaxManifests = 50

// MaxBytes bounds an envelope's data (keys and JSON values): the hub stores the envelope in etcd,
// whose default request limit is 1.5 MiB (etcd's --max-request-bytes, 1572864); the envelope's
// metadata takes the rest.
const MaxBytes = 1536 * 1024

// Refusal is why KubeFleet v0.18.9's work generator refuses a wrapped object.
type Refusal int

const (
	// Accepted: the work generator places the object.
	Accepted Refusal = iota
	// NamespacedInCluster: an object with a metadata.namespace in a ClusterResourceEnvelope.
	NamespacedInCluster
	// ClusterScopedInNamespaced: an object without metadata.namespace in a ResourceEnvelope.
	ClusterScopedInNamespaced
	// OtherNamespace: an object of another namespace than its ResourceEnvelope's.
	OtherNamespace
)

// Check is the work generator's verdict on an object wrapped in the envelope of envNamespace (""
// for a ClusterResourceEnvelope), in the order it checks
// (pkg/controllers/workgenerator/envelope.go, extractManifestsFromEnvelopeCR). KubeFleet reads an
// object's scope from its metadata.namespace alone: an object without one is cluster-scoped to it.
func Check(envNamespace string, id ObjectID) Refusal {
	switch {
	case envNamespace == "" && id.Namespace != "":
		return NamespacedInCluster
	case envNamespace != "" && id.Namespace == "":
		return ClusterScopedInNamespaced
	case envNamespace != id.Namespace:
		return OtherNamespace
	}
	return Accepted
}

// Explain says what the work generator would do with a refused object and how to fix it; the
// quoted part is v0.18.9's error (envelope.go, extractManifestsFromEnvelopeCR).
func (r Refusal) Explain(envNamespace string, id ObjectID) string {
	switch r {
	case NamespacedInCluster:
		return fmt.Sprintf("%s has metadata.namespace %q, and the envelope is a %s (no namespace set). KubeFleet v0.18.9 "+
			"would refuse to place the envelope (\"a namespaced object ... has been wrapped in a cluster resource envelope\"). "+
			"Put namespaced objects in a %s: a fleet_envelope with namespace = %q.", id, id.Namespace, ClusterKind, NamespacedKind, id.Namespace)
	case ClusterScopedInNamespaced:
		return fmt.Sprintf("%s has no metadata.namespace, so KubeFleet v0.18.9 takes it for a cluster-scoped object, and the "+
			"envelope is a %s (namespace %q). KubeFleet would refuse to place the envelope (\"a cluster scope object ... has "+
			"been wrapped in a resource envelope\"). Put cluster-scoped objects in a %s (a fleet_envelope without namespace), "+
			"or set metadata.namespace = %q on a namespaced object.", id, NamespacedKind, envNamespace, ClusterKind, envNamespace)
	case OtherNamespace:
		return fmt.Sprintf("%s is in namespace %q, and the envelope is a %s of namespace %q. KubeFleet v0.18.9 would refuse "+
			"to place the envelope (\"a namespaced object ... has been wrapped in a resource envelope from another namespace\"). "+
			"A %s holds objects of its own namespace only.", id, id.Namespace, NamespacedKind, envNamespace, NamespacedKind)
	}
	return ""
}

// ScopeMismatch says why an object KubeFleet accepts by its metadata.namespace would still fail on
// the members, given whether its kind is namespaced (as the hub's discovery says; the member's
// work applier reaches the object in its kind's scope, pkg/controllers/workapplier): a namespaced
// kind without a namespace, or a cluster-scoped kind with one. "" when the scope fits.
func ScopeMismatch(namespaced bool, id ObjectID) string {
	switch {
	case namespaced && id.Namespace == "":
		return fmt.Sprintf("%s is of a namespaced kind (the hub's API says so) and has no metadata.namespace: KubeFleet "+
			"v0.18.9 takes it for a cluster-scoped object and places it, and the members cannot apply it. Set its "+
			"metadata.namespace and put it in a %s of that namespace.", id, NamespacedKind)
	case !namespaced && id.Namespace != "":
		return fmt.Sprintf("%s is of a cluster-scoped kind (the hub's API says so) and has metadata.namespace %q: KubeFleet "+
			"v0.18.9 takes it for a namespaced object and places it, and the members cannot apply it. Remove its "+
			"metadata.namespace and put it in a %s.", id, id.Namespace, ClusterKind)
	}
	return ""
}

// IsSecret reports whether the object is a core Secret.
func IsSecret(id ObjectID) bool { return id.Group == "" && id.Kind == "Secret" }

// Redacted is a Secret's document without its contents: apiVersion, kind and metadata only, so
// that reading an envelope that holds a Secret (put there outside Terraform) keeps its data out of
// Terraform's state.
func Redacted(d Document) string {
	var obj map[string]any
	if json.Unmarshal(d.JSON, &obj) != nil {
		return ""
	}
	out := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": obj["metadata"]}
	if md, ok := out["metadata"].(map[string]any); ok {
		// Annotations can hold the data too (kubectl's last-applied-configuration).
		delete(md, "annotations")
		delete(md, "managedFields")
	}
	b, _ := json.Marshal(out)
	return string(b)
}
