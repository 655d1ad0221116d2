package facts

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// Karpenter are a member cluster's Karpenter picture as fleet_nodepool_disruption's preview
// reads it: its NodePools and NodeClaims as the API server serves them, its Nodes, Pods and
// PodDisruptionBudgets, and the NodePool CRD (whose enums differ between Karpenter versions). Each
// *Err says a read failed, as the live preview would have seen it fail. Managed fields are left
// out, but for the NodePools' (what the resource's apply hands back depends on who owns a field).
type Karpenter struct {
	Name        string           `json:"name"`
	NodePools   []map[string]any `json:"nodePools,omitempty"`
	NodeClaims  []map[string]any `json:"nodeClaims,omitempty"`
	Nodes       []corev1.Node    `json:"nodes,omitempty"`
	Pods        []corev1.Pod     `json:"pods,omitempty"`
	PodsErr     string           `json:"podsErr,omitempty"`
	PDBs        kube.PDBs        `json:"pdbs"`
	PDBsErr     string           `json:"pdbsErr,omitempty"`
	NodePoolCRD map[string]any   `json:"nodePoolCRD,omitempty"`
	CRDErr      string           `json:"crdErr,omitempty"`
}

// movedClusters says how each cluster's nodes, NodeClaims, pods and PodDisruptionBudgets moved.
func movedClusters(planned, now []Karpenter) []string {
	byName := map[string]Karpenter{}
	for _, c := range now {
		byName[c.Name] = c
	}
	var out []string
	for _, b := range planned {
		a, ok := byName[b.Name]
		if !ok {
			continue
		}
		for _, kind := range []struct {
			what   string
			before []string
			after  []string
		}{
			{"nodes", nodeNames(b.Nodes), nodeNames(a.Nodes)},
			{"NodeClaims", objectNames(b.NodeClaims), objectNames(a.NodeClaims)},
			{"pods", podNames(b.Pods), podNames(a.Pods)},
			{"PodDisruptionBudgets", pdbNames(b.PDBs), pdbNames(a.PDBs)},
		} {
			if d := setDiff(kind.before, kind.after); d != "" {
				out = append(out, fmt.Sprintf("cluster %s: %s %d → %d (%s)", b.Name, kind.what, len(kind.before), len(kind.after), d))
			}
		}
	}
	return out
}

func nodeNames(nodes []corev1.Node) []string {
	out := make([]string, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].Name
	}
	return out
}

func podNames(pods []corev1.Pod) []string {
	out := make([]string, len(pods))
	for i := range pods {
		out[i] = pods[i].Namespace + "/" + pods[i].Name
	}
	return out
}

func pdbNames(p kube.PDBs) []string {
	out := make([]string, 0, len(p.Items))
	for i := range p.Items {
		out = append(out, p.Items[i].Namespace+"/"+p.Items[i].Name+fmt.Sprintf(" allows %d", p.Items[i].Status.DisruptionsAllowed))
	}
	return out
}

func objectNames(objs []map[string]any) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		if md, ok := o["metadata"].(map[string]any); ok {
			if n, ok := md["name"].(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}
