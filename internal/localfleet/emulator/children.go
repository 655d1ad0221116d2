package emulator

import (
	"encoding/json"
	"net/http"
	"time"
)

// One path serves every kind of a fleet's child resource (update strategies,
// update runs, auto-upgrade profiles, members, gates): GET, list, PUT,
// PATCH and DELETE with ETag preconditions, answered as the Fleet RP answers
// them (PUT and PATCH: 201 or 200 with Azure-AsyncOperation and Location;
// DELETE: 202 with both, or 204 when there was nothing to delete). A kind
// supplies only what differs: how a body is checked, what is stored, what a
// read shows and what deleting does besides removing the record.

// childKind describes one kind of a fleet's child resource.
type childKind struct {
	typ     string // ARM resource type
	segment string // the collection's path segment under the fleet, e.g. "updateStrategies"
	param   string // the route's name parameter, e.g. "strategyName"
	label   string // in messages, e.g. "update strategy"
	// advance brings runs and profiles up to the simulated now before a
	// request reads or writes (kinds whose answers show run state).
	advance bool
	// checkName checks the name of a PUT (default checkChildName).
	checkName func(name string) error
	// view is a record as the API shows it.
	view func(*record) any
	// decode reads and checks a PUT body before the world is locked.
	decode func(r *http.Request) (any, error)
	// patch turns a PATCH body and the current resource into what decode
	// returns for a PUT; nil: the kind has no PATCH.
	patch func(r *http.Request, current *record) (any, error)
	// build makes the value a PUT stores (c.old is nil on create), or keep
	// to answer with the resource as it is. It runs under w.mu after the
	// request's precondition passed.
	build func(c childWrite) (value any, keep bool, err error)
	// operated, when set, sees the operation a PUT or PATCH stored (e.g. to
	// note it in the resource's status) before the answer is made. It runs
	// under w.mu.
	operated func(rec *record, op *operation)
	// commit, when set, makes the world outside the Fleet API follow a
	// write (e.g. the local fleet's hub follows a member's join) before it
	// is stored; it runs without w.mu. old is nil on create.
	commit func(old, value any) error
	// remove, when set, deletes rec itself; a returned operation still in
	// progress ends when the resource is gone. It runs under w.mu.
	remove func(rec *record, now time.Time) (*operation, error)
	// afterRemove, when set, runs without w.mu once a record is deleted.
	afterRemove func(value any) error
	// beforeRead, when set, runs before a GET or list takes w.mu (the kind's
	// view may then show what it observed outside the Fleet API, e.g. the hub).
	beforeRead func(r *http.Request, p params)
	// filter reads a list's $filter into a predicate on views (nil: $filter is refused).
	filter func(f string) (func(any) bool, error)
	// kick wakes the runner after a write (kinds that change runs).
	kick bool
}

// childWrite is what a kind's build sees of a PUT.
type childWrite struct {
	fleet *record
	id    string
	name  string
	old   *record // nil on create
	body  any
	now   time.Time
}

// registerChild serves a kind's collection and items.
func (s *Server) registerChild(k *childKind) {
	item := fleetPath + "/" + k.segment + "/{" + k.param + "}"
	s.router.handle(http.MethodGet, fleetPath+"/"+k.segment, fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
		if k.beforeRead != nil {
			k.beforeRead(r, p)
		}
		return s.listChildren(w, r, p, k)
	})
	s.router.handle(http.MethodGet, item, fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
		if k.beforeRead != nil {
			k.beforeRead(r, p)
		}
		return s.getChild(w, p, k)
	})
	if k.build != nil {
		s.router.handle(http.MethodPut, item, fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
			return s.putChild(w, r, p, k, false)
		})
		s.router.handle(http.MethodDelete, item, fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
			return s.deleteChild(w, r, p, k)
		})
	}
	if k.patch != nil {
		s.router.handle(http.MethodPatch, item, fleetAPI, func(w http.ResponseWriter, r *http.Request, p params) error {
			return s.putChild(w, r, p, k, true)
		})
	}
}

func (k *childKind) id(fleet *record, name string) string {
	return fleet.ID + "/" + k.segment + "/" + name
}

// find looks a request's resource up, the fleet advanced to now when the
// kind asks for it. The caller holds w.mu.
func (s *Server) findChild(p params, k *childKind) (*record, *record, error) {
	fleet, err := s.parentFleet(p)
	if err != nil {
		return nil, nil, err
	}
	if k.advance {
		s.advanceRuns(s.world.clock.Now())
	}
	rec, ok := s.world.store.get(k.id(fleet, p[k.param]))
	if !ok {
		return fleet, nil, notFound(k.segment, p["fleetName"], p[k.param], p["resourceGroupName"])
	}
	return fleet, rec, nil
}

func (s *Server) getChild(w http.ResponseWriter, p params, k *childKind) error {
	return serveRecord(s, w, func() (*record, error) {
		_, rec, err := s.findChild(p, k)
		return rec, err
	}, k.view)
}

// listChildren answers a paged list of the fleet's resources of a kind in
// creation order, filtered by $filter where the kind reads one.
func (s *Server) listChildren(w http.ResponseWriter, r *http.Request, p params, k *childKind) error {
	var keep func(any) bool
	if f := r.URL.Query().Get("$filter"); f != "" {
		if k.filter == nil {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "$filter is not supported on %s by the local Fleet API emulator.", k.segment)
		}
		var err error
		if keep, err = k.filter(f); err != nil {
			return err
		}
	}
	b, err := s.world.render(func() (any, error) {
		fleet, err := s.parentFleet(p)
		if err != nil {
			return nil, err
		}
		if k.advance {
			s.advanceRuns(s.world.clock.Now())
		}
		all := []any{}
		for _, rec := range s.world.store.children(fleet.ID, k.typ) {
			if v := k.view(rec); keep == nil || keep(v) {
				all = append(all, v)
			}
		}
		return pageOf(r, all)
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

// putChild creates or replaces a resource (PUT), or changes one (PATCH).
func (s *Server) putChild(w http.ResponseWriter, r *http.Request, p params, k *childKind, patch bool) error {
	name := p[k.param]
	var body any
	if !patch {
		check := k.checkName
		if check == nil {
			check = func(n string) error { return checkChildName(k.label, n) }
		}
		if err := check(name); err != nil {
			return err
		}
		var err error
		if body, err = k.decode(r); err != nil {
			return err
		}
	}
	// Under the lock: precondition, the new value.
	var c childWrite
	var value any
	var keep bool
	var current *record
	// The record as the request found it: the store changes records in
	// place, so a write in between would change current under this request.
	var currentETag string
	var currentValue any
	_, err := s.world.render(func() (any, error) {
		fleet, rec, err := s.findChild(p, k)
		if err != nil && (patch || fleet == nil) {
			return nil, err
		}
		if err := preconditionOf(r).check(rec, rec != nil); err != nil {
			return nil, err
		}
		if patch {
			if body, err = k.patch(r, rec); err != nil {
				return nil, err
			}
		}
		c = childWrite{fleet: fleet, id: k.id(fleet, name), name: name, old: rec, body: body, now: s.world.clock.Now()}
		value, keep, err = k.build(c)
		current = rec
		if rec != nil {
			currentETag, currentValue = rec.ETag, rec.Value
		}
		return nil, err
	})
	if err != nil {
		return err
	}
	if k.commit != nil && !keep {
		var old any
		if current != nil {
			old = currentValue
		}
		if err := k.commit(old, value); err != nil {
			return err
		}
	}
	// Under the lock again: store, unless another write came in between.
	var op *operation
	var etag string
	status := http.StatusOK
	b, err := s.world.render(func() (any, error) {
		rec := current
		if !keep {
			pre := precondition{IfNoneMatch: "*"}
			if current != nil {
				pre = precondition{IfMatch: currentETag}
			}
			var created bool
			var err error
			if rec, created, err = s.world.store.put(c.id, k.typ, value, pre, s.world.clock.Now()); err != nil {
				// Another write came in between. The request's own precondition, checked against
				// what that write stored, fails as if the request had come after it (412); a
				// request without one is told to try again.
				latest, ok := s.world.store.get(c.id)
				if perr := preconditionOf(r).check(latest, ok); perr != nil {
					return nil, perr
				}
				return nil, armErrorf(http.StatusConflict, "Conflict", "The %s '%s' changed while this request ran; try again.", k.label, name)
			}
			if created {
				status = http.StatusCreated
			}
		}
		op, etag = s.finishedOperation(rec.ID, nil), rec.ETag
		if k.operated != nil && !keep {
			k.operated(rec, op)
		}
		return k.view(rec), nil
	})
	if err != nil {
		return err
	}
	if k.kick {
		s.runner.kick()
	}
	w.Header().Set("ETag", etag)
	writeLROAccepted(w, r, op, status, json.RawMessage(b))
	return nil
}

// deleteChild deletes a resource: 204 when there is none, else a
// long-running operation that ends once it is gone.
func (s *Server) deleteChild(w http.ResponseWriter, r *http.Request, p params, k *childKind) error {
	var op *operation
	var removed any
	gone := false
	_, err := s.world.render(func() (any, error) {
		fleet, rec, err := s.findChild(p, k)
		if fleet == nil {
			return nil, err
		}
		if err := preconditionOf(r).check(rec, rec != nil); err != nil {
			return nil, err
		}
		if rec == nil {
			gone = true
			return nil, nil
		}
		now := s.world.clock.Now()
		if k.remove != nil {
			if op, err = k.remove(rec, now); err != nil || op != nil {
				return nil, err
			}
		} else if _, err := s.world.store.delete(rec.ID, precondition{}); err != nil {
			return nil, err
		}
		removed = rec.Value
		op = s.finishedOperation(rec.ID, nil)
		return nil, nil
	})
	if err != nil {
		return err
	}
	if gone {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if removed != nil && k.afterRemove != nil {
		if err := k.afterRemove(removed); err != nil {
			return err
		}
	}
	if k.kick {
		s.runner.kick()
	}
	writeLROAccepted(w, r, op, http.StatusAccepted, nil)
	return nil
}

// serveRecord answers a GET of one stored resource with its view and ETag.
func serveRecord[T any](s *Server, w http.ResponseWriter, find func() (*record, error), view func(*record) T) error {
	var etag string
	b, err := s.world.render(func() (any, error) {
		rec, err := find()
		if err != nil {
			return nil, err
		}
		etag = rec.ETag
		return view(rec), nil
	})
	if err != nil {
		return err
	}
	writeResource(w, etag, b)
	return nil
}

// viewOf adapts a typed view to a kind's.
func viewOf[T any](view func(*record) T) func(*record) any {
	return func(rec *record) any { return view(rec) }
}
