package placement

import (
	"errors"

	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	fleetcondition "go.goms.io/fleet/pkg/utils/condition"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// fleet_placement's and fleet_resource_placement's status, refreshed from the hub, and apply's wait for a
// rollout (wait_for_rollout).

func placementConditionAttributes() map[string]rschema.Attribute {
	return map[string]rschema.Attribute{
		"type":    rschema.StringAttribute{Computed: true, Description: "The condition type."},
		"status":  rschema.StringAttribute{Computed: true, Description: "`True`, `False` or `Unknown`."},
		"reason":  rschema.StringAttribute{Computed: true, Description: "A machine-readable reason."},
		"message": rschema.StringAttribute{Computed: true, Description: "A human-readable message."},
	}
}

func placementStatusAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "The placement's status on the hub, refreshed on every read: what the hub agent did (compare with " +
			"`preview`, what it was going to do).",
		Attributes: map[string]rschema.Attribute{
			"observed_generation": rschema.Int64Attribute{Computed: true, Description: "The generation of the spec the Scheduled condition describes."},
			"conditions": rschema.ListNestedAttribute{
				Computed: true, Description: "The placement's conditions (Scheduled, RolloutStarted, Overridden, WorkSynchronized, Applied, Available).",
				NestedObject: rschema.NestedAttributeObject{Attributes: placementConditionAttributes()},
			},
			"placement_statuses": rschema.ListNestedAttribute{
				Computed: true,
				Description: "Per cluster, by name; a PickN or PickFixed placement short of clusters also lists, without a " +
					"cluster, one entry per missing cluster with the reason.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"cluster": rschema.StringAttribute{Computed: true, Description: "The member cluster; null for a cluster the scheduler could not find."},
					"resource_snapshot_index": rschema.StringAttribute{
						Computed: true,
						Description: "The resource snapshot index the cluster's binding points to: the version of the selected " +
							"resources it runs or is getting. Null while it has none, e.g. with the External strategy before an " +
							"update run has rolled a version out to it.",
					},
					"conditions": rschema.ListNestedAttribute{
						Computed: true, Description: "The cluster's conditions; Scheduled's message has the cluster's scores.",
						NestedObject: rschema.NestedAttributeObject{Attributes: placementConditionAttributes()},
					},
				}},
			},
			"apply": placementApplyStatusAttribute(),
			"selected_resources": rschema.ListNestedAttribute{
				Computed: true, Description: "The hub resources the placement selected.",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"group":     rschema.StringAttribute{Computed: true, Description: "API group."},
					"version":   rschema.StringAttribute{Computed: true, Description: "API version."},
					"kind":      rschema.StringAttribute{Computed: true, Description: "Kind."},
					"name":      rschema.StringAttribute{Computed: true, Description: "Name."},
					"namespace": rschema.StringAttribute{Computed: true, Description: "Namespace; null for cluster-scoped resources."},
				}},
			},
		},
	}
}

// placementConditions lists conditions as values.
func placementConditions(conds []metav1.Condition, diags *diag.Diagnostics) types.List {
	out := make([]attr.Value, 0, len(conds))
	for _, c := range conds {
		o, d := types.ObjectValue(placementConditionAttrTypes.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(string(c.Status)),
			"reason": types.StringValue(c.Reason), "message": types.StringValue(c.Message),
		})
		diags.Append(d...)
		out = append(out, o)
	}
	l, d := types.ListValue(placementConditionAttrTypes, out)
	diags.Append(d...)
	return l
}

// placementStatusObject is the hub's status of the placement, built value by value (a placement
// on a thousand clusters has six thousand conditions: reflection would cost seconds). Per-cluster
// statuses are sorted by name (the hub's order follows its bindings), unnamed entries for missing
// clusters last.
func placementStatusObject(crp *placementv1.ClusterResourcePlacement, indexByCluster map[string]string, limit int) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	generation := int64(0)
	if c := meta.FindStatusCondition(crp.Status.Conditions, placementScheduledCondition(&crp.ObjectMeta)); c != nil {
		generation = c.ObservedGeneration
	}
	statuses := append([]placementv1.PerClusterPlacementStatus(nil), crp.Status.PerClusterPlacementStatuses...)
	sort.SliceStable(statuses, func(i, j int) bool {
		a, b := statuses[i].ClusterName, statuses[j].ClusterName
		if (a == "") != (b == "") {
			return b == ""
		}
		return a < b
	})
	clusters := make([]attr.Value, 0, len(statuses))
	for _, ps := range statuses {
		o, d := types.ObjectValue(placementClusterStatusType.AttrTypes, map[string]attr.Value{
			"cluster": plString(ps.ClusterName), "conditions": placementConditions(ps.Conditions, &diags),
			"resource_snapshot_index": plString(indexByCluster[ps.ClusterName]),
		})
		diags.Append(d...)
		clusters = append(clusters, o)
	}
	resources := make([]attr.Value, 0, len(crp.Status.SelectedResources))
	for _, r := range crp.Status.SelectedResources {
		o, d := types.ObjectValue(placementSelectedResourceType.AttrTypes, map[string]attr.Value{
			"group": types.StringValue(r.Group), "version": types.StringValue(r.Version), "kind": types.StringValue(r.Kind),
			"name": types.StringValue(r.Name), "namespace": plString(r.Namespace),
		})
		diags.Append(d...)
		resources = append(resources, o)
	}
	cl, d := types.ListValue(placementClusterStatusType, clusters)
	diags.Append(d...)
	rl, d := types.ListValue(placementSelectedResourceType, resources)
	diags.Append(d...)
	o, d := types.ObjectValue(placementStatusAttrTypes, map[string]attr.Value{
		"observed_generation": types.Int64Value(generation),
		"conditions":          placementConditions(crp.Status.Conditions, &diags),
		"placement_statuses":  cl,
		"selected_resources":  rl,
		"apply":               placementApplyStatus(crp, limit, &diags),
	})
	diags.Append(d...)
	return o, diags
}

// setObserved sets what the hub reports: the placement's status, with each cluster's resource
// snapshot index and apply results (at most limit clusters listed; 0: all), and the resource
// snapshot history.
func (m *placementModel) setObserved(crp *hub.Placement, versions hub.ResourceVersions, limit int) diag.Diagnostics {
	status, diags := placementStatusObject(&crp.ClusterResourcePlacement, versions.ByCluster, limit)
	m.Status = status
	m.LatestResourceIndex = plString(versions.Latest)
	snaps := make([]attr.Value, 0, len(versions.Snapshots))
	for _, s := range versions.Snapshots {
		o, d := types.ObjectValue(placementResourceSnapshotType.AttrTypes, map[string]attr.Value{
			"index": types.StringValue(s.Index), "created_at": types.StringValue(s.CreatedAt.UTC().Format(time.RFC3339)),
		})
		diags.Append(d...)
		snaps = append(snaps, o)
	}
	l, d := types.ListValue(placementResourceSnapshotType, snaps)
	diags.Append(d...)
	m.ResourceSnapshots = l
	return diags
}

// saveWithStatus saves the model with what the hub reports about the placement. Right after a
// create or update the hub agent may not have cut the new resource snapshot yet: the next refresh
// shows it.
func (r *placementResource) saveWithStatus(ctx context.Context, hc *hub.Client, m *placementModel, crp *hub.Placement, state *tfsdk.State, diags *diag.Diagnostics) {
	versions, err := hc.ResourceVersionsAt(ctx, crp.Key())
	if err != nil {
		diags.AddWarning("Reading the placement's resource snapshots",
			fmt.Sprintf("Placement %q is saved, but its resource snapshots could not be read (%v); the next refresh reads them.", crp.Key().String(), err))
	}
	diags.Append(m.setObserved(crp, versions, r.Clients.ListLimit())...)
	diags.Append(r.sc().models().Set(ctx, state, m)...)
}

// waitAndSave waits for the rollout and saves the final status; on failure the state is saved
// all the same and the error says which clusters are not there yet.
func (r *placementResource) waitAndSave(ctx context.Context, hc *hub.Client, m *placementModel, state *tfsdk.State, diags *diag.Diagnostics) {
	key := r.sc().key(m)
	name := key.String()
	crp, err := waitForPlacementRollout(ctx, hc, key, placementPollInterval)
	if crp != nil {
		r.saveWithStatus(context.WithoutCancel(ctx), hc, m, crp, state, diags)
	}
	if err != nil {
		diags.AddError("Placement did not roll out", fmt.Sprintf("Waiting for placement %q: %v", name, err))
		return
	}
	if c := meta.FindStatusCondition(crp.Status.Conditions, placementScheduledCondition(&crp.ObjectMeta)); c != nil && c.Status == metav1.ConditionFalse {
		diags.AddWarning("Placement not fulfilled", fmt.Sprintf("Placement %q rolled out to every cluster it picked, but the scheduler could not find all the clusters its policy asks for: %s", name, c.Message))
	}
}

// placementRefused says why the hub agent will never roll the placement's current generation out,
// "" otherwise: its resource selectors are invalid (pkg/controllers/placement/controller.go sets
// Scheduled False with reason InvalidResourceSelectors and stops until the spec changes).
func placementRefused(crp *placementv1.ClusterResourcePlacement) string {
	c := meta.FindStatusCondition(crp.Status.Conditions, placementScheduledCondition(&crp.ObjectMeta))
	if c == nil || c.ObservedGeneration != crp.Generation || c.Status != metav1.ConditionFalse || c.Reason != fleetcondition.InvalidResourceSelectorsReason {
		return ""
	}
	return fmt.Sprintf("the hub agent refused the placement (%s): %s", c.Reason, c.Message)
}

// placementRolloutConditions are the per-cluster conditions in the order a rollout sets them.
var placementRolloutConditions = []placementv1.PerClusterPlacementConditionType{
	placementv1.PerClusterScheduledConditionType, placementv1.PerClusterRolloutStartedConditionType,
	placementv1.PerClusterOverriddenConditionType, placementv1.PerClusterWorkSynchronizedConditionType,
	placementv1.PerClusterAppliedConditionType, placementv1.PerClusterAvailableConditionType,
}

// placementRolloutProgress describes where a placement's rollout is, and whether it is done: scheduled for
// the current generation, and every picked cluster Applied and Available for it.
func placementRolloutProgress(crp *placementv1.ClusterResourcePlacement) (string, bool) {
	gen := crp.Generation
	current := func(c *metav1.Condition) bool { return c != nil && c.ObservedGeneration == gen }
	sched := meta.FindStatusCondition(crp.Status.Conditions, placementScheduledCondition(&crp.ObjectMeta))
	if !current(sched) || sched.Status == metav1.ConditionUnknown {
		return "waiting for the scheduler", false
	}
	var waiting, ready []string
	for _, ps := range crp.Status.PerClusterPlacementStatuses {
		if ps.ClusterName == "" {
			continue
		}
		pending := ""
		for _, t := range placementRolloutConditions {
			c := meta.FindStatusCondition(ps.Conditions, string(t))
			if !current(c) || c.Status != metav1.ConditionTrue {
				pending = fmt.Sprintf("%s: waiting for %s", ps.ClusterName, t)
				if current(c) && c.Message != "" {
					pending += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
				}
				break
			}
		}
		if pending != "" {
			waiting = append(waiting, pending)
		} else {
			ready = append(ready, ps.ClusterName)
		}
	}
	sort.Strings(waiting)
	sort.Strings(ready)
	desc := fmt.Sprintf("available on %d cluster(s) [%s]", len(ready), strings.Join(ready, ", "))
	if len(waiting) > 0 {
		desc += "; " + strings.Join(waiting, "; ")
		return desc, false
	}
	if len(ready) > 0 {
		avail := meta.FindStatusCondition(crp.Status.Conditions, placementAvailableCondition(&crp.ObjectMeta))
		if !current(avail) || avail.Status != metav1.ConditionTrue {
			return desc + "; waiting for the placement's Available condition", false
		}
	}
	return desc, true
}

// waitForPlacementRollout polls the placement until placementRolloutProgress says it is done, logging each change,
// until ctx ends (the apply's timeout, or Ctrl-C). It returns the last placement read.
func waitForPlacementRollout(ctx context.Context, hc *hub.Client, key hub.PlacementKey, every time.Duration) (*hub.Placement, error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var crp *hub.Placement
	last := ""
	name := key.String()
	for {
		got, err := hc.PlacementAt(ctx, key)
		switch {
		case err == nil:
			crp = got
			progress, done := placementRolloutProgress(&crp.ClusterResourcePlacement)
			if progress != last {
				tflog.Info(ctx, "placement rollout", map[string]any{"placement": name, "generation": crp.Generation, "progress": progress})
				last = progress
			}
			if done {
				return crp, nil
			}
			if why := placementRefused(&crp.ClusterResourcePlacement); why != "" {
				return crp, errors.New(why)
			}
		case ctx.Err() != nil:
		case hub.IsNotFound(err):
			return crp, fmt.Errorf("the placement was deleted while waiting for its rollout")
		default:
			tflog.Warn(ctx, "reading the placement failed; retrying", map[string]any{"placement": name, "error": err.Error()})
		}
		select {
		case <-ctx.Done():
			if last == "" {
				last = "no status read"
			}
			return crp, fmt.Errorf("not rolled out before the timeout or cancellation (%v): %s", ctx.Err(), last)
		case <-tick.C:
		}
	}
}
