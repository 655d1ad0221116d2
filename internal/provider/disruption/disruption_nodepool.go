package disruption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// nodePoolFieldManager is the default server-side apply field manager of fleet_nodepool_disruption
// (field_manager.name): it owns exactly the NodePool fields the configuration sets.
const nodePoolFieldManager = "terraform-provider-fleet"

// npFieldManager is the resource's field_manager: the name it applies under, and whether it takes
// fields over from other server-side apply managers (force_conflicts), as kubernetes_manifest offers.
type npFieldManager struct {
	Name  string
	Force bool
	// Prior is the manager's previous name when field_manager.name changes: its fields are this
	// resource's own, so a conflict with it is taken over (it gives them back right after).
	Prior string
}

// defaultFieldManager is the field manager of a resource that sets no field_manager.
var defaultFieldManager = npFieldManager{Name: nodePoolFieldManager}

var nodePoolGVR = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}

const nodePoolCRDName = "nodepools.karpenter.sh"

// The NodePool fields the resource may own, as paths in the object and in managedFields.
var (
	npPathBudgets             = []string{"spec", "disruption", "budgets"}
	npPathConsolidateAfter    = []string{"spec", "disruption", "consolidateAfter"}
	npPathConsolidationPolicy = []string{"spec", "disruption", "consolidationPolicy"}
	npPathExpireAfter         = []string{"spec", "template", "spec", "expireAfter"}
	npPathTerminationGrace    = []string{"spec", "template", "spec", "terminationGracePeriod"}
	npPathDoNotDisrupt        = []string{"spec", "template", "metadata", "annotations", karpv1.DoNotDisruptAnnotationKey}
)

// npOwnedPaths are every field the resource may own.
var npOwnedPaths = [][]string{npPathBudgets, npPathConsolidateAfter, npPathConsolidationPolicy, npPathExpireAfter, npPathTerminationGrace, npPathDoNotDisrupt}

// The API server's defaults for fields nobody owns any more (Karpenter v1.14.1's NodePool CRD).
// pkg/apis/crds/karpenter.sh_nodepools.yaml.
const (
	npDefaultConsolidateAfter    = "0s"
	npDefaultConsolidationPolicy = string(karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized)
	npDefaultExpireAfter         = "720h"
)

// nodePoolMissingError says the NodePool, or the NodePool CRD itself, is not on the cluster.
type nodePoolMissingError struct {
	Cluster, NodePool string
	NoCRD             bool
}

func (e *nodePoolMissingError) Error() string {
	if e.NoCRD {
		return fmt.Sprintf("cluster %q has no Karpenter NodePool API (CRD %s, karpenter.sh/v1), so NodePool %q cannot exist there: "+
			"install Karpenter or enable AKS node auto-provisioning on the cluster, or check the cluster name", e.Cluster, nodePoolCRDName, e.NodePool)
	}
	return fmt.Sprintf("NodePool %q not found on cluster %q: fleet_nodepool_disruption manages the disruption settings of an existing "+
		"NodePool; create the NodePool first (Karpenter's Helm chart, kubectl, AKS node auto-provisioning) or check its name", e.NodePool, e.Cluster)
}

func isNodePoolMissing(err error) bool {
	var e *nodePoolMissingError
	return errors.As(err, &e)
}

// getNodePool reads the NodePool. A 404 that names no object means the API server does not know the
// resource type at all: the CRD is missing.
func getNodePool(ctx context.Context, kc *kube.Client, cluster, name string) (*unstructured.Unstructured, error) {
	u, err := kc.Dynamic.Resource(nodePoolGVR).Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		return u, nil
	}
	if apierrors.IsNotFound(err) {
		var status apierrors.APIStatus
		noCRD := errors.As(err, &status) && (status.Status().Details == nil || status.Status().Details.Name == "")
		return nil, &nodePoolMissingError{Cluster: cluster, NodePool: name, NoCRD: noCRD}
	}
	return nil, fmt.Errorf("reading NodePool %q on cluster %q: %w", name, cluster, err)
}

// typedNodePool decodes the NodePool as Karpenter does (NillableDuration parses its strings).
func typedNodePool(u *unstructured.Unstructured) (*karpv1.NodePool, error) {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	var np karpv1.NodePool
	if err := json.Unmarshal(b, &np); err != nil {
		return nil, fmt.Errorf("NodePool %q cannot be decoded as Karpenter decodes it: %w", u.GetName(), err)
	}
	return &np, nil
}

// nodePoolCRDEnums are the enums of the cluster's NodePool CRD that differ between Karpenter versions.
type nodePoolCRDEnums struct {
	Reasons  []string // budgets[].reasons (v1.15 adds Unhealthy)
	Policies []string // consolidationPolicy (v1.14 adds Balanced)
}

// nodePoolCRDEnumsOf reads the enums of the CRD's served karpenter.sh/v1 schema.
func nodePoolCRDEnumsOf(crd *unstructured.Unstructured) (nodePoolCRDEnums, bool) {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok || vm["name"] != "v1" {
			continue
		}
		disruption := []string{"schema", "openAPIV3Schema", "properties", "spec", "properties", "disruption", "properties"}
		reasons, _, _ := unstructured.NestedStringSlice(vm, append(slices.Clone(disruption), "budgets", "items", "properties", "reasons", "items", "enum")...)
		policies, _, _ := unstructured.NestedStringSlice(vm, append(slices.Clone(disruption), "consolidationPolicy", "enum")...)
		return nodePoolCRDEnums{Reasons: reasons, Policies: policies}, len(reasons) > 0
	}
	return nodePoolCRDEnums{}, false
}

// decodeNodeClaims decodes a NodeClaim list's JSON as Karpenter's types.
func decodeNodeClaims(b []byte) ([]karpv1.NodeClaim, error) {
	var list karpv1.NodeClaimList
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("decoding NodeClaims: %w", err)
	}
	return list.Items, nil
}

// fieldOwner is one managedFields entry.
type fieldOwner struct {
	Manager, Operation string
}

// Ours: an apply by the default field manager.
func (o fieldOwner) Ours() bool { return o.AppliedBy(nodePoolFieldManager) }

// AppliedBy: an apply by the named field manager.
func (o fieldOwner) AppliedBy(manager string) bool {
	return o.Manager == manager && o.Operation == string(metav1.ManagedFieldsOperationApply)
}

func (o fieldOwner) String() string {
	return fmt.Sprintf("%q (%s)", o.Manager, o.Operation)
}

// fieldOwners lists the managedFields entries (main resource, not status) that own the field at path.
func fieldOwners(live *unstructured.Unstructured, path []string) []fieldOwner {
	var out []fieldOwner
	for _, e := range live.GetManagedFields() {
		if e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		var set map[string]any
		if json.Unmarshal(e.FieldsV1.Raw, &set) != nil {
			continue
		}
		if fieldSetHas(set, path) {
			out = append(out, fieldOwner{Manager: e.Manager, Operation: string(e.Operation)})
		}
	}
	return out
}

// fieldSetHas walks a FieldsV1 set ({"f:spec":{"f:disruption":{...}}}) along path.
func fieldSetHas(set map[string]any, path []string) bool {
	cur := set
	for _, p := range path {
		next, ok := cur["f:"+p].(map[string]any)
		if !ok {
			return false
		}
		cur = next
	}
	return true
}

// releasedBy reports whether applying without the field at path removes it: the manager's apply is
// its only owner. The API server then restores its default, if it has one.
func releasedBy(live *unstructured.Unstructured, path []string, manager string) bool {
	owners := fieldOwners(live, path)
	return len(owners) > 0 && !slices.ContainsFunc(owners, func(o fieldOwner) bool { return !o.AppliedBy(manager) })
}

// conflictPath turns a conflict's field (".spec.template.metadata.annotations.karpenter.sh/do-not-disrupt")
// into a path, keeping the dots of the owned annotation's key.
func conflictPath(field string) []string {
	for _, p := range npOwnedPaths {
		if field == "."+strings.Join(p, ".") {
			return p
		}
	}
	return strings.Split(strings.TrimPrefix(field, "."), ".")
}

// applyNodePool server-side applies obj (a partial NodePool) under the field manager. Conflicts
// with managers that wrote the fields imperatively (kubectl edit/patch, Helm, the NodePool's
// creator, which owns the defaulted disruption block) are forced: Terraform is the declared owner of
// these fields, and an out-of-band edit is drift that apply corrects. A conflict with another
// server-side apply manager (a GitOps tool declaring the same field) is forced only with
// force_conflicts: otherwise the two would overwrite each other on every sync, so the error names it.
func applyNodePool(ctx context.Context, kc *kube.Client, cluster string, obj map[string]any, mgr npFieldManager, dryRun bool) error {
	res := kc.Dynamic.Resource(nodePoolGVR)
	u := &unstructured.Unstructured{Object: obj}
	name := u.GetName()
	opts := metav1.ApplyOptions{FieldManager: mgr.Name, Force: mgr.Force}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err := res.Apply(ctx, name, u, opts)
	conflicts := fieldConflicts(err)
	if len(conflicts) == 0 {
		return applyError(err, cluster, name)
	}
	live, gerr := res.Get(ctx, name, metav1.GetOptions{})
	if gerr != nil {
		return applyError(err, cluster, name)
	}
	var declared []string
	for _, field := range conflicts {
		for _, o := range fieldOwners(live, conflictPath(field)) {
			if o.Operation == string(metav1.ManagedFieldsOperationApply) && !o.AppliedBy(mgr.Name) && (mgr.Prior == "" || !o.AppliedBy(mgr.Prior)) {
				declared = append(declared, fmt.Sprintf("%s is also applied by %s", field, o))
			}
		}
	}
	if len(declared) > 0 {
		return fmt.Errorf("NodePool %q on cluster %q: %s with a different value. Another server-side apply manager declares these fields; "+
			"remove them from its configuration (or from this resource) so that one tool owns them, or set field_manager.force_conflicts "+
			"to take them over", name, cluster, strings.Join(declared, "; "))
	}
	if !dryRun {
		tflog.Info(ctx, "taking over NodePool fields from other managers", map[string]any{"cluster": cluster, "node_pool": name, "fields": conflicts})
	}
	opts.Force = true
	_, err = res.Apply(ctx, name, u, opts)
	return applyError(err, cluster, name)
}

// fieldConflicts are the fields of a server-side apply conflict error (none for other errors).
func fieldConflicts(err error) []string {
	var status apierrors.APIStatus
	if err == nil || !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			fields = append(fields, c.Field)
		}
	}
	return fields
}

func applyError(err error, cluster, name string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err) && strings.Contains(err.Error(), "uid mismatch"):
		// The apply carries the NodePool's uid, so a pool deleted meanwhile is not re-created empty.
		return &nodePoolMissingError{Cluster: cluster, NodePool: name}
	}
	return fmt.Errorf("applying the disruption settings to NodePool %q on cluster %q: %w", name, cluster, err)
}

// handOffConsolidateAfter keeps spec.disruption.consolidateAfter when this provider stops owning it.
// Up to Karpenter v1.14.1 the CRD requires it inside spec.disruption and defaults it only when the
// whole block is absent, so an apply that drops it while other disruption fields remain is rejected
// ("spec.disruption.consolidateAfter: Required value"). An imperative write of the server default
// (0s) by this manager gives the field an owner that is not an apply configuration; the apply that
// follows then releases everything else. Writing the same value would not change ownership, so a
// field already at 0s is written as 0m first.
func handOffConsolidateAfter(ctx context.Context, kc *kube.Client, live *unstructured.Unstructured, manager string) error {
	current, _, _ := unstructured.NestedString(live.Object, npPathConsolidateAfter...)
	values := []string{npDefaultConsolidateAfter}
	if current == npDefaultConsolidateAfter {
		values = []string{"0m", npDefaultConsolidateAfter}
	}
	for _, v := range values {
		patch, _ := json.Marshal(map[string]any{
			"metadata": map[string]any{"uid": string(live.GetUID())},
			"spec":     map[string]any{"disruption": map[string]any{"consolidateAfter": v}},
		})
		_, err := kc.Dynamic.Resource(nodePoolGVR).Patch(ctx, live.GetName(), k8stypes.MergePatchType, patch, metav1.PatchOptions{FieldManager: manager})
		if err != nil {
			return fmt.Errorf("handing consolidateAfter back to its default before releasing it: %w", err)
		}
	}
	tflog.Debug(ctx, "consolidateAfter reset to its default and released", map[string]any{"node_pool": live.GetName()})
	return nil
}
