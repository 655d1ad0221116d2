package emulator

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// fleets/gates: a run creates a gate resource (named by a GUID) when it
// reaches the gate, and deletes it with the run; GateState has no
// NotStarted, so a gate skipped before the run reached it never becomes a
// resource. PATCH {"properties":{"state":"Completed"}} approves a Pending gate
// (or completes a ScheduledStart gate early); a ScheduledStart gate
// completes itself at its absoluteStartTime as the runner reaches it.

func (s *Server) registerGateRoutes() {
	s.registerChild(&childKind{
		typ: typeGates, segment: "gates", param: "gateName", label: "gate", advance: true, view: viewOf(s.gateView),
		filter: func(f string) (func(any) bool, error) {
			match, err := parseGateFilter(f)
			if err != nil {
				return nil, err
			}
			return func(v any) bool { g, _ := v.(fleetapi.Gate); return match(g) }, nil
		},
	})
	s.router.handle(http.MethodPatch, fleetPath+"/gates/{gateName}", fleetAPI, s.patchGate)
}

func (s *Server) gateView(rec *record) fleetapi.Gate {
	v, _ := rec.Value.(fleetapi.Gate)
	props := *v.Properties
	v.Properties = &props
	v.ETag, v.SystemData = rec.ETag, s.systemData(rec)
	return v
}

// gateChanged keeps a run's gate resources in step with its gates. The
// caller holds w.mu.
func (s *Server) gateChanged(rr *runRecord, e rollout.Event) {
	if e.Gate == nil {
		return
	}
	ref := *e.Gate
	gs := rr.run.Gate(ref)
	if gs == nil {
		return
	}
	now := s.world.clock.Now()
	name, exists := rr.gates[ref]
	switch {
	case !exists && e.To == rollout.Pending:
		name = newUUID()
		id := s.fleetResourceID() + "/gates/" + name
		g := fleetapi.Gate{
			Resource: fleetapi.Resource{ID: id, Name: name, Type: typeGates},
			Properties: &fleetapi.GateProperties{
				ProvisioningState: "Succeeded", DisplayName: gs.DisplayName, GateType: fleetapi.GateType(gs.Type), State: fleetapi.GateStatePending,
				Target: fleetapi.GateTarget{ID: rr.api.ID, UpdateRunProperties: &fleetapi.UpdateRunGateTargetProperties{
					Name: rr.api.Name, Stage: ref.Stage, Group: ref.Group, Timing: fleetapi.Timing(ref.Timing),
				}},
			},
		}
		if c := gs.ScheduledStart; c != nil {
			// Preview fleets.json ScheduledStartProperties.absoluteStartTime: "The absolute UTC
			// time when the gate will complete. Set when the gate is created." (the rules set it
			// when the run reaches the gate: rollout.NextScheduledStart).
			g.Properties.ScheduledStartProperties = &fleetapi.ScheduledStartProperties{
				StartDay: fleetapi.DayOfWeek(c.StartDay), StartTime: c.StartTime, UTCOffset: c.UTCOffset, AbsoluteStartTime: timePtr(gs.AbsoluteStartTime),
			}
		}
		if _, _, err := s.world.store.put(id, typeGates, g, precondition{}, now); err != nil {
			return
		}
		rr.gates[ref] = name
		gs.GateID = id
	case exists && (e.To == rollout.Completed || e.To == rollout.Skipped):
		id := s.fleetResourceID() + "/gates/" + name
		rec, ok := s.world.store.get(id)
		if !ok {
			return
		}
		g := s.gateView(rec)
		g.ETag, g.SystemData = "", nil
		g.Properties.State = fleetapi.GateState(e.To)
		_, _, _ = s.world.store.put(id, typeGates, g, precondition{}, now)
	}
}

// gateOf finds a request's gate, its run brought up to now. The caller holds w.mu.
func (s *Server) gateOf(p params) (*record, error) {
	fleet, err := s.parentFleet(p)
	if err != nil {
		return nil, err
	}
	s.advanceRuns(s.world.clock.Now())
	rec, ok := s.world.store.get(fleet.ID + "/gates/" + p["gateName"])
	if !ok {
		return nil, notFound("gates", p["fleetName"], p["gateName"], p["resourceGroupName"])
	}
	return rec, nil
}

// patchGate completes a gate. update-strategies-gates-approvals.md: an
// approval gate "is completed by setting its state to be Completed"; faq.md:
// a gate cannot be approved before the run reaches it.
func (s *Server) patchGate(w http.ResponseWriter, r *http.Request, p params) error {
	var body fleetapi.GatePatch
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Properties == nil || body.Properties.State != fleetapi.GateStateCompleted {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.state: a gate can only be set to Completed.")
	}
	var op *operation
	_, err := s.world.render(func() (any, error) {
		rec, err := s.gateOf(p)
		if err != nil {
			return nil, err
		}
		if err := preconditionOf(r).check(rec, true); err != nil {
			return nil, err
		}
		g := s.gateView(rec)
		switch g.Properties.State {
		case fleetapi.GateStateSkipped:
			return nil, armErrorf(http.StatusConflict, "Conflict", "Gate '%s' was skipped and cannot be completed.", g.Name)
		case fleetapi.GateStatePending:
			runRec, ok := s.world.store.get(g.Properties.Target.ID)
			if !ok {
				return nil, armErrorf(http.StatusConflict, "Conflict", "The update run of gate '%s' no longer exists.", g.Name)
			}
			rr := runOfRecord(runRec)
			for ref, name := range rr.gates {
				if name != g.Name {
					continue
				}
				evs, err := rr.run.CompleteGate(ref, s.facts(), s.world.clock.Now())
				s.applyEvents(rr, evs)
				if err != nil {
					return nil, armErrorf(http.StatusConflict, "Conflict", "%v", err)
				}
			}
		}
		rec, _ = s.world.store.get(rec.ID)
		result, err := json.Marshal(s.gateView(rec))
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

// gateFilterClause is one "<property> eq '<value>'" of a $filter.
var gateFilterClause = regexp.MustCompile(`^\s*([A-Za-z/]+)\s+eq\s+'((?:[^']|'')*)'\s*(?:(?i:and)\s+|$)`)

// gateFields are the properties a gate $filter can compare.
var gateFields = map[string]func(fleetapi.Gate) string{
	"properties/state":     func(g fleetapi.Gate) string { return string(g.Properties.State) },
	"properties/gatetype":  func(g fleetapi.Gate) string { return string(g.Properties.GateType) },
	"properties/target/id": func(g fleetapi.Gate) string { return g.Properties.Target.ID },
	"properties/target/updaterunproperties/name": func(g fleetapi.Gate) string {
		return g.Properties.Target.UpdateRunProperties.Name
	},
	"properties/target/updaterunproperties/stage": func(g fleetapi.Gate) string {
		return g.Properties.Target.UpdateRunProperties.Stage
	},
	"properties/target/updaterunproperties/group": func(g fleetapi.Gate) string {
		return g.Properties.Target.UpdateRunProperties.Group
	},
	"properties/target/updaterunproperties/timing": func(g fleetapi.Gate) string {
		return string(g.Properties.Target.UpdateRunProperties.Timing)
	},
}

// parseGateFilter reads the subset of OData $filter the emulator serves:
// "<property> eq '<value>'" clauses joined by "and", on the properties of
// gateFields; values compare case-insensitively.
func parseGateFilter(f string) (func(fleetapi.Gate) bool, error) {
	type clause struct {
		field func(fleetapi.Gate) string
		value string
	}
	var clauses []clause
	for rest := f; strings.TrimSpace(rest) != ""; {
		m := gateFilterClause.FindStringSubmatch(rest)
		if m == nil {
			return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "$filter '%s': the local Fleet API emulator understands \"<property> eq '<value>'\" clauses joined by \"and\".", f)
		}
		field, ok := gateFields[strings.ToLower(m[1])]
		if !ok {
			return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "$filter '%s': cannot filter gates on '%s'.", f, m[1])
		}
		clauses = append(clauses, clause{field, strings.ReplaceAll(m[2], "''", "'")})
		rest = rest[len(m[0]):]
	}
	return func(g fleetapi.Gate) bool {
		for _, c := range clauses {
			if !strings.EqualFold(c.field(g), c.value) {
				return false
			}
		}
		return true
	}, nil
}
