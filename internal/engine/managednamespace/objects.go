// Package managednamespace holds what a Fleet managed namespace
// (fleets/managedNamespaces, fleets.json 2026-06-01) becomes on the hub and,
// through its placement, on every member it is placed on: the Namespace, its
// default ResourceQuota and its default NetworkPolicy, and the generated
// ClusterResourcePlacement that places them.
//
// Microsoft documents what is written only in words (learn.microsoft.com
// concepts-fleet-managed-namespace: "a generated, read-only, Fleet Manager
// Cluster Resource Placement (CRP)"; "If omitted, no resource quota is
// applied to the namespace"; the network policy rules AllowAll, DenyAll,
// AllowSameNamespace). The object names and the label below are this
// provider's choice, stated in docs/resources/managed_namespace.md; the local
// fleet's emulator writes exactly these objects, so the preview and the
// members' API servers agree.
package managednamespace

import (
	"fmt"
	"maps"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

const (
	// ManagedByLabel marks the hub's Namespace and CRP as written by the
	// Fleet API (the concepts page: Keep "removes the managed-by-ARM label").
	ManagedByLabel = "kubernetes.azure.com/managedByArm"
	// ResourceIDAnnotation names the ARM resource on the generated CRP.
	ResourceIDAnnotation = "kubernetes.azure.com/managedNamespaceResourceId"
	// QuotaName and NetworkPolicyName name the default objects in the namespace.
	QuotaName         = "default"
	NetworkPolicyName = "default"
)

// Objects is what the managed namespace name with properties p writes in
// the namespace, in order: the Namespace, then the ResourceQuota and the
// NetworkPolicy when p asks for them.
type Objects struct {
	Namespace     *corev1.Namespace
	ResourceQuota *corev1.ResourceQuota
	NetworkPolicy *networkingv1.NetworkPolicy
}

// Build writes the objects of a managed namespace. A quantity that does not
// parse is an error naming the field (the API gives no pattern; a
// Kubernetes ResourceQuota refuses it).
func Build(name string, p *fleetapi.ManagedNamespaceProperties) (Objects, error) {
	if p == nil {
		p = &fleetapi.ManagedNamespaceProperties{}
	}
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}, Annotations: maps.Clone(p.Annotations)},
	}
	for k, v := range p.Labels {
		ns.Labels[k] = v
	}
	ns.Labels[ManagedByLabel] = "true"
	out := Objects{Namespace: ns}
	if q := p.DefaultResourceQuota; q != nil {
		hard, err := QuotaHard(*q)
		if err != nil {
			return Objects{}, err
		}
		if len(hard) > 0 {
			out.ResourceQuota = &corev1.ResourceQuota{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"},
				ObjectMeta: metav1.ObjectMeta{Name: QuotaName, Namespace: name},
				Spec:       corev1.ResourceQuotaSpec{Hard: hard},
			}
		}
	}
	if np := p.DefaultNetworkPolicy; np != nil && (np.Ingress != "" || np.Egress != "") {
		pol, err := networkPolicy(name, *np)
		if err != nil {
			return Objects{}, err
		}
		out.NetworkPolicy = pol
	}
	return out, nil
}

// QuotaHard is the ResourceQuota's spec.hard: cpuRequest → requests.cpu,
// cpuLimit → limits.cpu, memoryRequest → requests.memory, memoryLimit →
// limits.memory (the spec's descriptions point to the Kubernetes meaning of
// CPU and memory requests and limits).
func QuotaHard(q fleetapi.ResourceQuota) (corev1.ResourceList, error) {
	hard := corev1.ResourceList{}
	for _, f := range []struct {
		field, value string
		name         corev1.ResourceName
	}{
		{"cpuRequest", q.CPURequest, corev1.ResourceRequestsCPU},
		{"cpuLimit", q.CPULimit, corev1.ResourceLimitsCPU},
		{"memoryRequest", q.MemoryRequest, corev1.ResourceRequestsMemory},
		{"memoryLimit", q.MemoryLimit, corev1.ResourceLimitsMemory},
	} {
		if f.value == "" {
			continue
		}
		qty, err := resource.ParseQuantity(f.value)
		if err != nil {
			return nil, fmt.Errorf("defaultResourceQuota.%s %q is not a Kubernetes quantity: %v", f.field, f.value, err)
		}
		if qty.Sign() < 0 {
			// k8s.io/kubernetes pkg/apis/core/validation ValidateResourceQuantityValue: "must be greater than or equal to 0".
			return nil, fmt.Errorf("defaultResourceQuota.%s %q must be greater than or equal to 0", f.field, f.value)
		}
		hard[f.name] = qty
	}
	return hard, nil
}

// networkPolicy selects every pod of the namespace; each direction given
// becomes a policy type: AllowAll is one empty rule (all peers), DenyAll no
// rule, AllowSameNamespace one rule whose peer is every pod of the namespace
// (an empty podSelector without a namespaceSelector: kubernetes.io
// network-policies "allow all traffic within the namespace").
func networkPolicy(ns string, np fleetapi.NetworkPolicy) (*networkingv1.NetworkPolicy, error) {
	pol := &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: NetworkPolicyName, Namespace: ns},
		Spec:       networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{}},
	}
	samePods := []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}
	if np.Ingress != "" {
		pol.Spec.PolicyTypes = append(pol.Spec.PolicyTypes, networkingv1.PolicyTypeIngress)
		switch np.Ingress {
		case fleetapi.PolicyRuleAllowAll:
			pol.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
		case fleetapi.PolicyRuleDenyAll:
		case fleetapi.PolicyRuleAllowSameNS:
			pol.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{From: samePods}}
		default:
			return nil, fmt.Errorf("defaultNetworkPolicy.ingress %q is not one of AllowAll, DenyAll, AllowSameNamespace", np.Ingress)
		}
	}
	if np.Egress != "" {
		pol.Spec.PolicyTypes = append(pol.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		switch np.Egress {
		case fleetapi.PolicyRuleAllowAll:
			pol.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}}
		case fleetapi.PolicyRuleDenyAll:
		case fleetapi.PolicyRuleAllowSameNS:
			pol.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: samePods}}
		default:
			return nil, fmt.Errorf("defaultNetworkPolicy.egress %q is not one of AllowAll, DenyAll, AllowSameNamespace", np.Egress)
		}
	}
	return pol, nil
}

// WhenToTakeOver maps adoptionPolicy onto KubeFleet's apply strategy
// (apis/placement/v1 WhenToTakeOverType): Never → Never ("do not take over
// the existing Namespace"), IfIdentical → IfNoDiff ("if there is an
// identical Namespace, take over"), Always → Always.
func WhenToTakeOver(adoption string) (placementv1.WhenToTakeOverType, error) {
	switch adoption {
	case fleetapi.AdoptionPolicyNever:
		return placementv1.WhenToTakeOverTypeNever, nil
	case fleetapi.AdoptionPolicyIfIdentical:
		return placementv1.WhenToTakeOverTypeIfNoDiff, nil
	case fleetapi.AdoptionPolicyAlways:
		return placementv1.WhenToTakeOverTypeAlways, nil
	}
	return "", fmt.Errorf("adoptionPolicy %q is not one of Never, IfIdentical, Always", adoption)
}

// Placement is the generated ClusterResourcePlacement: named as the
// namespace, selecting the Namespace (KubeFleet places a selected namespace
// with everything in it), with the API's policy (nil: PickAll) and the
// adoption policy as its apply strategy's whenToTakeOver.
func Placement(id, name string, p *fleetapi.FleetManagedNamespaceProperties) (*placementv1.ClusterResourcePlacement, error) {
	take, err := WhenToTakeOver(p.AdoptionPolicy)
	if err != nil {
		return nil, err
	}
	var policy *placementv1.PlacementPolicy
	if pp := p.PropagationPolicy; pp != nil && pp.PlacementProfile != nil && pp.PlacementProfile.DefaultClusterResourcePlacement != nil {
		policy = pp.PlacementProfile.DefaultClusterResourcePlacement.Policy.ToKubeFleet()
	}
	if policy == nil {
		policy = &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
	}
	return &placementv1.ClusterResourcePlacement{
		TypeMeta: metav1.TypeMeta{APIVersion: placementv1.GroupVersion.String(), Kind: "ClusterResourcePlacement"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{ManagedByLabel: "true"},
			Annotations: map[string]string{ResourceIDAnnotation: id},
		},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}},
			Policy:            policy,
			Strategy: placementv1.RolloutStrategy{
				ApplyStrategy: &placementv1.ApplyStrategy{WhenToTakeOver: take},
			},
		},
	}, nil
}
