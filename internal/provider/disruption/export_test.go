package disruption

import "k8s.io/apimachinery/pkg/runtime/schema"

// What the external tests (package disruption_test) use of the package's own names.

const NodePoolFieldManager = nodePoolFieldManager

type FieldOwner = fieldOwner

var (
	FieldOwners               = fieldOwners
	NodeClaimGVR              = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}
	NodePoolGVR               = nodePoolGVR
	NpOwnedPaths              = npOwnedPaths
	NpPathBudgets             = npPathBudgets
	NpPathConsolidateAfter    = npPathConsolidateAfter
	NpPathConsolidationPolicy = npPathConsolidationPolicy
	NpPathDoNotDisrupt        = npPathDoNotDisrupt
	NpPathExpireAfter         = npPathExpireAfter
	NpPathTerminationGrace    = npPathTerminationGrace
)
