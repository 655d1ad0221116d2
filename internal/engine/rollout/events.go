package rollout

import "time"

// EventKind classifies what Advance and the actions report.
type EventKind string

const (
	EventRunState   EventKind = "RunStateChanged"
	EventStageState EventKind = "StageStateChanged"
	EventGroupState EventKind = "GroupStateChanged"
	// EventMemberStarted: the member's upgrade starts now and ends at FinishAt (Target says to what).
	EventMemberStarted EventKind = "MemberStarted"
	// EventMemberFinished: a started upgrade ended (To is Completed or Failed). On Completed the
	// caller applies Target to the cluster.
	EventMemberFinished EventKind = "MemberFinished"
	// EventMemberState: any other member transition (Pending, Skipped, Stopping, Stopped, Failed
	// because AKS rejected the upgrade, NotStarted on restart).
	EventMemberState EventKind = "MemberStateChanged"
	// EventGateState: a gate changed state; To == Pending means the run reached it and the caller
	// creates the fleets/gates resource.
	EventGateState EventKind = "GateStateChanged"
	// EventWaitState: an after-stage wait started, elapsed, was skipped or stopped.
	EventWaitState EventKind = "WaitStateChanged"
)

// Event is one thing that happened to a run, at At. Stage/Group/Member locate it.
type Event struct {
	At       time.Time
	Kind     EventKind
	Stage    string
	Group    string
	Member   string
	Gate     *GateRef
	From, To State
	Message  string
	Target   *Target
	FinishAt time.Time
}
