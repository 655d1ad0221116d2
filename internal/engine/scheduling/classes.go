package scheduling

import (
	"strings"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// Reason classes: short, stable names for why a cluster is not picked, so a preview over thousands
// of clusters can count exclusions by reason (the reasons themselves name the cluster and its
// scores). Each class is one of the scheduler's reasons as upstream words it (or one of the few the
// preview words itself, types.go).
const (
	ClassLeft             = "left the fleet"
	ClassNotJoined        = "member agent not joined"
	ClassNoHeartbeat      = "no recent heartbeat"
	ClassUnhealthy        = "unhealthy"
	ClassSelectorMismatch = "required selector not matched"
	ClassPropertyMissing  = "property missing"
	ClassTaint            = "taint not tolerated"
	ClassTopologySpread   = "topology spread"
	ClassNotScored        = "not scored high enough"
	ClassNotNeeded        = "placement already has its clusters"
	ClassNotListed        = "not in cluster_names"
	ClassNotFound         = "not a member cluster"
	ClassNotEvaluated     = "not evaluated"
	ClassOther            = "other"
)

// reasonClasses maps a distinctive part of each reason to its class, most specific first
// (eligibility.go, affinity.go, taints.go, topology.go and types.go hold the wordings).
var reasonClasses = []struct{ part, class string }{
	{"cluster has left the fleet", ClassLeft},
	{"no recent heartbeat signals", ClassNoHeartbeat},
	{"unhealthy for a prolonged period", ClassUnhealthy},
	{"member agent not", ClassNotJoined},
	{"health condition from member agent is not available", ClassNotJoined},
	{affinityMismatchReason, ClassSelectorMismatch},
	{"cannot be tolerated", ClassTaint},
	{"topology spread constraint", ClassTopologySpread},
	{"the scheduler could not evaluate it", ClassNotEvaluated},
	{"the scheduler does not reschedule placed clusters", ClassNotNeeded},
	{"does not score high enough", ClassNotScored},
	{"is not in the policy's clusterNames", ClassNotListed},
	{"is not found", ClassNotFound},
}

// ReasonClass is the class of an exclusion reason; ClassOther for a wording it does not know.
func ReasonClass(reason string) string {
	for _, rc := range reasonClasses {
		if strings.Contains(reason, rc.part) {
			return rc.class
		}
	}
	return ClassOther
}

// classify fills each exclusion's class. A cluster the required terms reject only because it does
// not report a property they compare is told apart from one whose labels or values do not match:
// the scheduler words both alike (clusteraffinity/types.go: a missing property fails the term).
func (r *run) classify(res *Result) {
	var terms []selectorTerm
	for i := range res.Excluded {
		e := &res.Excluded[i]
		if e.Class == "" { // the most common classes are set where the reason is worded
			e.Class = ReasonClass(e.Reason)
		}
		if e.Class != ClassSelectorMismatch {
			continue
		}
		if terms == nil {
			terms = requiredTerms(r.policy)
		}
		if j, ok := r.index[e.Cluster]; ok && missesProperty(terms, &r.clusters[j]) {
			e.Class = ClassPropertyMissing
		}
	}
}

// missesProperty reports whether some required term matches the cluster's labels and fails first
// on a property the cluster does not report.
func missesProperty(terms []selectorTerm, cluster *clusterv1.MemberCluster) bool {
	for i := range terms {
		t := &terms[i]
		if ok, err := t.labelsMatch(cluster); err != nil || !ok || t.term.PropertySelector == nil {
			continue
		}
		for _, exp := range t.term.PropertySelector.MatchExpressions {
			q, err := propertyValue(cluster, exp.Name)
			if err != nil {
				break
			}
			if q == nil {
				return true
			}
			if ok, err := compareProperty(*q, exp.Operator, exp.Values); err != nil || !ok {
				break
			}
		}
	}
	return false
}
