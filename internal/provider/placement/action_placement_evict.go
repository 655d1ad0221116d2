package placement

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ action.ActionWithConfigure = (*placementEvictAction)(nil)

const (
	// evictPoll is how often the action reads the eviction while the hub decides.
	evictPoll = time.Second
	// evictTimeout bounds the wait for the hub's verdict unless timeouts.invoke says otherwise.
	evictTimeout = 10 * time.Minute
)

// placementEvictAction is fleet_placement_evict: a ClusterResourcePlacementEviction.
type placementEvictAction struct{ shared.ActionBase }

func (a *placementEvictAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = aschema.Schema{
		Description: "Evicts a placement's resources from one member cluster, e.g. before maintenance: creates a KubeFleet " +
			"`ClusterResourcePlacementEviction` and reports the hub's verdict, which honours the placement's " +
			"`ClusterResourcePlacementDisruptionBudget` (`fleet_placement_disruption_budget`, whose preview says how many evictions it " +
			"allows now; an eviction the budget does not allow fails with the hub's message). " +
			"A cluster the placement is not on is not an error: nothing is created. A placement that does not exist, or a " +
			"`PickFixed` placement (KubeFleet does not evict from those), is refused before any request. " +
			"Requires Terraform 1.14 or later.",
		Attributes: map[string]aschema.Attribute{
			"placement": aschema.StringAttribute{Required: true, Description: "The ClusterResourcePlacement's name (`fleet_placement.<name>.name`)."},
			"cluster":   aschema.StringAttribute{Required: true, Description: "The member cluster to evict it from."},
		},
		Blocks: map[string]aschema.Block{
			"timeouts": shared.ActionTimeoutsBlock(ctx, "wait for the hub's verdict", evictTimeout),
		},
	}
}

type placementEvictModel struct {
	Placement types.String `tfsdk:"placement"`
	Cluster   types.String `tfsdk:"cluster"`
	shared.ActionTimeouts
}

func (a *placementEvictAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	backend.InvokeHubAction(ctx, a.Clients, req, resp, evictTimeout, func(ctx context.Context, m *placementEvictModel, h *hub.Client, progress shared.Progress) {
		name, cluster := m.Placement.ValueString(), m.Cluster.ValueString()
		p, err := h.Placement(ctx, name)
		if err != nil {
			if hub.IsNotFound(err) {
				resp.Diagnostics.AddAttributeError(path.Root("placement"), "Placement not found", fmt.Sprintf("The hub has no ClusterResourcePlacement %q.", name))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reading the placement", err)
			return
		}
		if pol := p.Spec.Policy; pol != nil && pol.PlacementType == placementv1.PickFixedPlacementType {
			resp.Diagnostics.AddAttributeError(path.Root("placement"), "Placement cannot be evicted",
				fmt.Sprintf("ClusterResourcePlacement %q is PickFixed; KubeFleet evicts only from PickAll and PickN placements. Remove %q from its cluster_names instead.", name, cluster))
			return
		}
		bindings, err := h.Bindings(ctx, name)
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Reading the placement's bindings", err)
			return
		}
		placedOn := []string{}
		found := false
		for _, b := range bindings {
			if b.Spec.State == placementv1.BindingStateUnscheduled || b.DeletionTimestamp != nil {
				continue
			}
			placedOn = append(placedOn, b.Spec.TargetCluster)
			found = found || b.Spec.TargetCluster == cluster
		}
		if !found {
			progress("placement %s is not on cluster %s (it is on %d: %s); nothing to evict", name, cluster, len(placedOn), strings.Join(placedOn, ", "))
			return
		}
		evName := evictionName(name, cluster, a.Clients.Now())
		progress("evicting placement %s from cluster %s (ClusterResourcePlacementEviction %s; the placement is on %d clusters)", name, cluster, evName, len(placedOn))
		if _, err := h.CreateEviction(ctx, evName, name, cluster); err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Creating the eviction", err)
			return
		}
		var ev *placementv1beta1.ClusterResourcePlacementEviction
		err = shared.PollEvery(ctx, evictPoll, func(ctx context.Context) (bool, error) {
			got, err := h.Eviction(ctx, evName)
			if err != nil {
				return false, err
			}
			ev = got
			valid := meta.FindStatusCondition(ev.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeValid))
			executed := meta.FindStatusCondition(ev.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeExecuted))
			if valid == nil {
				progress("waiting for the hub's verdict on eviction %s", evName)
				return false, nil
			}
			return valid.Status == "False" || executed != nil, nil
		})
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Waiting for the hub's verdict", fmt.Errorf("eviction %s: %w", evName, err))
			return
		}
		valid := meta.FindStatusCondition(ev.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeValid))
		executed := meta.FindStatusCondition(ev.Status.Conditions, string(placementv1beta1.PlacementEvictionConditionTypeExecuted))
		switch {
		case valid.Status == "False":
			resp.Diagnostics.AddError("Eviction refused", fmt.Sprintf("The hub found ClusterResourcePlacementEviction %s invalid: %s", evName, valid.Message))
		case executed.Status != "True":
			resp.Diagnostics.AddError("Eviction not executed", fmt.Sprintf("The hub did not execute ClusterResourcePlacementEviction %s: %s", evName, executed.Message))
		default:
			progress("evicted placement %s from cluster %s: %s", name, cluster, executed.Message)
		}
	})
}

// evictionName is a fresh eviction's name: an executed eviction is terminal, so every invocation
// makes a new one, named for what it evicts and when (a DNS subdomain of at most 253 characters).
func evictionName(placement, cluster string, now time.Time) string {
	n := fmt.Sprintf("%s-%s-%d", placement, cluster, now.Unix())
	if len(n) > 253 {
		n = n[len(n)-253:]
		n = strings.TrimLeft(n, "-.")
	}
	return n
}
