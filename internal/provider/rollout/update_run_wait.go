package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// What apply does to a run and how it waits: start, stop, skip, approve
// gates, log each change, and name failing members.

// waitPendingKey is the private-state key set while an apply stopped waiting
// for a run that goes on (create timeout, cancelled apply).
const waitPendingKey = "wait_pending"

func setWaitPending(ctx context.Context, p shared.PrivateSetter, pending bool) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if !pending {
		return p.SetKey(ctx, waitPendingKey, nil)
	}
	return p.SetKey(ctx, waitPendingKey, []byte(`true`))
}

// waitResumes reports whether an earlier apply stopped waiting for the run
// and the configuration still waits for it to complete while the refreshed
// run has not ended: apply (an in-place update) then resumes the wait for
// the same run.
func waitResumes(ctx context.Context, p shared.PrivateGetter, state, plan updateRunModel, diags *diag.Diagnostics) bool {
	if p == nil || plan.WaitFor.ValueString() != shared.WaitCompleted || plan.State.ValueString() != runStateRunning {
		return false
	}
	b, d := p.GetKey(ctx, waitPendingKey)
	diags.Append(d...)
	if string(b) != `true` || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st runStatusModel
	if d := state.Status.As(ctx, &st, shared.ObjectAsOptions); d.HasError() {
		return false
	}
	return !runEnded(fleetapi.UpdateState(st.State.ValueString()))
}

// approvalWaiting reports whether a configured approval's gate is Pending in
// the refreshed status: apply then approves it.
func (r *updateRunResource) approvalWaiting(ctx context.Context, state, plan updateRunModel) bool {
	if len(plan.Approvals) == 0 || state.Status.IsNull() || state.Status.IsUnknown() {
		return false
	}
	var st runStatusModel
	if d := state.Status.As(ctx, &st, shared.ObjectAsOptions); d.HasError() {
		return false
	}
	for _, g := range statusGates(st) {
		if g.state == string(fleetapi.GateStatePending) && g.id != "" && g.typ != string(fleetapi.GateTypeScheduledStart) && approved(plan.Approvals, g) {
			return true
		}
	}
	return false
}

// converge starts or stops the run to match plan.State, skips the targets
// not skipped before, approves waiting gates, waits as wait_for says, and
// saves state — also when a step fails, before returning the error.
//
// A wait that is interrupted (timeout or cancel) while the run goes on sets
// the private "wait pending" flag, so the next plan is an in-place update
// whose apply resumes waiting for the same run. In Create (creating) the
// interruption is a warning, not an error: Terraform taints an object whose
// Create returns an error and the next apply would then destroy the run and
// create a new one instead of waiting for it (SPEC §8).
func (r *updateRunResource) converge(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, skipped []skipModel, run *fleetapi.UpdateRun, creating, retry bool, st *tfsdk.State, priv shared.PrivateSetter, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	save := func() {
		plan.Status = runStatusObject(ctx, run, diags)
		diags.Append(st.Set(ctx, plan)...)
	}
	fail := func(summary string, err error) {
		diags.AddError(summary, fmt.Sprintf("Update run %q: %v", name, err))
		if latest, gerr := fc.GetUpdateRun(context.WithoutCancel(ctx), fleet, name); gerr == nil {
			run = latest
		}
		save()
	}
	// Skips first: a run created (or re-started) with skip targets must not reach them before
	// they are skipped — the Fleet API accepts skips in NotStarted, Stopped and Failed runs.
	if targets := newSkipTargets(plan.Skip, skipped); len(targets) > 0 {
		tflog.Info(ctx, "skipping update run targets", map[string]any{"run": name, "targets": fmt.Sprint(targets)})
		poller, err := fc.BeginSkipUpdateRun(ctx, fleet, name, fleetapi.SkipProperties{Targets: targets}, nil)
		got, err := shared.PollDone(ctx, poller, err)
		if err != nil {
			fail("Skipping update run targets", err)
			return
		}
		run = got
	}
	// Running wanted while a stop finishes a member's upgrade (refresh reads Stopping as Stopped):
	// the run can be started only once it is Stopped, so wait for that, one read per interval.
	for plan.State.ValueString() == runStateRunning && runState(run) == fleetapi.UpdateStateStopping {
		tflog.Info(ctx, "update run still stopping; waiting to start it again", map[string]any{"run": name})
		select {
		case <-ctx.Done():
			fail("Starting the update run", fmt.Errorf("still stopping: %w", context.Cause(ctx)))
			return
		case <-time.After(pollInterval()):
		}
		got, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			fail("Starting the update run", err)
			return
		}
		run = got
	}
	state := runState(run)
	switch want := plan.State.ValueString(); {
	case want == runStateRunning && (state == fleetapi.UpdateStateNotStarted || state == fleetapi.UpdateStateStopped || (state == fleetapi.UpdateStateFailed && retry)):
		tflog.Info(ctx, "starting update run", map[string]any{"run": name, "from": string(state)})
		poller, err := fc.BeginStartUpdateRun(ctx, fleet, name, nil)
		got, err := shared.PollDone(ctx, poller, err)
		if err != nil && fleetapi.IsConflict(err) && state == fleetapi.UpdateStateNotStarted {
			// A concurrent apply of the same run may have started it first.
			if latest, gerr := fc.GetUpdateRun(ctx, fleet, name); gerr == nil && runStarted(runState(latest)) {
				got, err = latest, nil
			}
		}
		if err != nil {
			fail("Starting the update run", err)
			return
		}
		run = got
	case want == runStateStopped && (state == fleetapi.UpdateStateRunning || state == fleetapi.UpdateStatePending):
		tflog.Info(ctx, "stopping update run", map[string]any{"run": name, "from": string(state)})
		poller, err := fc.BeginStopUpdateRun(ctx, fleet, name, nil)
		got, err := shared.PollDone(ctx, poller, err)
		if err != nil {
			fail("Stopping the update run", err)
			return
		}
		run = got
	}
	if err := r.approve(ctx, fc, fleet, plan, run); err != nil {
		fail("Approving a gate", err)
		return
	}
	if plan.WaitFor.ValueString() == shared.WaitStarted && plan.State.ValueString() == runStateRunning {
		final, err := r.waitStarted(ctx, fc, fleet, name, run)
		if final != nil {
			run = final
		}
		if err != nil {
			fail("Waiting for the update run to start", err)
			return
		}
	}
	if plan.WaitFor.ValueString() != shared.WaitCompleted || plan.State.ValueString() != runStateRunning {
		if n := len(plan.Approvals); n > 0 {
			// Approvals changed a gate's state: read the run once more so status shows it.
			if latest, err := fc.GetUpdateRun(ctx, fleet, name); err == nil {
				run = latest
			}
		}
		save()
		return
	}
	final, err := r.wait(ctx, fc, fleet, plan, run)
	if final != nil {
		run = final
	}
	if err != nil {
		if ctx.Err() != nil && !runEnded(runState(run)) {
			diags.Append(setWaitPending(ctx, priv, true)...)
			if creating {
				diags.AddWarning("Stopped waiting for the update run", fmt.Sprintf("Update run %q: %v.\n\n"+
					"The run was created and started, and its state is saved. The next plan shows an in-place update "+
					"of this run: applying it resumes waiting for the same run.", name, err))
			} else {
				diags.AddError("Waiting for the update run", fmt.Sprintf("Update run %q: %v", name, err))
			}
			save()
			return
		}
		diags.AddError("Waiting for the update run", fmt.Sprintf("Update run %q: %v", name, err))
		save()
		return
	}
	diags.Append(setWaitPending(ctx, priv, false)...)
	save()
	if s := runState(run); s == fleetapi.UpdateStateFailed || s == fleetapi.UpdateStateStopped {
		detail := runFailureDetail(run)
		if creating {
			detail = runFailureLines(run) + "\n" + createdRunEnded
		}
		diags.AddError(fmt.Sprintf("Update run %s", s), detail)
	}
	if summary, detail := completedFailures(run, plan.AcceptedFailures.ValueInt64()); summary != "" {
		if creating {
			detail += "\n\n" + createdRunCompleted
		}
		diags.AddError(summary, detail)
	}
}

// completedFailuresListed is how many failed members completedFailures names.
const completedFailuresListed = 5

// completedFailures is the error of a run that ended Completed with more failed members than
// accepted (the preview API's failureCount: failures within maxAllowedFailures do not fail the
// run), naming the first failed members and their messages; "" when there is none.
func completedFailures(run *fleetapi.UpdateRun, accepted int64) (string, string) {
	if runState(run) != fleetapi.UpdateStateCompleted || run.Properties.Status.FailureCount == nil {
		return "", ""
	}
	n := int64(*run.Properties.Status.FailureCount)
	if n <= accepted {
		return "", ""
	}
	var lines []string
	listed := 0
	for _, st := range run.Properties.Status.Stages {
		for _, g := range st.Groups {
			for _, m := range g.Members {
				if m.Status == nil || m.Status.State != fleetapi.UpdateStateFailed {
					continue
				}
				if listed++; listed > completedFailuresListed {
					continue
				}
				msg := m.Message
				if msg == "" && m.Status.Error != nil {
					msg = m.Status.Error.Message
				}
				lines = append(lines, fmt.Sprintf("%s (stage %s, group %s): %s", m.Name, st.Name, g.Name, msg))
			}
		}
	}
	if listed > completedFailuresListed {
		lines = append(lines, fmt.Sprintf("and %d more (status.stages[*].groups[*].members)", listed-completedFailuresListed))
	}
	noun := "members"
	if n == 1 {
		noun = "member"
	}
	return fmt.Sprintf("Update run Completed with %d failed %s", n, noun),
		fmt.Sprintf("Completed with %d failed %s: %s.\n\nThe run went past them within its max_allowed_failures, and they stay at "+
			"their versions. accepted_failures is %d; set it to %d or more to accept this, or fix the cause and run the update again "+
			"(triggers). The state is saved.", n, noun, strings.Join(lines, "; "), accepted, n)
}

// createdRunCompleted is what follows a Completed run's failure error in the apply that created it.
const createdRunCompleted = "Terraform marks a resource whose create failed as tainted: the next plan replaces this run (a new run " +
	"under the same name upgrades the failed members again). To keep it, `terraform untaint` it and raise accepted_failures."

// wait reads the run every pollInterval until it ends (Completed, Failed,
// Stopped, Skipped): one Fleet API request per interval, plus one per gate
// it approves. Each state change of the run, a stage, a group or a member is
// logged.
func (r *updateRunResource) wait(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, run *fleetapi.UpdateRun) (*fleetapi.UpdateRun, error) {
	name := plan.Name.ValueString()
	seen := map[string]string{}
	logChanges(ctx, name, run, seen)
	interval := pollInterval()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for !runEnded(runState(run)) {
		select {
		case <-ctx.Done():
			return run, fmt.Errorf("stopped waiting while the run is %s, waiting on %s (%v); the run goes on: apply again to wait for it",
				runState(run), waitingOn(run), context.Cause(ctx))
		case <-timer.C:
		}
		got, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return run, err
		}
		run = got
		logChanges(ctx, name, run, seen)
		if on := waitingOn(run); on != seen["waiting on"] {
			seen["waiting on"] = on
			tflog.Info(ctx, "update run waiting", map[string]any{"run": name, "state": string(runState(run)), "waiting_on": on})
		}
		if err := r.approve(ctx, fc, fleet, plan, run); err != nil {
			return run, err
		}
		timer.Reset(interval)
	}
	return run, nil
}

// waitStarted reads the run every pollInterval until the Fleet API reports it
// past NotStarted (wait_for = "started"): Running, Pending, or already ended.
func (r *updateRunResource) waitStarted(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, name string, run *fleetapi.UpdateRun) (*fleetapi.UpdateRun, error) {
	for runState(run) == fleetapi.UpdateStateNotStarted {
		tflog.Info(ctx, "waiting for the update run to start", map[string]any{"run": name, "state": string(runState(run))})
		select {
		case <-ctx.Done():
			return run, fmt.Errorf("still %s: %w", runState(run), context.Cause(ctx))
		case <-time.After(pollInterval()):
		}
		got, err := fc.GetUpdateRun(ctx, fleet, name)
		if err != nil {
			return run, err
		}
		run = got
	}
	tflog.Info(ctx, "update run started", map[string]any{"run": name, "state": string(runState(run))})
	return run, nil
}

// runStarted reports a state a start leads to.
func runStarted(s fleetapi.UpdateState) bool {
	switch s {
	case fleetapi.UpdateStateRunning, fleetapi.UpdateStatePending, fleetapi.UpdateStateCompleted:
		return true
	}
	return false
}

func runEnded(s fleetapi.UpdateState) bool {
	switch s {
	case fleetapi.UpdateStateCompleted, fleetapi.UpdateStateFailed, fleetapi.UpdateStateStopped, fleetapi.UpdateStateSkipped:
		return true
	}
	return false
}

func logChanges(ctx context.Context, run string, u *fleetapi.UpdateRun, seen map[string]string) {
	note := func(what string, s *fleetapi.UpdateStatus, msg string) {
		if s == nil {
			return
		}
		if seen[what] == string(s.State) {
			return
		}
		seen[what] = string(s.State)
		f := map[string]any{"run": run, "what": what, "state": string(s.State)}
		if msg != "" {
			f["message"] = msg
		}
		tflog.Info(ctx, "update run state changed", f)
	}
	if u.Properties == nil || u.Properties.Status == nil {
		return
	}
	rs := u.Properties.Status
	note("run", rs.Status, "")
	for _, st := range rs.Stages {
		note("stage "+st.Name, st.Status, "")
		for _, g := range st.Groups {
			note("group "+g.Name, g.Status, "")
			for _, m := range g.Members {
				note("member "+m.Name, m.Status, m.Message)
			}
		}
	}
}

// approve completes the Pending gates the approvals name. The gate IDs come
// from the run's status tree (UpdateRunGateStatus.gateId), which names the
// fleets/gates resource the run created for each gate it reached.
func (r *updateRunResource) approve(ctx context.Context, fc *fleetapi.Client, fleet fleetapi.FleetID, plan *updateRunModel, run *fleetapi.UpdateRun) error {
	if len(plan.Approvals) == 0 {
		return nil
	}
	for _, g := range statusGates(runStatusFrom(run)) {
		// A ScheduledStart gate completes itself at its time: an approval block at its position does not complete it early.
		if g.state != string(fleetapi.GateStatePending) || g.id == "" || g.typ == string(fleetapi.GateTypeScheduledStart) || !approved(plan.Approvals, g) {
			continue
		}
		tflog.Info(ctx, "approving gate", map[string]any{"run": plan.Name.ValueString(), "stage": g.stage, "group": g.group, "timing": g.timing, "gate": g.id})
		// gateId is the gate's ARM resource ID (fleets/{fleet}/gates/{name}); the API takes the name.
		gate := g.id
		if i := strings.LastIndex(gate, "/"); i >= 0 {
			gate = gate[i+1:]
		}
		poller, err := fc.BeginApproveGate(ctx, fleet, gate, nil)
		if _, err := shared.PollDone(ctx, poller, err); err != nil && !fleetapi.IsConflict(err) {
			return fmt.Errorf("gate %s (%s %s of stage %s%s): %w", g.id, g.timing, joinNonEmpty(" ", "group", g.group), g.stage, "", err)
		}
	}
	return nil
}

type gateRef struct{ stage, group, timing, typ, id, state string }

func statusGates(st runStatusModel) []gateRef {
	var out []gateRef
	for _, s := range st.Stages {
		for _, g := range s.Gates {
			out = append(out, gateRef{stage: s.Name, timing: g.Timing, typ: g.Type.ValueString(), id: g.GateID.ValueString(), state: g.State.ValueString()})
		}
		for _, grp := range s.Groups {
			for _, g := range grp.Gates {
				out = append(out, gateRef{stage: s.Name, group: grp.Name, timing: g.Timing, typ: g.Type.ValueString(), id: g.GateID.ValueString(), state: g.State.ValueString()})
			}
		}
	}
	return out
}

func approved(approvals []approvalModel, g gateRef) bool {
	for _, a := range approvals {
		if a.Stage.ValueString() == g.stage && a.Group.ValueString() == g.group && a.Timing.ValueString() == g.timing {
			return true
		}
	}
	return false
}

// runFailureDetail names each failed member with its message, and says what keeps the run.
func runFailureDetail(run *fleetapi.UpdateRun) string {
	return runFailureLines(run) + "\n" + "The state is saved. A Failed run stays failed: fix the cause, then re-start it from the last unprocessed " +
		"cluster by changing the run's `retry` value (or with the fleet_update_run_start action); a Stopped run is started again by " +
		"the next apply with state = \"Running\"."
}

// createdRunEnded is what follows a run that ended Failed or Stopped in the apply that created it:
// Terraform taints an object whose create returned an error (its apply must fail), and a tainted
// object is replaced by the next plan — the protocol gives the provider no way to keep it.
const createdRunEnded = "The run is saved in state, but Terraform marks a resource whose create failed as tainted: the next " +
	"plan replaces this run. Its apply deletes the run and creates and starts a new one under the same name, which upgrades again " +
	"every member it reaches that is not at the target yet, the failed one included, and the failed run's status is lost.\n\n" +
	"To keep this run instead, run `terraform untaint` with this resource's address. The next plan then changes nothing for a " +
	"Failed run (fix the cause, then change `retry` to re-start it from the last unprocessed cluster, or use the " +
	"fleet_update_run_start action) and starts a Stopped one again."

// runFailureLines names each failed member with its message (and the run's error).
func runFailureLines(run *fleetapi.UpdateRun) string {
	var lines []string
	if run.Properties != nil && run.Properties.Status != nil {
		rs := run.Properties.Status
		if rs.Status != nil && rs.Status.Error != nil && rs.Status.Error.Message != "" {
			lines = append(lines, "Run error: "+rs.Status.Error.Message)
		}
		for _, st := range rs.Stages {
			for _, g := range st.Groups {
				for _, m := range g.Members {
					if m.Status == nil || m.Status.State != fleetapi.UpdateStateFailed {
						continue
					}
					msg := m.Message
					if msg == "" && m.Status.Error != nil {
						msg = m.Status.Error.Message
					}
					lines = append(lines, fmt.Sprintf("Member %s (stage %s, group %s) failed: %s", m.Name, st.Name, g.Name, msg))
				}
			}
		}
	}
	return strings.Join(lines, "\n")
}

func newSkipTargets(plan, prior []skipModel) []fleetapi.SkipTarget {
	done := map[skipModel]bool{}
	for _, s := range prior {
		done[skipModel{Type: types.StringValue(s.Type.ValueString()), Name: types.StringValue(s.Name.ValueString())}] = true
	}
	var out []fleetapi.SkipTarget
	for _, s := range plan {
		k := skipModel{Type: types.StringValue(s.Type.ValueString()), Name: types.StringValue(s.Name.ValueString())}
		if done[k] {
			continue
		}
		done[k] = true
		out = append(out, fleetapi.SkipTarget{Type: fleetapi.TargetType(s.Type.ValueString()), Name: s.Name.ValueString()})
	}
	return out
}

func runState(run *fleetapi.UpdateRun) fleetapi.UpdateState {
	if run == nil || run.Properties == nil || run.Properties.Status == nil || run.Properties.Status.Status == nil {
		return fleetapi.UpdateStateNotStarted
	}
	return run.Properties.Status.Status.State
}

// desiredFromActual maps the run's state onto `state` after refresh: a run
// that ended Completed, Failed or Skipped keeps the configured value (prior),
// so that no apply re-starts a Failed run unless `retry` changes.
func desiredFromActual(s fleetapi.UpdateState, prior types.String) string {
	switch s {
	case fleetapi.UpdateStateNotStarted, "":
		return runStateNotStarted
	case fleetapi.UpdateStateStopped, fleetapi.UpdateStateStopping:
		return runStateStopped
	case fleetapi.UpdateStateCompleted, fleetapi.UpdateStateFailed, fleetapi.UpdateStateSkipped:
		if v := prior.ValueString(); v == runStateRunning || v == runStateStopped {
			return v
		}
	}
	return runStateRunning
}

// planRunTransitions reports, as plan warnings, what apply will do about a
// run whose state moved outside Terraform or that `retry` asks to re-start:
// each is planned and said, never a plan error.
func planRunTransitions(ctx context.Context, state, plan updateRunModel, diags *diag.Diagnostics) {
	name, actual := plan.Name.ValueString(), statusState(ctx, state)
	want := plan.State.ValueString()
	switch {
	case want == runStateNotStarted && state.State.ValueString() != runStateNotStarted:
		diags.AddAttributeWarning(path.Root("state"), "Update run already started",
			fmt.Sprintf("Update run %q was started outside this configuration (it is %s); a started run cannot go back to "+
				"NotStarted, so apply leaves it as it is. Set state to Running or Stopped to say what apply should do.", name, actual))
	case want == runStateRunning && state.State.ValueString() == runStateStopped:
		diags.AddAttributeWarning(path.Root("state"), "Update run will be started again",
			fmt.Sprintf("Update run %q is %s; apply starts it again because state is Running.", name, actual))
	}
	if plan.Retry.Equal(state.Retry) {
		return
	}
	if actual == string(fleetapi.UpdateStateFailed) {
		if want == runStateRunning {
			diags.AddAttributeWarning(path.Root("retry"), "Failed update run will be re-started",
				fmt.Sprintf("Update run %q is Failed; apply re-starts it from the last unprocessed cluster because retry changed.", name))
		}
		return
	}
	diags.AddAttributeWarning(path.Root("retry"), "Nothing to retry",
		fmt.Sprintf("Update run %q is %s, not Failed: the changed retry value is saved and apply does nothing else.", name, actual))
}

// statusState is the run's own state as the last refresh read it.
func statusState(ctx context.Context, m updateRunModel) string {
	if m.Status.IsNull() || m.Status.IsUnknown() {
		return "unknown"
	}
	var st runStatusModel
	if d := m.Status.As(ctx, &st, shared.ObjectAsOptions); d.HasError() {
		return "unknown"
	}
	return st.State.ValueString()
}

// waitingOn names what a run waits on now: members upgrading, gates pending
// approval, an after-stage wait under way — bounded (counts and the first
// names), for the wait's log lines and its timeout.
func waitingOn(run *fleetapi.UpdateRun) string {
	if run == nil || run.Properties == nil || run.Properties.Status == nil {
		return "nothing yet"
	}
	var members, gates, waits []string
	pending := func(where string, gs []fleetapi.UpdateRunGateStatus, timing string) {
		for _, g := range gs {
			if g.Status != nil && g.Status.State == fleetapi.UpdateStatePending {
				gates = append(gates, fmt.Sprintf("%s gate of %s", timing, where))
			}
		}
	}
	for _, st := range run.Properties.Status.Stages {
		pending("stage "+st.Name, st.BeforeGates, "Before")
		for _, g := range st.Groups {
			where := "group " + st.Name + "/" + g.Name
			pending(where, g.BeforeGates, "Before")
			for _, m := range g.Members {
				if m.Status != nil && m.Status.State == fleetapi.UpdateStateRunning {
					members = append(members, m.Name)
				}
			}
			pending(where, g.AfterGates, "After")
		}
		if w := st.AfterStageWaitStatus; w != nil && w.Status != nil && w.Status.State == fleetapi.UpdateStateRunning {
			waits = append(waits, fmt.Sprintf("the %d s wait after stage %s", w.WaitDurationInSeconds, st.Name))
		}
		pending("stage "+st.Name, st.AfterGates, "After")
	}
	var parts []string
	if len(gates) > 0 {
		parts = append(parts, fmt.Sprintf("%d gate(s) pending approval (%s)", len(gates), preview.NameSample(gates)))
	}
	if len(members) > 0 {
		parts = append(parts, fmt.Sprintf("%d member(s) upgrading (%s)", len(members), preview.NameSample(members)))
	}
	parts = append(parts, waits...)
	if len(parts) == 0 {
		return string(runState(run))
	}
	return strings.Join(parts, "; ")
}
