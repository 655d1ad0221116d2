// Package scheduling reproduces KubeFleet's scheduler (go.goms.io/fleet v0.18.9, the version the
// local fleet's hub agent runs) as pure functions over KubeFleet's own API types: which member
// clusters a ClusterResourcePlacement picks, with which scores, why every other cluster is left
// out, and what the Scheduled condition will say.
//
// It has no I/O and no globals; the clock comes in through Input.Now. Each rule cites, in a one-line
// comment, the upstream file it reproduces (paths relative to go.goms.io/fleet@v0.18.9).
//
// Where the shared reference (shared/reference/kubefleet-scheduling.md, written from newer
// KubeFleet) and v0.18.9 differ, this package follows v0.18.9 and says so in a comment marked
// "v0.18.9:". Where v0.18.9 changed what v0.14.0 did, the comment says so too.
package scheduling

import (
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Input is everything one scheduling decision depends on.
type Input struct {
	// Policy is the placement's scheduling policy; nil means PickAll (as upstream).
	Policy *placementv1.PlacementPolicy
	// Clusters is every MemberCluster on the hub (the scheduler's informer cache): property
	// extremes and topology domains span all of them, not only the eligible ones.
	Clusters []clusterv1.MemberCluster
	// Bindings are the placement's existing ClusterResourceBindings (see BindingsFromAPI).
	Bindings []Binding
	// PolicyChanged says the policy being scheduled differs from the one the bindings marked
	// Current were made for in anything but numberOfClusters, so the hub agent will cut a new
	// policy snapshot and every existing binding becomes obsolete (see NeedsNewSnapshot).
	PolicyChanged bool
	// Now is the hub's current time (eligibility compares heartbeats against it).
	Now time.Time
}

// Binding is what the scheduler reads from one ClusterResourceBinding.
type Binding struct {
	// Cluster is spec.targetCluster.
	Cluster string
	// State is spec.state: Scheduled, Bound or Unscheduled.
	State placementv1.BindingState
	// PreviousState is the kubernetes-fleet.io/previous-binding-state annotation of an
	// Unscheduled binding: the state it returns to if the scheduler picks its cluster again.
	PreviousState placementv1.BindingState
	// Score is spec.clusterDecision.clusterScore as recorded when the cluster was picked; nil if
	// none was recorded (PickAll/PickFixed picks and hand-made bindings).
	Score *Score
	// Current says spec.schedulingPolicySnapshotName is the placement's latest policy snapshot.
	Current bool
	// Deleting says the binding has a deletionTimestamp; the scheduler ignores it.
	Deleting bool
}

// Score is a cluster's score as the scheduler records it in a binding.
type Score struct {
	AffinityScore       int32
	TopologySpreadScore int32
}

// Change says what happens to a picked cluster.
type Change string

const (
	// ChangeKept marks a cluster that already has a scheduled or bound binding of this placement
	// and keeps it.
	ChangeKept Change = "kept"
	// ChangeAdded marks a cluster that gets a new binding (or has an Unscheduled one revived).
	ChangeAdded Change = "added"
)

// Pick is one selected cluster.
type Pick struct {
	Cluster             string
	AffinityScore       int32
	TopologySpreadScore int32
	Change              Change
}

// Exclusion is a member cluster (or, for PickFixed, a listed name) that is not selected.
type Exclusion struct {
	Cluster string
	// Reason is worded as the scheduler words it in the policy snapshot's cluster decisions where
	// the scheduler gives one (see the constants below for the few the preview words itself).
	Reason string
	// Class is the reason's short, stable class (classes.go), for counting exclusions by reason.
	Class string
}

// Result is the outcome of scheduling a placement until the hub agent would stop requeueing it.
type Result struct {
	// Selected lists the picked clusters in rank order: picks kept without re-evaluation first
	// (by recorded score, as the scheduler ranks), then clusters in the order the scheduler picks
	// them (one per cycle under topology spread constraints).
	Selected []Pick
	// Trimmed lists clusters whose scheduled/bound bindings the scheduler marks Unscheduled: left
	// or leaving clusters, obsolete bindings not picked again, and scale-in victims, in that order.
	Trimmed []string
	// Excluded lists every other member cluster with the reason it is not picked.
	Excluded []Exclusion
	// Fulfilled is the Scheduled condition's status (True/False).
	Fulfilled bool
	// Reason and Message are the Scheduled condition's reason and message as upstream words them.
	Reason  string
	Message string
	// Cycles is the number of scheduling cycles the hub agent runs (more than one under topology
	// spread constraints, which pick one cluster per cycle).
	Cycles int
}

// Condition reasons and messages (pkg/scheduler/framework/framework.go).
const (
	ReasonFulfilled   = "SchedulingPolicyFulfilled"
	ReasonUnfulfilled = "SchedulingPolicyUnfulfilled"

	fullyScheduledMessage    = "found all cluster needed as specified by the scheduling policy, found %d cluster(s)"
	notFullyScheduledMessage = "could not find all clusters needed as specified by the scheduling policy, found %d cluster(s) instead"

	pickFixedInvalidClusterReasonTemplate  = "Cluster \"%s\" is not eligible for resource placement yet: %s"
	pickFixedNotFoundClusterReasonTemplate = "Specified cluster \"%s\" is not found"
	notPickedByScoreReasonTemplate         = "Cluster \"%s\" does not score high enough (affinity score: %d, topology spread score: %d)"
)

// Reasons the scheduler itself never writes (it lists no decision for these clusters); the preview
// words them so that every member cluster has one.
const (
	// notNeededReasonTemplate: a PickN placement that already has its clusters runs no cycle and
	// never rebalances; the scores are what the cluster would get if a cycle ran now.
	notNeededReasonTemplate = "Cluster \"%s\" is not picked: the placement already has the %d cluster(s) it needs and the scheduler does not reschedule placed clusters (affinity score: %d, topology spread score: %d)"
	// notListedReasonTemplate: a cluster a PickFixed policy does not name.
	notListedReasonTemplate = "Cluster \"%s\" is not in the policy's clusterNames"
	// notEvaluatedReasonTemplate: the what-if evaluation behind notNeededReasonTemplate failed.
	notEvaluatedReasonTemplate = "Cluster \"%s\" is not picked: the placement already has the cluster(s) it needs; the scheduler could not evaluate it: %v"
)
