package hub

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

// Namespaced answers from the hub's discovery, once per group version, and leaves out kinds the hub
// does not serve.
func TestNamespaced(t *testing.T) {
	fake := &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true},
			{Name: "namespaces", Kind: "Namespace"},
			{Name: "namespaces/status", Kind: "Namespace", Namespaced: true},
		}},
		{GroupVersion: "rbac.authorization.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "clusterroles", Kind: "ClusterRole"}}},
	}}
	c := &Client{disc: &fakediscovery.FakeDiscovery{Fake: fake}}
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	ns := schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	role := schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	for range 2 {
		got, err := c.Namespaced([]schema.GroupVersionKind{cm, ns, role, widget})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || !got[cm] || got[ns] || got[role] {
			t.Errorf("Namespaced = %v", got)
		}
	}
	discoveries := 0
	for _, a := range fake.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "resource" {
			discoveries++
		}
	}
	if discoveries > 3 {
		t.Errorf("%d discovery requests for two plans of 3 group versions, want at most 3", discoveries)
	}
	if got, err := (&Client{}).Namespaced([]schema.GroupVersionKind{cm}); err != nil || len(got) != 0 {
		t.Errorf("without discovery: %v, %v", got, err)
	}
}
