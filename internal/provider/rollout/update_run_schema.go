package rollout

import (
	"fmt"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The computed attributes of fleet_update_run: its preview and its status.

func previewGatesAttribute() rschema.ListNestedAttribute {
	return computedObjects("Gates, Before or After; null when there are none.", map[string]rschema.Attribute{
		"timing": shared.ComputedString("`Before` or `After`."), "display_name": shared.ComputedString("The gate's display name."),
		"type": shared.ComputedString("`Approval` or `ScheduledStart`."),
		"scheduled_start_at": shared.ComputedString("A ScheduledStart gate's time: when it completes itself in the simulated run, the first " +
			"`start_day` at `start_time` in `utc_offset` at or after the run reaches it (RFC 3339, UTC); null for Approval gates and gates the run does not reach."),
	})
}

func cactions(what string) rschema.MapAttribute {
	return rschema.MapAttribute{Computed: true, ElementType: types.Int64Type,
		Description: "Action (`upgrade`, `skip`, `pending`, `fail`) → how many members of " + what + " get it: every member, listed or not."}
}

func runPreviewAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true,
		Description: "The rollout plan, computed at plan at the Fleet API's current time when the run is created or its definition changes " +
			"(kept as-is otherwise). Assumes approval gates are approved when reached and upgrades succeed. Counts (`member_count`, " +
			"`actions`) cover every member; with the provider's `preview_detail = \"summary\"` (the default) the groups' `members` " +
			"lists hold " + fmt.Sprint(RunPreviewMemberLimit) + " members of the whole run in all — each takes about 15 lines of plan " +
			"text, and this keeps the plan of a run of 1,000 members over 3 stages and 6 groups under 200 lines — chosen in the order " +
			"a reader needs them: the members that change first (`upgrade`), then predicted failures (`fail`), then `pending`, then " +
			"`skip`, each in update order. `preview_detail = \"full\"` lists every member. " +
			"Empty lists are null.",
		PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
		Attributes: map[string]rschema.Attribute{
			"member_count": shared.ComputedInt64("How many members the run's stages select."),
			"failure_count": shared.ComputedInt64("How many member upgrades the simulated run sees fail (AKS would reject them): with " +
				"`max_allowed_failures` a run goes past failures within its thresholds and still ends Completed, so a Completed `outcome` " +
				"with a failure count above 0 leaves those members where they are."),
			"actions":        cactions("the run"),
			"stages_omitted": shared.ComputedInt64("How many of the run's stages `stages` leaves out (summary detail; 0 with full detail)."),
			"stages": computedObjects("Stages in order. With summary detail at most "+fmt.Sprint(RunPreviewStageLimit)+" stages and "+
				fmt.Sprint(RunPreviewGroupLimit)+" groups of them are listed in all: those holding a listed member first, then the first the "+
				"run reaches, in run order; the stages' and groups' `member_count` and `actions` still count every member, and "+
				"`stages_omitted` and `groups_omitted` say how many are left out.", map[string]rschema.Attribute{
				"name":                        shared.ComputedString("The stage."),
				"after_stage_wait_in_seconds": rschema.Int64Attribute{Computed: true, Description: "Wait after the stage; null for none."},
				"gates":                       previewGatesAttribute(),
				"member_count":                shared.ComputedInt64("How many members the stage's groups select."),
				"max_concurrency":             shared.ComputedInt64("How many of the stage's members upgrade at once across its groups, resolved from `max_concurrency` (default 50)."),
				"max_allowed_failures": shared.ComputedInt64("How many member failures the stage tolerates, resolved from `max_allowed_failures` " +
					"over its members (a percentage rounded up); 0 is fail-fast."),
				"failure_count":  shared.ComputedInt64("How many of the stage's member upgrades the simulated run sees fail."),
				"actions":        cactions("the stage"),
				"groups_omitted": shared.ComputedInt64("How many of the stage's groups `groups` leaves out (summary detail; 0 with full detail)."),
				"groups": computedObjects("Groups, updated in parallel; with summary detail only those listed (see `stages`).", map[string]rschema.Attribute{
					"name":            shared.ComputedString("The group."),
					"gates":           previewGatesAttribute(),
					"member_count":    shared.ComputedInt64("How many members the group selects."),
					"max_concurrency": shared.ComputedInt64("The group's batch size: how many of its members upgrade at once, resolved from `max_concurrency` (default 1) and capped by the stage's and the group's member count."),
					"max_allowed_failures": shared.ComputedInt64("How many member failures the group tolerates, resolved from `max_allowed_failures` " +
						"(or, unset, its member count when the stage sets one: the stage's is the ceiling); 0 is fail-fast."),
					"failure_count":   shared.ComputedInt64("How many of the group's member upgrades the simulated run sees fail."),
					"actions":         cactions("the group"),
					"members_omitted": shared.ComputedInt64("How many of the group's members `members` leaves out (summary detail; 0 with full detail)."),
					"members": computedObjects("The listed members in the order the group updates them (maintenance window: open now, opening within "+
						"4 hours, none, closed); `position` says where each stands in that order, so gaps show members left out. Null "+
						"when none is listed.", map[string]rschema.Attribute{
						"position": shared.ComputedInt64("The member's place in the group's update order, from 1."),
						"name":     shared.ComputedString("The member."),
						"action": shared.ComputedString("`upgrade`, `skip`, `pending` (waits for a window or a version; the reason says which and until when) or " +
							"`fail` (AKS would reject the upgrade, e.g. skipping a minor version; a failure stops the run)."),
						"reason":                      shared.ComputedString("Why the member is upgraded, skipped, pending or fails."),
						"current_kubernetes_version":  shared.ComputedString("The cluster's version now."),
						"target_kubernetes_version":   shared.ComputedString("The version after the run."),
						"current_node_image_versions": computedStringMap("Node pool → node image version now (null without node pools)."),
						"target_node_image_versions":  computedStringMap("Node pool → node image version after the run (null without node pools)."),
						"maintenance_window":          shared.ComputedString("`open`, `opens_soon`, `none` or `closed` when the run reaches the member."),
						"window_opens_at":             shared.ComputedString("When that window opened or opens next (RFC 3339)."),
					}),
				}),
			}),
			"unselected_members": computedStrings("Members no group of the strategy selects (the run never updates them), by name: at most " +
				fmt.Sprint(RunPreviewUnselectedLimit) + " with summary detail, all with full detail; null when there are none."),
			"unselected_member_count":        shared.ComputedInt64("How many members no group of the strategy selects."),
			"consistent_node_image_versions": computedStrings("With Consistent node images: the image set the run will use; null otherwise."),
			"outcome": shared.ComputedString("How the run is expected to end: Completed, Skipped, Failed, or Pending (still waiting a year on). " +
				"Completed with `failure_count` above 0 means failures within `max_allowed_failures`: those members are not upgraded."),
			"warnings": computedStrings("Groups without members, predicted failures, missing consistent images, members no group selects and " +
				"members left out: a warning that concerns members is told once, with how many and the first names. Null when there are none."),
		},
	}
}

func statusTimes() map[string]rschema.Attribute {
	return map[string]rschema.Attribute{
		"state":      shared.ComputedString("NotStarted, Running, Pending, Stopping, Stopped, Skipped, Failed or Completed."),
		"start_time": shared.ComputedString("RFC 3339."), "end_time": shared.ComputedString("RFC 3339."), "error": shared.ComputedString("The error message, if any."),
	}
}

func withAttrs(base map[string]rschema.Attribute, extra map[string]rschema.Attribute) map[string]rschema.Attribute {
	for k, v := range extra {
		base[k] = v
	}
	return base
}

func statusGatesAttribute() rschema.ListNestedAttribute {
	return computedObjects("Gates with their state and gate ID once the run reaches them.", map[string]rschema.Attribute{
		"timing": shared.ComputedString("`Before` or `After`."), "display_name": shared.ComputedString("The gate's display name."),
		"type":    shared.ComputedString("`Approval` or `ScheduledStart` (from the run's strategy; a ScheduledStart gate completes itself and is never approved by `approval`)."),
		"gate_id": shared.ComputedString("The fleets/gates resource name, once the run reached the gate."), "state": shared.ComputedString("Pending, Skipped or Completed."),
	})
}

func runStatusAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Computed: true, Description: "The run's status from the Fleet API.",
		Attributes: withAttrs(statusTimes(), map[string]rschema.Attribute{
			"selected_node_image_versions": computedStrings("With Consistent node images: the selected versions."),
			"failure_count": rschema.Int64Attribute{Computed: true, Description: "The run's member upgrade failures (Fleet API `" +
				fleetapi.PreviewAPIVersion + "`; null under the stable version): a run that ends Completed may have failed members within its thresholds."},
			"stages": computedObjects("Stages.", withAttrs(statusTimes(), map[string]rschema.Attribute{
				"name":                   shared.ComputedString("The stage."),
				"gates":                  statusGatesAttribute(),
				"after_stage_wait_state": shared.ComputedString("The after-stage wait's state."),
				"failure_count":          failureStatusAttribute("The stage's member upgrade failures."),
				"max_allowed_failures":   failureStatusAttribute("The stage's threshold, resolved from its `max_allowed_failures` to a count."),
				"groups": computedObjects("Groups.", withAttrs(statusTimes(), map[string]rschema.Attribute{
					"name":                 shared.ComputedString("The group."),
					"gates":                statusGatesAttribute(),
					"failure_count":        failureStatusAttribute("The group's member upgrade failures."),
					"max_allowed_failures": failureStatusAttribute("The group's threshold, resolved from its `max_allowed_failures` to a count."),
					"members": computedObjects("Members.", withAttrs(statusTimes(), map[string]rschema.Attribute{
						"name": shared.ComputedString("The member."), "message": shared.ComputedString("The member update's message."),
						"operation_id": shared.ComputedString("The AKS operation ID of the member's upgrade."),
					})),
				})),
			})),
		}),
	}
}

// failureStatusAttribute is a count the preview API's run status reports (null under the stable version).
func failureStatusAttribute(what string) rschema.Int64Attribute {
	return rschema.Int64Attribute{Computed: true, Description: what + " Fleet API `" + fleetapi.PreviewAPIVersion + "`; null under the stable version."}
}

var (
	runPreviewType = objectType(runPreviewAttribute().GetType(), "the update run's preview")
	runStatusType  = objectType(runStatusAttribute().GetType(), "the update run's status")
)
