package disruption

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// nodePoolNameRe is a Kubernetes object name (RFC 1123 subdomain).
var nodePoolNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func (r *nodePoolDisruptionResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	duration := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, CustomType: npDurationType{}, Description: desc}
	}
	resp.Schema = schema.Schema{
		Version: 1,
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
			"cluster": shared.ReplacingAttribute("The member cluster: the `name` of one of the provider's `cluster` blocks, or a member of the provider's fleet, whose "+
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
			"do_not_disrupt": schema.BoolAttribute{
				Optional: true,
				Description: "The NodePool template's `karpenter.sh/do-not-disrupt` annotation (`spec.template.metadata.annotations`): " +
					"`true` writes `\"true\"`, which Karpenter copies to every NodeClaim and Node it launches afterwards and which then " +
					"keeps them from voluntary disruption (Empty, Underutilized, Drifted; expiry still applies); `false` writes `\"false\"`. " +
					"The template's annotations are part of its hash, so changing this drifts every existing node (a plan warning says " +
					"so), and existing nodes never get the annotation. Unset: not managed; destroy removes the annotation if only this " +
					"resource set it.",
			},
			"facts": preview.FactsAttribute("the preview (read the cluster with `clusters = [\"<cluster>\"]` on the data source)"),
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
								Description: "Indexes (in the order of the `budget` blocks) of the budgets active now that apply to the reason.",
							},
						}},
					},
					"windows": schema.ListNestedAttribute{
						Computed:    true,
						Description: "Each scheduled budget's current window, or its next one.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"budget":    shared.ComputedInt64("The budget's index among the `budget` blocks."),
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
							"`disruptionsAllowed`, the unhealthy-pod eviction policy, a pod selected by two PDBs). The first " + fmt.Sprint(preview.SummaryListLimit) +
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
							"blocks expiry). Each list holds the first " + fmt.Sprint(preview.SummaryListLimit) + " by name unless `preview_detail` is `full`.",
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
		Blocks: npBlocks(ctx),
	}
}

// npBlocks are the resource's blocks: the budgets, the field manager and the timeouts.
func npBlocks(ctx context.Context) map[string]schema.Block {
	blocks := shared.TimeoutsBlocks(ctx, shared.OpTimeouts{Create: npDefaultTimeout, Read: npDefaultTimeout, Update: npDefaultTimeout, Delete: npDefaultTimeout})
	blocks["budget"] = schema.ListNestedBlock{
		Description: "`spec.disruption.budgets`, one block per budget: for each reason, Karpenter disrupts at most the minimum `nodes` over the " +
			"budgets active now, minus the nodes already disrupting. Unset: not managed (the server default is one " +
			"always-active `10%` budget). A block cannot be empty: to let Karpenter disrupt every node at once, write one budget of `nodes = \"100%\"`.",
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
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
	}
	blocks["field_manager"] = schema.SingleNestedBlock{
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
	}
	return blocks
}
