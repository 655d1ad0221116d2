package managednamespace

import (
	"reflect"
	"strings"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The expectations below are written from the Fleet API's words, not from
// Build: fleets.json ResourceQuota ("The CPU request for the managed
// namespace", …) and PolicyRule ("Allow all network traffic", "Deny all
// network traffic", "Allow traffic within the same namespace"), and the
// concepts page ("If omitted, no resource quota is applied").

func TestBuildFromTheExample(t *testing.T) {
	// FleetManagedNamespaces_Get.json (stable 2026-06-01).
	p := &fleetapi.ManagedNamespaceProperties{
		Labels:               map[string]string{"key1": "value1"},
		Annotations:          map[string]string{"key2": "value2"},
		DefaultResourceQuota: &fleetapi.ResourceQuota{CPURequest: "1", CPULimit: "1", MemoryRequest: "10Gi", MemoryLimit: "32Gi"},
		DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Ingress: "AllowSameNamespace", Egress: "AllowAll"},
	}
	o, err := Build("namespace1", p)
	if err != nil {
		t.Fatal(err)
	}
	if o.Namespace.Name != "namespace1" || o.Namespace.Labels["key1"] != "value1" || o.Namespace.Labels[ManagedByLabel] != "true" ||
		o.Namespace.Annotations["key2"] != "value2" {
		t.Errorf("namespace %+v", o.Namespace.ObjectMeta)
	}
	if p.Labels[ManagedByLabel] != "" {
		t.Error("Build wrote into the caller's labels")
	}
	want := corev1.ResourceList{
		corev1.ResourceRequestsCPU: resource.MustParse("1"), corev1.ResourceLimitsCPU: resource.MustParse("1"),
		corev1.ResourceRequestsMemory: resource.MustParse("10Gi"), corev1.ResourceLimitsMemory: resource.MustParse("32Gi"),
	}
	if o.ResourceQuota == nil || o.ResourceQuota.Namespace != "namespace1" || !equalResources(o.ResourceQuota.Spec.Hard, want) {
		t.Errorf("quota %+v", o.ResourceQuota)
	}
	np := o.NetworkPolicy
	if np == nil || np.Namespace != "namespace1" || len(np.Spec.PodSelector.MatchLabels)+len(np.Spec.PodSelector.MatchExpressions) != 0 {
		t.Fatalf("network policy %+v", np)
	}
	if !reflect.DeepEqual(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("policy types %v", np.Spec.PolicyTypes)
	}
	// Same namespace: a peer of every pod, no namespaceSelector (which would widen it to other namespaces).
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 || np.Spec.Ingress[0].From[0].PodSelector == nil ||
		np.Spec.Ingress[0].From[0].NamespaceSelector != nil || np.Spec.Ingress[0].From[0].IPBlock != nil {
		t.Errorf("ingress %+v", np.Spec.Ingress)
	}
	// All: one rule with no peer and no port matches all traffic.
	if !reflect.DeepEqual(np.Spec.Egress, []networkingv1.NetworkPolicyEgressRule{{}}) {
		t.Errorf("egress %+v", np.Spec.Egress)
	}
}

func TestBuildOmissions(t *testing.T) {
	o, err := Build("team-a", nil)
	if err != nil || o.ResourceQuota != nil || o.NetworkPolicy != nil || o.Namespace.Labels[ManagedByLabel] != "true" {
		t.Errorf("no properties: %+v %v", o, err)
	}
	// A quota with only a memory limit limits only that.
	o, _ = Build("team-a", &fleetapi.ManagedNamespaceProperties{DefaultResourceQuota: &fleetapi.ResourceQuota{MemoryLimit: "8Gi"}})
	if o.ResourceQuota == nil || len(o.ResourceQuota.Spec.Hard) != 1 {
		t.Errorf("memory limit only: %+v", o.ResourceQuota)
	}
	o, _ = Build("team-a", &fleetapi.ManagedNamespaceProperties{DefaultResourceQuota: &fleetapi.ResourceQuota{}, DefaultNetworkPolicy: &fleetapi.NetworkPolicy{}})
	if o.ResourceQuota != nil || o.NetworkPolicy != nil {
		t.Errorf("empty quota and policy wrote objects: %+v", o)
	}
	// Deny all ingress: an Ingress policy type with no rule; egress is left alone.
	o, _ = Build("team-a", &fleetapi.ManagedNamespaceProperties{DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Ingress: "DenyAll"}})
	if np := o.NetworkPolicy; np == nil || !reflect.DeepEqual(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) ||
		np.Spec.Ingress != nil || np.Spec.Egress != nil {
		t.Errorf("deny ingress: %+v", o.NetworkPolicy)
	}
	o, _ = Build("team-a", &fleetapi.ManagedNamespaceProperties{DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Egress: "AllowSameNamespace"}})
	if np := o.NetworkPolicy; np == nil || len(np.Spec.Egress) != 1 || len(np.Spec.Egress[0].To) != 1 || np.Spec.Ingress != nil {
		t.Errorf("same-namespace egress: %+v", o.NetworkPolicy)
	}
}

func TestBuildRefusesWhatKubernetesRefuses(t *testing.T) {
	for _, tc := range []struct {
		p    fleetapi.ManagedNamespaceProperties
		want string
	}{
		{fleetapi.ManagedNamespaceProperties{DefaultResourceQuota: &fleetapi.ResourceQuota{CPURequest: "two"}}, "defaultResourceQuota.cpuRequest"},
		{fleetapi.ManagedNamespaceProperties{DefaultResourceQuota: &fleetapi.ResourceQuota{MemoryLimit: "-1Gi"}}, "greater than or equal to 0"},
		{fleetapi.ManagedNamespaceProperties{DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Ingress: "Deny"}}, "defaultNetworkPolicy.ingress"},
		{fleetapi.ManagedNamespaceProperties{DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Egress: "allowall"}}, "defaultNetworkPolicy.egress"},
	} {
		if _, err := Build("team-a", &tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}

func TestPlacement(t *testing.T) {
	id := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f/managedNamespaces/team-a"
	crp, err := Placement(id, "team-a", &fleetapi.FleetManagedNamespaceProperties{AdoptionPolicy: "IfIdentical", DeletePolicy: "Keep"})
	if err != nil {
		t.Fatal(err)
	}
	// "If unspecified, all the joined member clusters are selected" (Placement.V1.ClusterResourcePlacementSpec.policy).
	if crp.Name != "team-a" || crp.Spec.Policy.PlacementType != placementv1.PickAllPlacementType ||
		crp.Labels[ManagedByLabel] != "true" || crp.Annotations[ResourceIDAnnotation] != id {
		t.Errorf("crp %+v", crp.ObjectMeta)
	}
	if want := []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "team-a"}}; !reflect.DeepEqual(crp.Spec.ResourceSelectors, want) {
		t.Errorf("selectors %+v", crp.Spec.ResourceSelectors)
	}
	if crp.Spec.Strategy.ApplyStrategy.WhenToTakeOver != placementv1.WhenToTakeOverTypeIfNoDiff {
		t.Errorf("IfIdentical took over %q", crp.Spec.Strategy.ApplyStrategy.WhenToTakeOver)
	}
	fixed := &fleetapi.FleetManagedNamespaceProperties{AdoptionPolicy: "Never", DeletePolicy: "Delete", PropagationPolicy: &fleetapi.PropagationPolicy{
		Type: "Placement", PlacementProfile: &fleetapi.PlacementProfile{DefaultClusterResourcePlacement: &fleetapi.ClusterResourcePlacementSpec{
			Policy: &fleetapi.PlacementPolicy{PlacementType: "PickFixed", ClusterNames: []string{"m1", "m2"}},
		}},
	}}
	crp, _ = Placement(id, "team-a", fixed)
	if crp.Spec.Policy.PlacementType != placementv1.PickFixedPlacementType || !reflect.DeepEqual(crp.Spec.Policy.ClusterNames, []string{"m1", "m2"}) ||
		crp.Spec.Strategy.ApplyStrategy.WhenToTakeOver != placementv1.WhenToTakeOverTypeNever {
		t.Errorf("fixed crp %+v", crp.Spec)
	}
	if _, err := Placement(id, "team-a", &fleetapi.FleetManagedNamespaceProperties{AdoptionPolicy: "Sometimes"}); err == nil {
		t.Error("an unknown adoption policy was accepted")
	}
}

func equalResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}
