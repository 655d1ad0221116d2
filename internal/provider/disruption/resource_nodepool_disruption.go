package disruption

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var (
	_ resource.ResourceWithValidateConfig = (*nodePoolDisruptionResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*nodePoolDisruptionResource)(nil)
)

// nodePoolDisruptionResource is fleet_nodepool_disruption: the disruption settings of a Karpenter
// NodePool on a member cluster, by server-side apply.
type nodePoolDisruptionResource struct{ shared.ResourceBase }

// npDefaultTimeout bounds each operation: a handful of API calls, no waiting.
const npDefaultTimeout = 5 * time.Minute

// npBlocksUpgrade is the state upgrade from version 0 (nested attributes) to the blocks: `budgets`
// became the `budget` blocks; `field_manager` keeps its name and was never filled in by the
// provider (Optional, not Computed), so nothing is nulled.
var npBlocksUpgrade = shared.BlockRenames{Renames: map[string]string{"budgets": "budget"}}

// UpgradeState upgrades a state written before the blocks (schema version 0).
func (r *nodePoolDisruptionResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: shared.BlocksUpgrade(npBlocksUpgrade)}
}

// ImportState takes `<cluster>/<node_pool>` and the fields this provider's field manager owns on
// the NodePool (none for a NodePool never managed here: the first apply then takes over what the
// configuration sets), with a preview at the provider's clock.
func (r *nodePoolDisruptionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	i := strings.LastIndex(req.ID, "/")
	if i <= 0 || i == len(req.ID)-1 {
		resp.Diagnostics.AddError("Unexpected import ID", fmt.Sprintf("Expected <cluster>/<node_pool>, e.g. canary-east/default; got %q.", req.ID))
		return
	}
	cluster, pool := req.ID[:i], req.ID[i+1:]
	kc := r.cluster(ctx, cluster, &resp.Diagnostics)
	if kc == nil {
		return
	}
	live, err := getNodePool(ctx, kc, cluster, pool)
	if err != nil {
		npAddNodePoolError(&resp.Diagnostics, err)
		return
	}
	m := npNullModel()
	m.ID, m.Cluster, m.NodePool = types.StringValue(req.ID), types.StringValue(cluster), types.StringValue(pool)
	resp.Diagnostics.Append(npReadLive(ctx, &m, live, func(p []string, _ bool) bool {
		return slices.ContainsFunc(fieldOwners(live, p), fieldOwner.Ours)
	})...)
	preview := npPreviewNow(ctx, r.Clients.View(), m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	for attrName, val := range map[string]attr.Value{
		"id": m.ID, "cluster": m.Cluster, "node_pool": m.NodePool, "consolidation_policy": m.ConsolidationPolicy,
		"consolidate_after": m.ConsolidateAfter, "expire_after": m.ExpireAfter, "termination_grace_period": m.TerminationGracePeriod,
		"budget": m.Budgets, "do_not_disrupt": m.DoNotDisrupt, "field_manager": m.FieldManager, "preview": preview,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attrName), val)...)
	}
}

// npDo runs each operation's work (do) on the model read from the plan or state (from), under the
// operation's deadline (op); a model or timeout that cannot be read is an error and do does not run.
func npDo(ctx context.Context, from shared.ModelSource, op shared.TimeoutOp, d *diag.Diagnostics, do func(context.Context, nodePoolDisruptionModel)) {
	var m nodePoolDisruptionModel
	d.Append(from.Get(ctx, &m)...)
	if d.HasError() {
		return
	}
	ctx, cancel, ok := shared.WithTimeout(ctx, shared.Configured(op, m.Timeouts), npDefaultTimeout, d)
	defer cancel()
	if ok {
		do(ctx, m)
	}
}

// npLive is what Read and Delete work from: the state, the member cluster's client, and the
// NodePool as it is now or getNodePool's error.
type npLive struct {
	state nodePoolDisruptionModel
	kc    *kube.Client
	pool  *unstructured.Unstructured
	err   error
}

// logFields name the NodePool in log lines.
func (l npLive) logFields() map[string]any {
	return map[string]any{"cluster": l.state.Cluster.ValueString(), "node_pool": l.state.NodePool.ValueString()}
}

// doLive is npDo from the state, with a look at the NodePool it names first; do does not run when
// the cluster cannot be reached (an error diagnostic).
func (r *nodePoolDisruptionResource) doLive(ctx context.Context, st tfsdk.State, op shared.TimeoutOp, d *diag.Diagnostics, do func(context.Context, npLive)) {
	npDo(ctx, st, op, d, func(ctx context.Context, state nodePoolDisruptionModel) {
		cluster, pool := state.Cluster.ValueString(), state.NodePool.ValueString()
		l := npLive{state: state, kc: r.cluster(ctx, cluster, d)}
		if l.kc == nil {
			return
		}
		l.pool, l.err = getNodePool(ctx, l.kc, cluster, pool)
		do(ctx, l)
	})
}

// save is Create's and Update's work (prior: the state, nil on create): the plan applied to the
// NodePool and saved, with a warning when what the plan was computed from moved since (on update
// only when the preview changed).
func (r *nodePoolDisruptionResource) save(ctx context.Context, plan nodePoolDisruptionModel, prior *nodePoolDisruptionModel, config tfsdk.Config, state *tfsdk.State, d *diag.Diagnostics) {
	r.apply(ctx, &plan, prior, d)
	if d.HasError() {
		return
	}
	if prior == nil {
		plan.ID = types.StringValue(plan.Cluster.ValueString() + "/" + plan.NodePool.ValueString())
	}
	d.Append(state.Set(ctx, plan)...)
	if prior == nil || !plan.Preview.Equal(prior.Preview) {
		nodePoolDisruptionPreviewSpec.WarnMoved(ctx, r.Clients, config, &plan, plan.Preview, d)
	}
}

func (r *nodePoolDisruptionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	npDo(ctx, req.Plan, timeouts.Value.Create, &resp.Diagnostics, func(ctx context.Context, plan nodePoolDisruptionModel) {
		r.save(ctx, plan, nil, req.Config, &resp.State, &resp.Diagnostics)
	})
}

func (r *nodePoolDisruptionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.doLive(ctx, req.State, timeouts.Value.Read, &resp.Diagnostics, func(ctx context.Context, l npLive) {
		if backend.RemoveGone(ctx, resp, isNodePoolMissing(l.err), "NodePool", l.logFields()) {
			return
		}
		if l.err != nil {
			resp.Diagnostics.AddError("Cannot read the NodePool", l.err.Error())
			return
		}
		// Drift: every managed attribute takes the NodePool's value; unmanaged ones stay null.
		resp.Diagnostics.Append(npReadLive(ctx, &l.state, l.pool, func(_ []string, managed bool) bool { return managed })...)
		resp.Diagnostics.Append(resp.State.Set(ctx, l.state)...)
	})
}

func (r *nodePoolDisruptionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var prior nodePoolDisruptionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	npDo(ctx, req.Plan, timeouts.Value.Update, &resp.Diagnostics, func(ctx context.Context, plan nodePoolDisruptionModel) {
		r.save(ctx, plan, &prior, req.Config, &resp.State, &resp.Diagnostics)
	})
}

// Delete gives the fields back: an apply of an empty configuration under the same field manager
// releases them, so they return to the API server's defaults or to other managers' values. The
// NodePool stays.
func (r *nodePoolDisruptionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.doLive(ctx, req.State, timeouts.Value.Delete, &resp.Diagnostics, func(ctx context.Context, l npLive) {
		if isNodePoolMissing(l.err) {
			tflog.Info(ctx, "NodePool already gone: nothing to give back", l.logFields())
			return
		}
		err := l.err
		if err == nil {
			err = npRelease(ctx, l.kc, l.pool, l.state)
		}
		if err != nil {
			resp.Diagnostics.AddError("Cannot give the NodePool's disruption settings back", err.Error())
		}
	})
}

// cluster is the member cluster's client, or nil with an error diagnostic.
func (r *nodePoolDisruptionResource) cluster(ctx context.Context, name string, d *diag.Diagnostics) *kube.Client {
	if r.Clients == nil {
		d.AddError("Provider not configured", "fleet_nodepool_disruption needs a configured provider. Please report this issue to the provider developers.")
		return nil
	}
	kc, err := r.Clients.Cluster(ctx, name)
	if err != nil {
		backend.AddBackendError(d, fmt.Sprintf("Cannot reach cluster %q", name), err)
		return nil
	}
	return kc
}

// apply is Create's and Update's work: the planned settings onto the NodePool, and the preview if
// the plan could not compute it (an input was unknown). A known planned preview is never recomputed:
// Terraform requires the applied value to equal the planned one. When the field manager's name
// changed (prior is the state), the old manager then gives its fields back.
func (r *nodePoolDisruptionResource) apply(ctx context.Context, plan, prior *nodePoolDisruptionModel, d *diag.Diagnostics) {
	cluster, pool := plan.Cluster.ValueString(), plan.NodePool.ValueString()
	kc := r.cluster(ctx, cluster, d)
	if kc == nil {
		return
	}
	live, err := getNodePool(ctx, kc, cluster, pool)
	if err != nil {
		npAddNodePoolError(d, err)
		return
	}
	if plan.Preview.IsUnknown() {
		plan.Preview = npPreviewNow(ctx, r.Clients.View(), *plan, d)
	}
	mgr := plan.fieldManager()
	tflog.Debug(ctx, "applying NodePool disruption settings", map[string]any{"cluster": cluster, "node_pool": pool, "field_manager": mgr.Name})
	var priors []nodePoolDisruptionModel
	if prior != nil {
		priors = append(priors, *prior)
	}
	if err := npApply(ctx, kc, live, *plan, false, priors...); err != nil {
		d.AddError("Cannot apply the NodePool's disruption settings", err.Error())
		return
	}
	if prior == nil || prior.fieldManager().Name == mgr.Name {
		return
	}
	live, err = getNodePool(ctx, kc, cluster, pool)
	if err == nil {
		err = npRelease(ctx, kc, live, *prior)
	}
	if err != nil {
		d.AddError(fmt.Sprintf("Cannot release the NodePool's fields from the previous field manager %q", prior.fieldManager().Name), err.Error())
	}
}

func npAddNodePoolError(d *diag.Diagnostics, err error) {
	var missing *nodePoolMissingError
	if errors.As(err, &missing) {
		summary := "NodePool not found"
		if missing.NoCRD {
			summary = "Karpenter's NodePool API not found"
		}
		d.AddAttributeError(path.Root("node_pool"), summary, err.Error())
		return
	}
	d.AddError("Cannot read the NodePool", err.Error())
}
