package placement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

// The generated ClusterResourcePlacement of a managed namespace, as the hub has it: found by the
// namespace's name and the managed-by-ARM label, the members it placed the namespace on
// (placed_members), and apply's wait until it has placed the namespace as written.

// generatedPlacement is the hub's generated placement of the managed namespace name, or nil when
// the hub has none (or only a placement of that name no managed namespace generated).
func generatedPlacement(ctx context.Context, hc *hub.Client, name string) (*hub.Placement, error) {
	crp, err := hc.PlacementAt(ctx, hub.ClusterPlacement(name))
	if hub.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if crp.Labels[managednamespace.ManagedByLabel] != "true" {
		return nil, nil
	}
	return crp, nil
}

// placedMembers are the members the placement reports the namespace Applied and Available on
// for its current generation, by name.
func placedMembers(crp *placementv1.ClusterResourcePlacement) []string {
	current := func(t placementv1.PerClusterPlacementConditionType, ps *placementv1.PerClusterPlacementStatus) bool {
		c := meta.FindStatusCondition(ps.Conditions, string(t))
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == crp.Generation
	}
	out := []string{}
	for i := range crp.Status.PerClusterPlacementStatuses {
		ps := &crp.Status.PerClusterPlacementStatuses[i]
		if ps.ClusterName != "" && current(placementv1.PerClusterAppliedConditionType, ps) && current(placementv1.PerClusterAvailableConditionType, ps) {
			out = append(out, ps.ClusterName)
		}
	}
	sort.Strings(out)
	return out
}

// placedMembersValue is placed_members of a generated placement (null: none).
func placedMembersValue(crp *hub.Placement) types.List {
	if crp == nil {
		return types.ListNull(types.StringType)
	}
	names := placedMembers(&crp.ClusterResourcePlacement)
	values := make([]attr.Value, 0, len(names))
	for _, n := range names {
		values = append(values, types.StringValue(n))
	}
	return types.ListValueMust(types.StringType, values)
}

// namespaceObserved is what the hub has of a generated placement: the placement, the selected
// resources of its latest resource snapshot (and that snapshot's index), and the index each
// cluster's binding points to.
type namespaceObserved struct {
	crp       *placementv1.ClusterResourcePlacement
	snapshot  [][]byte
	latest    string
	byCluster map[string]string
}

// namespacePlacementProgress is where the generated placement is on its way to placing the
// namespace as the configuration writes it (want: managednamespace.Placement; objs:
// managednamespace.Build), and whether it is there: the hub has the policy and the take-over
// policy, the hub agent cut a resource snapshot holding the objects as written and every picked
// member's binding points to it, and every picked member has them Applied and Available
// (placementRolloutProgress). failed names the members whose work applier refused the namespace
// for the current generation (a namespace it may not take over stays refused until the
// configuration or the member changes).
func namespacePlacementProgress(o namespaceObserved, want *placementv1.ClusterResourcePlacement, objs managednamespace.Objects) (progress string, done bool, failed string) {
	crp := o.crp
	if scheduling.NeedsNewSnapshot(crp.Spec.Policy, want.Spec.Policy) {
		return "waiting for the generated placement to take the configured policy", false, ""
	}
	if take := crp.Spec.Strategy.ApplyStrategy; take == nil || take.WhenToTakeOver != want.Spec.Strategy.ApplyStrategy.WhenToTakeOver {
		return "waiting for the generated placement to take the configured adoption policy", false, ""
	}
	if diff := snapshotDiff(o.snapshot, objs); diff != "" {
		return "waiting for the hub agent's resource snapshot of the namespace as written (" + diff + ")", false, ""
	}
	var behind []string
	for _, ps := range crp.Status.PerClusterPlacementStatuses {
		if ps.ClusterName != "" && o.byCluster[ps.ClusterName] != o.latest {
			behind = append(behind, ps.ClusterName)
		}
	}
	if len(behind) > 0 {
		sort.Strings(behind)
		return fmt.Sprintf("waiting for %s to get resource snapshot %s", strings.Join(behind, ", "), o.latest), false, ""
	}
	progress, done = placementRolloutProgress(crp)
	if done {
		return progress, true, ""
	}
	var refused []string
	for i := range crp.Status.PerClusterPlacementStatuses {
		ps := &crp.Status.PerClusterPlacementStatuses[i]
		c := meta.FindStatusCondition(ps.Conditions, string(placementv1.PerClusterAppliedConditionType))
		if ps.ClusterName == "" || len(ps.FailedPlacements) == 0 || c == nil || c.Status != metav1.ConditionFalse || c.ObservedGeneration != crp.Generation {
			continue
		}
		var what []string
		for _, f := range ps.FailedPlacements {
			msg := ""
			if fc := f.Condition; fc.Message != "" {
				msg = ": " + fc.Message
			}
			what = append(what, fmt.Sprintf("%s %s%s", f.Kind, f.Name, msg))
		}
		refused = append(refused, fmt.Sprintf("%s (%s)", ps.ClusterName, strings.Join(what, "; ")))
	}
	sort.Strings(refused)
	return progress, false, strings.Join(refused, ", ")
}

// snapshotDiff says how the selected resources of a resource snapshot differ from the objects
// as built, "" when they do not: the Namespace's labels (besides the API server's
// kubernetes.io/metadata.name) and annotations, the quota's limits and the network policy's spec,
// each present exactly when built.
func snapshotDiff(raws [][]byte, want managednamespace.Objects) string {
	got := map[string]map[string]any{}
	for _, r := range raws {
		var u map[string]any
		if json.Unmarshal(r, &u) != nil {
			continue
		}
		md, _ := u["metadata"].(map[string]any)
		got[fmt.Sprint(u["kind"], "/", md["name"])] = u
	}
	if len(raws) == 0 {
		return "no snapshot yet"
	}
	ns := got["Namespace/"+want.Namespace.Name]
	if ns == nil {
		return "no Namespace in it"
	}
	md, _ := ns["metadata"].(map[string]any)
	labels := stringMap(md["labels"])
	delete(labels, corev1.LabelMetadataName)
	if !reflect.DeepEqual(labels, nonNil(want.Namespace.Labels)) {
		return fmt.Sprintf("namespace labels %v", labels)
	}
	annotations := stringMap(md["annotations"])
	for k, v := range want.Namespace.Annotations {
		if annotations[k] != v {
			return fmt.Sprintf("namespace annotation %s %q", k, annotations[k])
		}
	}
	quota := got["ResourceQuota/"+managednamespace.QuotaName]
	switch {
	case (quota == nil) != (want.ResourceQuota == nil):
		return fmt.Sprintf("resource quota present %t", quota != nil)
	case quota != nil:
		spec, _ := quota["spec"].(map[string]any)
		hard := stringMap(spec["hard"])
		if len(hard) != len(want.ResourceQuota.Spec.Hard) {
			return fmt.Sprintf("resource quota %v", hard)
		}
		for name, q := range want.ResourceQuota.Spec.Hard {
			if g, err := k8sresource.ParseQuantity(hard[string(name)]); err != nil || g.Cmp(q) != 0 {
				return fmt.Sprintf("resource quota %v", hard)
			}
		}
	}
	policy := got["NetworkPolicy/"+managednamespace.NetworkPolicyName]
	switch {
	case (policy == nil) != (want.NetworkPolicy == nil):
		return fmt.Sprintf("network policy present %t", policy != nil)
	case policy != nil:
		var spec map[string]any
		b, _ := json.Marshal(want.NetworkPolicy.Spec)
		_ = json.Unmarshal(b, &spec)
		if !reflect.DeepEqual(policy["spec"], spec) {
			return fmt.Sprintf("network policy %v", policy["spec"])
		}
	}
	return ""
}

// stringMap is a JSON object of strings as a map (empty for none).
func stringMap(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		out[k] = fmt.Sprint(x)
	}
	return out
}

// waitForNamespacePlacement polls the generated placement of name until it has placed the
// namespace as want describes, logging each change, until ctx ends (the operation's timeout, or
// Ctrl-C) or a member refuses the namespace. It returns the last placement read (nil: none).
func waitForNamespacePlacement(ctx context.Context, hc *hub.Client, name string, want *placementv1.ClusterResourcePlacement, objs managednamespace.Objects, every time.Duration) (*hub.Placement, error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var crp *hub.Placement
	last := ""
	for {
		got, err := generatedPlacement(ctx, hc, name)
		var o namespaceObserved
		if err == nil && got != nil {
			o, err = observeNamespacePlacement(ctx, hc, got)
		}
		progress := ""
		switch {
		case err == nil && got == nil:
			progress = "waiting for the generated placement " + name + " on the hub"
		case err == nil:
			crp = got
			var done bool
			var failed string
			progress, done, failed = namespacePlacementProgress(o, want, objs)
			if done {
				logNamespaceProgress(ctx, name, progress, &last)
				return crp, nil
			}
			if failed != "" {
				return crp, fmt.Errorf("members refused the namespace: %s. With adoption_policy Never a namespace of that name that already exists on a member is not taken over", failed)
			}
			if why := placementRefused(&crp.ClusterResourcePlacement); why != "" {
				return crp, errors.New(why)
			}
		case ctx.Err() != nil:
		default:
			tflog.Warn(ctx, "reading the generated placement failed; retrying", map[string]any{"namespace": name, "error": err.Error()})
		}
		if progress != "" {
			logNamespaceProgress(ctx, name, progress, &last)
		}
		select {
		case <-ctx.Done():
			if last == "" {
				last = "no status read"
			}
			return crp, fmt.Errorf("not placed before the timeout or cancellation (%v): %s", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// observeNamespacePlacement reads what namespacePlacementProgress looks at besides the placement.
func observeNamespacePlacement(ctx context.Context, hc *hub.Client, crp *hub.Placement) (namespaceObserved, error) {
	o := namespaceObserved{crp: &crp.ClusterResourcePlacement}
	var err error
	if o.snapshot, o.latest, err = hc.LatestSelectedResources(ctx, crp.Key()); err != nil {
		return o, err
	}
	versions, err := hc.ResourceVersionsAt(ctx, crp.Key())
	o.byCluster = versions.ByCluster
	return o, err
}

func logNamespaceProgress(ctx context.Context, name, progress string, last *string) {
	if progress != *last {
		tflog.Info(ctx, "managed namespace placement", map[string]any{"namespace": name, "progress": progress})
		*last = progress
	}
}
