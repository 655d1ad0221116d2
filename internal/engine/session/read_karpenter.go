package session

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	karpenterNodePools  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	karpenterNodeClaims = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	crds                = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// readKarpenter reads one member cluster's Karpenter picture; NodePools and NodeClaims that
// cannot be listed fail it (the preview could not be computed either). The NodePools keep their
// managed fields: which fields the resource's field manager alone owns decides what its apply
// hands back to the API server's defaults, and so the preview.
func (c *Session) readKarpenter(ctx context.Context, name string) (facts.Karpenter, error) {
	out := facts.Karpenter{Name: name}
	kc, err := c.Cluster(ctx, name)
	if err != nil {
		return out, err
	}
	for _, l := range []struct {
		gvr           schema.GroupVersionResource
		into          *[]map[string]any
		managedFields bool
	}{{karpenterNodePools, &out.NodePools, true}, {karpenterNodeClaims, &out.NodeClaims, false}} {
		list, err := kc.Dynamic.Resource(l.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return out, fmt.Errorf("cluster %q: listing %s: %w", name, l.gvr.Resource, err)
		}
		for i := range list.Items {
			if !l.managedFields {
				list.Items[i].SetManagedFields(nil)
			}
			*l.into = append(*l.into, list.Items[i].Object)
		}
	}
	nodes, err := kc.Kubernetes.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return out, fmt.Errorf("cluster %q: listing Nodes: %w", name, err)
	}
	out.Nodes = nodes.Items
	if pods, err := kc.Kubernetes.CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err != nil {
		out.PodsErr = fmt.Sprintf("listing Pods: %v", err)
	} else {
		out.Pods = pods.Items
	}
	for i := range out.Nodes {
		out.Nodes[i].ManagedFields = nil
	}
	for i := range out.Pods {
		out.Pods[i].ManagedFields = nil
	}
	if out.PDBs, err = kc.PodDisruptionBudgets(ctx); err != nil {
		out.PDBsErr = err.Error()
	}
	if crd, err := kc.Dynamic.Resource(crds).Get(ctx, "nodepools.karpenter.sh", metav1.GetOptions{}); err != nil {
		out.CRDErr = err.Error()
	} else {
		crd.SetManagedFields(nil)
		out.NodePoolCRD = crd.Object
	}
	return out, nil
}
