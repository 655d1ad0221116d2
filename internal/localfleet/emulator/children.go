package emulator

import "net/http"

// The GET and list answers every child resource of a fleet shares
// (strategies, runs, gates, auto-upgrade profiles).

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

// serveChildren answers a paged list of a fleet's resources of one type;
// keep filters the views (nil keeps all). Runs are brought up to the
// simulated now first, so the list shows what a GET of each would.
func serveChildren[T any](s *Server, w http.ResponseWriter, r *http.Request, p params, typ string, view func(*record) T, keep func(T) bool) error {
	b, err := s.world.render(func() (any, error) {
		fleet, err := s.parentFleet(p)
		if err != nil {
			return nil, err
		}
		s.advanceRuns(s.world.clock.Now())
		var all []T
		for _, rec := range s.world.store.children(fleet.ID, typ) {
			if v := view(rec); keep == nil || keep(v) {
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
