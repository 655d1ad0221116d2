// Package override is KubeFleet v0.18.9's ClusterResourceOverride and ResourceOverride: which
// overrides a placement's resources pick up, which of them apply to a member cluster, and what each
// member's Work gets after the JSON patches, variables and deletes. Pure functions of KubeFleet's
// API types; KubeFleet's exported helpers are called where it has them (overrider.IsClusterMatched,
// validator.ValidateClusterResourceOverride / ValidateResourceOverride, jsonpatch v5 as the work
// generator uses it), its unexported controller code is reproduced with a citation per rule.
package override

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"go.goms.io/fleet/pkg/utils/overrider"
)

// Override is the latest snapshot of one override: a ClusterResourceOverride (Namespace "") or a
// ResourceOverride in Namespace. Snapshot is the snapshot's name, "<name>-<index>"
// (apis/placement/v1beta1/overridesnapshot_types.go, OverrideSnapshotNameFmt).
type Override struct {
	Namespace, Name, Snapshot string
	Spec                      placementv1beta1.ClusterResourceOverrideSpec
	// ResourceSelectors are a ResourceOverride's (Spec.ClusterResourceSelectors is a ClusterResourceOverride's).
	ResourceSelectors []placementv1beta1.ResourceSelector
}

// SnapshotName is KubeFleet's name of an override's snapshot of index i.
func SnapshotName(name string, i int) string {
	return fmt.Sprintf(placementv1beta1.OverrideSnapshotNameFmt, name, i)
}

// Cluster is what override rules read of a member cluster: its name and labels.
type Cluster struct {
	Name   string
	Labels map[string]string
}

func (c Cluster) member() *clusterv1beta1.MemberCluster {
	return &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: c.Labels}}
}

// PlacementKey is the key KubeFleet files a placement's snapshots under: "name" for a
// ClusterResourcePlacement, "namespace/name" for a ResourcePlacement
// (pkg/utils/controller, GetObjectKeyFromNamespaceName).
func PlacementKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// identity is a resource's identity in a resource snapshot.
type identity struct {
	gvk                   [3]string
	namespace, name, kind string
}

func identityOf(raw []byte) (identity, error) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(raw); err != nil {
		return identity{}, err
	}
	gvk := u.GroupVersionKind()
	return identity{gvk: [3]string{gvk.Group, gvk.Version, gvk.Kind}, namespace: u.GetNamespace(), name: u.GetName(), kind: gvk.Kind}, nil
}

// croKey is the ClusterResourceOverride selector a resource answers to: itself when cluster-scoped,
// its namespace when namespaced (pkg/controllers/workgenerator/override.go, applyOverrides; a
// resource snapshot's namespaced objects carry metadata.namespace, cluster-scoped ones do not).
func (id identity) croKey() placementv1beta1.ResourceIdentifier {
	if id.namespace != "" {
		return placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "Namespace", Name: id.namespace}
	}
	return placementv1beta1.ResourceIdentifier{Group: id.gvk[0], Version: id.gvk[1], Kind: id.gvk[2], Name: id.name}
}

func (id identity) roKey() placementv1beta1.ResourceIdentifier {
	return placementv1beta1.ResourceIdentifier{Group: id.gvk[0], Version: id.gvk[1], Kind: id.gvk[2], Name: id.name, Namespace: id.namespace}
}

func (o *Override) croKeys() []placementv1beta1.ResourceIdentifier {
	out := make([]placementv1beta1.ResourceIdentifier, 0, len(o.Spec.ClusterResourceSelectors))
	for _, s := range o.Spec.ClusterResourceSelectors {
		out = append(out, placementv1beta1.ResourceIdentifier{Group: s.Group, Version: s.Version, Kind: s.Kind, Name: s.Name})
	}
	return out
}

func (o *Override) roKeys() []placementv1beta1.ResourceIdentifier {
	out := make([]placementv1beta1.ResourceIdentifier, 0, len(o.ResourceSelectors))
	for _, s := range o.ResourceSelectors {
		out = append(out, placementv1beta1.ResourceIdentifier{Group: s.Group, Version: s.Version, Kind: s.Kind, Name: s.Name, Namespace: o.Namespace})
	}
	return out
}

// boundTo reports whether the override is for the placement of placementKey: one with no
// placement is for every placement (pkg/utils/overrider/overrider.go,
// FetchAllMatchingOverridesForResourceSnapshot).
func (o *Override) boundTo(placementKey string) bool {
	p := o.Spec.Placement
	if p == nil {
		return true
	}
	key := p.Name
	if o.Namespace != "" && p.Scope == placementv1beta1.NamespaceScoped {
		key = PlacementKey(o.Namespace, p.Name)
	}
	return key == placementKey
}

// Matching is the overrides attached to a placement's resources: bound to the placement and
// selecting at least one of its resources (pkg/utils/overrider/overrider.go,
// FetchAllMatchingOverridesForResourceSnapshot), ClusterResourceOverrides first.
func Matching(placementKey string, resources [][]byte, overrides []Override) (cros, ros []Override, err error) {
	possibleCRO := map[placementv1beta1.ResourceIdentifier]bool{}
	possibleRO := map[placementv1beta1.ResourceIdentifier]bool{}
	for _, raw := range resources {
		id, err := identityOf(raw)
		if err != nil {
			return nil, nil, err
		}
		possibleCRO[id.croKey()] = true
		if id.namespace != "" {
			possibleRO[id.roKey()] = true
		}
	}
	for _, o := range overrides {
		if !o.boundTo(placementKey) {
			continue
		}
		keys, possible := o.croKeys(), possibleCRO
		if o.Namespace != "" {
			keys, possible = o.roKeys(), possibleRO
		}
		for _, k := range keys {
			if possible[k] {
				if o.Namespace == "" {
					cros = append(cros, o)
				} else {
					ros = append(ros, o)
				}
				break
			}
		}
	}
	return cros, ros, nil
}

// ForCluster is the overrides among cros and ros of which some rule selects cluster, in the order
// the hub agent applies them: by snapshot name, ResourceOverrides by namespace then snapshot name
// (pkg/utils/overrider/overrider.go, PickFromResourceMatchedOverridesForTargetCluster).
func ForCluster(cluster Cluster, cros, ros []Override) (pickedCROs, pickedROs []Override, err error) {
	mc := cluster.member()
	pick := func(in []Override) ([]Override, error) {
		var out []Override
		for _, o := range in {
			if o.Spec.Policy == nil {
				return nil, fmt.Errorf("policy is nil")
			}
			for _, rule := range o.Spec.Policy.OverrideRules {
				ok, err := overrider.IsClusterMatched(mc, rule)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, o)
					break
				}
			}
		}
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Namespace != out[j].Namespace {
				return out[i].Namespace < out[j].Namespace
			}
			return out[i].Snapshot < out[j].Snapshot
		})
		return out, nil
	}
	if pickedCROs, err = pick(cros); err != nil {
		return nil, nil, err
	}
	if pickedROs, err = pick(ros); err != nil {
		return nil, nil, err
	}
	return pickedCROs, pickedROs, nil
}

// Target names a resource as v0.18.9's errors do: `Deployment "web" in namespace "app"`
// (pkg/controllers/workgenerator/override.go, formatOverrideTarget).
func Target(raw []byte) string {
	id, err := identityOf(raw)
	if err != nil {
		return "Unknown"
	}
	kind := id.kind
	if kind == "" {
		kind = "Unknown"
	}
	if id.namespace != "" {
		return fmt.Sprintf("%s %q in namespace %q", kind, id.name, id.namespace)
	}
	return fmt.Sprintf("%s %q", kind, id.name)
}

// Render is one resource as the hub agent writes it into cluster's Work, given the overrides
// ForCluster picked: nil with deleted true when a Delete rule drops it, or the error v0.18.9 reports
// (pkg/controllers/workgenerator/override.go, applyOverrides: the ClusterResourceOverrides keyed by
// the resource or its namespace, then, for a namespaced resource, the ResourceOverrides keyed by it).
func Render(raw []byte, cluster Cluster, cros, ros []Override) (out []byte, deleted bool, err error) {
	if len(cros) == 0 && len(ros) == 0 {
		return raw, false, nil
	}
	id, err := identityOf(raw)
	if err != nil {
		return nil, false, err
	}
	out = raw
	apply := func(o Override, kind string) error {
		if o.Spec.Policy == nil {
			return nil // "should not happen", skipped upstream
		}
		res, err := applyRules(out, cluster, o.Spec.Policy.OverrideRules)
		if err != nil {
			return fmt.Errorf("%s %q failed to apply on %s: %s", kind, o.Snapshot, Target(raw), err.Error())
		}
		out = res
		return nil
	}
	ck := id.croKey()
	for _, o := range cros {
		if selects(o.croKeys(), ck) {
			if err := apply(o, "ClusterResourceOverrideSnapshot"); err != nil {
				return nil, false, err
			}
		}
	}
	if id.namespace != "" {
		rk := id.roKey()
		for _, o := range ros {
			if selects(o.roKeys(), rk) {
				if err := apply(o, "ResourceOverrideSnapshot"); err != nil {
					return nil, false, err
				}
			}
		}
	}
	return out, out == nil, nil
}

func selects(keys []placementv1beta1.ResourceIdentifier, k placementv1beta1.ResourceIdentifier) bool {
	for _, s := range keys {
		if s == k {
			return true
		}
	}
	return false
}

// applyRules applies the rules that select cluster in order: a Delete drops the resource and stops,
// JSON patches apply one rule after the other (pkg/controllers/workgenerator/override.go,
// applyOverrideRules). A nil raw (deleted by an earlier override) stays nil.
func applyRules(raw []byte, cluster Cluster, rules []placementv1beta1.OverrideRule) ([]byte, error) {
	mc := cluster.member()
	for _, rule := range rules {
		matched, err := overrider.IsClusterMatched(mc, rule)
		if err != nil {
			return nil, err
		}
		if !matched {
			continue
		}
		if rule.OverrideType == placementv1beta1.DeleteOverrideType {
			return nil, nil
		}
		if raw, err = applyJSONPatch(raw, cluster, rule.JSONPatchOverrides); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// applyJSONPatch substitutes the variables in the patch values and applies the patch as RFC 6902
// with evanphx/json-patch v5 (pkg/controllers/workgenerator/override.go, applyJSONPatchOverride).
func applyJSONPatch(raw []byte, cluster Cluster, ops []placementv1beta1.JSONPatchOverride) ([]byte, error) {
	if len(ops) == 0 {
		return raw, nil
	}
	subst := make([]placementv1beta1.JSONPatchOverride, len(ops))
	for i, op := range ops {
		s, err := Substitute(string(op.Value.Raw), cluster)
		if err != nil {
			return nil, err
		}
		subst[i] = op
		subst[i].Value.Raw = []byte(s)
	}
	b, err := json.Marshal(subst)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(b)
	if err != nil {
		return nil, err
	}
	return patch.Apply(raw)
}

// Substitute replaces ${MEMBER-CLUSTER-NAME} and each ${MEMBER-CLUSTER-LABEL-KEY-<key>} with the
// cluster's name and label values; a missing label or closing brace is v0.18.9's error
// (pkg/controllers/workgenerator/override.go, applyJSONPatchOverride and
// replaceClusterLabelKeyVariables).
func Substitute(input string, cluster Cluster) (string, error) {
	result := strings.ReplaceAll(input, placementv1beta1.OverrideClusterNameVariable, cluster.Name)
	prefix := placementv1beta1.OverrideClusterLabelKeyVariablePrefix
	orig := result
	for {
		start := strings.Index(result, prefix)
		if start == -1 {
			return result, nil
		}
		end := strings.Index(result[start+len(prefix):], "}")
		if end == -1 {
			return "", fmt.Errorf("input %s is missing the closing bracket `}`", orig)
		}
		end += start + len(prefix)
		key := result[start+len(prefix) : end]
		value, ok := cluster.Labels[key]
		if !ok {
			return "", fmt.Errorf("label key %s not found on cluster %s", key, cluster.Name)
		}
		result = strings.Replace(result, result[start:end+1], value, 1)
	}
}
