package emulator

import "time"

// NextWake is the next simulated instant at which something is due on its
// own (an upgrade ends, a wait elapses, a Pending member is re-checked), after
// every run has been brought to the current simulated time. ok is false when
// nothing will happen without a request (start, approve, skip) or a release.
//
// It is for tests that drive the emulator's clock by hand (simclock.Manual):
// they move the clock to the next instant instead of stepping blindly. It
// tells them when to look, never what the rules decided: what happened is
// read over HTTP like any client does.
func (s *Server) NextWake() (time.Time, bool) {
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	s.advanceRuns(w.clock.Now())
	return s.nextWake()
}

// Now is the emulator's simulated time (the Date header of its answers).
func (s *Server) Now() time.Time { return s.world.clock.Now() }
