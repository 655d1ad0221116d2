package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// fleets/updateRuns, executed by the runner with the rollout engine. PUT,
// DELETE, start, stop and skip are long-running operations; all but the
// delete of an active run finish at once.

// runRecord is the store's value of an update run.
type runRecord struct {
	// api holds the resource's identity and the properties the client set,
	// with strategy the copy taken at creation.
	api fleetapi.UpdateRun
	run *rollout.Run
	// gates are the names of the fleets/gates resources the run has created.
	gates map[rollout.GateRef]string
	// deleting: a DELETE stopped the run; it goes once its upgrades end.
	deleting bool
}

func (s *Server) registerUpdateRunRoutes() {
	s.registerChild(&childKind{
		typ: typeUpdateRuns, segment: "updateRuns", param: "updateRunName", label: "update run",
		advance: true, kick: true,
		view: viewOf(s.runView), decode: decodeRun, build: s.buildRun, remove: s.removeRun,
	})
	run := fleetPath + "/updateRuns/{updateRunName}"
	s.router.handle(http.MethodPost, run+"/start", fleetAPI, s.startUpdateRun)
	s.router.handle(http.MethodPost, run+"/stop", fleetAPI, s.stopUpdateRun)
	s.router.handle(http.MethodPost, run+"/skip", fleetAPI, s.skipUpdateRun)
}

// runOfRecord is the run a store record holds (the store keeps
// *runRecord values under typeUpdateRuns only).
func runOfRecord(rec *record) *runRecord {
	rr, _ := rec.Value.(*runRecord)
	return rr
}

// runs lists the fleet's runs in creation order. The caller holds w.mu.
func (s *Server) runs() []*runRecord {
	recs := s.world.store.children(s.fleetResourceID(), typeUpdateRuns)
	out := make([]*runRecord, len(recs))
	for i, rec := range recs {
		out[i] = runOfRecord(rec)
	}
	return out
}

// runOf finds a request's run, brought up to now. The caller holds w.mu.
func (s *Server) runOf(p params) (*record, *runRecord, error) {
	fleet, err := s.parentFleet(p)
	if err != nil {
		return nil, nil, err
	}
	s.advanceRuns(s.world.clock.Now())
	rec, ok := s.world.store.get(fleet.ID + "/updateRuns/" + p["updateRunName"])
	if !ok {
		return nil, nil, notFound("updateRuns", p["fleetName"], p["updateRunName"], p["resourceGroupName"])
	}
	return rec, runOfRecord(rec), nil
}

// runWrite is a run's PUT body and whether it came at the preview api-version.
type runWrite struct {
	props   fleetapi.UpdateRunProperties
	preview bool
}

// decodeRun reads a run's PUT body.
func decodeRun(r *http.Request) (any, error) {
	var body fleetapi.UpdateRun
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	props := body.Properties
	if props == nil || props.ManagedClusterUpdate == nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.managedClusterUpdate is required.")
	}
	props.AutoUpgradeProfileID = "" // read-only
	return runWrite{props: *props, preview: isPreview(r)}, nil
}

// buildRun makes a NotStarted run over the fleet's members as they are now,
// or replaces one that has not started; a run that has started takes only a
// PUT that changes nothing. The caller holds w.mu.
func (s *Server) buildRun(c childWrite) (any, bool, error) {
	rw, _ := c.body.(runWrite)
	props := rw.props
	if c.old != nil {
		prev := runOfRecord(c.old)
		pp := prev.api.Properties
		if !rw.preview {
			keepPreviewFields(props.Strategy, pp.Strategy)
		}
		if prev.deleting {
			return nil, false, armErrorf(http.StatusConflict, "Conflict", "Update run '%s' is being deleted.", c.name)
		}
		if !sameJSON(props.ManagedClusterUpdate.NodeImageSelection, pp.ManagedClusterUpdate.NodeImageSelection) {
			return nil, false, armErrorf(http.StatusBadRequest, "PropertyChangeNotAllowed",
				"properties.managedClusterUpdate.nodeImageSelection can only be set when the update run is created.")
		}
		props.AutoUpgradeProfileID = pp.AutoUpgradeProfileID
		if st := prev.run.Status.State; st != rollout.NotStarted {
			// fleets.json: strategy and managedClusterUpdate "can be modified until the run is started".
			strategy, err := s.runStrategy(c.fleet.ID, &props, prev)
			if err != nil {
				return nil, false, err
			}
			if !sameJSON(strategy, pp.Strategy) || !sameJSON(props.ManagedClusterUpdate, pp.ManagedClusterUpdate) {
				return nil, false, armErrorf(http.StatusBadRequest, "PropertyChangeNotAllowed",
					"properties.strategy and properties.managedClusterUpdate can be changed only until the update run starts; update run '%s' is %s.", c.name, st)
			}
			return nil, true, nil
		}
	}
	rr, err := s.newRunRecord(c.fleet.ID, c.name, props, rw.preview, c.now)
	if err != nil {
		return nil, false, err
	}
	return rr, false, nil
}

// newRunRecord checks a run's properties and makes it NotStarted over the
// fleet's members as they are now, as a PUT does; it replaces a run of the
// same name that has not started. Other resources that create runs
// (auto-upgrade profiles' generateUpdateRun) call it, then the store's put
// and startRun. preview: the request came at the preview api-version, whose
// rules then apply (as they do to a strategy that holds preview-only
// fields). The caller holds w.mu.
func (s *Server) newRunRecord(fleetID, name string, props fleetapi.UpdateRunProperties, preview bool, now time.Time) (*runRecord, error) {
	if props.ManagedClusterUpdate == nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.managedClusterUpdate is required.")
	}
	update := updateFromAPI(*props.ManagedClusterUpdate)
	if err := rollout.ValidateUpdate(update); err != nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.%v", err)
	}
	id := fleetID + "/updateRuns/" + name
	var prev *runRecord
	if rec, ok := s.world.store.get(id); ok {
		prev = runOfRecord(rec)
	}
	strategy, err := s.runStrategy(fleetID, &props, prev)
	if err != nil {
		return nil, err
	}
	run, _, err := rollout.NewRun(strategyFromAPI(strategy, preview), update, s.facts(), now)
	if err != nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.%v", err)
	}
	return &runRecord{
		api: fleetapi.UpdateRun{
			Resource: fleetapi.Resource{ID: id, Name: name, Type: typeUpdateRuns},
			Properties: &fleetapi.UpdateRunProperties{
				UpdateStrategyID: props.UpdateStrategyID, Strategy: strategy, ManagedClusterUpdate: props.ManagedClusterUpdate,
				AutoUpgradeProfileID: props.AutoUpgradeProfileID,
			},
		},
		run: run, gates: map[rollout.GateRef]string{},
	}, nil
}

// startRun starts (or restarts) a run and makes the world follow. The
// caller holds w.mu.
func (s *Server) startRun(rr *runRecord, now time.Time) error {
	evs, err := rr.run.Start(s.facts(), now)
	s.applyEvents(rr, evs)
	if err != nil {
		return armErrorf(http.StatusConflict, "Conflict", "%v", err)
	}
	s.runner.kick()
	return nil
}

// runStrategy is the strategy a PUT gives the run. fleets.json: "Setting
// both updateStrategyId and strategy is invalid" and a run "snapshot[s] the
// referenced UpdateStrategy at the time of creation".
// Choice: both are accepted when strategy equals the copy the run would
// take (or took), which is what a read of the run shows, so that a read
// sent back as is succeeds. The caller holds w.mu.
func (s *Server) runStrategy(fleetID string, props *fleetapi.UpdateRunProperties, prev *runRecord) (*fleetapi.UpdateRunStrategy, error) {
	if props.UpdateStrategyID == "" {
		return props.Strategy, nil
	}
	var snapshot *fleetapi.UpdateRunStrategy
	if prev != nil && strings.EqualFold(prev.api.Properties.UpdateStrategyID, props.UpdateStrategyID) {
		snapshot = prev.api.Properties.Strategy
	} else {
		f, name, err := fleetapi.ParseChildID(props.UpdateStrategyID, "updateStrategies")
		if err != nil || !strings.EqualFold(f.String(), fleetID) {
			return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.updateStrategyId: '%s' is not an update strategy of this fleet.", props.UpdateStrategyID)
		}
		rec, ok := s.world.store.get(fleetID + "/updateStrategies/" + name)
		if !ok {
			return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.updateStrategyId: update strategy '%s' was not found.", name)
		}
		var c fleetapi.UpdateRunStrategy
		b, _ := json.Marshal(s.strategyView(rec).Properties.Strategy)
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, err
		}
		snapshot = &c
	}
	if props.Strategy != nil && !sameJSON(props.Strategy, snapshot) {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter",
			"Setting both properties.updateStrategyId and properties.strategy is invalid: set one of them.")
	}
	return snapshot, nil
}

// removeRun deletes a run and its gates.
// Choice: the Fleet API documents no answer for deleting a run that is
// under way; the emulator stops it first (as POST stop does) and the
// operation ends once the upgrades already started have ended and the run
// is gone, so no cluster is left mid-upgrade by a run that no longer exists.
// The caller holds w.mu.
func (s *Server) removeRun(rec *record, now time.Time) (*operation, error) {
	rr := runOfRecord(rec)
	if st := rr.run.Status.State; st == rollout.Running || st == rollout.Pending {
		evs, err := rr.run.Stop(s.facts(), now)
		s.applyEvents(rr, evs)
		if err != nil {
			return nil, err
		}
	}
	if !active(rr.run.Status.State) {
		s.deleteRun(rr)
		return nil, nil
	}
	id := rec.ID
	rr.deleting = true
	return s.world.beginOperation(&operation{
		Subscription: s.cfg.File.Fleet.SubscriptionID, Location: s.cfg.File.Fleet.Location, ResourceID: id,
		progress: func(now time.Time) (string, *fleetapi.ErrorDetail) {
			s.advanceRuns(now)
			if _, ok := s.world.store.get(id); ok {
				return opInProgress, nil
			}
			return opSucceeded, nil
		},
	}, now), nil
}

// deleteRun removes a run and the gates it created. The caller holds w.mu.
func (s *Server) deleteRun(rr *runRecord) {
	for _, name := range rr.gates {
		_, _ = s.world.store.delete(s.fleetResourceID()+"/gates/"+name, precondition{})
	}
	_, _ = s.world.store.delete(rr.api.ID, precondition{})
}

func (s *Server) startUpdateRun(w http.ResponseWriter, r *http.Request, p params) error {
	return s.runAction(w, r, p, s.startRun)
}

func (s *Server) stopUpdateRun(w http.ResponseWriter, r *http.Request, p params) error {
	return s.runAction(w, r, p, func(rr *runRecord, now time.Time) error {
		evs, err := rr.run.Stop(s.facts(), now)
		s.applyEvents(rr, evs)
		if err != nil {
			return armErrorf(http.StatusConflict, "Conflict", "%v", err)
		}
		return nil
	})
}

func (s *Server) skipUpdateRun(w http.ResponseWriter, r *http.Request, p params) error {
	var body fleetapi.SkipProperties
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if len(body.Targets) == 0 {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "targets: at least one skip target is required.")
	}
	targets := make([]rollout.SkipTarget, len(body.Targets))
	for i, t := range body.Targets {
		targets[i] = rollout.SkipTarget{Type: rollout.SkipTargetType(t.Type), Name: t.Name}
	}
	return s.runAction(w, r, p, func(rr *runRecord, now time.Time) error {
		switch st := rr.run.Status.State; st {
		case rollout.Stopping, rollout.Completed, rollout.Skipped:
			return armErrorf(http.StatusConflict, "Conflict", "cannot skip in an update run in state %s", st)
		}
		evs, err := rr.run.Skip(targets, s.facts(), now)
		s.applyEvents(rr, evs)
		if err != nil {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "%v", err)
		}
		return nil
	})
}

// runAction applies an action to a run as a long-running operation whose
// result is the run as the action left it.
func (s *Server) runAction(w http.ResponseWriter, r *http.Request, p params, act func(*runRecord, time.Time) error) error {
	var op *operation
	_, err := s.world.render(func() (any, error) {
		rec, rr, err := s.runOf(p)
		if err != nil {
			return nil, err
		}
		if err := preconditionOf(r).check(rec, true); err != nil {
			return nil, err
		}
		if rr.deleting {
			return nil, armErrorf(http.StatusConflict, "Conflict", "Update run '%s' is being deleted.", rr.api.Name)
		}
		now := s.world.clock.Now()
		if err := act(rr, now); err != nil {
			return nil, err
		}
		if rec, _, err = s.world.store.put(rec.ID, typeUpdateRuns, rr, precondition{}, now); err != nil {
			return nil, err
		}
		result, err := json.Marshal(s.runView(rec))
		if err != nil {
			return nil, err
		}
		op = s.finishedOperation(rec.ID, func() any { return json.RawMessage(result) })
		return nil, nil
	})
	if err != nil {
		return err
	}
	s.runner.kick()
	writeLROAccepted(w, r, op, http.StatusAccepted, nil)
	return nil
}

func updateFromAPI(u fleetapi.ManagedClusterUpdate) rollout.Update {
	out := rollout.Update{Upgrade: rollout.UpgradeType(u.Upgrade.Type), KubernetesVersion: u.Upgrade.KubernetesVersion}
	if sel := u.NodeImageSelection; sel != nil {
		out.NodeImageSelection = rollout.NodeImageSelectionType(sel.Type)
		for _, v := range sel.CustomNodeImageVersions {
			out.CustomNodeImageVersions = append(out.CustomNodeImageVersions, v.Version)
		}
	}
	return out
}

// runView is the run as the API shows it, with its status tree. The caller holds w.mu.
func (s *Server) runView(rec *record) fleetapi.UpdateRun {
	rr := runOfRecord(rec)
	v := rr.api
	props := *rr.api.Properties
	props.ProvisioningState = "Succeeded"
	props.Status = s.runStatus(rr.run)
	v.Properties = &props
	v.ETag, v.SystemData = rec.ETag, s.systemData(rec)
	return v
}

// runStatus renders the rules' status tree as fleets.json UpdateRunStatus.
func (s *Server) runStatus(run *rollout.Run) *fleetapi.UpdateRunStatus {
	f := s.cfg.File.Fleet
	st := run.Status
	var runErr *fleetapi.ErrorDetail
	if st.State == rollout.Failed && st.Error != "" {
		runErr = &fleetapi.ErrorDetail{Code: "UpdateRunFailed", Message: st.Error}
	}
	// The failure counts and thresholds are the preview's (stableView leaves
	// them out of a stable answer); the service reports 0 too.
	out := &fleetapi.UpdateRunStatus{Status: updateStatus(st.State, st.StartTime, st.CompletedTime, runErr), FailureCount: int32Ptr(st.FailureCount)}
	if len(st.SelectedNodeImageVersions) > 0 {
		out.NodeImageSelection = &fleetapi.NodeImageSelectionStatus{}
		for _, v := range st.SelectedNodeImageVersions {
			out.NodeImageSelection.SelectedNodeImageVersions = append(out.NodeImageSelection.SelectedNodeImageVersions, fleetapi.NodeImageVersion{Version: v})
		}
	}
	for _, stg := range st.Stages {
		ss := fleetapi.UpdateStageStatus{
			Status: updateStatus(stg.State, stg.StartTime, stg.CompletedTime, nil), Name: stg.Name, MaxConcurrency: int32(stg.MaxConcurrency),
			FailureCount: int32Ptr(stg.FailureCount), MaxAllowedFailures: int32Ptr(stg.MaxAllowedFailures),
			BeforeGates: gateStatuses(stg.BeforeGates), AfterGates: gateStatuses(stg.AfterGates),
		}
		if w := stg.AfterStageWait; w != nil {
			ss.AfterStageWaitStatus = &fleetapi.WaitStatus{Status: updateStatus(w.State, w.StartTime, w.CompletedTime, nil), WaitDurationInSeconds: w.WaitDurationInSeconds}
		}
		for _, g := range stg.Groups {
			gs := fleetapi.UpdateGroupStatus{
				Status: updateStatus(g.State, g.StartTime, g.CompletedTime, nil), Name: g.Name, MaxConcurrency: int32(g.MaxConcurrency),
				FailureCount: int32Ptr(g.FailureCount), MaxAllowedFailures: int32Ptr(g.MaxAllowedFailures),
				BeforeGates: gateStatuses(g.BeforeGates), AfterGates: gateStatuses(g.AfterGates),
			}
			for _, m := range g.Members {
				var merr *fleetapi.ErrorDetail
				if m.State == rollout.Failed {
					merr = &fleetapi.ErrorDetail{Code: "UpgradeFailed", Message: m.Message}
				}
				gs.Members = append(gs.Members, fleetapi.MemberUpdateStatus{
					Status: updateStatus(m.State, m.StartTime, m.CompletedTime, merr), Name: m.Name,
					ClusterResourceID: managedClusterID(f.SubscriptionID, f.ResourceGroup, m.Name), OperationID: m.OperationID, Message: m.Message,
				})
			}
			ss.Groups = append(ss.Groups, gs)
		}
		out.Stages = append(out.Stages, ss)
	}
	return out
}

func updateStatus(state rollout.State, start, end time.Time, err *fleetapi.ErrorDetail) *fleetapi.UpdateStatus {
	return &fleetapi.UpdateStatus{State: fleetapi.UpdateState(state), StartTime: timePtr(start), CompletedTime: timePtr(end), Error: err}
}

func gateStatuses(gs []rollout.GateStatus) []fleetapi.UpdateRunGateStatus {
	var out []fleetapi.UpdateRunGateStatus
	for _, g := range gs {
		out = append(out, fleetapi.UpdateRunGateStatus{DisplayName: g.DisplayName, GateID: g.GateID, Status: updateStatus(g.State, g.StartTime, g.CompletedTime, nil)})
	}
	return out
}

func int32Ptr(n int) *int32 {
	v := int32(n)
	return &v
}
