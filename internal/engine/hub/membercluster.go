package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// MemberCluster reads a MemberCluster.
func (c *Client) MemberCluster(ctx context.Context, name string) (*clusterv1.MemberCluster, error) {
	return get[clusterv1.MemberCluster](ctx, c, MemberClusterGVR, name)
}

// ApplyMemberClusterTaints server-side applies spec.taints of the MemberCluster mc (as read)
// under the provider's field manager. v0.18.9's CRD makes spec.taints an atomic list (no
// x-kubernetes-list-type), so the apply carries the whole list, and mc's resourceVersion and uid
// make it fail rather than drop a taint written meanwhile or re-create a deleted cluster. A field
// another apply manager declares is not taken over: the error names it.
func (c *Client) ApplyMemberClusterTaints(ctx context.Context, mc *clusterv1.MemberCluster, taints []clusterv1.Taint, dryRun bool) error {
	r, err := c.res(ctx, MemberClusterGVR)
	if err != nil {
		return err
	}
	gvr, _ := c.resolve(ctx, MemberClusterGVR)
	list := make([]any, 0, len(taints))
	for _, t := range taints {
		m := map[string]any{"key": t.Key, "effect": string(t.Effect)}
		if t.Value != "" {
			m["value"] = t.Value
		}
		list = append(list, m)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "MemberCluster",
		"metadata": map[string]any{"name": mc.Name, "uid": string(mc.UID), "resourceVersion": mc.ResourceVersion},
		"spec":     map[string]any{"taints": list},
	}}
	opts := metav1.ApplyOptions{FieldManager: FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = r.Apply(ctx, mc.Name, u, opts)
	if !isFieldConflict(err) {
		return err
	}
	if others := TaintsAppliedBy(mc, true); len(others) > 0 {
		return fmt.Errorf("spec.taints of MemberCluster %q is also applied by %s: one server-side apply manager should declare a "+
			"MemberCluster's taints (KubeFleet's CRD makes the list atomic, so two would overwrite each other)", mc.Name, strings.Join(others, ", "))
	}
	// Written imperatively (kubectl edit, the cluster's creator): Terraform takes the list over,
	// keeping every taint it did not set.
	opts.Force = true
	_, err = r.Apply(ctx, mc.Name, u, opts)
	return err
}

// SetMemberClusterTaints writes spec.taints with a merge patch (an Update under the provider's
// field manager, guarded by mc's resourceVersion): how the resource hands the list back on
// destroy, releasing its apply ownership while keeping the taints others set.
func (c *Client) SetMemberClusterTaints(ctx context.Context, mc *clusterv1.MemberCluster, taints []clusterv1.Taint) error {
	r, err := c.res(ctx, MemberClusterGVR)
	if err != nil {
		return err
	}
	var list any
	if len(taints) > 0 {
		list = taints
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": mc.ResourceVersion},
		"spec":     map[string]any{"taints": list},
	})
	if err != nil {
		return err
	}
	_, err = r.Patch(ctx, mc.Name, k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	return err
}

// TaintsAppliedBy lists the managers other than the provider that own spec.taints: apply
// managers only (applyOnly), or every manager.
func TaintsAppliedBy(mc *clusterv1.MemberCluster, applyOnly bool) []string {
	var out []string
	for _, e := range mc.ManagedFields {
		if e.Subresource != "" || e.FieldsV1 == nil || (e.Manager == FieldManager && e.Operation == metav1.ManagedFieldsOperationApply) {
			continue
		}
		if applyOnly && e.Operation != metav1.ManagedFieldsOperationApply {
			continue
		}
		var set map[string]any
		if json.Unmarshal(e.FieldsV1.Raw, &set) != nil {
			continue
		}
		if spec, ok := set["f:spec"].(map[string]any); ok {
			if _, ok := spec["f:taints"]; ok {
				out = append(out, fmt.Sprintf("%q (%s)", e.Manager, e.Operation))
			}
		}
	}
	return out
}

func isFieldConflict(err error) bool {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	for _, c := range status.Status().Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			return true
		}
	}
	return false
}

// AllPlacements lists every ClusterResourcePlacement and the ResourcePlacements of every
// namespace (Namespace set), by namespace then name.
func (c *Client) AllPlacements(ctx context.Context) ([]placementv1.ClusterResourcePlacement, error) {
	crps, err := listIn[placementv1.ClusterResourcePlacement](ctx, c, placementKind, "", nil)
	if err != nil {
		return nil, err
	}
	rps, err := c.listAllNamespaces(ctx, placementKind)
	if err != nil {
		return nil, err
	}
	for i := range rps {
		p, err := decode[placementv1.ClusterResourcePlacement](&rps[i])
		if err != nil {
			return nil, err
		}
		crps = append(crps, *p)
	}
	return crps, nil
}

// AllBindings lists every ClusterResourceBinding and the ResourceBindings of every namespace.
func (c *Client) AllBindings(ctx context.Context) ([]placementv1.ClusterResourceBinding, error) {
	crbs, err := listIn[placementv1.ClusterResourceBinding](ctx, c, bindingKind, "", nil)
	if err != nil {
		return nil, err
	}
	rbs, err := c.listAllNamespaces(ctx, bindingKind)
	if err != nil {
		return nil, err
	}
	for i := range rbs {
		b, err := decode[placementv1.ClusterResourceBinding](&rbs[i])
		if err != nil {
			return nil, err
		}
		crbs = append(crbs, *b)
	}
	return crbs, nil
}

// listAllNamespaces lists k's namespaced kind across namespaces (the API server's order:
// namespace, then name).
func (c *Client) listAllNamespaces(ctx context.Context, k scoped) ([]unstructured.Unstructured, error) {
	gvr, err := c.resolve(ctx, k.namespaced)
	if err != nil {
		return nil, err
	}
	l, err := c.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}
