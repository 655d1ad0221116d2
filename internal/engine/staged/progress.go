package staged

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// Reading a run's status: the conditions KubeFleet v0.18.9's controller writes on the run, its
// stages and clusters (updaterun/execution.go markUpdateRun*, markStageUpdating*,
// markClusterUpdating*; updaterun/stop.go markUpdateRunStopping, recordUpdateRunStopped).

// State is where a run is.
type State string

const (
	StateInitializing         State = "Initializing"
	StateInitializationFailed State = "InitializationFailed"
	// StateInitialized: initialized with spec.state Initialize, waiting to be told to Run.
	StateInitialized State = "Initialized"
	StateProgressing State = "Progressing"
	StateWaiting     State = "Waiting"
	// StateStopping and StateStopped: spec.state Stop; the updating clusters finish first.
	StateStopping  State = "Stopping"
	StateStopped   State = "Stopped"
	StateSucceeded State = "Succeeded"
	StateFailed    State = "Failed"
)

// Ended reports whether the controller will not change the run any more.
func (s State) Ended() bool {
	return s == StateInitializationFailed || s == StateSucceeded || s == StateFailed
}

// The controller's condition reasons (pkg/utils/condition/reason.go).
const (
	reasonStopping = "UpdateRunStopping"
	reasonStopped  = "UpdateRunStopped"
)

// RunState reads the run's conditions at its generation: Initialized, then Succeeded, then
// Progressing (False: waiting, stuck or stopped; Unknown: stopping; absent while a run created
// with spec.state Initialize waits). The message is the deciding condition's.
func RunState(run *placementv1.ClusterStagedUpdateRun) (State, string) {
	conds, gen := run.Status.Conditions, run.Generation
	init := current(conds, string(placementv1.StagedUpdateRunConditionInitialized), gen)
	switch {
	case init == nil:
		return StateInitializing, ""
	case init.Status == metav1.ConditionFalse:
		return StateInitializationFailed, init.Message
	case init.Status != metav1.ConditionTrue:
		return StateInitializing, init.Message
	}
	if c := current(conds, string(placementv1.StagedUpdateRunConditionSucceeded), gen); c != nil && c.Status != metav1.ConditionUnknown {
		if c.Status == metav1.ConditionTrue {
			return StateSucceeded, c.Message
		}
		return StateFailed, c.Message
	}
	c := current(conds, string(placementv1.StagedUpdateRunConditionProgressing), gen)
	switch {
	case c == nil && run.Spec.State == placementv1.StateInitialize:
		return StateInitialized, init.Message
	case c == nil:
		return StateProgressing, init.Message
	case c.Reason == reasonStopped && c.Status == metav1.ConditionFalse:
		return StateStopped, c.Message
	case c.Reason == reasonStopping:
		return StateStopping, c.Message
	case c.Status == metav1.ConditionFalse:
		return StateWaiting, c.Message
	}
	return StateProgressing, c.Message
}

// current is the condition of type t observed at generation gen (condition.IsConditionStatus*).
func current(conds []metav1.Condition, t string, gen int64) *metav1.Condition {
	c := meta.FindStatusCondition(conds, t)
	if c == nil || c.ObservedGeneration != gen {
		return nil
	}
	return c
}

// Step states of stages and clusters.
const (
	StepNotStarted = "NotStarted"
	StepUpdating   = "Updating"
	StepWaiting    = "Waiting"
	StepSucceeded  = "Succeeded"
	StepFailed     = "Failed"
)

// Step is the state of a stage or a cluster, with its times and, when it failed or waits, why.
type Step struct {
	State    string
	Started  *time.Time
	Finished *time.Time
	Message  string
}

// StageStep reads a stage's conditions (Progressing False while its after-stage tasks wait).
func StageStep(s *placementv1.StageUpdatingStatus, gen int64) Step {
	st := Step{State: StepNotStarted, Started: timeOf(s.StartTime), Finished: timeOf(s.EndTime)}
	if c := current(s.Conditions, string(placementv1.StageUpdatingConditionSucceeded), gen); c != nil {
		if c.Status == metav1.ConditionTrue {
			st.State = StepSucceeded
		} else {
			st.State, st.Message = StepFailed, c.Message
		}
		return st
	}
	if c := current(s.Conditions, string(placementv1.StageUpdatingConditionProgressing), gen); c != nil {
		if c.Status == metav1.ConditionTrue {
			st.State = StepUpdating
		} else {
			st.State, st.Message = StepWaiting, c.Message
		}
	}
	return st
}

// ClusterStep reads a cluster's Started and Succeeded conditions.
func ClusterStep(c *placementv1.ClusterUpdatingStatus, gen int64) Step {
	st := Step{State: StepNotStarted}
	if s := current(c.Conditions, string(placementv1.ClusterUpdatingConditionStarted), gen); s != nil && s.Status == metav1.ConditionTrue {
		st.State, st.Started = StepUpdating, timeOf(&s.LastTransitionTime)
	}
	if s := current(c.Conditions, string(placementv1.ClusterUpdatingConditionSucceeded), gen); s != nil {
		st.Finished = timeOf(&s.LastTransitionTime)
		if s.Status == metav1.ConditionTrue {
			st.State = StepSucceeded
		} else {
			st.State, st.Message = StepFailed, s.Message
		}
	}
	return st
}

func timeOf(t *metav1.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// AllStages are the run's update stages followed by its deletion stage (when recorded).
func AllStages(run *placementv1.ClusterStagedUpdateRun) []*placementv1.StageUpdatingStatus {
	out := make([]*placementv1.StageUpdatingStatus, 0, len(run.Status.StagesStatus)+1)
	for i := range run.Status.StagesStatus {
		out = append(out, &run.Status.StagesStatus[i])
	}
	if d := run.Status.DeletionStageStatus; d != nil {
		out = append(out, d)
	}
	return out
}

// Steps maps every stage ("stage <name>") and cluster ("cluster <name> in <stage>") to its state:
// what a waiting apply compares between reads to log each transition.
func Steps(run *placementv1.ClusterStagedUpdateRun) map[string]string {
	out := map[string]string{}
	for _, s := range AllStages(run) {
		out["stage "+s.StageName] = StageStep(s, run.Generation).State
		for i := range s.Clusters {
			out[fmt.Sprintf("cluster %s in %s", s.Clusters[i].ClusterName, s.StageName)] = ClusterStep(&s.Clusters[i], run.Generation).State
		}
	}
	return out
}

// FailedClusters names each failed cluster with its message.
func FailedClusters(run *placementv1.ClusterStagedUpdateRun) []string {
	var out []string
	for _, s := range AllStages(run) {
		for i := range s.Clusters {
			if st := ClusterStep(&s.Clusters[i], run.Generation); st.State == StepFailed {
				out = append(out, fmt.Sprintf("cluster %s (stage %s): %s", s.Clusters[i].ClusterName, s.StageName, st.Message))
			}
		}
	}
	return out
}

// IsBefore reports whether an approval request is a before-stage one (its task type label,
// apis/placement/v1beta1/commons.go TaskTypeLabel).
func IsBefore(r *placementv1.ClusterApprovalRequest) bool {
	return r.Labels[placementv1beta1.TaskTypeLabel] == placementv1beta1.BeforeStageTaskLabelValue
}

// WaitingApprovals are the approval requests the run has made and nobody has approved yet.
func WaitingApprovals(run *placementv1.ClusterStagedUpdateRun, reqs []placementv1.ClusterApprovalRequest) []placementv1.ClusterApprovalRequest {
	var out []placementv1.ClusterApprovalRequest
	for _, r := range reqs {
		if r.Spec.TargetUpdateRun != run.Name {
			continue
		}
		if c := current(r.Status.Conditions, string(placementv1.ApprovalRequestConditionApproved), r.Generation); c != nil && c.Status == metav1.ConditionTrue {
			continue
		}
		out = append(out, r)
	}
	return out
}
