package rollout

import (
	"strconv"
	"strings"
	"time"
)

// Failure thresholds (2026-11-01-preview fleets.json UpdateStage/UpdateGroup.maxAllowedFailures):
// "Limits the number of member (cluster) upgrade failures tolerated within this stage. Failures are
// evaluated over all members within all groups within this stage." / "... within this group.
// Failures are evaluated over members within this group only." — "A fixed count n, where n >= 0" or
// "A percentage p%, where 0 <= p <= 100 ... resolvedThreshold = ceil(p * N), where p is the
// percentage as a decimal and N is the number of members in this stage [group] at scope start."
// "\"3\" --> up to 3 member upgrade failures are tolerated within this group. The 4th failure would
// cause the entire stage to fail."
//
// Issue 36's summary of concepts-update-orchestration.md "Maximum allowed failures (preview)":
// default 0 means fail-fast; a percentage is resolved when the run is created, rounded up; stage
// and group thresholds are evaluated independently and the stage's is the ceiling; a run whose
// failures stay within the thresholds ends Completed (Completed no longer means every member
// upgraded); with maxConcurrency > 1 the failure count can exceed the threshold (members already
// in flight finish).
//
// Rules here: a group fails when its failures exceed its threshold; a stage fails when its failures
// exceed its threshold or one of its groups failed; the run fails (halts, fail-fast as before) when
// a stage fails. A failure within both thresholds is recorded (the member stays Failed, counted in
// failureCount) and the run goes on; the group counts the member as done.
//
// Choice: thresholds are resolved at NewRun. The spec says "at stage start" of "the members in this
// stage at scope start"; the members of a run are fixed when it is created (create.go), so both
// give the same number.
// Choice: an unset threshold defers to the other level. A group without maxAllowedFailures in a
// stage that has one has no limit of its own (its member count: it cannot fail more), and a stage
// without one over groups of which at least one has one sets no ceiling (its member count); with
// neither set both are 0, fail-fast, as in 2026-06-01. Why: the spec's stage example ("3" → "up to
// 3 member upgrade failures are tolerated within this stage") holds only if its groups do not fail
// at the first failure, and an implicit group (selectors.go) has no field to set.
// Choice: failures are counted from the members' current states. A restart (lifecycle.go Start)
// tries again the failures that stopped the run, which no longer count; the failures the run went
// past stay Failed and counted.

// resolveFailures turns "N" or "P%" into a count of the n members it is of; ok is false when unset.
func resolveFailures(v string, n int) (int, bool) {
	if v == "" {
		return 0, false
	}
	if p, isPct := strings.CutSuffix(v, "%"); isPct {
		pct, _ := strconv.Atoi(p)
		return (pct*n + 99) / 100, true // ceil(p/100 × n)
	}
	c, _ := strconv.Atoi(v)
	return c, true
}

// resolveStageFailures sets the stage's and its groups' MaxAllowedFailures from spec.
func resolveStageFailures(spec Stage, ss *StageStatus) {
	total := 0
	anyGroup := false
	for _, g := range spec.Groups {
		anyGroup = anyGroup || g.MaxAllowedFailures != ""
	}
	for j := range ss.Groups {
		total += len(ss.Groups[j].Members)
	}
	stageMax, stageSet := resolveFailures(spec.MaxAllowedFailures, total)
	switch {
	case stageSet:
		ss.MaxAllowedFailures = stageMax
	case anyGroup:
		ss.MaxAllowedFailures = total
	}
	for j := range ss.Groups {
		gs := &ss.Groups[j]
		var v string
		if !gs.Implicit {
			v = spec.Groups[j].MaxAllowedFailures
		}
		n := len(gs.Members)
		if limit, ok := resolveFailures(v, n); ok {
			gs.MaxAllowedFailures = limit
		} else if stageSet {
			gs.MaxAllowedFailures = n
		}
	}
}

func groupFailures(g *GroupStatus) int {
	n := 0
	for i := range g.Members {
		if g.Members[i].State == Failed {
			n++
		}
	}
	return n
}

func stageFailures(st *StageStatus) int {
	n := 0
	for j := range st.Groups {
		n += groupFailures(&st.Groups[j])
	}
	return n
}

// groupOverLimit: the group failed ("The 4th failure would cause the entire stage to fail").
func groupOverLimit(g *GroupStatus) bool { return groupFailures(g) > g.MaxAllowedFailures }

// stageOverLimit: the stage's own threshold is exceeded (the ceiling over its groups).
func stageOverLimit(st *StageStatus) bool { return stageFailures(st) > st.MaxAllowedFailures }

// memberFailed is called once a member of g in st became Failed: the run halts (fail) when a
// threshold is exceeded, otherwise the failure is tolerated and the run goes on.
func (r *Run) memberFailed(st *StageStatus, g *GroupStatus, m *MemberStatus, t time.Time, evs *[]Event) {
	if groupOverLimit(g) || stageOverLimit(st) {
		r.fail(t, evs)
		return
	}
	if r.Status.Halt == HaltNone {
		m.FailureTolerated = true
	}
}
