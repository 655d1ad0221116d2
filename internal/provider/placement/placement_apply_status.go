package placement

import (
	"sort"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// status.apply: per cluster, what the member agent's work applier said, as the hub agent gathers
// it into the placement's per-cluster status (v1 PerClusterPlacementStatus: the Applied and
// DiffReported conditions, failedPlacements, driftedPlacements, diffedPlacements). Bounded: exact
// counts always, the clusters that need a reader first (failed, drifted, diffed, pending, then
// applied) up to the preview_detail cap.

// The per-cluster results, in the order the list takes them.
const (
	applyResultFailed  = "Failed"
	applyResultDrifted = "Drifted"
	applyResultDiffed  = "Diffed"
	applyResultPending = "Pending"
	applyResultApplied = "Applied"
)

var applyResultOrder = map[string]int{applyResultFailed: 0, applyResultDrifted: 1, applyResultDiffed: 2, applyResultPending: 3, applyResultApplied: 4}

var (
	applyPatchType  = types.ObjectType{AttrTypes: map[string]attr.Type{"path": types.StringType, "value_in_member": types.StringType, "value_in_hub": types.StringType}}
	applyObjectAttr = map[string]attr.Type{
		"group": types.StringType, "version": types.StringType, "kind": types.StringType, "namespace": types.StringType, "name": types.StringType,
		"envelope": types.StringType,
	}
	applyFailedType  = types.ObjectType{AttrTypes: withAttrs(applyObjectAttr, map[string]attr.Type{"reason": types.StringType, "message": types.StringType})}
	applyDriftedType = types.ObjectType{AttrTypes: withAttrs(applyObjectAttr, map[string]attr.Type{"observed_drifts": types.ListType{ElemType: applyPatchType}})}
	applyDiffedType  = types.ObjectType{AttrTypes: withAttrs(applyObjectAttr, map[string]attr.Type{"observed_diffs": types.ListType{ElemType: applyPatchType}})}
	applyClusterType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"cluster": types.StringType, "result": types.StringType, "message": types.StringType,
		"failed": types.ListType{ElemType: applyFailedType}, "drifted": types.ListType{ElemType: applyDriftedType},
		"diffed": types.ListType{ElemType: applyDiffedType}, "objects_omitted": types.Int64Type,
	}}
	applyStatusAttrTypes = map[string]attr.Type{
		"applied_count": types.Int64Type, "failed_count": types.Int64Type, "drifted_count": types.Int64Type,
		"diffed_count": types.Int64Type, "pending_count": types.Int64Type,
		"clusters": types.ListType{ElemType: applyClusterType}, "clusters_omitted": types.Int64Type,
	}
)

func withAttrs(base, more map[string]attr.Type) map[string]attr.Type {
	out := make(map[string]attr.Type, len(base)+len(more))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func applyObjectSchema(more map[string]rschema.Attribute) map[string]rschema.Attribute {
	out := map[string]rschema.Attribute{
		"group":     rschema.StringAttribute{Computed: true, Description: "API group; empty for the core group."},
		"version":   rschema.StringAttribute{Computed: true, Description: "API version."},
		"kind":      rschema.StringAttribute{Computed: true, Description: "Kind."},
		"namespace": rschema.StringAttribute{Computed: true, Description: "Namespace; null for cluster-scoped objects."},
		"name":      rschema.StringAttribute{Computed: true, Description: "Name."},
		"envelope":  rschema.StringAttribute{Computed: true, Description: "The envelope (`<namespace>/<name>` or `<name>`) that carried the object; null if none."},
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func applyPatchListSchema(desc string) rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{
		Computed: true, Description: desc,
		NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
			"path":            rschema.StringAttribute{Computed: true, Description: "The field, as a JSON pointer (`/spec/replicas`)."},
			"value_in_member": rschema.StringAttribute{Computed: true, Description: "Its value on the member; null when the member lacks the field."},
			"value_in_hub":    rschema.StringAttribute{Computed: true, Description: "Its value in the hub's manifest; null when the manifest lacks the field."},
		}},
	}
}

func placementApplyStatusAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "What each cluster's member agent did with the placed resources (KubeFleet's work applier, per " +
			"`apply_strategy`): counts of clusters by result, and the clusters themselves — failed first, then drifted, " +
			"diffed, pending and applied, by name — at most 20 unless `preview_detail = \"full\"`.",
		Attributes: map[string]rschema.Attribute{
			"applied_count": rschema.Int64Attribute{Computed: true, Description: "Clusters where every object is applied (or, with ReportDiff, found without differences)."},
			"failed_count":  rschema.Int64Attribute{Computed: true, Description: "Clusters where an object failed to apply."},
			"drifted_count": rschema.Int64Attribute{Computed: true, Description: "Clusters (not failed) where an object drifted from the hub's manifest on the member."},
			"diffed_count":  rschema.Int64Attribute{Computed: true, Description: "Clusters (neither failed nor drifted) where ReportDiff found differences."},
			"pending_count": rschema.Int64Attribute{Computed: true, Description: "Clusters whose member agent has not reported on the current resources yet."},
			"clusters": rschema.ListNestedAttribute{
				Computed: true, Description: "Per cluster, in the order above.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"cluster": rschema.StringAttribute{Computed: true, Description: "The member cluster."},
					"result":  rschema.StringAttribute{Computed: true, Description: "`Failed`, `Drifted`, `Diffed`, `Pending` or `Applied`."},
					"message": rschema.StringAttribute{Computed: true, Description: "The cluster's Applied (or, with ReportDiff, DiffReported) condition message."},
					"failed": rschema.ListNestedAttribute{
						Computed: true, Description: "The objects that failed, with the work applier's reason and message.",
						NestedObject: rschema.NestedAttributeObject{Attributes: applyObjectSchema(map[string]rschema.Attribute{
							"reason":  rschema.StringAttribute{Computed: true, Description: "The failed condition's reason (e.g. `NotTakenOver`, `FoundDrifts`)."},
							"message": rschema.StringAttribute{Computed: true, Description: "KubeFleet's message."},
						})},
					},
					"drifted": rschema.ListNestedAttribute{
						Computed: true, Description: "Objects changed on the member since they were applied, field by field.",
						NestedObject: rschema.NestedAttributeObject{Attributes: applyObjectSchema(map[string]rschema.Attribute{
							"observed_drifts": applyPatchListSchema("The drifted fields."),
						})},
					},
					"diffed": rschema.ListNestedAttribute{
						Computed: true, Description: "Objects that differ from the hub's manifest (ReportDiff, or a take-over refused for a difference).",
						NestedObject: rschema.NestedAttributeObject{Attributes: applyObjectSchema(map[string]rschema.Attribute{
							"observed_diffs": applyPatchListSchema("The differing fields."),
						})},
					},
					"objects_omitted": rschema.Int64Attribute{Computed: true, Description: "Objects left out of the three lists by the cap."},
				}},
			},
			"clusters_omitted": rschema.Int64Attribute{Computed: true, Description: "Clusters left out of `clusters` by the cap."},
		},
	}
}

// applyResult classifies a cluster: failed, drifted or diffed objects first, then whether the
// current Applied (ReportDiff: DiffReported) condition is True.
func applyResult(ps *placementv1.PerClusterPlacementStatus, generation int64) (string, string) {
	cond := meta.FindStatusCondition(ps.Conditions, string(placementv1.PerClusterAppliedConditionType))
	if c := meta.FindStatusCondition(ps.Conditions, string(placementv1.PerClusterDiffReportedConditionType)); c != nil {
		cond = c
	}
	msg := ""
	if cond != nil {
		msg = cond.Message
	}
	switch {
	case len(ps.FailedPlacements) > 0:
		return applyResultFailed, msg
	case len(ps.DriftedPlacements) > 0:
		return applyResultDrifted, msg
	case len(ps.DiffedPlacements) > 0:
		return applyResultDiffed, msg
	case cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == generation:
		return applyResultApplied, msg
	}
	return applyResultPending, msg
}

func applyObjectValues(id placementv1.ResourceIdentifier) map[string]attr.Value {
	env := types.StringNull()
	if e := id.Envelope; e != nil {
		env = types.StringValue(e.Name)
		if e.Namespace != "" {
			env = types.StringValue(e.Namespace + "/" + e.Name)
		}
	}
	return map[string]attr.Value{
		"group": types.StringValue(id.Group), "version": types.StringValue(id.Version), "kind": types.StringValue(id.Kind),
		"namespace": plString(id.Namespace), "name": types.StringValue(id.Name), "envelope": env,
	}
}

func applyPatches(ps []placementv1.PatchDetail, diags *diag.Diagnostics) types.List {
	out := make([]attr.Value, 0, len(ps))
	for _, p := range ps {
		o, d := types.ObjectValue(applyPatchType.AttrTypes, map[string]attr.Value{
			"path": types.StringValue(p.Path), "value_in_member": plString(p.ValueInMember), "value_in_hub": plString(p.ValueInHub),
		})
		diags.Append(d...)
		out = append(out, o)
	}
	l, d := types.ListValue(applyPatchType, out)
	diags.Append(d...)
	return l
}

// applyObjects is the first n of a cluster's failed, drifted or diffed objects as values of type t.
func applyObjects[T any](items []T, n int, t types.ObjectType, diags *diag.Diagnostics, values func(*T) map[string]attr.Value) []attr.Value {
	out := make([]attr.Value, 0)
	for i := range items[:n] {
		o, d := types.ObjectValue(t.AttrTypes, values(&items[i]))
		diags.Append(d...)
		out = append(out, o)
	}
	return out
}

// applyCluster is one cluster's entry; its three object lists share the cap, failed first.
func applyCluster(ps *placementv1.PerClusterPlacementStatus, result, msg string, limit int, diags *diag.Diagnostics) attr.Value {
	left := limit
	take := func(n int) int {
		if limit <= 0 {
			return n
		}
		k := min(n, left)
		left -= k
		return k
	}
	failed := applyObjects(ps.FailedPlacements, take(len(ps.FailedPlacements)), applyFailedType, diags, func(f *placementv1.FailedResourcePlacement) map[string]attr.Value {
		v := applyObjectValues(f.ResourceIdentifier)
		v["reason"], v["message"] = types.StringValue(f.Condition.Reason), types.StringValue(f.Condition.Message)
		return v
	})
	drifted := applyObjects(ps.DriftedPlacements, take(len(ps.DriftedPlacements)), applyDriftedType, diags, func(f *placementv1.DriftedResourcePlacement) map[string]attr.Value {
		v := applyObjectValues(f.ResourceIdentifier)
		v["observed_drifts"] = applyPatches(f.ObservedDrifts, diags)
		return v
	})
	diffed := applyObjects(ps.DiffedPlacements, take(len(ps.DiffedPlacements)), applyDiffedType, diags, func(f *placementv1.DiffedResourcePlacement) map[string]attr.Value {
		v := applyObjectValues(f.ResourceIdentifier)
		v["observed_diffs"] = applyPatches(f.ObservedDiffs, diags)
		return v
	})
	omitted := len(ps.FailedPlacements) + len(ps.DriftedPlacements) + len(ps.DiffedPlacements) - len(failed) - len(drifted) - len(diffed)
	list := func(t types.ObjectType, vs []attr.Value) types.List {
		l, d := types.ListValue(t, vs)
		diags.Append(d...)
		return l
	}
	o, d := types.ObjectValue(applyClusterType.AttrTypes, map[string]attr.Value{
		"cluster": types.StringValue(ps.ClusterName), "result": types.StringValue(result), "message": types.StringValue(msg),
		"failed": list(applyFailedType, failed), "drifted": list(applyDriftedType, drifted), "diffed": list(applyDiffedType, diffed),
		"objects_omitted": types.Int64Value(int64(omitted)),
	})
	diags.Append(d...)
	return o
}

// placementApplyStatus is status.apply for the placement's per-cluster statuses; limit is the
// preview_detail cap (0: all).
func placementApplyStatus(crp *placementv1.ClusterResourcePlacement, limit int, diags *diag.Diagnostics) types.Object {
	type entry struct {
		ps          *placementv1.PerClusterPlacementStatus
		result, msg string
	}
	counts := map[string]int{}
	var entries []entry
	for i := range crp.Status.PerClusterPlacementStatuses {
		ps := &crp.Status.PerClusterPlacementStatuses[i]
		if ps.ClusterName == "" {
			continue // a cluster the scheduler could not find: nothing was applied
		}
		result, msg := applyResult(ps, crp.Generation)
		counts[result]++
		entries = append(entries, entry{ps, result, msg})
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if a, b := applyResultOrder[entries[i].result], applyResultOrder[entries[j].result]; a != b {
			return a < b
		}
		return entries[i].ps.ClusterName < entries[j].ps.ClusterName
	})
	listed, omitted := preview.CapList(entries, limit)
	clusters := make([]attr.Value, 0, len(listed))
	for _, e := range listed {
		clusters = append(clusters, applyCluster(e.ps, e.result, e.msg, limit, diags))
	}
	cl, d := types.ListValue(applyClusterType, clusters)
	diags.Append(d...)
	o, d := types.ObjectValue(applyStatusAttrTypes, map[string]attr.Value{
		"applied_count": types.Int64Value(int64(counts[applyResultApplied])), "failed_count": types.Int64Value(int64(counts[applyResultFailed])),
		"drifted_count": types.Int64Value(int64(counts[applyResultDrifted])), "diffed_count": types.Int64Value(int64(counts[applyResultDiffed])),
		"pending_count": types.Int64Value(int64(counts[applyResultPending])),
		"clusters":      cl, "clusters_omitted": types.Int64Value(omitted),
	})
	diags.Append(d...)
	return o
}
