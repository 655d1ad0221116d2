// Package hubtest builds hub clients over client-go's fake dynamic client, for unit tests that
// need a hub's objects but no API server.
package hubtest

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

var listKinds = map[schema.GroupVersionResource]string{
	hub.PlacementGVR:                  "ClusterResourcePlacementList",
	hub.BindingGVR:                    "ClusterResourceBindingList",
	hub.PolicySnapshotGVR:             "ClusterSchedulingPolicySnapshotList",
	hub.ResourceSnapshotGVR:           "ClusterResourceSnapshotList",
	hub.StrategyGVR:                   "ClusterStagedUpdateStrategyList",
	hub.ResourcePlacementGVR:          "ResourcePlacementList",
	hub.NamespacedBindingGVR:          "ResourceBindingList",
	hub.NamespacedPolicySnapshotGVR:   "SchedulingPolicySnapshotList",
	hub.NamespacedResourceSnapshotGVR: "ResourceSnapshotList",
	hub.RunGVR:                        "ClusterStagedUpdateRunList",
	hub.ApprovalGVR:                   "ClusterApprovalRequestList",
	hub.WorkGVR:                       "WorkList",
	hub.MemberClusterGVR:              "MemberClusterList",
	hub.CRDGVR:                        "CustomResourceDefinitionList",
}

// New is a hub client whose hub holds objs: KubeFleet's typed objects with their TypeMeta set, or
// *unstructured.Unstructured.
func New(t testing.TB, objs ...runtime.Object) *hub.Client {
	t.Helper()
	us := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			us = append(us, u)
			continue
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatalf("hubtest: %T: %v", o, err)
		}
		us = append(us, &unstructured.Unstructured{Object: m})
	}
	return hub.New(&kube.Client{Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, us...)})
}
