package disruption

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ resource.ResourceWithValidateConfig = (*nodePoolDisruptionResource)(nil)

// nodePoolDisruptionResource is fleet_nodepool_disruption: the disruption settings of a Karpenter
// NodePool on a member cluster, by server-side apply.
type nodePoolDisruptionResource struct{ shared.ResourceBase }

// npDefaultTimeout bounds each operation: a handful of API calls, no waiting.
const npDefaultTimeout = 5 * time.Minute

// npUnhealthy is the reason Karpenter v1.15.0's CRD adds (node repair); accepted at validate, checked
// against the cluster's own CRD at plan.
const npUnhealthy karpv1.DisruptionReason = "Unhealthy"

// nodePoolNameRe is a Kubernetes object name (RFC 1123 subdomain).
var nodePoolNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func (r *nodePoolDisruptionResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	duration := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, CustomType: npDurationType{}, Description: desc}
	}
	resp.Schema = schema.Schema{
		Description: "The disruption settings of a Karpenter NodePool (`karpenter.sh/v1`) on a member cluster: consolidation, " +
			"node expiry, termination grace period, the template's `karpenter.sh/do-not-disrupt` and disruption budgets, with a " +
			"preview of how many nodes Karpenter may disrupt now for each reason, which nodes it would take (empty, drifted, " +
			"expired), what holds the rest (the budgets, `karpenter.sh/do-not-disrupt` on pods, nodes or the template, " +
			"PodDisruptionBudgets), when scheduled budgets open and close, and the week ahead (how many nodes each reason may " +
			"lose in each time range, with a warning when budgets cancel each other) — computed with Karpenter v1.14's own " +
			"functions (budgets, `NodePool.Hash`, pod rules, PDB limits). The settings are applied with server-side " +
			"apply under the field manager `terraform-provider-fleet` (see `field_manager`), which owns only the fields set here: the rest of the " +
			"NodePool is left alone, and destroying the resource gives the fields back (they return to the API server's " +
			"defaults, or to the values other managers hold) instead of deleting the NodePool. Fields last written imperatively " +
			"by someone else (kubectl edit or patch, Helm, the NodePool's creator) are taken over; a field another server-side " +
			"apply manager declares with a different value is an error. Durations are compared by value (`1h` = `60m` = `1h0m0s`).",
		Attributes: map[string]schema.Attribute{
			"id": shared.IDAttribute("`<cluster>/<node_pool>`."),
			"cluster": shared.ReplacingAttribute("The member cluster: a key of the provider's `clusters`, or a member of the provider's fleet, whose "+
				"credentials then come from the Fleet API and AKS. Changing it plans a replacement.", stringvalidator.LengthAtLeast(1)),
			"node_pool": shared.ReplacingAttribute("The NodePool's name. It must exist: this resource never creates or deletes it. Changing it plans a replacement.", stringvalidator.LengthBetween(1, 253),
				stringvalidator.RegexMatches(nodePoolNameRe, "must be a Kubernetes object name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit")),
			"consolidation_policy": schema.StringAttribute{
				Optional: true,
				Description: "`spec.disruption.consolidationPolicy`: `WhenEmptyOrUnderutilized` (the server default), `WhenEmpty` or " +
					"`Balanced` (Karpenter v1.14+; checked against the cluster's CRD at plan). Unset: not managed.",
			},
			"consolidate_after": duration("`spec.disruption.consolidateAfter`: how long a node must be empty or underutilized " +
				"before Karpenter consolidates it, e.g. `30s`, `10m`, or `Never` (which also turns off emptiness). Unset: not " +
				"managed; giving it back resets it to `0s`, since Karpenter up to v1.14 requires it in `spec.disruption`."),
			"expire_after": duration("`spec.template.spec.expireAfter`: the age at which Karpenter deletes a node, budgets or " +
				"not, e.g. `720h` (the server default) or `Never`. Changing it changes the NodePool's template hash: every " +
				"existing node becomes Drifted (a plan warning says so). Unset: not managed."),
			"termination_grace_period": duration("`spec.template.spec.terminationGracePeriod`: how long a draining node may " +
				"wait for pods (PDBs and `karpenter.sh/do-not-disrupt` included) before they are deleted, e.g. `1h`. Changing " +
				"it drifts every node. Unset: not managed."),
			"budgets": schema.ListNestedAttribute{
				Optional: true,
				Description: "`spec.disruption.budgets`: for each reason, Karpenter disrupts at most the minimum `nodes` over the " +
					"budgets active now, minus the nodes already disrupting. Unset: not managed (the server default is one " +
					"always-active `10%` budget). `[]` (an empty list) is different: no limit at all, with a warning.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"nodes": schema.StringAttribute{
						Required:    true,
						Description: "A node count (`\"5\"`, not capped by the pool's size) or a percentage of the pool's nodes, rounded up (`\"10%\"`).",
					},
					"schedule": schema.StringAttribute{
						Optional: true,
						Description: "When the budget's window opens: a five-field cron expression in UTC (`0 9 * * 1-5`) or " +
							"`@yearly`, `@monthly`, `@weekly`, `@daily`, `@hourly`. Set together with `duration`; unset, the " +
							"budget is always active. Outside its windows a budget does not limit anything.",
					},
					"duration": schema.StringAttribute{
						Optional:    true,
						CustomType:  npDurationType{},
						Description: "How long each window stays open, in hours and minutes (`8h`, `90m`, `1h30m`).",
					},
					"reasons": schema.ListAttribute{
						Optional:    true,
						ElementType: types.StringType,
						Description: "The disruption reasons the budget limits: `Empty`, `Underutilized`, `Drifted` (and what the cluster's CRD adds, such as `Unhealthy` from v1.15). Unset: every reason; `[]`: none.",
					},
				}},
			},
			"do_not_disrupt": schema.BoolAttribute{
				Optional: true,
				Description: "The NodePool template's `karpenter.sh/do-not-disrupt` annotation (`spec.template.metadata.annotations`): " +
					"`true` writes `\"true\"`, which Karpenter copies to every NodeClaim and Node it launches afterwards and which then " +
					"keeps them from voluntary disruption (Empty, Underutilized, Drifted; expiry still applies); `false` writes `\"false\"`. " +
					"The template's annotations are part of its hash, so changing this drifts every existing node (a plan warning says " +
					"so), and existing nodes never get the annotation. Unset: not managed; destroy removes the annotation if only this " +
					"resource set it.",
			},
			"field_manager": schema.SingleNestedAttribute{
				Optional: true,
				Description: "The server-side apply field manager, as `kubernetes_manifest` offers it. Unset: `terraform-provider-fleet`, " +
					"without forcing conflicts. Changing the name hands the fields to the new manager and releases them from the old one.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Optional:    true,
						Description: "The field manager's name (default `terraform-provider-fleet`).",
						Validators:  []validator.String{stringvalidator.LengthBetween(1, 128)},
					},
					"force_conflicts": schema.BoolAttribute{
						Optional: true,
						Description: "Take fields over from other server-side apply managers (a GitOps tool) instead of failing the plan. " +
							"Fields last written imperatively (kubectl edit, Helm) are always taken over. Default false.",
					},
				},
			},
			"facts": shared.FactsAttribute("the preview (read the cluster with `clusters = [\"<cluster>\"]` on the data source)"),
			"preview": schema.SingleNestedAttribute{
				Computed: true,
				Description: "What Karpenter would do with these settings, from the cluster's NodePool, NodeClaims, Nodes, Pods and PodDisruptionBudgets at " +
					"the provider's clock. Computed at plan when the resource is created or its configuration changes, and " +
					"kept as-is otherwise; unknown (with a warning) when an input is unknown until apply. Times are RFC 3339, UTC.",
				Attributes: map[string]schema.Attribute{
					"nodes":      shared.ComputedInt64("The nodes Karpenter counts for the budgets: initialized nodes of the NodePool that are not terminating."),
					"disrupting": shared.ComputedInt64("Counted nodes already disrupting (NotReady, being deleted, or marked by Karpenter): they use up every reason's budget."),
					"reasons": schema.ListNestedAttribute{
						Computed:    true,
						Description: "Each disruption reason (Empty, Underutilized, Drifted, and any the cluster's CRD adds).",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"reason":  shared.ComputedString("The reason."),
							"allowed": shared.ComputedInt64("How many more nodes Karpenter may start disrupting for this reason now; with `unbounded`, every node not already disrupting."),
							"unbounded": schema.BoolAttribute{
								Computed:    true,
								Description: "No budget limits this reason now: Karpenter may disrupt any number of nodes at once for it.",
							},
							"active_budgets": schema.ListAttribute{
								Computed: true, ElementType: types.Int64Type,
								Description: "Indexes (in `budgets`) of the budgets active now that apply to the reason.",
							},
						}},
					},
					"windows": schema.ListNestedAttribute{
						Computed:    true,
						Description: "Each scheduled budget's current window, or its next one.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"budget":    shared.ComputedInt64("The budget's index in `budgets`."),
							"opens_at":  shared.ComputedString("When the window opens (or opened, if it is open now)."),
							"closes_at": shared.ComputedString("When it closes; null when it does not close within a year."),
						}},
					},
					"expiring_nodes": schema.ListNestedAttribute{
						Computed:    true,
						Description: "Nodes whose NodeClaim expires within 24 hours (or has expired): expiry is forceful, budgets do not limit it.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"node":       shared.ComputedString("The node."),
							"expires_at": shared.ComputedString("Its NodeClaim's creation time plus its expireAfter."),
						}},
					},
					"schedule": schema.ListNestedAttribute{
						Computed: true,
						Description: "The week ahead from the start of the provider clock's current hour (so that a plan and its apply compute the same ranges): time ranges (UTC, as Karpenter evaluates schedules) in which " +
							"no budget opens or closes, with how many nodes Karpenter may disrupt per reason in each (Karpenter's own " +
							"`MustGetAllowedDisruptions` at the range's start, minus the nodes disrupting now, at today's node count); " +
							"ranges with the same allowances are merged. In order; the first " + fmt.Sprint(disruption.ScheduleCap) + " ranges unless " +
							"the provider's `preview_detail` is `full`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"from": shared.ComputedString("Start of the range (inclusive); the first range starts at the current hour (UTC) of the provider's clock."),
							"to":   shared.ComputedString("End of the range (exclusive); the last ends 7 days after the first starts."),
							"allowed": schema.MapAttribute{
								Computed: true, ElementType: types.Int64Type,
								Description: "Per reason, how many nodes Karpenter may start disrupting in the range; for an unbounded reason, every node not already disrupting.",
							},
							"unbounded": schema.ListAttribute{
								Computed: true, ElementType: types.StringType,
								Description: "The reasons no active budget limits in the range.",
							},
						}},
					},
					"schedule_omitted": shared.ComputedInt64("How many ranges of the week `schedule` leaves out (0 unless the allowances change more than " + fmt.Sprint(disruption.ScheduleCap-1) + " times a week; always 0 with `preview_detail = \"full\"`)."),
					"blocked_nodes": schema.MapAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "Nodes Karpenter will not disrupt voluntarily now, by name, with why: a pod `namespace/name` whose " +
							"`karpenter.sh/do-not-disrupt` is active (`\"true\"`, or a duration not yet elapsed since the pod started), the " +
							"node's own annotation, the NodePool template's annotation copied to the node, or a PodDisruptionBudget " +
							"`namespace/name` that allows no eviction of one of its pods now (Karpenter's own PDB limits: " +
							"`disruptionsAllowed`, the unhealthy-pod eviction policy, a pod selected by two PDBs). The first " + fmt.Sprint(shared.SummaryListLimit) +
							" by name unless the provider's `preview_detail` is `full`.",
					},
					"blocked_nodes_count":   shared.ComputedInt64("How many nodes `blocked_nodes` would list in full."),
					"blocked_nodes_omitted": shared.ComputedInt64("How many blocked nodes `blocked_nodes` leaves out."),
					"drifted_nodes": schema.MapAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "Nodes whose NodeClaim is drifted now, by name, with why: a `Drifted` condition, or a " +
							"`karpenter.sh/nodepool-hash` that no longer matches the NodePool's current hash (Karpenter's own " +
							"`NodePool.Hash`). Capped as `blocked_nodes`.",
					},
					"drifted_nodes_count":   shared.ComputedInt64("How many drifted nodes there are."),
					"drifted_nodes_omitted": shared.ComputedInt64("How many drifted nodes `drifted_nodes` leaves out."),
					"candidates": schema.MapAttribute{
						Computed: true, ElementType: types.ListType{ElemType: types.StringType},
						Description: "Nodes eligible now, by reason: `Empty` (no reschedulable pods by Karpenter's pod rules, " +
							"consolidation on and `consolidate_after` elapsed, not blocked), `Drifted` (drifted and not blocked; " +
							"pods do not block a NodeClaim with a terminationGracePeriod), `Expired` (past expireAfter: nothing " +
							"blocks expiry). Each list holds the first " + fmt.Sprint(shared.SummaryListLimit) + " by name unless `preview_detail` is `full`.",
					},
					"candidates_count": schema.MapAttribute{
						Computed: true, ElementType: types.Int64Type,
						Description: "Exact number of candidates per reason (`Empty`, `Drifted`, `Expired`).",
					},
					"disruptable_now": schema.MapAttribute{
						Computed: true, ElementType: types.Int64Type,
						Description: "How many nodes Karpenter may take now per reason: the candidates, at most the reason's `allowed` (Expired is not budgeted).",
					},
					"summary": shared.ComputedString("One line: how many nodes Karpenter may start disrupting now, for which reason, and what holds the rest."),
					"warnings": schema.ListAttribute{
						Computed: true, ElementType: types.StringType,
						Description: "What Karpenter will do that the settings may not intend: broken or never-firing schedules, zero durations, unbounded reasons, " +
							"template changes that drift every node, budgets that cancel each other (a budget never the effective limit; a reason " +
							"with no disruption allowed all week), PodDisruptionBudgets in an unexpected shape or that could not be listed.",
					},
				},
			},
		},
		Blocks: shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: npDefaultTimeout, Read: npDefaultTimeout, Update: npDefaultTimeout, Delete: npDefaultTimeout}),
	}
}

// ValidateConfig checks every setting as the NodePool CRD does, and warns about what the API server
// accepts but Karpenter does not do as written. Reasons the cluster's own CRD may add are checked
// again at plan.
func (r *nodePoolDisruptionResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodePoolDisruptionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	d := &resp.Diagnostics
	npCheck(d, path.Root("consolidation_policy"), "consolidation policy", m.ConsolidationPolicy, disruption.ValidateConsolidationPolicy)
	npCheck(d, path.Root("consolidate_after"), "consolidate_after", m.ConsolidateAfter.StringValue, disruption.ValidateConsolidateAfter)
	npCheck(d, path.Root("expire_after"), "expire_after", m.ExpireAfter.StringValue, disruption.ValidateExpireAfter)
	npCheck(d, path.Root("termination_grace_period"), "termination_grace_period", m.TerminationGracePeriod.StringValue, disruption.ValidateTerminationGracePeriod)
	if m.Budgets.IsNull() || m.Budgets.IsUnknown() {
		return
	}
	npReport(d, path.Root("budgets"), "budgets", disruption.ValidateBudgetCount(len(m.Budgets.Elements())))
	for i, e := range m.Budgets.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsUnknown() || obj.IsNull() {
			continue
		}
		var b npBudgetModel
		d.Append(obj.As(ctx, &b, basetypes.ObjectAsOptions{})...)
		p := path.Root("budgets").AtListIndex(i)
		npCheck(d, p.AtName("nodes"), "budget nodes", b.Nodes, disruption.ValidateNodes)
		npCheck(d, p.AtName("schedule"), "budget schedule", b.Schedule, disruption.ValidateSchedule)
		npCheck(d, p.AtName("duration"), "budget duration", b.Duration.StringValue, disruption.ValidateBudgetDuration)
		if !b.Schedule.IsUnknown() && !b.Duration.IsUnknown() {
			npReport(d, p, "budget", disruption.ValidateSchedulePair(!b.Schedule.IsNull(), !b.Duration.IsNull()))
		}
		if reasons, known := npStrings(b.Reasons); known && !b.Reasons.IsNull() {
			npReport(d, p.AtName("reasons"), "budget reasons", disruption.ValidateReasons(reasons, npUnhealthy))
		}
	}
}

// npCheck runs an engine validator on a known, non-null string.
func npCheck(d *diag.Diagnostics, p path.Path, what string, v types.String, check func(string) disruption.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	npReport(d, p, what, check(v.ValueString()))
}

// npReport turns an engine validator's findings into attribute diagnostics.
func npReport(d *diag.Diagnostics, p path.Path, what string, found disruption.Diagnostics) {
	for _, e := range found.Errors {
		d.AddAttributeError(p, "Invalid "+what, e)
	}
	for _, w := range found.Warnings {
		d.AddAttributeWarning(p, "Karpenter will not use this "+what+" as you may expect", w)
	}
}

// ModifyPlan computes the preview when the resource is created or its configuration changes, with
// the checks that need the cluster (the NodePool and its CRD exist, the CRD's enums). An unchanged
// configuration keeps the prior preview, so it plans empty.
func (r *nodePoolDisruptionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Clients == nil {
		return
	}
	var plan nodePoolDisruptionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.Preview.IsUnknown() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state nodePoolDisruptionModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if !state.Preview.IsNull() && npSameSettings(plan, state) {
			// Only spellings changed (durations are compared by value): the preview stands.
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), state.Preview)...)
			return
		}
	}
	if in := npUnknownInput(plan); in != "" {
		resp.Diagnostics.AddAttributeWarning(path.Root("preview"), "Disruption preview unknown until apply",
			fmt.Sprintf("The preview needs %s, which is known only after apply.", in))
		return
	}
	cluster, pool := plan.Cluster.ValueString(), plan.NodePool.ValueString()
	kc, err := r.Clients.Cluster(ctx, cluster)
	if err != nil {
		if session.IsConfigUnknown(err) {
			resp.Diagnostics.AddAttributeWarning(path.Root("preview"), "Disruption preview unknown until apply",
				fmt.Sprintf("Cluster %q cannot be reached at plan: %v.", cluster, err))
			return
		}
		shared.AddBackendError(&resp.Diagnostics, fmt.Sprintf("Cannot reach cluster %q", cluster), err)
		return
	}
	pinned, _, factsUnknown := shared.PlanPinned(ctx, r.Clients, req.Config, &resp.Diagnostics)
	if factsUnknown {
		shared.AddPreviewUnknownWarning(&resp.Diagnostics, path.Root("preview"), shared.FactsUnknown)
		return
	}
	if resp.Diagnostics.HasError() {
		return
	}
	v, err := r.clusterView(ctx, pinned, kc, cluster, pool)
	if err != nil {
		npAddNodePoolError(&resp.Diagnostics, err)
		return
	}
	resp.Diagnostics.Append(npCheckAgainstCRD(ctx, plan, v)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A server-side dry run: what the API server would reject (its own validation, conflicts with
	// other apply managers) fails the plan, before anything changes.
	var prior []nodePoolDisruptionModel
	if !req.State.Raw.IsNull() {
		var state nodePoolDisruptionModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		prior = append(prior, state)
	}
	if err := npApply(ctx, kc, v.live, plan, true, prior...); err != nil {
		resp.Diagnostics.AddError("The cluster would reject these settings", err.Error())
		return
	}
	preview, drift, diags := buildNodePoolPreview(ctx, plan, v, pinned.Now(), pinned.ListLimit())
	resp.Diagnostics.Append(diags...)
	for _, w := range drift {
		resp.Diagnostics.AddAttributeWarning(w.Attribute, w.Summary, w.Message)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("preview"), preview)...)
}

// clusterView is the cluster's picture from the facts a plan read (pinned), else as it is now.
func (r *nodePoolDisruptionResource) clusterView(ctx context.Context, pinned *session.Session, kc *kube.Client, cluster, pool string) (*npClusterView, error) {
	cf, ok, err := pinned.ClusterFacts(cluster)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return clusterViewFromFacts(cf, cluster, pool)
	}
	return loadClusterView(ctx, kc, cluster, pool)
}

// warnMoved says, when the plan was computed from facts, what moved since and how the preview
// would differ now (shared.WarnMoved).
func (r *nodePoolDisruptionResource) warnMoved(ctx context.Context, config tfsdk.Config, plan nodePoolDisruptionModel, d *diag.Diagnostics) {
	shared.WarnMovedSince(ctx, r.Clients, config, shared.UsesClusters, d, plan.Preview, func(c *session.Session, diags *diag.Diagnostics) (attr.Value, error) {
		kc, err := c.Cluster(ctx, plan.Cluster.ValueString())
		if err != nil {
			return nil, err
		}
		return r.previewNow(ctx, kc, plan, diags), nil
	})
}

// npCheckAgainstCRD checks the values whose enums differ between Karpenter versions against the
// cluster's own CRD, when it can be read.
func npCheckAgainstCRD(ctx context.Context, m nodePoolDisruptionModel, v *npClusterView) diag.Diagnostics {
	var diags diag.Diagnostics
	if !v.enumsKnown {
		return diags
	}
	cluster := m.Cluster.ValueString()
	if p := m.ConsolidationPolicy.ValueString(); p != "" && len(v.enums.Policies) > 0 && !slices.Contains(v.enums.Policies, p) {
		diags.AddAttributeError(path.Root("consolidation_policy"), "Consolidation policy not supported by the cluster's Karpenter",
			fmt.Sprintf("The NodePool CRD on cluster %q accepts %s, not %q (Balanced needs Karpenter v1.14 or later).", cluster, strings.Join(v.enums.Policies, ", "), p))
	}
	if m.Budgets.IsNull() {
		return diags
	}
	budgets, d := npBudgetsOf(ctx, m.Budgets)
	diags.Append(d...)
	for i, b := range budgets {
		reasons, _ := npStrings(b.Reasons)
		for _, reason := range reasons {
			if !slices.Contains(v.enums.Reasons, reason) {
				diags.AddAttributeError(path.Root("budgets").AtListIndex(i).AtName("reasons"), "Disruption reason not supported by the cluster's Karpenter",
					fmt.Sprintf("The NodePool CRD on cluster %q accepts the reasons %s, not %q (Unhealthy needs Karpenter v1.15 or later).", cluster, strings.Join(v.enums.Reasons, ", "), reason))
			}
		}
	}
	return diags
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
	v, err := loadClusterView(ctx, kc, cluster, pool)
	if err != nil {
		npAddNodePoolError(&resp.Diagnostics, err)
		return
	}
	m := npNullModel()
	m.ID, m.Cluster, m.NodePool = types.StringValue(req.ID), types.StringValue(cluster), types.StringValue(pool)
	resp.Diagnostics.Append(npReadLive(ctx, &m, v.live, func(p []string, _ bool) bool {
		return slices.ContainsFunc(fieldOwners(v.live, p), fieldOwner.Ours)
	})...)
	preview, _, diags := buildNodePoolPreview(ctx, m, v, r.Clients.Now(), r.Clients.ListLimit())
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	for attrName, val := range map[string]attr.Value{
		"id": m.ID, "cluster": m.Cluster, "node_pool": m.NodePool, "consolidation_policy": m.ConsolidationPolicy,
		"consolidate_after": m.ConsolidateAfter, "expire_after": m.ExpireAfter, "termination_grace_period": m.TerminationGracePeriod,
		"budgets": m.Budgets, "do_not_disrupt": m.DoNotDisrupt, "field_manager": m.FieldManager, "preview": preview,
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
		r.warnMoved(ctx, config, plan, d)
	}
}

func (r *nodePoolDisruptionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	npDo(ctx, req.Plan, timeouts.Value.Create, &resp.Diagnostics, func(ctx context.Context, plan nodePoolDisruptionModel) {
		r.save(ctx, plan, nil, req.Config, &resp.State, &resp.Diagnostics)
	})
}

func (r *nodePoolDisruptionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.doLive(ctx, req.State, timeouts.Value.Read, &resp.Diagnostics, func(ctx context.Context, l npLive) {
		if shared.RemoveGone(ctx, resp, isNodePoolMissing(l.err), "NodePool", l.logFields()) {
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
		shared.AddBackendError(d, fmt.Sprintf("Cannot reach cluster %q", name), err)
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
		plan.Preview = r.previewNow(ctx, kc, *plan, d)
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

// npRelease gives back what m's field manager holds: an apply of an empty configuration under it.
func npRelease(ctx context.Context, kc *kube.Client, live *unstructured.Unstructured, m nodePoolDisruptionModel) error {
	release := npNullModel()
	release.Cluster, release.NodePool, release.FieldManager = m.Cluster, m.NodePool, m.FieldManager
	return npApply(ctx, kc, live, release, false)
}

// previewNow computes the preview at apply, before the settings change (as a plan would have).
func (r *nodePoolDisruptionResource) previewNow(ctx context.Context, kc *kube.Client, m nodePoolDisruptionModel, d *diag.Diagnostics) types.Object {
	v, err := loadClusterView(ctx, kc, m.Cluster.ValueString(), m.NodePool.ValueString())
	if err != nil {
		npAddNodePoolError(d, err)
		return types.ObjectNull(npPreviewAttrTypes)
	}
	preview, _, diags := buildNodePoolPreview(ctx, m, v, r.Clients.Now(), r.Clients.ListLimit())
	d.Append(diags...)
	return preview
}

// npApply server-side applies m's settings (only the attributes set) to the live NodePool, first
// handing consolidateAfter back to its default if m stops managing it. A dry run (plan) changes
// nothing: it applies the value the hand-off would leave instead.
func npApply(ctx context.Context, kc *kube.Client, live *unstructured.Unstructured, m nodePoolDisruptionModel, dryRun bool, prior ...nodePoolDisruptionModel) error {
	obj, err := npApplyObject(ctx, m, live)
	if err != nil {
		return err
	}
	mgr := m.fieldManager()
	for _, p := range prior {
		if name := p.fieldManager().Name; name != mgr.Name {
			mgr.Prior = name
		}
	}
	if m.ConsolidateAfter.IsNull() && releasedBy(live, npPathConsolidateAfter, mgr.Name) {
		if dryRun {
			_ = unstructured.SetNestedField(obj, npDefaultConsolidateAfter, npPathConsolidateAfter...)
		} else if err := handOffConsolidateAfter(ctx, kc, live, mgr.Name); err != nil {
			return fmt.Errorf("NodePool %q on cluster %q: %w", live.GetName(), m.Cluster.ValueString(), err)
		}
	}
	return applyNodePool(ctx, kc, m.Cluster.ValueString(), obj, mgr, dryRun)
}

// npApplyObject is the apply configuration: the set attributes, with the user's own strings (the
// CRD patterns reject Go's spellings of some values, e.g. a zero duration's "0s" for budgets), and
// the NodePool's uid so that a pool deleted meanwhile is not re-created.
func npApplyObject(ctx context.Context, m nodePoolDisruptionModel, live *unstructured.Unstructured) (map[string]any, error) {
	dis := map[string]any{}
	if !m.ConsolidationPolicy.IsNull() {
		dis["consolidationPolicy"] = m.ConsolidationPolicy.ValueString()
	}
	if !m.ConsolidateAfter.IsNull() {
		dis["consolidateAfter"] = m.ConsolidateAfter.ValueString()
	}
	if !m.Budgets.IsNull() {
		budgets, diags := npBudgetsOf(ctx, m.Budgets)
		if diags.HasError() {
			return nil, fmt.Errorf("reading budgets: %v", diags)
		}
		dis["budgets"] = npBudgetsJSON(budgets)
	}
	tmpl := map[string]any{}
	if !m.ExpireAfter.IsNull() {
		tmpl["expireAfter"] = m.ExpireAfter.ValueString()
	}
	if !m.TerminationGracePeriod.IsNull() {
		tmpl["terminationGracePeriod"] = m.TerminationGracePeriod.ValueString()
	}
	spec := map[string]any{}
	if len(dis) > 0 {
		spec["disruption"] = dis
	}
	template := map[string]any{}
	if len(tmpl) > 0 {
		template["spec"] = tmpl
	}
	if !m.DoNotDisrupt.IsNull() {
		template["metadata"] = map[string]any{"annotations": map[string]any{karpv1.DoNotDisruptAnnotationKey: npDoNotDisruptValue(m.DoNotDisrupt.ValueBool())}}
	}
	if len(template) > 0 {
		spec["template"] = template
	}
	obj := map[string]any{
		"apiVersion": "karpenter.sh/v1",
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": live.GetName(), "uid": string(live.GetUID())},
	}
	if len(spec) > 0 {
		obj["spec"] = spec
	}
	return obj, nil
}

// npReadLive sets the attributes `want` selects (by field path, and whether the attribute is set
// now) to the NodePool's values; a field the NodePool lacks becomes null.
func npReadLive(ctx context.Context, m *nodePoolDisruptionModel, live *unstructured.Unstructured, want func(field []string, managed bool) bool) diag.Diagnostics {
	var diags diag.Diagnostics
	str := func(p []string) (string, bool) {
		s, ok, _ := unstructured.NestedString(live.Object, p...)
		return s, ok
	}
	if want(npPathConsolidationPolicy, !m.ConsolidationPolicy.IsNull()) {
		s, ok := str(npPathConsolidationPolicy)
		m.ConsolidationPolicy = types.StringNull()
		if ok {
			m.ConsolidationPolicy = types.StringValue(s)
		}
	}
	for _, f := range []struct {
		field []string
		value *npDuration
	}{
		{npPathConsolidateAfter, &m.ConsolidateAfter},
		{npPathExpireAfter, &m.ExpireAfter},
		{npPathTerminationGrace, &m.TerminationGracePeriod},
	} {
		if want(f.field, !f.value.IsNull()) {
			*f.value = npDurationOrNull(str(f.field))
		}
	}
	if want(npPathDoNotDisrupt, !m.DoNotDisrupt.IsNull()) {
		s, ok := str(npPathDoNotDisrupt)
		m.DoNotDisrupt = types.BoolNull()
		if ok {
			m.DoNotDisrupt = types.BoolValue(s == "true")
		}
	}
	if want(npPathBudgets, !m.Budgets.IsNull()) {
		raw, ok, _ := unstructured.NestedSlice(live.Object, npPathBudgets...)
		m.Budgets = types.ListNull(types.ObjectType{AttrTypes: npBudgetAttrTypes})
		if ok {
			var d diag.Diagnostics
			m.Budgets, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: npBudgetAttrTypes}, npBudgetsFromLive(raw))
			diags.Append(d...)
		}
	}
	return diags
}
