package rollout

import (
	"sort"
	"time"
)

// at is now, but never earlier than the run's clock.
func (r *Run) at(now time.Time) time.Time {
	if now.Before(r.Status.Clock) {
		return r.Status.Clock
	}
	return now
}

func (r *Run) active() bool {
	switch r.Status.State {
	case Running, Pending, Stopping:
		return true
	}
	return false
}

// maxSteps bounds one Advance; a run of 1,000 members needs a few thousand.
const maxSteps = 1_000_000

// Advance moves the run forward to now, processing everything that happens in between in
// time order (upgrades ending, waits elapsing, pending members re-checked), and returns what
// happened. The emulator calls it whenever its simulated clock moves (NextWake says when
// something is due); calling it more often changes nothing. f is read as it is now.
func (r *Run) Advance(f Fleet, now time.Time) []Event {
	if !r.active() {
		return nil
	}
	return r.advance(f, f.memberIndex(), now)
}

// advance is Advance with the members already indexed by name (Plan keeps one index).
func (r *Run) advance(f Fleet, idx map[string]*Member, now time.Time) []Event {
	var evs []Event
	if !r.active() {
		return evs
	}
	now = r.at(now)
	for i := 0; i < maxSteps; i++ {
		t, ok := r.nextInternal()
		if !ok || t.After(now) {
			break
		}
		r.processAt(f, idx, t, &evs)
		if !r.active() {
			return evs
		}
	}
	r.processAt(f, idx, now, &evs)
	return evs
}

// FactsChanged tells the run that the region offerings changed outside the Fleet it was given
// (a release nobody announced): members Pending for a version or image their region did not
// offer are polled again at their next poll. faq.md: "Fleet Manager polls for open maintenance
// windows every 60 minutes"; concepts-update-orchestration.md "Pending status": "Target
// Kubernetes or node image version isn't yet available in the cluster's Azure region" — so a
// member proceeds after the release, at its next poll. The polls before now found nothing.
// (Found by the hand-written oracle traces, internal/localfleet/emulator/testdata/oracle/pending.yaml.)
func (r *Run) FactsChanged(now time.Time) {
	for i := range r.Status.Stages {
		for j := range r.Status.Stages[i].Groups {
			for k := range r.Status.Stages[i].Groups[j].Members {
				m := &r.Status.Stages[i].Groups[j].Members[k]
				if m.State != Pending || m.EligibleKnown {
					continue
				}
				m.EligibleKnown, m.EligibleFrom = true, now
				if n := int64((now.Sub(m.PendingSince) - 1) / PollInterval); n >= 1 {
					if last := m.PendingSince.Add(time.Duration(n * int64(PollInterval))); last.After(m.LastChecked) {
						m.LastChecked = last
					}
				}
			}
		}
	}
}

// NextWake returns the next instant after the run's clock at which something happens on its
// own (an upgrade ends, a wait elapses, a pending member's re-check can succeed, a ScheduledStart
// gate's time comes). ok is false when nothing will happen without an action (approval, start,
// skip) or a change of the Fleet.
func (r *Run) NextWake() (time.Time, bool) {
	if !r.active() {
		return time.Time{}, false
	}
	return r.nextInternal()
}

func (r *Run) nextInternal() (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !t.After(r.Status.Clock) {
			return
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	halted := r.Status.Halt != HaltNone
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		if w := st.AfterStageWait; w != nil && w.State == Running && !halted {
			consider(w.StartTime.Add(time.Duration(w.WaitDurationInSeconds) * time.Second))
		}
		if !halted {
			scheduledWake(st.BeforeGates, consider)
			for j := range st.Groups {
				scheduledWake(st.Groups[j].BeforeGates, consider)
			}
		}
		for j := range st.Groups {
			for k := range st.Groups[j].Members {
				m := &st.Groups[j].Members[k]
				switch {
				case m.State.InFlight():
					consider(m.FinishAt)
				case m.State == Pending && !halted && m.EligibleKnown:
					consider(nextTick(m, maxTime(m.EligibleFrom, r.Status.Clock.Add(time.Nanosecond))))
				}
			}
		}
	}
	return best, found
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nextTick is the first poll of a Pending member at or after t.
func nextTick(m *MemberStatus, t time.Time) time.Time {
	if !t.After(m.PendingSince) {
		return m.PendingSince.Add(PollInterval)
	}
	n := int64((t.Sub(m.PendingSince) + PollInterval - 1) / PollInterval)
	if n < 1 {
		n = 1
	}
	return m.PendingSince.Add(time.Duration(n * int64(PollInterval)))
}

// due reports whether a Pending member has a poll at or before t that it has not had yet.
func due(m *MemberStatus, t time.Time) bool {
	if t.Before(m.PendingSince.Add(PollInterval)) {
		return false
	}
	n := int64(t.Sub(m.PendingSince) / PollInterval)
	return m.PendingSince.Add(time.Duration(n * int64(PollInterval))).After(m.LastChecked)
}

// processAt brings the run to a fixed point at instant t.
func (r *Run) processAt(f Fleet, idx map[string]*Member, t time.Time, evs *[]Event) {
	r.Status.Clock = t
	for i := 0; i < maxSteps; i++ {
		changed := r.finishMembers(t, evs)
		r.recompute(t, evs)
		if !r.active() || r.Status.Halt != HaltNone {
			return
		}
		if r.progress(f, idx, t, evs) {
			changed = true
		}
		if !changed {
			r.recompute(t, evs)
			return
		}
	}
}

// finishMembers ends the upgrades whose time has come, earliest first.
func (r *Run) finishMembers(t time.Time, evs *[]Event) bool {
	type ref struct {
		st *StageStatus
		g  *GroupStatus
		m  *MemberStatus
	}
	var done []ref
	for i := range r.Status.Stages {
		st := &r.Status.Stages[i]
		for j := range st.Groups {
			g := &st.Groups[j]
			for k := range g.Members {
				m := &g.Members[k]
				if m.State.InFlight() && !m.FinishAt.After(t) {
					done = append(done, ref{st, g, m})
				}
			}
		}
	}
	sort.SliceStable(done, func(a, b int) bool { return done[a].m.FinishAt.Before(done[b].m.FinishAt) })
	for _, d := range done {
		m := d.m
		to := Completed
		msg := ""
		if m.FailOnFinish {
			to = Failed
			msg = m.FailMessage
			if msg == "" {
				msg = "the managed cluster upgrade failed"
			}
		}
		*evs = append(*evs, Event{At: m.FinishAt, Kind: EventMemberFinished, Stage: d.st.Name, Group: d.g.Name, Member: m.Name, From: m.State, To: to, Message: msg, Target: m.Target})
		m.State = to
		m.Message = msg
		m.CompletedTime = m.FinishAt
		if to == Failed {
			// Counted even after the run halted: members in flight finish (failures.go).
			r.memberFailed(d.st, d.g, m, t, evs)
		}
	}
	return len(done) > 0
}
