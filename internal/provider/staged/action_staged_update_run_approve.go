package staged

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/staged"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var _ action.ActionWithConfigure = (*stagedApproveAction)(nil)

const (
	// stagedApprovePoll is how often the action reads the run while it waits for the approval request.
	stagedApprovePoll = 2 * time.Second
	// stagedApproveTimeout bounds the action unless timeouts.invoke says otherwise.
	stagedApproveTimeout = time.Hour
)

// stagedApproveAction is fleet_staged_update_run_approve: the Approved condition on a
// (Cluster)ApprovalRequest's status, as KubeFleet's docs approve a stage.
type stagedApproveAction struct{ shared.ActionBase }

func (a *stagedApproveAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = aschema.Schema{
		Description: "Approves a stage of a KubeFleet staged update run: the approval request its strategy's before-stage or " +
			"after-stage `Approval` task makes (a `ClusterApprovalRequest`, or an `ApprovalRequest` with `namespace`). While the " +
			"run has not made the request yet and is progressing, the action waits for it, reporting the stage's clusters. An " +
			"approved request is not an error: nothing is written. A stage without that approval task, or a run that has ended, " +
			"is stopped, or was created with `state = \"Initialize\"` and not started, is refused before any write. " +
			"Requires Terraform 1.14 or later.",
		Attributes: map[string]aschema.Attribute{
			"namespace": aschema.StringAttribute{Optional: true,
				Description: "The namespace of a namespaced run (`StagedUpdateRun`); absent for a `ClusterStagedUpdateRun`."},
			"update_run": aschema.StringAttribute{Required: true, Description: "The staged update run's name."},
			"stage":      aschema.StringAttribute{Required: true, Description: "The stage to approve."},
			"approval": aschema.StringAttribute{Optional: true, Description: "`Before` or `After` (default) the stage.",
				Validators: []validator.String{stringvalidator.OneOf("Before", "After")}},
		},
		Blocks: map[string]aschema.Block{
			"timeouts": shared.ActionTimeoutsBlock(ctx, "wait", stagedApproveTimeout),
		},
	}
}

type stagedApproveModel struct {
	Namespace types.String `tfsdk:"namespace"`
	UpdateRun types.String `tfsdk:"update_run"`
	Stage     types.String `tfsdk:"stage"`
	Approval  types.String `tfsdk:"approval"`
	shared.ActionTimeouts
}

func (a *stagedApproveAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	backend.InvokeHubAction(ctx, a.Clients, req, resp, stagedApproveTimeout, func(ctx context.Context, m *stagedApproveModel, h *hub.Client, progress shared.Progress) {
		ns, name, stage := m.Namespace.ValueString(), m.UpdateRun.ValueString(), m.Stage.ValueString()
		before := m.Approval.ValueString() == "Before"
		what := fmt.Sprintf("after-stage approval of stage %s", stage)
		reqName := staged.ApprovalRequestName(name, stage)
		if before {
			what, reqName = fmt.Sprintf("before-stage approval of stage %s", stage), staged.BeforeApprovalRequestName(name, stage)
		}
		run, err := h.Run(ctx, ns, name)
		if err != nil {
			if hub.IsNotFound(err) {
				resp.Diagnostics.AddAttributeError(path.Root("update_run"), "Staged update run not found", fmt.Sprintf("The hub has no %s %q.", hub.StagedKind("run", ns), hub.Key(ns, name)))
				return
			}
			backend.AddBackendError(&resp.Diagnostics, "Reading the staged update run", err)
			return
		}
		if err := stageHasApproval(run, stage, before); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("stage"), "No such approval", fmt.Sprintf("Staged update run %q: %v.", hub.Key(ns, name), err))
			return
		}
		var found *placementv1.ClusterApprovalRequest
		err = shared.PollEvery(ctx, stagedApprovePoll, func(ctx context.Context) (bool, error) {
			reqs, err := h.ApprovalRequests(ctx, ns, name)
			if err != nil {
				return false, err
			}
			for i := range reqs {
				if reqs[i].Name == reqName {
					found = &reqs[i]
					return true, nil
				}
			}
			state, msg := staged.RunState(run)
			if state.Ended() || state == staged.StateStopped || state == staged.StateStopping || state == staged.StateInitialized || state == staged.StateInitializationFailed {
				return false, &refusal{fmt.Sprintf("staged update run %q has not requested the %s and is %s%s; a stage can be approved once a running run reaches it",
					hub.Key(ns, name), what, state, prefixed(": ", msg))}
			}
			progress("waiting for staged update run %s to request the %s — %s", hub.Key(ns, name), what, stageProgress(run, stage))
			if run, err = h.Run(ctx, ns, name); err != nil {
				return false, err
			}
			return false, nil
		})
		if r := (*refusal)(nil); errors.As(err, &r) {
			resp.Diagnostics.AddError("Stage cannot be approved", r.msg+".")
			return
		}
		if err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Waiting for the approval request", fmt.Errorf("staged update run %q: %w", hub.Key(ns, name), err))
			return
		}
		if meta.IsStatusConditionTrue(found.Status.Conditions, string(placementv1.ApprovalRequestConditionApproved)) {
			progress("%s %s (%s) is already approved", hub.StagedKind("approval", ns), hub.Key(ns, found.Name), what)
			return
		}
		progress("approving %s %s (%s of staged update run %s)", hub.StagedKind("approval", ns), hub.Key(ns, found.Name), what, name)
		if err := h.Approve(ctx, found, a.Clients.Now(), "terraform-provider-fleet"); err != nil {
			backend.AddBackendError(&resp.Diagnostics, "Approving the stage", fmt.Errorf("%s %q: %w", hub.StagedKind("approval", ns), hub.Key(ns, found.Name), err))
			return
		}
		progress("approved the %s of staged update run %s", what, hub.Key(ns, name))
	})
}

type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// stageHasApproval checks that the run's strategy snapshot (or, before initialization, nothing)
// has an Approval task at that side of the stage.
func stageHasApproval(run *placementv1.ClusterStagedUpdateRun, stage string, before bool) error {
	snap := run.Status.UpdateStrategySnapshot
	if snap == nil {
		return nil // not initialized yet: the wait finds out
	}
	var names []string
	for _, s := range snap.Stages {
		names = append(names, s.Name)
		if s.Name != stage {
			continue
		}
		tasks := s.AfterStageTasks
		if before {
			tasks = s.BeforeStageTasks
		}
		for _, t := range tasks {
			if t.Type == placementv1.StageTaskTypeApproval {
				return nil
			}
		}
		side := map[bool]string{true: "before", false: "after"}[before]
		return fmt.Errorf("stage %q has no %s-stage Approval task", stage, side)
	}
	return fmt.Errorf("the run has no stage %q (its stages: %s)", stage, strings.Join(names, ", "))
}

// stageProgress is a stage's state and its clusters' (done/total) in the run's status.
func stageProgress(run *placementv1.ClusterStagedUpdateRun, stage string) string {
	for _, s := range staged.AllStages(run) {
		if s.StageName != stage {
			continue
		}
		done := 0
		for i := range s.Clusters {
			if staged.ClusterStep(&s.Clusters[i], run.Generation).State == staged.StepSucceeded {
				done++
			}
		}
		return fmt.Sprintf("stage %s %s, clusters %d/%d done", stage, staged.StageStep(s, run.Generation).State, done, len(s.Clusters))
	}
	state, _ := staged.RunState(run)
	return fmt.Sprintf("run %s", state)
}
