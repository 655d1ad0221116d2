package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// ClusterFacts are a member cluster's Karpenter picture as fleet_nodepool_disruption's preview
// reads it: its NodePools and NodeClaims as the API server serves them, its Nodes, Pods and
// PodDisruptionBudgets, and the NodePool CRD (whose enums differ between Karpenter versions). Each
// *Err says a read failed, as the live preview would have seen it fail. Managed fields are left out.
type ClusterFacts struct {
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

var (
	karpenterNodePools  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	karpenterNodeClaims = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	crds                = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// readClusterFacts reads one member cluster's Karpenter picture; NodePools and NodeClaims that
// cannot be listed fail it (the preview could not be computed either).
func (c *Clients) readClusterFacts(ctx context.Context, name string) (ClusterFacts, error) {
	out := ClusterFacts{Name: name}
	kc, err := c.Cluster(ctx, name)
	if err != nil {
		return out, err
	}
	for _, l := range []struct {
		gvr  schema.GroupVersionResource
		into *[]map[string]any
	}{{karpenterNodePools, &out.NodePools}, {karpenterNodeClaims, &out.NodeClaims}} {
		list, err := kc.Dynamic.Resource(l.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return out, fmt.Errorf("cluster %q: listing %s: %w", name, l.gvr.Resource, err)
		}
		for i := range list.Items {
			list.Items[i].SetManagedFields(nil)
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

// ClusterFacts is the Karpenter picture of cluster the facts hold: ok is false when the bundle is
// not pinned; a pinned bundle whose facts lack the cluster answers FactsNotReadError.
func (c *Clients) ClusterFacts(name string) (*ClusterFacts, bool, error) {
	if c.pinned == nil {
		return nil, false, nil
	}
	for i := range c.pinned.Clusters {
		if c.pinned.Clusters[i].Name == name {
			return &c.pinned.Clusters[i], true, nil
		}
	}
	return nil, true, &FactsNotReadError{What: fmt.Sprintf("cluster %q (add it to clusters)", name)}
}

// movedClusters says how each cluster's nodes, NodeClaims, pods and PodDisruptionBudgets moved.
func movedClusters(planned, now []ClusterFacts) []string {
	byName := map[string]ClusterFacts{}
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

// setDiff says what a and b do not share ("added x, y; removed z"), "" when they are the same set.
func setDiff(a, b []string) string {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var added, removed []string
	for x := range inb {
		if !ina[x] {
			added = append(added, x)
		}
	}
	for x := range ina {
		if !inb[x] {
			removed = append(removed, x)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+sample(added))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+sample(removed))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

func sample(names []string) string {
	const limit = 3
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:limit], ", "), len(names)-limit)
}
